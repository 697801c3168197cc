"""``appops`` (and ``cmd appops``): the app-op modes the package manager records for each package.

Shaped after AppOpsService's shell command (frameworks/base ``services/core/java/com/android/server/appop/
AppOpsService.java``, ``onShellCommand``): ``set`` prints nothing; ``get`` prints ``OP: mode`` per op with
``Uid mode: `` before the uid's ops, or ``No operations.`` followed by ``Default mode: ...`` when one op was
asked for and none is set; ``reset`` prints ``Reset all modes for: user 0, package PKG``. Modes are
allow, ignore, deny, foreground and default (setting ``default`` removes the override).

The hardware-like device consults the recorded modes (Markor's all-files access is the app-op
MANAGE_EXTERNAL_STORAGE, which Settings' "Allow access to manage all files" switch sets too); the
deterministic device records them but every app runs as permitted.
"""

from __future__ import annotations

from emukit.vdevice.shell.commands.base import Ctx, command

MODES = ("allow", "ignore", "deny", "foreground", "default")
# AppOpsManager.opToDefaultMode for the ops the virtual device knows; the rest default to allow
DEFAULT_MODES = {"MANAGE_EXTERNAL_STORAGE": "default", "SCHEDULE_EXACT_ALARM": "default", "WRITE_SETTINGS": "default",
                 "SYSTEM_ALERT_WINDOW": "default", "REQUEST_INSTALL_PACKAGES": "default",
                 "GET_USAGE_STATS": "default"}
KNOWN_OPS = frozenset(DEFAULT_MODES) | {"POST_NOTIFICATION", "RUN_IN_BACKGROUND", "RUN_ANY_IN_BACKGROUND",
                                        "LEGACY_STORAGE", "READ_MEDIA_AUDIO", "READ_EXTERNAL_STORAGE",
                                        "WRITE_EXTERNAL_STORAGE", "CAMERA", "RECORD_AUDIO", "BLUETOOTH_CONNECT"}
USAGE = ("AppOps service (appops) commands:\n  set [--user <USER_ID>] [--uid] <PACKAGE | UID> <OP> <MODE>\n"
         "  get [--user <USER_ID>] [--uid] <PACKAGE | UID> [<OP>]\n  reset [--user <USER_ID>] [<PACKAGE>]\n")


def _op_name(text: str) -> str | None:
    """``MANAGE_EXTERNAL_STORAGE`` or ``android:manage_external_storage`` -> the op's name."""
    name = text.split(":", 1)[1] if text.startswith("android:") else text
    name = name.upper()
    return name if name in KNOWN_OPS else None


@command("appops")
def appops(ctx: Ctx) -> int:
    args = list(ctx.args)
    sub = args.pop(0) if args else ""
    while "--user" in args:
        idx = args.index("--user")
        del args[idx:idx + 2]
    args = [a for a in args if a != "--uid"]
    device = ctx.device
    if sub == "reset":
        pkg = args[0] if args else None
        for name, entry in device.state.packages.items():
            if pkg is None or name == pkg:
                entry.app_ops = {}
        ctx.write(f"Reset all modes for: user 0, {'package ' + pkg if pkg else 'all packages'}\n")
        return 0
    if sub not in ("set", "get"):
        ctx.write(USAGE)
        return 0 if sub in ("", "help", "-h") else 255
    if not args:
        ctx.ewrite("Error: No UID or package specified.\n")
        return 255
    pkg = args[0]
    if pkg not in device.apps:
        ctx.ewrite(f"Error: No UID for {pkg} in user 0\n")
        return 255
    op = None
    if len(args) > 1:
        op = _op_name(args[1])
        if op is None:
            ctx.ewrite(f"Error: Unknown operation string: {args[1]}\n")
            return 255
    if sub == "set":
        if op is None:
            ctx.ewrite("Error: Operation not specified.\n")
            return 255
        if len(args) < 3:
            ctx.ewrite("Error: Mode not specified.\n")
            return 255
        mode = args[2]
        if mode not in MODES:
            ctx.ewrite(f"Error: Mode {mode} is not valid\n")
            return 255
        device.set_app_op(pkg, op, mode)
        return 0
    entry = device.state.packages.get(pkg)
    ops = dict(entry.app_ops) if entry is not None else {}
    if op is not None:
        ops = {op: ops[op]} if op in ops else {}
    if not ops:
        ctx.write("No operations.\n")
        if op is not None:
            ctx.write(f"Default mode: {DEFAULT_MODES.get(op, 'allow')}\n")
        return 0
    first = True
    for name in sorted(ops):
        ctx.write(("Uid mode: " if first else "") + f"{name}: {ops[name]}\n")
        first = False
    return 0
