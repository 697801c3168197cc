"""Shell commands of the virtual device and their Android-compatible output formats.

In-process: a fresh ``VirtualDevice`` per test, ``run_shell`` called directly. Input, status bar and some
screen commands are checked with a small recording object put in place of ``device.wm`` (the window
manager is developed separately; these tests only assert that the call reached ``device.wm`` with the
right arguments).
"""

from __future__ import annotations

import hashlib
import re
import struct
import threading
import time

import pytest

from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.state import DEFAULT_WALL_MS


@pytest.fixture()
def device(tmp_path):
    return VirtualDevice(tmp_path / "dev", wipe=True)


def sh(device, command: str, stdin: bytes = b"", closed: threading.Event | None = None) -> tuple[int, str, str]:
    rc, out, err = shb(device, command, stdin, closed)
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def shb(device, command: str, stdin: bytes = b"", closed: threading.Event | None = None) -> tuple[int, bytes, bytes]:
    out: list[bytes] = []
    err: list[bytes] = []
    rc = run_shell(device, command, out.append, err.append, stdin, closed)
    return rc, b"".join(out), b"".join(err)


class RecordingWM:
    """Stands in for ``device.wm``: records input calls, delegates rendering to the real window manager."""

    def __init__(self, real) -> None:
        self.real = real
        self.calls: list[tuple] = []

    def __getattr__(self, name):
        if name in ("tap", "swipe", "drag", "input_text", "key", "expand_notifications",
                    "collapse_notifications", "touch"):
            return lambda *args, **kw: self.calls.append((name, *args))
        return getattr(self.real, name)


@pytest.fixture()
def rec(device):
    wm = RecordingWM(device.wm)
    device.wm = wm
    return wm


# ---------------------------------------------------------------------------------------------- files
def test_file_round_trip(device):
    rc, out, err = sh(device, "mkdir -p /sdcard/Download/a/b && echo hello > /sdcard/Download/a/b/f.txt && "
                              "cat /sdcard/Download/a/b/f.txt && cp /sdcard/Download/a/b/f.txt /sdcard/g.txt && "
                              "mv /sdcard/g.txt /sdcard/h.txt && cat /sdcard/h.txt && ls /sdcard/Download/a/b")
    assert rc == 0, err
    assert out == "hello\nhello\nf.txt\n"
    assert device.fs.read_bytes("/storage/emulated/0/h.txt") == b"hello\n"
    assert sh(device, "rm /sdcard/h.txt; cat /sdcard/h.txt")[2] == "cat: /sdcard/h.txt: No such file or directory\n"
    assert sh(device, "rm -r /sdcard/Download/a && ls /sdcard/Download")[1] == ""
    # every app's data folder, and those of the platform providers that made theirs (the media module's index)
    copied = sh(device, "cp -r /data/data /data/local/tmp/copy && ls /data/local/tmp/copy")[1].split()
    assert copied == sorted(p.name for p in device.fs.host("/data/data").iterdir())
    assert set(device.apps) <= set(copied)


def test_error_messages_like_toybox(device):
    rc, _, err = sh(device, "cat /x")
    assert rc == 1 and err == "cat: /x: No such file or directory\n"
    rc, _, err = sh(device, "ls /x")
    assert rc == 1 and err == "ls: /x: No such file or directory\n"
    assert sh(device, "mkdir /sdcard/DCIM")[2] == "mkdir: /sdcard/DCIM: File exists\n"
    assert sh(device, "rm /sdcard/DCIM")[0] == 1
    assert sh(device, "rm -f /nothing; echo $?")[1] == "0\n"


def test_ls_formats(device):
    sh(device, "echo -n hello_world_ > /sdcard/Download/note.txt")
    out = sh(device, "ls -l /sdcard/Download/note.txt")[1]
    assert out == "-rw-rw---- 1 root sdcard_rw 12 2026-01-15 09:00 /sdcard/Download/note.txt\n"
    listing = sh(device, "ls -l /sdcard/Download")[1].splitlines()
    assert listing[0].startswith("total ")
    assert listing[1].endswith(" 2026-01-15 09:00 note.txt")
    assert sh(device, "ls -l /sdcard")[1].startswith("lrwxrwxrwx 1 root root ")
    assert "-> /storage/emulated/0" in sh(device, "ls -l /sdcard")[1]
    assert sh(device, "ls -d /sdcard/Download")[1] == "/sdcard/Download\n"
    assert ".\n..\n" in sh(device, "ls -a /sdcard/Download")[1]
    rec = sh(device, "ls -R /data/local")[1]
    assert "/data/local:\ntmp\n" in rec and "/data/local/tmp:" in rec
    assert sh(device, "ls -1 /sdcard/Download")[1] == "note.txt\n"


