"""``dumpsys`` services (window, activity, package, display, battery, power, alarm, input_method,
notification, meminfo, cpuinfo, gfxinfo) and ``wm``, in the shapes adbutils/uiautomator2 parse."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.base import Ctx, command
from emukit.vdevice.shell.commands.datecmd import format_time
from emukit.vdevice.shell.commands.fsutil import app_uid
from emukit.vdevice.shell.commands.packages import apk_path, is_system
from emukit.vdevice.shell.commands.procs import pid_of

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SERVICES = ("activity", "alarm", "battery", "cpuinfo", "display", "gfxinfo", "input_method", "meminfo",
            "notification", "package", "power", "window")


def _hash(text: str) -> str:
    return f"{zlib.crc32(text.encode()) & 0xFFFFFFF:x}"


def display_metrics(device: VirtualDevice) -> dict[str, int]:
    """The display as window manager and display manager print it: physical size and density, the app area
    (above the navigation bar), the configuration's dp sizes and the app-bounds inset, all from the device's
    screen (1080x2400 at 420 dpi: app 1080x2274, sw411dp w411dp h914dp)."""
    from emukit.vdevice.ui import theme

    width, height, dpi = device.screen
    app_h = height - theme.NAV_H
    return {"W": width, "H": height, "DPI": dpi, "APP_H": app_h, "W_DP": width * 160 // dpi,
            "H_DP": height * 160 // dpi, "SW_DP": min(width, height) * 160 // dpi, "APP_TOP": theme.px(84),
            "MIN_APP_H": width - theme.px(63)}


def task_id(device: VirtualDevice, package: str) -> int:
    names = sorted(device.apps)
    return 10 + (names.index(package) if package in names else len(names))


def _record(device: VirtualDevice, package: str, activity: str) -> str:
    full = device.app(package).full_activity(activity) if package in device.apps else activity
    return f"ActivityRecord{{{_hash('ar' + package + full)} u0 {package}/{full} t{task_id(device, package)}}}"


def _window(package: str, full: str) -> str:
    return f"Window{{{_hash('w' + package + full)} u0 {package}/{full}}}"


def _dump_window(ctx: Ctx) -> str:
    device = ctx.device
    pkg, full = device.current_focus()
    shade = bool(device.state.ui.shade_open)
    focus = f"Window{{{_hash('shade')} u0 NotificationShade}}" if shade else _window(pkg, full)
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)",
             f"  Window #0 Window{{{_hash('shade')} u0 NotificationShade}}:",
             "    mDisplayId=0 rootTaskId=1 mSession=Session{4b1d2c0 1050:u0a10127} mClient=android.os.BinderProxy",
             "    mOwnerUid=10127 showForAllUsers=true package=com.android.systemui appop=NONE",
             f"    mHasSurface={str(shade).lower()} isReadyForDisplay()={str(shade).lower()}",
             f"  Window #1 Window{{{_hash('sb')} u0 StatusBar}}:",
             "    mDisplayId=0 rootTaskId=1 mOwnerUid=10127 package=com.android.systemui",
             "    mHasSurface=true isReadyForDisplay()=true"]
    seen: list[tuple[str, str]] = []
    for act in reversed(device.state.back_stack):
        full_act = device.app(act.package).full_activity(act.activity)
        if (act.package, full_act) not in seen:
            seen.append((act.package, full_act))
    for i, (p, a) in enumerate(seen, start=2):
        lines += [f"  Window #{i} {_window(p, a)}:",
                  f"    mDisplayId=0 rootTaskId={task_id(device, p)} mOwnerUid={app_uid(device, p)} package={p}",
                  f"    mHasSurface={str(i == 2).lower()} isReadyForDisplay()={str(i == 2).lower()}"]
    top = device.top
    m = display_metrics(device)
    W, H, DPI, APP_H = m["W"], m["H"], m["DPI"], m["APP_H"]  # the names dumpsys prints
    lines += ["", (f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw{m['SW_DP']}dp w{m['W_DP']}dp "
                  f"h{m['H_DP']}dp {DPI}dpi nrml "
                  f"long port finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {W}, {H}) "
                  f"mAppBounds=Rect(0, {m['APP_TOP']} - {W}, {APP_H}) mWindowingMode=fullscreen "
                  "mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_0}}"),
              "  mHasPermanentDpad=false", "  mTopFocusedDisplayId=0",
              f"  mInputMethodWindow=Window{{{_hash('ime')} u0 InputMethod}}",
              f"  mCurrentFocus={focus}",
              f"  mFocusedApp={_record(device, top.package, top.activity)}",
              "", "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
              f"  Display: mDisplayId=0 rootTasks={len(seen)}",
              f"    init={W}x{H} {DPI}dpi cur={W}x{H} app={W}x{APP_H} rng={W}x{m['MIN_APP_H']}-{APP_H}x{APP_H}",
              "    deferred=false mLayoutNeeded=false", "", "WINDOW MANAGER POLICY STATE (dumpsys window policy)",
              f"    mAwake={str(_screen_on(device)).lower()}",
              f"    mScreenOnEarly={str(_screen_on(device)).lower()} mScreenOnFully={str(_screen_on(device)).lower()}",
              "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
              "    KeyguardServiceDelegate", "      showing=false", "      inputRestricted=false"]
    return "\n".join(lines) + "\n"


def _screen_on(device: VirtualDevice) -> bool:
    return bool(getattr(device.wm, "screen_on", True))


def _dump_activities(ctx: Ctx) -> str:
    device = ctx.device
    lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
             "Display #0 (activities from top to bottom):"]
    order: list[str] = []
    for act in reversed(device.state.back_stack):
        if act.package not in order:
            order.append(act.package)
    for pkg in order:
        acts = [a for a in device.state.back_stack if a.package == pkg]
        kind = "home" if pkg == device.launcher_package else "standard"
        lines.append(f"  * Task{{{_hash('t' + pkg)} #{task_id(device, pkg)} type={kind} "
                     f"A={app_uid(device, pkg)}:{pkg} U=0 visible={str(pkg == order[0]).lower()} "
                     f"visibleRequested={str(pkg == order[0]).lower()} mode=fullscreen translucent=false "
                     f"sz={len(acts)}}}")
        if pkg == order[0]:
            lines.append(f"    topResumedActivity={_record(device, pkg, acts[-1].activity)}")
        for i, act in reversed(list(enumerate(acts))):
            lines.append(f"    * Hist  #{i}: {_record(device, pkg, act.activity)}")
            lines.append(f"      packageName={pkg} processName={pkg}")
            lines.append(f"      app=ProcessRecord{{{_hash('p' + pkg)} {pid_of(device, pkg)}:{pkg}/"
                         f"u0a{app_uid(device, pkg) - 10000}}}")
    top = device.top
    record = _record(device, top.package, top.activity)
    lines += ["", f"  ResumedActivity: {record}", f"  mResumedActivity: {record}",
              f"  mFocusedApp={record}", "", f"  mTopResumedActivity={record}"]
    return "\n".join(lines) + "\n"


def _dump_activity_top(ctx: Ctx) -> str:
    device = ctx.device
    top = device.top
    full = device.app(top.package).full_activity(top.activity)
    return (f"TASK {app_uid(device, top.package)}:{top.package} id={task_id(device, top.package)} userId=0\n"
            f"  ACTIVITY {top.package}/{full} {_hash('ar' + top.package + full)} "
            f"pid={pid_of(device, top.package)}\n    Local Activity {_hash('la' + full)} State:\n"
            f"      mResumed=true mStopped=false mFinished=false\n")


def _dump_package(ctx: Ctx, args: list[str]) -> str | None:
    """``dumpsys package [PKG]`` as Settings.dumpPackageLPr prints it on API 34 (frameworks/base
    ``services/core/java/com/android/server/pm/Settings.java``, read from yaap/frameworks_base@3ddcaa00537a,
    leaving out the fields later releases added: quarantined, archive state): versionCode/minSdk/targetSdk,
    versionName, timeStamp and lastUpdateTime for the package, then per user the state line (``stopped=`` the
    stopped state), ``installReason``, ``firstInstallTime``, ``uninstallReason`` and ``runtime permissions:``
    with one ``NAME: granted=true|false, flags=[ ...]`` line per runtime permission the manifest requests
    (dumpRuntimePermissionsLPr)."""
    device = ctx.device
    names = [a for a in args if not a.startswith("-") and a != "packages"]
    if names and names[0] not in device.apps:
        return None
    out: list[str] = []
    pkgs = names[:1] or sorted(device.apps)
    if names:
        app = device.apps[names[0]]
        full = app.full_activity(app.launcher_activity)
        out += ["Activity Resolver Table:", "  Non-Data Actions:", "      android.intent.action.MAIN:",
                f"        {_hash('r' + full)} {app.package}/{full} filter {_hash('f' + full)}",
                '          Action: "android.intent.action.MAIN"',
                '          Category: "android.intent.category.LAUNCHER"', ""]
    out.append("Packages:")
    for pkg in pkgs:
        app = device.apps[pkg]
        flags = ("SYSTEM " if is_system(app) else "") + "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
        code = apk_path(pkg).rsplit("/", 1)[0]
        first, last = device.install_times(pkg)
        first_s, last_s = (format_time(device, t, "%Y-%m-%d %H:%M:%S", utc=True) for t in (first, last))
        if device.hardware:
            stopped = device.package_stopped(pkg)
        else:
            stopped = pkg not in device.state.running
        out += [f"  Package [{pkg}] ({_hash('pk' + pkg)}):", f"    userId={app_uid(device, pkg)}",
                f"    pkg=Package{{{_hash('pg' + pkg)} {pkg}}}", f"    codePath={code}",
                f"    resourcePath={code}", f"    legacyNativeLibraryDir={code}/lib", "    primaryCpuAbi=null",
                (f"    versionCode={device.version_code(pkg)} minSdk={getattr(app, 'min_sdk', 28)} "
                f"targetSdk={getattr(app, 'target_sdk', 34)}"),
                f"    versionName={device.version_name(pkg)}", "    splits=[base]", "    apkSigningVersion=3",
                f"    flags=[ {flags} ]", f"    timeStamp={last_s}", f"    lastUpdateTime={last_s}",
                (f"    signatures=PackageSignatures{{{_hash('s' + pkg)} version:3, "
                f"signatures:[{_hash('sig' + pkg)}], past signatures:[]}}"),
                "    installPermissionsFixed=true", f"    pkgFlags=[ {flags} ]",
                (f"    User 0: ceDataInode={1000 + app_uid(device, pkg)} installed=true hidden=false suspended=false "
                f"distractionFlags=0 stopped={str(stopped).lower()} notLaunched=false "
                "enabled=0 instant=false virtual=false"),
                "      installReason=0", f"      firstInstallTime={first_s}", "      uninstallReason=0",
                "      runtime permissions:"]
        for perm in app.runtime_permissions:
            granted = str(device.permission_granted(pkg, perm)).lower()
            out.append(f"        {perm}: granted={granted}, flags=[ USER_SENSITIVE_WHEN_GRANTED|"
                       "USER_SENSITIVE_WHEN_DENIED]")
    return "\n".join(out) + "\n"


def _dump_display(ctx: Ctx) -> str:
    m = display_metrics(ctx.device)
    W, H, DPI, APP_H = m["W"], m["H"], m["DPI"], m["APP_H"]  # the names dumpsys prints
    return (
        "DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n"
        "  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, "
        f"uniqueId='local:4619827259835644672', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {W}, {H}), "
        f"physicalFrame=Rect(0, 0 - {W}, {H}), deviceWidth={W}, deviceHeight={H}}}]\n"
        "Display Devices: size=1\n"
        f"  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:4619827259835644672\", {W} x {H}, modeId 1, "
        f"defaultModeId 1, supportedModes [{{id=1, width={W}, height={H}, fps=60.0}}], density {DPI}, "
        f"{DPI}.0 x {DPI}.0 dpi, touch INTERNAL, rotation 0, type INTERNAL, state ON}}\n"
        "Logical Displays: size=1\n  Display 0:\n"
        f"    mDisplayId=0\n    mLayerStack=0\n    mHasContent=true\n"
        f"    mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, displayGroupId 0, FLAG_SECURE, "
        f"FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {W} x {H}, largest app {H} x {H}, "
        f"smallest app {W} x {W}, appVsyncOff 1000000, presDeadline 16666666, mode 1, defaultMode 1, "
        f"modes [{{id=1, width={W}, height={H}, fps=60.0}}], rotation 0, state ON, "
        f"density {DPI} ({DPI}.0 x {DPI}.0) dpi, type INTERNAL}}\n"
        f"    mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {W} x {H}, "
        f"app {W} x {APP_H}, rotation 0, state ON, density {DPI} ({DPI}.0 x {DPI}.0) dpi}}\n")


def _dump_battery(ctx: Ctx) -> str:
    return ("Current Battery Service state:\n  AC powered: true\n  USB powered: false\n  Wireless powered: false\n"
            "  Dock powered: false\n  Max charging current: 0\n  Max charging voltage: 0\n"
            "  Charge counter: 10000\n  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n"
            "  voltage: 5000\n  temperature: 250\n  technology: Li-ion\n")


def _dump_power(ctx: Ctx) -> str:
    on = _screen_on(ctx.device)
    return ("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n"
            f"  mWakefulness={'Awake' if on else 'Asleep'}\n  mWakefulnessChanging=false\n  mIsPowered=true\n"
            "  mPlugType=1\n  mBatteryLevel=100\n  mStayOn=false\n  mProximityPositive=false\n"
            "  mBootCompleted=true\n  mSystemReady=true\n  mHoldingWakeLockSuspendBlocker=false\n"
            f"  mHoldingDisplaySuspendBlocker={str(on).lower()}\n\nDisplay Power: state={'ON' if on else 'OFF'}\n")


ALARM_TYPES = {"RTC_WAKEUP": (0, "RTC_WAKEUP"), "RTC": (1, "RTC"), "ELAPSED_REALTIME_WAKEUP": (2, "ELAPSED_WAKEUP"),
               "ELAPSED_REALTIME": (3, "ELAPSED")}  # AlarmManager type -> (int, Alarm.typeToString)


def format_duration(ms: int) -> str:
    """``TimeUtils.formatDuration(long)``: ``+8m0s0ms``, ``-1s500ms``, ``0``; once a unit is printed every
    smaller one is too, milliseconds always."""
    if ms == 0:
        return "0"
    sign, rest = ("+" if ms > 0 else "-"), abs(ms)
    days, rest = divmod(rest, 86_400_000)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    out, started = sign, False
    for value, unit in ((days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")):
        if started or value:
            out += f"{value}{unit}"
            started = True
    return out + f"{millis}ms"


def _dump_alarm(ctx: Ctx) -> str:
    """``dumpsys alarm`` as Android 14's AlarmManagerService prints its header and its LazyAlarmStore's pending
    alarms: ``N pending alarms:``, then per alarm (soonest first) ``<TYPE> #i: Alarm{hash type T origWhen W
    whenElapsed E pkg}`` and ``Alarm.dump``'s ``tag=*walarm*:<action>``, ``type=... origWhen=... window=...``,
    ``policyWhenElapsed: ...``, ``whenElapsed=... maxWhenElapsed=...`` and ``operation=...`` lines, times on
    the elapsed clock printed relative to now (``TimeUtils.formatDuration(when, now)``), RTC ones as dates
    (aosp-mirror/platform_frameworks_base eba0cb7723bc ``apex/jobscheduler/service/java/com/android/server/
    alarm/Alarm.java`` ``makeTag``/``toString``/``typeToString``/``dump``; 42f3da9f8916 ``LazyAlarmStore.java``
    ``dump``). DeskClock's exact alarms carry FLAG_ALLOW_WHILE_IDLE|FLAG_STANDALONE (0x9) and no window."""
    device = ctx.device
    wall = device.wall_ms()
    now = device.elapsed_ms()
    when = format_time(device, wall / 1000, "%Y-%m-%d %H:%M:%S") + f".{wall % 1000:03d}"
    lines = ["Current Alarm Manager state:", f"  nowRTC={wall}={when} nowELAPSED={now}",
             f"  mLastTimeChangeClockTime={wall}", "  Next wake from idle: null", ""]
    alarms = sorted(device.state.alarms, key=lambda a: _alarm_elapsed(device, a, wall, now))
    lines.append(f"  {len(alarms)} pending alarms: ")
    for i, alarm in enumerate(alarms):
        number, label = ALARM_TYPES.get(alarm.type, (2, "ELAPSED_WAKEUP"))
        elapsed = _alarm_elapsed(device, alarm, wall, now)
        wakeup = alarm.type.endswith("_WAKEUP")
        ident = _hash("alarm" + alarm.package + alarm.tag)
        if alarm.type.startswith("RTC"):
            orig = format_time(device, alarm.when_ms / 1000, "%Y-%m-%d %H:%M:%S") + f".{alarm.when_ms % 1000:03d}"
        else:
            orig = format_duration(alarm.when_ms - now)
        rel = format_duration(elapsed - now)
        policies = " ".join(f"{name}={rel if name == 'requester' else format_duration(0 - now)}"
                            for name in ("requester", "app_standby", "device_idle", "battery_saver", "tare"))
        lines += [(f"    {label} #{i}: Alarm{{{ident} type {number} origWhen {alarm.when_ms} whenElapsed {elapsed} "
                  f"{alarm.package}}}"),
                  f"      tag={'*walarm*:' if wakeup else '*alarm*:'}{alarm.tag}",
                  (f"      type={label} origWhen={orig} window=0 exactAllowReason=policy_permission "
                  "repeatInterval=0 count=0 flags=0x9"),
                  f"      policyWhenElapsed: {policies}",
                  f"      whenElapsed={rel} maxWhenElapsed={rel}",
                  (f"      operation=PendingIntent{{{_hash('pi' + alarm.tag)}: PendingIntentRecord{{"
                  f"{_hash('pir' + alarm.tag)} {alarm.package} startService}}}}")]
    return "\n".join(lines) + "\n"


