"""Screen and input commands: ``input``, ``screencap``, ``screenrecord``, ``uiautomator dump`` and
``app_process`` (the uiautomator2 server launcher). Input is dispatched to the window manager
(``device.wm``); ``input`` runs without the device lock so that a gesture's duration (hardware mode) does
not hold the rest of the device still."""

from __future__ import annotations

import inspect
import struct
import threading
import time

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, getopt
from emukit.vdevice.shell.commands.fsutil import stamp

U2_JAR = "/data/local/tmp/u2.jar"
U2_MAIN = "com.wetest.uia2.Main"
U2_DEFAULT_PORT = 9008
SOURCES = {"keyboard", "mouse", "joystick", "touchnavigation", "touchpad", "trackball", "stylus", "dpad",
           "gesture", "touchscreen", "gamepad", "rotaryencoder"}

MOTION_ACTIONS = {"DOWN": 0, "UP": 1, "MOVE": 2, "CANCEL": 3}
KEYCODES: dict[str, int] = {
    "UNKNOWN": 0, "SOFT_LEFT": 1, "SOFT_RIGHT": 2, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6,
    "STAR": 17, "POUND": 18, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
    "COMMA": 55, "PERIOD": 56, "ALT_LEFT": 57, "ALT_RIGHT": 58, "SHIFT_LEFT": 59, "SHIFT_RIGHT": 60, "TAB": 61,
    "SPACE": 62, "SYM": 63, "EXPLORER": 64, "ENVELOPE": 65, "ENTER": 66, "DEL": 67, "GRAVE": 68, "MINUS": 69,
    "EQUALS": 70, "LEFT_BRACKET": 71, "RIGHT_BRACKET": 72, "BACKSLASH": 73, "SEMICOLON": 74, "APOSTROPHE": 75,
    "SLASH": 76, "AT": 77, "NUM": 78, "HEADSETHOOK": 79, "FOCUS": 80, "PLUS": 81, "MENU": 82,
    "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "MEDIA_STOP": 86, "MEDIA_NEXT": 87,
    "MEDIA_PREVIOUS": 88, "MEDIA_REWIND": 89, "MEDIA_FAST_FORWARD": 90, "MUTE": 91, "PAGE_UP": 92,
    "PAGE_DOWN": 93, "ESCAPE": 111, "FORWARD_DEL": 112, "CTRL_LEFT": 113, "CTRL_RIGHT": 114, "CAPS_LOCK": 115,
    "SCROLL_LOCK": 116, "META_LEFT": 117, "META_RIGHT": 118, "SYSRQ": 120, "BREAK": 121, "MOVE_HOME": 122,
    "MOVE_END": 123, "INSERT": 124, "FORWARD": 125, "MEDIA_PLAY": 126, "MEDIA_PAUSE": 127, "NUM_LOCK": 143,
    "VOLUME_MUTE": 164, "SETTINGS": 176, "APP_SWITCH": 187, "BRIGHTNESS_DOWN": 220, "BRIGHTNESS_UP": 221,
    "SLEEP": 223, "WAKEUP": 224, "ASSIST": 219, "VOICE_ASSIST": 231, "ALL_APPS": 284,
}
KEYCODES.update({str(d): 7 + d for d in range(10)})
KEYCODES.update({chr(ord("A") + i): 29 + i for i in range(26)})

USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad keyboard mouse touchpad gamepad touchnavigation joystick touchscreen stylus trackball