def test_touch_and_written_files_follow_device_clock(device):
    device.set_wall_ms(DEFAULT_WALL_MS + 3_600_000)
    sh(device, "touch /sdcard/t.txt; echo x > /sdcard/r.txt; sqlite3 /sdcard/d.db 'create table t(a)'")
    for name in ("t.txt", "r.txt", "d.db"):
        st = device.fs.stat(f"/sdcard/{name}")
        assert int(st.st_mtime) == DEFAULT_WALL_MS // 1000 + 3600, name
    assert sh(device, "stat -c %Y /sdcard/t.txt")[1] == f"{DEFAULT_WALL_MS // 1000 + 3600}\n"
    assert "10:00 /sdcard/t.txt" in sh(device, "ls -l /sdcard/t.txt")[1]


def test_stat(device):
    sh(device, "echo 12345678901 > /data/local/tmp/s.txt")
    out = sh(device, "stat -c '%n|%s|%Y|%F|%a|%A|%U|%G|%x|%y' /data/local/tmp/s.txt")[1].strip()
    name, size, mtime, kind, octal, mode, user, group, atime, mtime_text = out.split("|")
    assert (name, size, kind, user, group) == ("/data/local/tmp/s.txt", "12", "regular file", "shell", "shell")
    assert mtime == str(DEFAULT_WALL_MS // 1000)
    assert re.fullmatch(r"[0-7]{3}", octal) and mode.startswith("-rw")
    assert mtime_text == "2026-01-15 09:00:00.000000000 +0000" == atime
    default = sh(device, "stat /sdcard/")[1]
    assert "  File: /sdcard/" in default and "directory" in default and "Modify:" in default
    assert sh(device, "stat -c %F /sdcard")[1] == "symbolic link\n"
    assert sh(device, "stat -L -c %F /sdcard")[1] == "directory\n"


def test_find(device):
    sh(device, "mkdir -p /sdcard/DCIM/Camera; touch /sdcard/DCIM/Camera/a.jpg /sdcard/DCIM/b.png")
    assert sh(device, "find /sdcard/DCIM -name '*.jpg'")[1] == "/sdcard/DCIM/Camera/a.jpg\n"
    assert sh(device, "find /sdcard/DCIM -type d")[1] == "/sdcard/DCIM\n/sdcard/DCIM/Camera\n"
    assert sh(device, "find /sdcard/DCIM -maxdepth 1 -type f")[1] == "/sdcard/DCIM/b.png\n"
    assert sh(device, "find /sdcard")[1] == "/sdcard\n"  # a symlink is not followed without a slash
    assert "/sdcard/DCIM/b.png" in sh(device, "find /sdcard/ -print")[1]
    device.advance(60_000)
    sh(device, "touch /sdcard/DCIM/new.jpg")
    assert sh(device, "find /sdcard/DCIM -newer /sdcard/DCIM/b.png -type f")[1] == "/sdcard/DCIM/new.jpg\n"
    assert sh(device, "find /sdcard/DCIM -type l")[1] == ""
    assert sh(device, "find /sdcard/DCIM -name '*.png' -exec cat {} \\;")[0] == 0
    assert sh(device, "find /nothing")[0] == 1


def test_hashes_and_sizes(device):
    payload = b"abc\n" * 1000
    device.fs.write_bytes("/data/local/tmp/p.bin", payload)
    out = sh(device, "md5sum /data/local/tmp/p.bin")[1]
    assert out == f"{hashlib.md5(payload).hexdigest()}  /data/local/tmp/p.bin\n"
    assert sh(device, "sha256sum /data/local/tmp/p.bin")[1].split()[0] == hashlib.sha256(payload).hexdigest()
    assert sh(device, "sha1sum /data/local/tmp/p.bin")[1].split()[0] == hashlib.sha1(payload).hexdigest()
    assert sh(device, "toybox md5sum /data/local/tmp/p.bin")[1].startswith(hashlib.md5(payload).hexdigest())
    assert sh(device, "du -s /data/local/tmp")[1] == "8\t/data/local/tmp\n"
    assert sh(device, "wc -l /data/local/tmp/p.bin")[1] == "1000 /data/local/tmp/p.bin\n"
    assert sh(device, "cat /data/local/tmp/p.bin | wc -c")[1] == "4000\n"


def test_text_tools(device):
    device.fs.write_bytes("/data/local/tmp/t.txt", b"Apple 3\nbanana 1\ncherry 2\napple 4\n")
    f = "/data/local/tmp/t.txt"
    assert sh(device, f"head -n 2 {f}")[1] == "Apple 3\nbanana 1\n"
    assert sh(device, f"tail -1 {f}")[1] == "apple 4\n"
    assert sh(device, f"tail -n +3 {f}")[1] == "cherry 2\napple 4\n"
    assert sh(device, f"grep -i apple {f}")[1] == "Apple 3\napple 4\n"
    assert sh(device, f"grep -c a {f}")[1] == "2\n"
    assert sh(device, f"grep -ci a {f}")[1] == "3\n"
    assert sh(device, f"grep -v a {f}")[1] == "Apple 3\ncherry 2\n"
    assert sh(device, f"grep -E '^(b|c)' {f}")[1] == "banana 1\ncherry 2\n"
    assert sh(device, f"grep -n cherry {f}")[1] == "3:cherry 2\n"
    assert sh(device, f"grep nomatch {f}")[0] == 1
    assert sh(device, f"sort -k 2 -n {f} | cut -d ' ' -f 1")[1] == "banana\ncherry\nApple\napple\n"
    assert sh(device, f"sed 's/a/A/g' {f} | head -2")[1] == "Apple 3\nbAnAnA 1\n"
    assert sh(device, f"sed -n '2p' {f}")[1] == "banana 1\n"
    assert sh(device, "echo hello | tr a-z A-Z")[1] == "HELLO\n"
    assert sh(device, "echo 'a:b:c' | cut -d: -f2,3")[1] == "b:c\n"
    assert sh(device, "printf '%s=%d\\n' a 1 b 2")[1] == "a=1\nb=2\n"
    assert sh(device, "echo -n x; echo -e 'a\\tb'")[1] == "xa\tb\n"
    assert sh(device, "basename /a/b/c.txt .txt; dirname /a/b/c.txt")[1] == "c\n/a/b\n"
    assert sh(device, "realpath /sdcard/Music; readlink /sdcard")[1] == \
        "/storage/emulated/0/Music\n/storage/emulated/0\n"
    assert sh(device, "echo a b c | xargs -n 1 echo")[1] == "a\nb\nc\n"
    assert sh(device, "seq 3")[1] == "1\n2\n3\n"


def test_test_builtin(device):
    script = ("[ -d /sdcard/DCIM ] && echo d; [ -f /etc/hosts ] && echo f; [ -e /nope ] || echo missing; "
              "test -z '' && echo z; [ abc != abd ] && echo ne; [ 3 -gt 2 ] && echo gt; [ -s /etc/hosts ] && echo s")
    assert sh(device, script)[1] == "d\nf\nmissing\nz\nne\ngt\ns\n"


def test_misc_commands(device):
    assert sh(device, "pwd; cd /sdcard/DCIM; pwd")[1] == "/\n/sdcard/DCIM\n"
    assert sh(device, "which ls getprop; which nothing; echo $?")[1] == "/system/bin/ls\n/system/bin/getprop\n1\n"
    assert sh(device, "uname -a")[1].startswith("Linux localhost ")
    assert sh(device, "uname -m")[1] == "x86_64\n"
    assert sh(device, "getenforce")[1] == "Enforcing\n"
    assert "/data" in sh(device, "df")[1]
    assert " on /data " in sh(device, "mount")[1]
    assert sh(device, "logcat -d; log -t tag hi; echo $?")[1] == "0\n"
    assert sh(device, "true; :; echo ok")[1] == "ok\n"
    assert "PATH=" in sh(device, "env")[1]
    assert sh(device, "uptime")[1].startswith(" 09:00:00 up 1 min")


def test_identity(device):
    assert sh(device, "id")[1].startswith("uid=2000(shell) gid=2000(shell)")
    assert sh(device, "whoami")[1] == "shell\n"
    rc, _, err = sh(device, "su 0 id")
    assert rc == 127 and "su" in err
    device.state.rooted = True
    assert sh(device, "id")[1].startswith("uid=0(root) gid=0(root)")
    assert sh(device, "whoami; su 0 whoami; su root id -u; su -c 'echo $((1+1))'")[1] == "root\nroot\n0\n2\n"


# ---------------------------------------------------------------------------------------------- system
def test_props_and_settings(device):
    assert sh(device, "getprop ro.build.version.sdk")[1] == "34\n"
    assert sh(device, "getprop no.such.prop")[1] == "\n"
    lines = sh(device, "getprop")[1].splitlines()
    names = [line.split("]")[0][1:] for line in lines]
    assert names == sorted(device.state.props) and "[ro.build.version.sdk]: [34]" in lines
    assert sh(device, "setprop debug.x 1; getprop debug.x")[1] == "1\n"
    assert sh(device, "setprop ro.build.version.sdk 1")[0] == 1
    assert sh(device, "settings get global nothing")[1] == "null\n"
    assert sh(device, "settings put system font_scale 1.3; settings get system font_scale")[1] == "1.3\n"
    assert device.state.settings["system"]["font_scale"] == "1.3"
    assert "font_scale=1.3" in sh(device, "settings list system")[1]
    assert sh(device, "settings delete system font_scale")[1] == "Deleted 1 rows\n"
    assert sh(device, "settings get bogus x")[0] != 0


def test_date(device):
    assert sh(device, "date")[1] == "Thu Jan 15 09:00:00 UTC 2026\n"
    assert sh(device, "date +%s")[1] == f"{DEFAULT_WALL_MS // 1000}\n"
    assert sh(device, "date '+%Y-%m-%d %H:%M'")[1] == "2026-01-15 09:00\n"
    rc, _, err = sh(device, "date -s @1800000000")
    assert rc == 1 and err == "date: cannot set date: Operation not permitted\n"
    assert device.wall_ms() == DEFAULT_WALL_MS
    elapsed = device.elapsed_ms()
    device.state.rooted = True
    assert sh(device, "date -s @1800000000")[0] == 0
    assert device.wall_ms() == 1_800_000_000_000 and device.elapsed_ms() == elapsed
    assert sh(device, "date 020312302027.45; date +%FT%T")[1].splitlines()[-1] == "2027-02-03T12:30:45"
    assert sh(device, "date -d @0 -u")[1] == "Thu Jan  1 00:00:00 UTC 1970\n"


def test_sleep_advances_logical_clock_instantly(device):
    before = device.elapsed_ms()
    wall = device.wall_ms()
    t0 = time.monotonic()
    assert sh(device, "sleep 30")[0] == 0
    assert time.monotonic() - t0 < 0.1
    assert device.elapsed_ms() == before + 30_000 and device.wall_ms() == wall + 30_000
    sh(device, "sleep 0.5")
    assert device.elapsed_ms() == before + 30_500
    assert float(sh(device, "cat /proc/uptime")[1].split()[0]) == pytest.approx((before + 30_500) / 1000)


def test_processes(device):
    device.start_activity("com.android.settings")
    pid = device.state.pids["com.android.settings"]
    out = sh(device, "ps -A")[1]
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["USER", "PID", "PPID"] and lines[0].split()[-1] == "NAME"
    row = next(line for line in lines if line.endswith(" com.android.settings"))
    assert len(row.split()) >= 9 and int(row.split()[1]) == pid
    assert sh(device, "pidof com.android.settings")[1] == f"{pid}\n"
    assert sh(device, "pidof com.not.running")[0] == 1
    device.state.rooted = True
    sh(device, f"kill {pid}")
    assert "com.android.settings" not in device.state.running


# ---------------------------------------------------------------------------------------------- ui
def test_wm_and_dumpsys_display(device):
    assert sh(device, "wm size")[1] == "Physical size: 1080x2400\n"
    assert sh(device, "wm density")[1] == "Physical density: 420\n"
    out = sh(device, "dumpsys display")[1]
    first = next(m for m in (re.search(r".*?orientation=(?P<o>\d+)", line) for line in out.splitlines()) if m)
    assert first.group("o") == "0"
    assert re.search(r"mBaseDisplayInfo=.*1080 x 2400", out)


def test_dumpsys_window_matches_adbutils(device):
    device.start_activity("com.android.settings")
    out = sh(device, "dumpsys window windows")[1]
    m = re.search(r"mCurrentFocus=Window{.*\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\}", out)
    assert m and (m.group("package"), m.group("activity")) == device.current_focus()
    assert "  mCurrentFocus=Window{" in out
    assert re.search(r"mFocusedApp=ActivityRecord\{\S+ u0 "
                     r"com\.android\.settings/com\.android\.settings\.Settings t\d+\}", out)
    acts = sh(device, "dumpsys activity activities")[1]
    m = re.search(r"mResumedActivity: ActivityRecord\{.*?\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\s.*?\}", acts)
    assert m and m.group("package") == "com.android.settings"
    assert "topResumedActivity=" in acts
    top = sh(device, "dumpsys activity top")[1]
    m = re.search(r"ACTIVITY (?P<package>[^\s]+)/(?P<activity>[^/\s]+) \w+ pid=(?P<pid>\d+)", top)
    assert m and int(m.group("pid")) == device.state.pids["com.android.settings"]


def test_dumpsys_services(device):
    pkg = sh(device, "dumpsys package com.android.settings")[1]
    app = device.apps["com.android.settings"]
    assert re.search(rf"versionName={re.escape(app.version_name)}\n", pkg)
    assert re.search(rf"versionCode={app.version_code} minSdk=\d+", pkg)
    assert re.search(r"firstInstallTime=[-\d]+\s+[:\d]+", pkg)
    assert sh(device, "dumpsys package com.nope")[1] == "Unable to find package: com.nope\n"
    assert "level: 100" in sh(device, "dumpsys battery")[1]
    power = sh(device, "dumpsys power")[1]
    assert "mWakefulness=Awake" in power and "mHoldingDisplaySuspendBlocker=true" in power
    device.advance(5000)
    assert f"nowELAPSED={device.elapsed_ms()}" in sh(device, "dumpsys alarm")[1]
    assert sh(device, "dumpsys nosuch")[1] == "Can't find service: nosuch\n"


def test_package_manager(device):
    out = sh(device, "pm list packages")[1]
    names = re.findall(r"^package:(\S+)$", out, re.M)
    assert "com.android.settings" in names and names == sorted(names)
    assert "package:com.android.settings" not in sh(device, "pm list packages -3")[1]
    assert "package:/data/app/com.android.settings-1/base.apk=com.android.settings" in \
        sh(device, "pm list packages -f")[1]
    assert sh(device, "pm path com.android.settings")[1] == "package:/data/app/com.android.settings-1/base.apk\n"
    assert sh(device, "pm path com.nope")[0] == 1
    assert sh(device, "pm grant com.android.settings android.permission.CAMERA")[0] == 0
    out = sh(device, "cmd package resolve-activity --brief com.android.settings")[1]
    assert out == ("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
                   "com.android.settings/com.android.settings.Settings\n")


def test_pm_clear(device):
    pkg = "com.android.settings"
    sh(device, f"echo x > /data/data/{pkg}/files/a; echo y > /data/data/{pkg}/shared_prefs/p.xml; "
               f"mkdir /data/data/{pkg}/cache")
    device.start_activity(pkg)
    assert sh(device, f"pm clear {pkg}")[1] == "Success\n"
    assert pkg not in device.state.running
    assert sh(device, f"ls /data/data/{pkg}")[1].split() == ["databases", "files", "shared_prefs"]
    assert sh(device, f"ls /data/data/{pkg}/files")[1] == ""


def test_am_start(device):
    rc, out, err = sh(device, "am start -n com.android.settings/.Settings")
    assert rc == 0, err
    assert out == "Starting: Intent { cmp=com.android.settings/.Settings }\n"
    assert device.current_focus() == ("com.android.settings", "com.android.settings.Settings")
    sh(device, "am force-stop com.android.settings")
    assert device.current_focus()[0] == device.launcher_package
    rc, out, _ = sh(device, "am start -W -n com.android.settings/com.android.settings.DateTimeSettings "
                            "--es mode x --ei n 3 --ez flag true")
    assert rc == 0
    assert "Status: ok\nLaunchState: COLD\nActivity: com.android.settings/.DateTimeSettings\n" in out
    assert out.endswith("TotalTime: 0\nWaitTime: 0\nComplete\n")
    assert sh(device, "am start -W -S -n com.android.settings/.Settings")[1].count("LaunchState: COLD") == 1
    rc, out, err = sh(device, "am start -n com.android.settings/.Nope")
    assert rc == 1 and "Error: Activity class {com.android.settings/com.android.settings.Nope} does not exist." in err
    rc, _, err = sh(device, "am start -n com.nope/.Main")
    assert rc == 1 and "does not exist" in err


def test_am_extras_reach_the_app(device, monkeypatch):
    seen = {}
    real = device.start_activity

    def spy(pkg, activity=None, extras=None, **kw):
        seen.update(extras or {})
        return real(pkg, activity, extras, **kw)

    monkeypatch.setattr(device, "start_activity", spy)
    sh(device, "am start -n com.android.settings/.Settings --es s 'a b' --ei i 7 --ez z 1")
    assert seen == {"s": "a b", "i": "7", "z": "true"}


def test_am_broadcast_and_media_scan(device):
    scanned = []
    device.media_scan = scanned.append
    rc, out, _ = sh(device, "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE "
                            "-d file:///sdcard/DCIM/a%20b.jpg")
    assert rc == 0 and scanned == ["/sdcard/DCIM/a b.jpg"]
    assert out.startswith("Broadcasting: Intent { act=android.intent.action.MEDIA_SCANNER_SCAN_FILE")
    assert out.endswith("Broadcast completed: result=0\n")


def test_monkey(device):
    rc, out, _ = sh(device, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    assert rc == 0 and "Events injected: 1" in out
    assert device.current_focus()[0] == "com.android.settings"
    rc, _, err = sh(device, "monkey -p com.nope -c android.intent.category.LAUNCHER 1")
    assert rc == 252 and "** No activities found to run, monkey aborted." in err


def test_ime(device):
    assert sh(device, "ime list -s")[1] == "com.android.inputmethod.latin/.LatinIME\n"
    out = sh(device, "ime set com.android.inputmethod.latin/.LatinIME")[1]
    assert out == "Input method com.android.inputmethod.latin/.LatinIME selected for user #0\n"
    assert sh(device, "ime enable com.nope/.X")[0] != 0


def test_input_reaches_window_manager(device, rec):
    """device.wm is replaced by a recorder: these assert the dispatch, not the UI's reaction."""
    assert sh(device, "input tap 540 1200")[0] == 0
    sh(device, "input touchscreen swipe 100 2000 100 500")
    sh(device, "input swipe 10 20 30 40 800")
    sh(device, "input draganddrop 1 2 3 4 1500")
    sh(device, "input text hello%sworld")
    sh(device, "input keyevent KEYCODE_HOME BACK 66 KEYCODE_A 7")
    sh(device, "input keyboard keyevent --longpress POWER")
    sh(device, "input motionevent DOWN 5 6")
    assert rec.calls == [("tap", 540, 1200), ("swipe", 100, 2000, 100, 500, 300), ("swipe", 10, 20, 30, 40, 800),
                         ("drag", 1, 2, 3, 4, 1500), ("input_text", "hello world"), ("key", 3), ("key", 4),
                         ("key", 66), ("key", 29), ("key", 7), ("key", 26), ("touch", 0, 5, 6)]
    for bad in ("input", "input tap 1", "input tap x y", "input keyevent NOPE", "input fly 1 2"):
        rc, _, err = sh(device, bad)
        assert rc == 1 and "Usage: input" in err, bad


def test_statusbar(device, rec):
    """device.wm is replaced by a recorder: only the dispatch is checked."""
    sh(device, "cmd statusbar expand-notifications; cmd statusbar collapse; cmd statusbar expand-settings")
    assert rec.calls == [("expand_notifications",), ("collapse_notifications",), ("expand_notifications",)]


def test_screencap(device):
    rc, out, _ = shb(device, "screencap -p")
    assert rc == 0 and out.startswith(b"\x89PNG\r\n\x1a\n")
    assert out == device.screenshot_png()
    assert sh(device, "screencap -p /sdcard/Pictures/s.png")[0] == 0
    assert device.fs.read_bytes("/sdcard/Pictures/s.png").startswith(b"\x89PNG")
    rc, raw, _ = shb(device, "screencap")
    w, h, fmt = struct.unpack("<III", raw[:12])
    assert fmt == 1 and len(raw) == 12 + w * h * 4


def test_uiautomator_dump(device):
    cmd = "rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success"
    rc, out, _ = sh(device, cmd)
    assert rc == 0 and out == "UI hierchary dumped to: /data/local/tmp/uidump.xml\nsuccess\n"
    xml = device.fs.read_bytes("/data/local/tmp/uidump.xml").decode()
    assert xml.startswith("<?xml") and "<hierarchy" in xml
    assert sh(device, "uiautomator dump")[1] == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert "<hierarchy" in device.fs.read_bytes("/sdcard/window_dump.xml").decode()


def test_sqlite3(device):
    db = "/data/data/com.android.settings/databases/t.db"
    rc, out, err = sh(device, f"sqlite3 {db} \"create table t(id integer primary key, name text, v real); "
                              f"insert into t(name, v) values('a', 1.5), ('b', NULL); select * from t;\"")
    assert rc == 0, err
    assert out == "1|a|1.5\n2|b|\n"
    assert sh(device, f"sqlite3 -header -separator , {db} 'select id, name from t order by id desc'")[1] == \
        "id,name\n2,b\n1,a\n"
    assert sh(device, f"sqlite3 {db} .tables")[1] == "t\n"
    assert sh(device, f"sqlite3 {db} '.schema t'")[1] == "CREATE TABLE t(id integer primary key, name text, v real);\n"
    script = b"select count(*) from t;\nselect name from t where id=1;\n"
    assert sh(device, f"sqlite3 {db}", stdin=script)[1] == "2\na\n"
    rc, out, err = sh(device, f"sqlite3 {db} 'select * from nope'")
    assert rc == 1 and err == "Error: in prepare, no such table: nope\n"
    assert sh(device, f"sqlite3 -json {db} 'select id from t'")[1] == '[{"id":1},\n{"id":2}]\n'
    assert sh(device, "sqlite3 /no/such/dir/x.db 'select 1'")[0] == 1


def test_app_process_without_jar(device):
    rc, out, err = sh(device, "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008")
    assert rc == 1 and err == "Error: Could not find or load main class com.wetest.uia2.Main\n"
    assert not device.u2_ports


def test_app_process_registers_and_returns_without_closed(device):
    device.fs.write_bytes("/data/local/tmp/u2.jar", b"PK")
    rc, out, _ = sh(device, "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9010")
    assert rc == 0 and out == "[server] INFO: [UiAutomator2Server] Starting Server\n"
    assert not device.u2_ports


def test_app_process_blocks_until_closed_without_lock(device):
    device.fs.write_bytes("/data/local/tmp/u2.jar", b"PK")
    closed = threading.Event()
    out: list[bytes] = []
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(run_shell(
        device, "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main", out.append,
        out.append, b"", closed)))
    thread.start()
    deadline = time.monotonic() + 5
    while not device.u2_ports and time.monotonic() < deadline:
        time.sleep(0.01)
    assert device.u2_ports == {9008: 1}
    assert b"Starting Server" in b"".join(out)  # flushed while still running
    assert device.lock.acquire(timeout=1)  # the server does not hold the device lock while serving
    device.lock.release()
    closed.set()
    thread.join(2)
    assert not thread.is_alive() and result == [0] and not device.u2_ports


def test_closed_stream_ends_long_commands(device):
    closed = threading.Event()
    threading.Timer(0.2, closed.set).start()
    t0 = time.monotonic()
    sh(device, "logcat", closed=closed)
    assert time.monotonic() - t0 < 2
    closed2 = threading.Event()
    closed2.set()
    rc, out, _ = sh(device, "echo a; echo b", closed=closed2)
    assert out == ""
