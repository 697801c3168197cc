"""The activity manager front ends: ``am`` (start, force-stop, kill, broadcast, stack/task list...) and
``monkey -p PKG``. Intents are parsed like ``am``'s intent options; starting an activity goes through
``device.start_activity``."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

ACTION_MAIN = "android.intent.action.MAIN"
CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER"
MEDIA_SCAN = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"
FLAG_NEW_TASK = 0x10000000
# ``--include-stopped-packages`` -> Intent.FLAG_INCLUDE_STOPPED_PACKAGES (``Intent.parseCommandArgs``,
# aosp-mirror/platform_frameworks_base 426c31323cb8 core/java/android/content/Intent.java), shown in "flg="
FLAG_INCLUDE_STOPPED_PACKAGES = 0x20
# SystemUI demo mode's broadcast action (frameworks/base packages/SystemUI/docs/demo_mode.md)
DEMO_ACTION = "com.android.systemui.demo"

_VALUE_EXTRAS = {"--es": str, "-e": str, "--ei": int, "--el": int, "--ef": float, "--ed": float,
                 "--eu": str, "--ecn": str, "--eia": str, "--eial": str, "--ela": str, "--elal": str,
                 "--efa": str, "--efal": str, "--esa": str, "--esal": str, "--ez": bool}
_VALUE_OPTS = {"-a", "-d", "-t", "-c", "-n", "-f", "-p", "-i", "--user", "-P", "--start-profiler",
               "--sampling", "-R", "--attach-agent", "--attach-agent-bind", "--windowingMode",
               "--activityType", "--display", "--task", "--receiver-permission", "--identifier",
               "--task-overlay", "--lock-task", "--allow-background-activity-starts"}


def full_class(package: str, cls: str) -> str:
    return package + cls if cls.startswith(".") else cls


def short_component(package: str, cls: str) -> str:
    """``ComponentName.flattenToShortString()``: ``pkg/.Cls`` when the class is in the package."""
    full = full_class(package, cls)
    return f"{package}/{full[len(package):]}" if full.startswith(package + ".") else f"{package}/{full}"


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    categories: list[str] = field(default_factory=list)
    package: str | None = None
    component: tuple[str, str] | None = None
    flags: int = 0
    extras: dict[str, str] = field(default_factory=dict)
    options: dict[str, str | bool] = field(default_factory=dict)

    def short(self, with_flags: int = 0) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append("cat=[" + ",".join(self.categories) + "]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        flags = self.flags | with_flags
        if flags:
            parts.append(f"flg=0x{flags:x}")
        if self.package and not self.component:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append("cmp=" + short_component(*self.component))
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


def parse_intent(args: list[str]) -> Intent:
    """Parse ``am`` intent arguments; raises :class:`UsageError` on bad input."""
    intent = Intent()
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in _VALUE_EXTRAS:
            if i + 1 >= len(args):
                raise UsageError(f"Error: No value specified for {arg}")
            key, value = args[i], args[i + 1]
            i += 2
            kind = _VALUE_EXTRAS[arg]
            try:
                if kind is int:
                    int(value)
                elif kind is float:
                    float(value)
            except ValueError:
                raise UsageError(f"Error: Invalid value for {arg}: {value}") from None
            if kind is bool:
                value = "true" if value.lower() in ("true", "t", "1") else "false"
            intent.extras[key] = value
        elif arg == "--esn":
            if i >= len(args):
                raise UsageError("Error: No value specified for --esn")
            intent.extras[args[i]] = ""
            i += 1
        elif arg in _VALUE_OPTS:
            if i >= len(args):
                raise UsageError(f"Error: No argument specified for {arg}")
            value = args[i]
            i += 1
            if arg == "-a":
                intent.action = value
            elif arg == "-d":
                intent.data = value
            elif arg == "-t":
                intent.mime = value
            elif arg == "-c":
                intent.categories.append(value)
            elif arg == "-n":
                intent.component = _component(value)
            elif arg == "-p":
                intent.package = value
            elif arg == "-f":
                intent.flags |= int(value, 0)
            else:
                intent.options[arg] = value
        elif arg == "--include-stopped-packages":
            intent.flags |= FLAG_INCLUDE_STOPPED_PACKAGES
        elif arg.startswith("-"):
            intent.options[arg] = True
        elif ":" in arg:
            intent.data = arg
        elif "/" in arg:
            intent.component = _component(arg)
        else:
            intent.package = arg
    return intent


def _component(text: str) -> tuple[str, str]:
    pkg, sep, cls = text.partition("/")
    if not sep or not pkg or not cls:
        raise UsageError(f"Error: Bad component name: {text}")
    return pkg, full_class(pkg, cls)


def launchable(device: VirtualDevice, package: str) -> bool:
    app = device.apps.get(package)
    return app is not None and bool(getattr(app, "show_in_launcher", True))


def _resolve(ctx: Ctx, intent: Intent) -> tuple[str, str | None] | None:
    """(package, activity or None for 'resume the task') for an intent, or None if nothing handles it."""
    device = ctx.device
    if intent.component:
        return intent.component
    if intent.package and intent.package in device.apps and (intent.action in (None, ACTION_MAIN)):
        return intent.package, None
    hook = getattr(device, "resolve_intent", None)
    if callable(hook):
        found = hook(intent.action, intent.data, list(intent.categories), intent.mime)
        if found:
            return found[0], found[1]
    return None


@command("am", "activity")
def am(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args:
        return ctx.fail("usage: am [subcommand] [options]")
    sub = args.pop(0)
    if sub in ("start", "start-activity"):
        return _am_start(ctx, args)
    if sub in ("force-stop", "kill", "stop-app"):
        pkgs = [a for a in args if not a.startswith("--") and not a.isdigit()]
        if not pkgs:
            return ctx.fail("Error: no package specified")
        for pkg in pkgs:
            if sub == "kill" and ctx.device.state.back_stack and ctx.device.top.package == pkg:
                continue  # the foreground app is not killable
            if sub == "kill":
                ctx.device.kill_process(pkg)  # no stopped state, alarms kept
            else:
                ctx.device.force_stop(pkg)
        return 0
    if sub == "kill-all":
        top = ctx.device.top.package
        for pkg in list(ctx.device.state.running):
            if pkg not in (top, ctx.device.launcher_package):
                ctx.device.kill_process(pkg)
        return 0
    if sub == "broadcast":
        return _am_broadcast(ctx, parse_intent(args))
    if sub in ("startservice", "start-service", "start-foreground-service", "stopservice", "stop-service"):
        intent = parse_intent(args)
        verb = "Stopping" if "stop" in sub else "Starting"
        ctx.write(f"{verb} service: {intent.short()}\n")
        if verb == "Stopping":
            ctx.write("Service stopped\n")
        return 0
    if sub in ("stack", "task") and args[:1] == ["list"]:
        return _am_stack_list(ctx)
    if sub == "get-current-user":
        ctx.write("0\n")
        return 0
    if sub == "instrument":
        ctx.write("INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info\n"
                  "INSTRUMENTATION_STATUS_CODE: -1\n")
        return 1
    return ctx.fail(f"Unknown command: {sub}", 255)


def _am_start(ctx: Ctx, args: list[str]) -> int:
    device = ctx.device
    intent = parse_intent(args)
    wait = bool(intent.options.get("-W"))
    target = _resolve(ctx, intent)
    ctx.write(f"Starting: {intent.short()}\n")
    if target is None:
        ctx.ewrite(f"Error: Activity not started, unable to resolve {intent.short(FLAG_NEW_TASK)}\n")
        return 1
    pkg, cls = target
    app = device.apps.get(pkg)
    if app is None or (cls is not None and not _has_activity(app, cls)):
        ctx.ewrite(f"Error type 3\nError: Activity class {{{pkg}/{cls or '?'}}} does not exist.\n")
        return 1
    if intent.options.get("-S"):
        device.force_stop(pkg)
    was_running = pkg in device.state.running
    had_task = any(a.package == pkg for a in device.state.back_stack)
    launcher_intent = intent.action == ACTION_MAIN and CATEGORY_LAUNCHER in intent.categories
    if cls is not None and launcher_intent and full_class(pkg, app.launcher_activity) == cls and had_task:
        cls = None  # a launcher intent brings the existing task to front, like tapping the icon
        ctx.write("Warning: Activity not started, its current task has been brought to the front\n")
    try:
        device.start_activity(pkg, cls, dict(intent.extras))
    except KeyError as exc:
        ctx.ewrite(f"Error type 3\nError: {str(exc).strip(chr(39))}\n")
        return 1
    if wait:
        top_pkg, top_cls = device.current_focus()
        state = "WARM" if was_running else "COLD"
        ctx.write(f"Status: ok\nLaunchState: {state}\nActivity: {short_component(top_pkg, top_cls)}\n"
                  "TotalTime: 0\nWaitTime: 0\nComplete\n")
    return 0


def _has_activity(app: object, cls: str) -> bool:
    pkg = app.package
    names = {full_class(pkg, a) for a in getattr(app, "activities", ())}
    return full_class(pkg, cls) in names


def _am_broadcast(ctx: Ctx, intent: Intent) -> int:
    """``am broadcast``: the media scanner, SystemUI's demo mode and the apps' manifest receivers.

    Delivery to a package in the stopped state needs ``--include-stopped-packages`` (see
    ``VirtualDevice.send_broadcast``); without it the broadcast completes with nobody receiving it, as on a
    device."""
    device = ctx.device
    ctx.write(f"Broadcasting: {intent.short(0x400000)}\n")
    if intent.action == MEDIA_SCAN and intent.data:
        hook = getattr(device, "media_scan", None)
        if callable(hook):
            parsed = urllib.parse.urlparse(intent.data)
            path = urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else intent.data
            hook(path)
    elif intent.action == DEMO_ACTION:
        from emukit.vdevice.ui.systemui import demo_command

        demo_command(device, dict(intent.extras))
    else:
        send = getattr(device, "send_broadcast", None)
        if callable(send):
            send(intent.action, component=intent.component, package=intent.package,
                 include_stopped=bool(intent.flags & FLAG_INCLUDE_STOPPED_PACKAGES), extras=dict(intent.extras))
    ctx.write("Broadcast completed: result=0\n")
    return 0


def _am_stack_list(ctx: Ctx) -> int:
    from emukit.vdevice.shell.commands.dumpsys import display_metrics, task_id

    device = ctx.device
    m = display_metrics(device)
    bounds = f"[0,0][{m['W']},{m['H']}]"
    config = f"sw{m['SW_DP']}dp w{m['W_DP']}dp h{m['H_DP']}dp {m['DPI']}dpi"
    seen: list[str] = []
    for act in reversed(device.state.back_stack):
        if act.package not in seen:
            seen.append(act.package)
    for pkg in seen:
        acts = [a for a in device.state.back_stack if a.package == pkg]
        top = acts[-1]
        tid = task_id(device, pkg)
        comp = short_component(pkg, device.app(pkg).full_activity(top.activity))
        ctx.write(f"RootTask id={tid} bounds={bounds} displayId=0 userId=0\n"
                  f" configuration={{1.0 ?mcc?mnc [en_US] ldltr {config} nrml port}}\n"
                  f"  taskId={tid}: {comp} bounds={bounds} userId=0 visible={str(pkg == seen[0]).lower()} "
                  f"topActivity=ComponentInfo{{{comp}}}\n")
    return 0


@command("monkey")
def monkey(ctx: Ctx) -> int:
    args = list(ctx.args)
    pkgs: list[str] = []
    count = 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-p", "-c", "-s", "--throttle", "--seed") or arg.startswith("--pct-"):
            if arg == "-p" and i + 1 < len(args):
                pkgs.append(args[i + 1])
            i += 2
            continue
        if arg.isdigit():
            count = int(arg)
        i += 1
    for arg in args:
        ctx.write(f"  bash arg: {arg}\n")
    candidates = [p for p in pkgs if launchable(ctx.device, p)]
    if not candidates:
        ctx.ewrite("** No activities found to run, monkey aborted.\n")
        return 252
    ctx.device.start_activity(candidates[0])
    ctx.write(f"Events injected: {max(count, 1)}\n"
              "## Network stats: elapsed time=5ms (0ms mobile, 0ms wifi, 5ms not connected)\n")
    return 0