The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard)
"""


class _BadInput(Exception):
    """Arguments ``input`` cannot parse (usage error, exit 1)."""


def keycode(name: str) -> int:
    """``66``, ``ENTER`` or ``KEYCODE_ENTER`` -> 66."""
    if name.isdigit():
        return int(name)
    key = name.upper()
    key = key.removeprefix("KEYCODE_")
    if key not in KEYCODES:
        raise _BadInput(f"Unknown keycode: {name}")
    return KEYCODES[key]


def _coord(text: str) -> int:
    try:
        return round(float(text))
    except ValueError:
        raise _BadInput(f"bad coordinate '{text}'") from None


def _accepts(fn: object, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


@command("input", unlocked=True)
def input_(ctx: Ctx) -> int:
    args = list(ctx.args)
    if args and args[0] in SOURCES:
        args.pop(0)
    if args[:1] == ["-d"]:
        del args[:2]
    if not args:
        ctx.ewrite(USAGE)
        return 1
    sub = args.pop(0)
    wm = ctx.device.wm
    try:
        if sub == "tap" and len(args) == 2:
            wm.tap(_coord(args[0]), _coord(args[1]))
        elif sub in ("swipe", "draganddrop") and len(args) in (4, 5):
            x1, y1, x2, y2 = (_coord(a) for a in args[:4])
            duration = _coord(args[4]) if len(args) == 5 else 300
            (wm.swipe if sub == "swipe" else wm.drag)(x1, y1, x2, y2, duration)
        elif sub == "text" and args:
            wm.input_text(args[0].replace("%s", " "))
        elif sub == "keyevent" and args:
            longpress = False
            while args and args[0].startswith("--"):
                opt = args.pop(0)
                longpress = longpress or opt == "--longpress"
                if opt in ("--delay", "--duration") and args:
                    args.pop(0)
            codes = [keycode(a) for a in args]
            if not codes:
                raise _BadInput("no key")
            for code in codes:
                if longpress and _accepts(wm.key, "longpress"):
                    wm.key(code, longpress=True)
                else:
                    wm.key(code)
        elif sub == "keycombination" and args:
            if args[0] == "-t":
                del args[:2]
            codes = [keycode(a) for a in args]
            combo = getattr(wm, "key_combination", None)
            if callable(combo):
                combo(codes)
            else:
                for code in codes:
                    wm.key(code)
        elif sub == "press":
            wm.key(KEYCODES["DPAD_CENTER"])
        elif sub == "roll" and len(args) == 2:
            pass  # a trackball roll: accepted, and like on a touch-only phone it moves nothing
        elif sub == "motionevent" and len(args) == 3 and args[0].upper() in MOTION_ACTIONS:
            wm.touch(MOTION_ACTIONS[args[0].upper()], _coord(args[1]), _coord(args[2]))
        else:
            known = {"tap", "swipe", "draganddrop", "text", "keyevent", "keycombination", "roll", "motionevent"}
            raise _BadInput("bad arguments" if sub in known else f"Unknown command: {sub}")
    except _BadInput as exc:
        ctx.ewrite(f"Error: {exc}\n{USAGE}")
        return 1
    return 0


def _raw_screen(ctx: Ctx) -> bytes:
    image = ctx.device.wm.screenshot_image().convert("RGBA")
    return struct.pack("<III", image.width, image.height, 1) + image.tobytes()


@command("screencap")
def screencap(ctx: Ctx) -> int:
    args = list(ctx.args)
    png = False
    target = None
    while args:
        arg = args.pop(0)
        if arg == "-p":
            png = True
        elif arg in ("-d", "-a") and args:
            args.pop(0)
        elif arg == "-j":
            return ctx.fail("JPEG output is not supported")
        elif arg.startswith("-"):
            return ctx.fail(f"usage: screencap [-hp] [-d display-id] [FILENAME]\nunknown option {arg}")
        else:
            target = arg
    if target is not None and target.endswith(".png"):
        png = True
    data = ctx.device.screenshot_png() if png else _raw_screen(ctx)
    if target is None or target in ("-", "/dev/stdout"):
        ctx.write(data)
        return 0
    try:
        ctx.fs.write_bytes(target, data, ctx.cwd)
        stamp(ctx.device, ctx.fs.host(target, ctx.cwd))
    except OSError as exc:
        return ctx.fail(f"Error opening file: {target} ({exc.strerror})")
    return 0


@command("uiautomator")
def uiautomator(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args or args[0] != "dump":
        ctx.ewrite("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                   "help: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n")
        return 1
    paths = [a for a in args[1:] if not a.startswith("--")]
    target = paths[0] if paths else "/sdcard/window_dump.xml"
    xml = ctx.device.hierarchy_xml()
    if target in ("/dev/tty", "/dev/stdout", "-"):
        ctx.write(xml)
    else:
        try:
            ctx.fs.write_bytes(target, xml.encode("utf-8"), ctx.cwd)
            stamp(ctx.device, ctx.fs.host(target, ctx.cwd))
        except OSError as exc:
            ctx.ewrite(f"ERROR: could not write {target}: {exc.strerror}\n")
            return 1
    ctx.write(f"UI hierchary dumped to: {target}\n")
    return 0


@command("app_process", "app_process64", unlocked=True)
def app_process(ctx: Ctx) -> int:
    """Only the uiautomator2 server class can run: it registers its port and serves until the stream
    closes (or, started with ``&``, keeps serving after the command returns)."""
    positional = [a for a in ctx.args if not a.startswith("-")]
    options = ctx.args
    main = positional[1] if len(positional) > 1 else (positional[0] if positional else "")
    jars = [p for p in ctx.env.get("CLASSPATH", "").split(":") if p] or [U2_JAR]
    if main != U2_MAIN or not any(_exists(ctx, p) for p in jars):
        ctx.ewrite(f"Error: Could not find or load main class {main or '(none)'}\n")
        return 1
    port = U2_DEFAULT_PORT
    if "-p" in options:
        idx = options.index("-p")
        try:
            port = int(options[idx + 1])
        except (IndexError, ValueError):
            ctx.ewrite("Error: bad port\n")
            return 1
    device = ctx.device
    device.u2_listen(port)
    ctx.write(b"[server] INFO: [UiAutomator2Server] Starting Server\n")
    ctx.flush()
    if ctx.background:
        return 0
    closed = ctx.shell.closed
    try:
        if closed is not None:  # serves until the host closes the stream or the server is killed
            while not closed.wait(0.2) and port in device.u2_ports:
                pass
    finally:
        device.u2_unlisten(port)
    return 0


# ------------------------------------------------------------------------------------------ screenrecord
SCREENRECORD_USAGE = """Usage: screenrecord [options] <filename>

