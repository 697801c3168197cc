"""Package manager and service front ends: ``pm``, ``cmd`` (package, activity, window, statusbar,
input_method, settings), ``ime`` and ``service``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.base import COMMANDS, Ctx, command
from emukit.vdevice.services.mediastore import PROVIDER as MEDIA_PROVIDER
from emukit.vdevice.shell.commands.fsutil import app_uid, remove_tree, stamp_new

if TYPE_CHECKING:
    from emukit.vdevice.apps.base import App
    from emukit.vdevice.device import VirtualDevice

STANDARD_DATA_DIRS = ("shared_prefs", "databases", "files")
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
#: system packages the image ships that are not apps of the virtual device: MediaProvider's mainline module, the
#: Google-signed build the pinned image has (emukit/vdevice/services/mediastore.py keeps its index)
SYSTEM_MODULES = (MEDIA_PROVIDER,)
SERVICES = ("activity", "alarm", "appops", "battery", "display", "input", "input_method", "notification", "package",
            "power", "settings", "statusbar", "window")


def is_system(app: App) -> bool:
    flag = getattr(app, "system", None)
    if flag is not None:
        return bool(flag)
    return app.package.startswith(("com.android.", "com.google.android.", "android"))


def apk_path(package: str) -> str:
    return f"/data/app/{package}-1/base.apk"


def input_methods(device: VirtualDevice) -> list[str]:
    ids = [LATIN_IME]
    for pkg in sorted(device.apps):
        ids.extend(getattr(device.apps[pkg], "input_methods", ()))
    return ids


# ------------------------------------------------------------------------------------------ pm
@command("pm")
def pm(ctx: Ctx) -> int:
    args = [a for a in ctx.args]
    if not args:
        return ctx.fail("usage: pm [list|path|clear|grant|revoke|enable|disable|dump|resolve-activity] ...")
    sub = args.pop(0)
    while "--user" in args:
        idx = args.index("--user")
        del args[idx:idx + 2]
    device = ctx.device
    if sub == "list":
        return _pm_list(ctx, args)
    if sub == "path":
        pkgs = [a for a in args if not a.startswith("-")]
        if not pkgs or pkgs[0] not in device.apps:
            return 1
        ctx.write(f"package:{apk_path(pkgs[0])}\n")
        return 0
    if sub == "clear":
        pkgs = [a for a in args if not a.startswith("-")]
        if not pkgs or pkgs[0] not in device.apps:
            ctx.write("Failed\n")
            return 1
        clear_data(device, pkgs[0])
        ctx.write("Success\n")
        return 0
    if sub in ("grant", "revoke", "reset-permissions", "set-permission-flags"):
        if args and args[0] not in device.apps and sub != "reset-permissions":
            ctx.ewrite(f"Exception occurred while executing '{sub}':\n"
                       f"java.lang.IllegalArgumentException: Unknown package: {args[0]}\n")
            return 255
        if sub in ("grant", "revoke") and device.hardware:
            return _grant(ctx, sub, args)
        return 0
    if sub in ("enable", "disable", "disable-user", "default-state"):
        if not args or args[-1] not in device.apps:
            ctx.ewrite(f"Error: Unknown package: {args[-1] if args else ''}\n")
            return 1
        state = {"enable": "enabled", "disable": "disabled", "disable-user": "disabled-user",
                 "default-state": "default"}[sub]
        ctx.write(f"Package {args[-1]} new state: {state}\n")
        return 0
    if sub == "dump":
        return ctx.run(["dumpsys", "package"] + args)
    if sub == "resolve-activity":
        return _resolve_activity(ctx, args)
    if sub == "install":
        return _install(ctx, args)
    if sub in ("install-create", "install-write", "install-commit", "install-existing"):
        ctx.write(f"Failure [INSTALL_FAILED_INTERNAL_ERROR: pm {sub} is not supported here; use pm install "
                  "PATH]\n")
        return 1
    if sub == "uninstall":
        return _uninstall(ctx, args)
    if sub == "get-install-location":
        ctx.write("0[auto]\n")
        return 0
    if sub == "list-users" or sub == "get-max-users":
        return _pm_list(ctx, ["users"])
    ctx.ewrite(f"Unknown command: {sub}\n")
    return 255


# ------------------------------------------------------------------------------------------ pm install / uninstall
# ``pm install`` options (PackageManagerShellCommand.makeInstallParams): those taking a value, and the flags.
_INSTALL_VALUE_OPTS = {"-i", "--user", "-S", "--install-reason", "--abi", "-p", "--originating-uri",
                       "--referrer", "--pkg", "--install-location", "--force-uuid", "--staged-ready-timeout"}


def _install(ctx: Ctx, args: list[str]) -> int:
    """``pm install [-r] [-t] [-g] [-d] [-S SIZE] PATH`` (``cmd package install`` reaches the same code; with
    ``-S`` the APK arrives on stdin, as ``adb install`` streams it). ``-r`` is the default on current releases
    (replace is always allowed); ``-d`` allows a downgrade; ``-g`` grants the manifest's runtime permissions.
    Only emukit stand-ins install here."""
    from emukit.provision.standin import read_standin

    flags: set[str] = set()
    values: dict[str, str] = {}
    paths: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _INSTALL_VALUE_OPTS and i + 1 < len(args):
            values[arg] = args[i + 1]
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            flags.add(arg)
        else:
            paths.append(arg)
        i += 1
    if "-S" in values:
        data = ctx.read_stdin()
        source = "stdin"
        try:
            size = int(values["-S"])
        except ValueError:
            ctx.ewrite(f"Error: invalid size {values['-S']}\n")
            return 1
        if len(data) != size:
            ctx.write(f"Failure [INSTALL_FAILED_INVALID_APK: Expected {size} bytes, got {len(data)}]\n")
            return 1
    else:
        if not paths:
            ctx.ewrite("Error: must either specify a package size or an APK file\n")
            return 1
        source = paths[0]
        try:
            data = ctx.fs.read_bytes(source, ctx.cwd)
        except OSError:
            ctx.ewrite(f"Exception occurred while executing 'install':\n"
                       f"java.lang.IllegalArgumentException: Error: Can't open file: {source}\n")
            return 255
    manifest = read_standin(data)
    if manifest is None:
        ctx.write(f"Failure [INSTALL_FAILED_INVALID_APK: Failed to parse {source}: not an APK stand-in this "
                  "device can install]\n")
        return 1
    failure = ctx.device.install_package(manifest.package, manifest.version_code, manifest.version_name, data,
                                         downgrade="-d" in flags, grant_all="-g" in flags)
    if failure is not None:
        ctx.write(f"Failure [{failure}]\n")
        return 1
    ctx.write("Success\n")
    return 0


def _uninstall(ctx: Ctx, args: list[str]) -> int:
    """``pm uninstall [-k] [--user N] PKG``: "Success", or DELETE_FAILED_INTERNAL_ERROR for a package that
    is not installed or is part of the image."""
    pkgs = [a for a in args if not a.startswith("-")]
    if not pkgs:
        ctx.ewrite("Error: package name not specified\n")
        return 1
    if ctx.device.uninstall_package(pkgs[0], keep_data="-k" in args):
        ctx.write("Success\n")
        return 0
    ctx.write("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    return 1


def _grant(ctx: Ctx, sub: str, args: list[str]) -> int:
    """``pm grant|revoke PKG PERM`` on the hardware-like device: only a runtime permission the manifest
    requests can change (PermissionManagerServiceImpl: "has not requested permission")."""
    device = ctx.device
    if len(args) < 2:
        return ctx.fail(f"Error: no permission specified for '{sub}'", 1)
    pkg, perm = args[0], args[1]
    app = device.app(pkg)
    if perm not in app.runtime_permissions:
        ctx.ewrite(f"Exception occurred while executing '{sub}':\n"
                   f"java.lang.SecurityException: Package {pkg} has not requested permission {perm}\n")
        return 255
    device.grant_permission(pkg, perm, granted=sub == "grant")
    return 0


def _pm_list(ctx: Ctx, args: list[str]) -> int:
    what = args.pop(0) if args else ""
    device = ctx.device
    if what in ("packages", "package"):
        flags = {a for a in args if a.startswith("-")}
        filters = [a for a in args if not a.startswith("-")]
        for pkg in sorted({*device.apps, *SYSTEM_MODULES}):
            app = device.apps.get(pkg)
            system = app is None or is_system(app)  # a module is a system package
            if "-3" in flags and system or "-s" in flags and not system:
                continue
            if "-d" in flags or (filters and not any(f in pkg for f in filters)):
                continue
            line = f"package:{apk_path(pkg)}={pkg}" if "-f" in flags else f"package:{pkg}"
            if app is not None:  # a module's versionCode is not one the virtual device could vouch for
                if "--show-versioncode" in flags:
                    line += f" versionCode:{device.version_code(pkg)}"
                if "-i" in flags:
                    line += "  installer=null"
                if "-U" in flags:
                    line += f" uid:{app_uid(device, pkg)}"
            ctx.write(line + "\n")
        return 0
    if what == "users":
        ctx.write("Users:\n\tUserInfo{0:Owner:c13} running\n")
        return 0
    if what == "features":
        for feature in ("android.hardware.touchscreen", "android.hardware.wifi", "android.hardware.screen.portrait",
                        "android.software.input_methods", "reqGlEsVersion=0x30002"):
            ctx.write(("feature:" if "=" not in feature else "") + feature + "\n")
        return 0
    if what in ("permissions", "permission-groups", "instrumentation", "libraries"):
        if what == "permissions":
            ctx.write("All Permissions:\n\n")
        return 0
    return ctx.fail(f"Error: unknown list type '{what}'")


def _resolve_activity(ctx: Ctx, args: list[str]) -> int:
    brief = "--brief" in args
    values = {"-a", "-c", "-d", "-t", "-n", "--user", "--components"}
    rest: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in values:
            skip = True
        elif not arg.startswith("-"):
            rest.append(arg)
    pkg = rest[-1].split("/")[0] if rest else ""
    app = ctx.device.apps.get(pkg)
    if app is None:
        ctx.write("No activity found\n")
        return 0
    full = app.full_activity(app.launcher_activity)
    ctx.write("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n")
    if brief:
        ctx.write(f"{pkg}/{full}\n")
    else:
        ctx.write(f"ActivityInfo:\n  name={full}\n  packageName={pkg}\n"
                  "  enabled=true exported=true directBootAware=false\n")
    return 0


def clear_data(device: VirtualDevice, package: str) -> None:
    """``pm clear``: stop the app and wipe its private and external data, keeping the standard folders, and
    put its runtime permissions and app-ops back to the install defaults (PackageManagerService's
    clearApplicationUserData resets the user's permission choices). The first-run flags live in the app's
    shared prefs, so its first-run screens come back (hardware mode; the deterministic mode's apps are
    always past them)."""
    device.force_stop(package)
    fs = device.fs
    for base in (f"/data/data/{package}", f"/storage/emulated/0/Android/data/{package}"):
        host = fs.host(base)
        if not host.is_dir():
            continue
        for child in sorted(host.iterdir()):
            if child.is_dir() and not child.is_symlink():
                remove_tree(child)
            else:
                os.unlink(child)
    for name in STANDARD_DATA_DIRS:
        created = fs.makedirs(f"/data/data/{package}/{name}")
        stamp_new(device, created)
    device.reset_permissions(package)
    hook = getattr(device.apps[package], "on_data_cleared", None)
    if callable(hook):
        hook(device)


# ------------------------------------------------------------------------------------------ cmd, ime, service
@command("cmd", unlocked=True)
def cmd(ctx: Ctx) -> int:
    if not ctx.args or ctx.args[0] == "-l":
        ctx.write("Currently running services:\n" + "".join(f"  {s}\n" for s in SERVICES))
        return 0
    service, rest = ctx.args[0], list(ctx.args[1:])
    mapping = {"package": "pm", "activity": "am", "window": "wm", "input_method": "ime", "settings": "settings",
               "statusbar": "statusbar", "input": "input", "appops": "appops"}
    if service not in mapping:
        ctx.ewrite(f"cmd: Can't find service: {service}\n")
        return 20
    target = mapping[service]
    if target == "statusbar":
        with ctx.device.lock:
            return _statusbar(ctx, rest)
    if target not in COMMANDS:
        return ctx.fail(f"Can't find service: {service}", 20)
    return ctx.run([target] + rest)


def _statusbar(ctx: Ctx, args: list[str]) -> int:
    verb = args[0] if args else ""
    wm = ctx.device.wm
    if verb in ("expand-notifications", "expand-settings"):
        wm.expand_notifications()
        return 0
    if verb == "collapse":
        wm.collapse_notifications()
        return 0
    ctx.ewrite("usage: cmd statusbar [expand-notifications|expand-settings|collapse]\n")
    return 1


@command("ime")
def ime(ctx: Ctx) -> int:
    args = list(ctx.args)
    sub = args.pop(0) if args else ""
    settings = ctx.device.state.settings.setdefault("secure", {})
    known = input_methods(ctx.device)
    enabled = [i for i in settings.get("enabled_input_methods", LATIN_IME).split(":") if i]
    flags = {a for a in args if a.startswith("-")}
    ids = [a for a in args if not a.startswith("-")]
    if sub == "list":
        shown = known if "-a" in flags else [i for i in known if i in enabled]
        for ime_id in shown:
            if "-s" in flags:
                ctx.write(ime_id + "\n")
            else:
                pkg, cls = ime_id.split("/")
                ctx.write(f"{ime_id}:\n  mId={ime_id} mSettingsActivityName=null\n"
                          f"  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000\n"
                          f"    ServiceInfo:\n      name={pkg + cls if cls.startswith('.') else cls}\n"
                          f"      packageName={pkg}\n")
        return 0
    if sub in ("enable", "disable", "set"):
        if not ids:
            return ctx.fail(f"Error: no input method specified for '{sub}'")
        ime_id = ids[0]
        if ime_id not in known:
            ctx.write(f"Unknown input method {ime_id} cannot be {'selected' if sub == 'set' else sub + 'd'} "
                      "for user #0\n")
            return 255
        if sub == "set":
            settings["default_input_method"] = ime_id
            if ime_id not in enabled:
                enabled.append(ime_id)
            settings["enabled_input_methods"] = ":".join(enabled)
            ctx.write(f"Input method {ime_id} selected for user #0\n")
            return 0
        already = (ime_id in enabled) == (sub == "enable")
        if sub == "enable" and not already:
            enabled.append(ime_id)
        elif sub == "disable" and not already:
            enabled.remove(ime_id)
        settings["enabled_input_methods"] = ":".join(enabled)
        state = "already" if already else "now"
        ctx.write(f"Input method {ime_id}: {state} {sub}d for user #0\n")
        return 0
    if sub == "reset":
        settings["default_input_method"] = LATIN_IME
        settings["enabled_input_methods"] = LATIN_IME
        ctx.write(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n   Enabled: {LATIN_IME}\n")
        return 0
    return ctx.fail("usage: ime list|enable|disable|set|reset [options]")


@command("service")
def service(ctx: Ctx) -> int:
    args = list(ctx.args)
    sub = args.pop(0) if args else ""
    if sub == "list":
        ctx.write(f"Found {len(SERVICES)} services:\n" +
                  "".join(f"{i}\t{s}: [android.I{s.title().replace('_', '')}]\n" for i, s in enumerate(SERVICES)))
        return 0
    if sub == "check" and args:
        ctx.write(f"Service {args[0]}: {'found' if args[0] in SERVICES else 'not found'}\n")
        return 0
    if sub == "call" and len(args) >= 2:
        if args[0] == "statusbar" and args[1] in ("1", "2"):
            if args[1] == "1":
                ctx.device.wm.expand_notifications()
            else:
                ctx.device.wm.collapse_notifications()
        ctx.write("Result: Parcel(00000000    '....')\n")
        return 0
    return ctx.fail("usage: service [-h|-?] | list | check SERVICE | call SERVICE CODE [i32 N | s16 STR] ...")
