"""``content query|insert|delete --uri URI ...``: the platform's content tool, for the providers the device has.

Arguments and output as the framework's ``Content.java`` (frameworks/base cmds/content): ``--uri`` is required,
``--projection a:b`` is colon separated, ``--where`` and ``--sort`` are SQL, ``--bind COLUMN:TYPE:VALUE`` with
TYPE one of ``b s i l f d``; a query prints ``Row: <n> col=value, col=value`` per row (``NULL`` for a null,
integers in full, as in android_world's example ``Row: 0 _id=2, address=+1111, date=1693421073675, body=Yo``,
sms_validators.py:104-108) or ``No result found.``; an unknown operation prints the usage and
``[ERROR] Unsupported operation: <op>``. Providers: ``content://sms`` (the Telephony provider,
:mod:`emukit.vdevice.services.telephony`) and ``content://media/external/{images,video,audio}/media[/ID]``,
``content://media/external/file[/ID]`` (MediaProvider's index, :mod:`emukit.vdevice.services.mediastore`: query
and delete; without ``--projection`` the collection's default columns in the provider's order). Any other authority
fails as on a device without it: ``Error while accessing provider:<authority>`` on stderr.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.services.mediastore import AUTHORITY as MEDIA_AUTHORITY
from emukit.vdevice.services.mediastore import MediaStoreError
from emukit.vdevice.services.telephony import TelephonyError
from emukit.vdevice.shell.commands.base import Ctx, command

USAGE = ("usage: adb shell content [subcommand] [options]\n\n"
         "usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]\n"
         "usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>]\n"
         "usage: adb shell content delete --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...] "
         "[--where <WHERE>]\n"
         "usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] "
         "[--where <WHERE>] [--sort <SORT_ORDER>]\n")
_OPTIONS = {"query": ("--uri", "--user", "--projection", "--where", "--sort"),
            "delete": ("--uri", "--user", "--where"),
            "insert": ("--uri", "--user", "--bind")}


class _Usage(Exception):
    """Bad arguments: the tool prints its usage and ``[ERROR] <message>``."""


def _bind(text: str) -> tuple[str, Any]:
    column, sep1, rest = text.partition(":")
    kind, sep2, value = rest.partition(":")
    if not (column and sep1 and sep2):
        raise _Usage(f"Binding not well formed: {text}")
    if kind == "s":
        return column, value
    if kind.lower() == "b":
        return column, value.lower() == "true"
    if kind.lower() in ("i", "l"):
        return column, int(value)
    if kind.lower() in ("f", "d"):
        return column, float(value)
    raise _Usage(f"Unsupported type: {kind}")


def _parse(args: list[str]) -> tuple[str, dict[str, Any]]:
    if not args or args[0] not in _OPTIONS:
        raise _Usage(f"Unsupported operation: {args[0] if args else None}")
    op, opts = args[0], {"bind": {}}
    it = iter(args[1:])
    for arg in it:
        if arg not in _OPTIONS[op]:
            raise _Usage(f"Unsupported argument: {arg}")
        value = next(it, None)
        if not value or value.startswith("--"):
            raise _Usage(f"No value for argument: {arg}")
        if arg == "--bind":
            column, v = _bind(value)
            opts["bind"][column] = v
        else:
            opts[arg[2:]] = value
    if "uri" not in opts:
        raise _Usage("Content provider URI not specified. Did you specify --uri argument?")
    if op == "insert" and not opts["bind"]:
        raise _Usage("Bindings not specified. Did you specify --bind argument(s)?")
    return op, opts


def _value(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "BLOB"
    return str(v)


@command("content")
def content(ctx: Ctx) -> int:
    try:
        op, opts = _parse(list(ctx.args))
    except _Usage as exc:
        ctx.write(USAGE + "\n" + f"[ERROR] {exc}\n")
        return 0
    uri = opts["uri"]
    authority = uri.removeprefix("content://").split("/", 1)[0]
    provider = ctx.device.media.store if authority == MEDIA_AUTHORITY else ctx.device.telephony
    try:
        if provider is ctx.device.telephony:
            provider.box_of(uri)
        else:
            provider.collection_of(uri)
    except (TelephonyError, MediaStoreError) as exc:
        ctx.ewrite(f"Error while accessing provider:{authority}\n"
                   f"java.lang.IllegalArgumentException: {exc}\n")
        return 0
    try:
        if op == "query":
            projection = [p.strip() for p in opts["projection"].split(":")] if "projection" in opts else None
            names, rows = provider.query(uri, projection=projection, where=opts.get("where"),
                                         sort=opts.get("sort"))
            if not rows:
                ctx.write("No result found.\n")
            for i, row in enumerate(rows):
                ctx.write(f"Row: {i} " + ", ".join(f"{n}={_value(v)}" for n, v in zip(names, row)) + "\n")
        elif op == "delete":
            provider.delete(uri, where=opts.get("where"))
        elif provider is ctx.device.telephony:
            provider.content_insert(uri, dict(opts["bind"]))
        else:
            raise MediaStoreError("content insert into MediaStore is not modelled (scan or push files instead)")
    except (TelephonyError, MediaStoreError) as exc:
        ctx.ewrite(f"Error while accessing provider:{authority}\njava.lang.IllegalArgumentException: {exc}\n")
    return 0