Android screenrecord v1.3.  Records the device's display to a .mp4 file.

Options:
--size WIDTHxHEIGHT
    Set the video size, e.g. "1280x720".  Default is the device's main
    display resolution (if supported), 1280x720 if not.  For best results,
    use a size supported by the AVC encoder.
--bit-rate RATE
    Set the video bit rate, in bits per second.  Value may be specified as
    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.
--time-limit TIME
    Set the maximum recording time, in seconds.  Default is 180. Set to 0
    to remove the time limit.
--verbose
    Display interesting information on stdout.
--help
    Show this message.

Recording continues until Ctrl-C is hit or the time limit is reached.
"""
SCREENRECORD_LONG = {"size": "S", "bit-rate": "B", "time-limit": "L", "verbose": "V", "help": "H",
                     "rotate": "R", "bugreport": "U", "output-format": "O", "codec-name": "C", "display-id": "D",
                     "persistent-surface": "P", "bframes": "F", "show-device-info": "I", "show-frame-time": "T"}
DEFAULT_TIME_LIMIT_S = 180  # screenrecord's default and (before Android 14's --time-limit 0) maximum


class _Recording:
    """Frames of one screenrecord run: the screen at the start and whenever it is asked again."""

    def __init__(self, ctx: Ctx, target: str, size: tuple[int, int] | None) -> None:
        self.ctx, self.target, self.size = ctx, target, size
        self.frames: list[tuple[object, int]] = []
        self._last_ms = ctx.device.elapsed_ms()
        self._lock = threading.Lock()
        self.capture()

    def capture(self) -> None:
        """Add the current screen; the previous frame lasts until now."""
        device = self.ctx.device
        with device.ui_reading(), device.lock:
            image = device.wm.screenshot_image()
            now = device.elapsed_ms()
        if self.size is not None:
            image = image.resize(self.size)
        with self._lock:
            if self.frames:
                picture, _ = self.frames[-1]
                self.frames[-1] = (picture, max(1, now - self._last_ms))
            self.frames.append((image, 1))
            self._last_ms = now

    def finish(self) -> int:
        """Write the MP4 file (as MediaMuxer does when screenrecord stops); returns the exit status."""
        from emukit.vdevice.mp4 import still_frames_mp4

        self.capture()
        ctx = self.ctx
        with ctx.device.lock:
            try:
                ctx.fs.write_bytes(self.target, still_frames_mp4(self.frames[:-1] or self.frames), ctx.cwd)
                stamp(ctx.device, ctx.fs.host(self.target, ctx.cwd))
            except OSError as exc:
                ctx.ewrite(f"Unable to open '{self.target}': {exc.strerror}\n")
                return 1
        return 0


@command("screenrecord", unlocked=True)
def screenrecord(ctx: Ctx) -> int:
    """Records until the time limit, the host closing the stream (Ctrl-C) or, run with ``&``, a ``kill``
    of its pid (SIGINT/SIGTERM/SIGHUP finish the file; SIGKILL leaves none). The file is an MP4 of the
    screens shown (:mod:`emukit.vdevice.mp4`)."""
    try:
        opts, operands = getopt(ctx, list(ctx.args), "S:B:L:VHR:UO:C:D:PF:IT", long=SCREENRECORD_LONG)
    except UsageError as exc:
        ctx.ewrite(f"{exc}\n{SCREENRECORD_USAGE}")
        return 2
    if opts.get("H"):
        ctx.ewrite(SCREENRECORD_USAGE)
        return 0
    if len(operands) != 1:
        ctx.ewrite("Must specify output file (see --help).\n")
        return 2
    size = None
    if "S" in opts:
        width, sep, height = str(opts["S"]).partition("x")
        if not (sep and width.isdigit() and height.isdigit()):
            ctx.ewrite(f"Invalid size '{opts['S']}', must be width x height\n")
            return 2
        size = (int(width), int(height))
    try:
        limit = float(opts.get("L", DEFAULT_TIME_LIMIT_S))
    except ValueError:
        ctx.ewrite(f"Invalid time limit {opts['L']}\n")
        return 2
    recording = _Recording(ctx, operands[0], size)
    if ctx.background:
        from emukit.vdevice.shell.commands.procs import start_job

        def on_signal(sig: str) -> None:
            if sig != "KILL":
                recording.finish()

        start_job(ctx, "screenrecord", on_signal)
        return 0
    from emukit.vdevice.shell.commands.runners import pass_time

    if ctx.device.clock_mode == "realtime":
        closed = ctx.shell.closed or threading.Event()
        deadline = time.monotonic() + (limit if limit > 0 else float("inf"))
        while not closed.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                break
            recording.capture()
    else:
        pass_time(ctx, limit if limit > 0 else DEFAULT_TIME_LIMIT_S)
    return recording.finish()


def _exists(ctx: Ctx, path: str) -> bool:
    try:
        return ctx.fs.host(path, ctx.cwd).is_file()
    except OSError:
        return False