def _alarm_elapsed(device: VirtualDevice, alarm: object, wall: int, now: int) -> int:
    when = alarm.when_ms  # type: ignore[attr-defined]
    return when - wall + now if alarm.type.startswith("RTC") else when  # type: ignore[attr-defined]


def _dump_systemui_service(ctx: Ctx) -> str:
    """``dumpsys activity service com.android.systemui/.SystemUIService``: the service record line and, from
    the SystemUI dump, ``DemoModeController``'s own section (``isInDemoMode``, ``isDemoModeAllowed``:
    DemoModeController.kt ``dump``, aosp-mirror/platform_frameworks_base f5c52ca3b4f1) followed by what the
    demo status bar shows (clock, battery, network, notification icons)."""
    from emukit.vdevice.ui.systemui import SYSTEMUI, demo_active, demo_allowed

    device = ctx.device
    demo = device.state.demo
    active = demo_active(device)
    lines = [f"SERVICE {SYSTEMUI}/.SystemUIService {_hash('sysui')} pid={pid_of(device, SYSTEMUI)} user=0",
             "  Client:", "    DemoModeController state -", f"      isInDemoMode={str(active).lower()}",
             f"      isDemoModeAllowed={str(demo_allowed(device)).lower()}"]
    if active:
        network = ",".join(f"{k}={v}" for k, v in sorted(demo.network.items()))
        lines += [f"      clock={demo.clock_hhmm or ''}",
                  (f"      battery level={'' if demo.battery_level is None else demo.battery_level} "
                  f"plugged={str(demo.battery_plugged).lower()}"),
                  f"      network={{{network}}}", f"      notifications visible={str(demo.notifications_visible).lower()}"]
    return "\n".join(lines) + "\n"


def _dump_input_method(ctx: Ctx) -> str:
    device = ctx.device
    shown = getattr(device.wm, "keyboard_visible", None)
    if shown is None:
        shown = device.state.ui.focused_id is not None
    method = device.state.settings.get("secure", {}).get("default_input_method", "")
    pkg, full = device.current_focus()
    return (f"Current Input Method Manager state:\n  mCurMethodId={method}\n"
            f"  mCurFocusedWindow={_window(pkg, full)}\n  mInputShown={str(bool(shown)).lower()}\n"
            f"  mShowRequested={str(bool(shown)).lower()}\n")


def _dump_notification(ctx: Ctx) -> str:
    device = ctx.device
    lines = ["Current Notification Manager state:", "  Notification List:"]
    for n in device.notifications():
        uid = app_uid(device, n.package)
        nid = zlib.crc32(n.key.encode()) & 0xFFFF
        flags = "0x2" if n.ongoing else "0x10"
        lines += [(f"    NotificationRecord(0x{_hash('n' + n.key)}: pkg={n.package} user=UserHandle{{0}} id={nid} "
                  f"tag={n.key} importance=3 key=0|{n.package}|{nid}|{n.key}|{uid}: Notification(channel=default "
                  f"flags={flags} vis=PRIVATE))"),
                  f"      uid={uid} userId=0", f"      opPkg={n.package}", f"      flags={flags}",
                  "      extras={", f"        android.title=String ({n.title})",
                  f"        android.text=String ({n.text})", "      }"]
    return "\n".join(lines) + "\n"


@command("dumpsys")
def dumpsys(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args or args[0] == "-l":
        ctx.write("Currently running services:\n" + "".join(f"  {s}\n" for s in SERVICES))
        return 0
    service, rest = args[0], args[1:]
    device = ctx.device
    if service == "window":
        ctx.write(_dump_window(ctx))
    elif service == "activity":
        sub = rest[0] if rest else "activities"
        if sub == "service" and len(rest) > 1 and rest[1].split("/")[-1].lstrip(".").endswith("SystemUIService"):
            ctx.write(_dump_systemui_service(ctx))
        else:
            ctx.write(_dump_activity_top(ctx) if sub == "top" else _dump_activities(ctx))
    elif service == "package":
        text = _dump_package(ctx, rest)
        if text is None:
            ctx.write(f"Unable to find package: {next(a for a in rest if not a.startswith('-'))}\n")
        else:
            ctx.write(text)
    elif service == "display":
        ctx.write(_dump_display(ctx))
    elif service == "battery":
        ctx.write(_dump_battery(ctx))
    elif service == "power":
        ctx.write(_dump_power(ctx))
    elif service == "alarm":
        ctx.write(_dump_alarm(ctx))
    elif service == "input_method":
        ctx.write(_dump_input_method(ctx))
    elif service == "notification":
        ctx.write(_dump_notification(ctx))
    elif service in ("meminfo", "gfxinfo"):
        pkgs = [a for a in rest if not a.startswith("-")]
        if pkgs and pkgs[0] not in device.state.running:
            ctx.write(f"No process found for: {pkgs[0]}\n")
            return 0
        target = pkgs[0] if pkgs else device.top.package
        ctx.write(f"Applications Memory Usage (in Kilobytes):\nUptime: {device.elapsed_ms()} "
                  f"Realtime: {device.elapsed_ms()}\n\n** MEMINFO in pid {pid_of(device, target)} [{target}] **\n"
                  "           TOTAL PSS:    48000            TOTAL RSS:    96000       TOTAL SWAP PSS:        0\n")
    elif service == "cpuinfo":
        ctx.write("Load: 0.0 / 0.0 / 0.0\nCPU usage from 0ms to 0ms ago:\n0% TOTAL: 0% user + 0% kernel\n")
    else:
        ctx.write(f"Can't find service: {service}\n")
    return 0


@command("wm")
def wm(ctx: Ctx) -> int:
    """``wm size`` / ``wm density`` report the physical values; overrides are accepted but not applied."""
    args = list(ctx.args)
    sub = args.pop(0) if args else ""
    width, height, dpi = ctx.device.screen
    if sub == "size":
        if not args:
            ctx.write(f"Physical size: {width}x{height}\n")
        return 0
    if sub == "density":
        if not args:
            ctx.write(f"Physical density: {dpi}\n")
        return 0
    if sub in ("user-rotation", "fixed-to-user-rotation"):
        if not args:
            ctx.write("lock 0\n" if sub == "user-rotation" else "Fixed to user rotation: default\n")
        return 0
    if sub in ("dismiss-keyguard", "overscan", "scaling", "disable-blur", "set-ignore-orientation-request"):
        return 0
    ctx.ewrite(f"Error: unknown command '{sub}'\n" if sub else "usage: wm [size|density|user-rotation] ...\n")
    return 255
