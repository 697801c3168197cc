"""What the client libraries' own device tests need from a device, checked through the real adb server on
``emukit vdevice serve`` processes: the ``framebuffer:`` service, ``adb reverse``, the log buffers
(``log``/``logcat``, activity starts), ``screenrecord``'s MP4, the brightness-mode default, ``kill`` of the
shell's own uiautomator2 server, gestures that take their real duration in hardware mode, and the
``android:id/content`` frame of every activity window."""

from __future__ import annotations

import io
import re
import struct
import time
import xml.etree.ElementTree as ET

import adbutils
import pytest
from PIL import Image

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"


@pytest.fixture(scope="module")
def hw_device(vdevice_factory, adb_server):
    """A hardware-mode virtual device (clocks and gestures in real time)."""
    proc = vdevice_factory(mode="hardware")
    yield adbutils.AdbClient(port=adb_server.port).device(proc.serial), proc
    proc.stop()


def sh(dev: adbutils.AdbDevice, cmd: str) -> adbutils.ShellReturn:
    return dev.shell2(cmd, timeout=30)


# ------------------------------------------------------------------------------------------ framebuffer
def test_framebuffer_header_and_pixels(adb_device):
    with adb_device.open_transport() as conn:
        conn.send_command("framebuffer:")
        conn.check_okay()
        header = struct.unpack("<14I", conn.read(56))
        version, bpp, color_space, size, width, height = header[:6]
        assert (version, bpp, color_space) == (2, 32, 1)
        assert (width, height) == (1080, 2400) and size == width * height * 4
        assert header[6:] == (0, 8, 16, 8, 8, 8, 24, 8)  # red, blue, green, alpha offset/length
        pixels = b""
        while len(pixels) < size:
            chunk = conn.read(min(1 << 20, size - len(pixels)))
            assert chunk
            pixels += chunk
    png = Image.open(io.BytesIO(adb_device.shell("screencap -p", encoding=None))).convert("RGBA")
    assert Image.frombytes("RGBA", (width, height), pixels).tobytes() == png.tobytes()
    assert adb_device.framebuffer().size == (1080, 2400)  # adbutils' own reader


# ------------------------------------------------------------------------------------------ reverse
def _reverse_tcp0(dev: adbutils.AdbDevice, remote: str) -> int:
    """``reverse:forward:tcp:0;REMOTE``: the device answers OKAY and the port it chose."""
    with dev.open_transport() as conn:
        conn.send_command(f"reverse:forward:tcp:0;{remote}")
        conn.check_okay()  # the adb server opened the stream
        conn.check_okay()  # the device's status
        return int(conn.read_string_block())


def test_reverse_forward_list_and_remove(adb_device, adb_server):
    adb_device.reverse_remove_all()
    adb_device.reverse("tcp:12345", "tcp:4000")
    assert [(i.remote, i.local) for i in adb_device.reverse_list()] == [("tcp:12345", "tcp:4000")]
    listing = adb_server.adb("-s", adb_device.serial, "reverse", "--list")
    assert re.fullmatch(r"host-\d+ tcp:12345 tcp:4000", listing.strip()), listing
    with pytest.raises(adbutils.AdbError, match="cannot rebind"):
        adb_device.reverse("tcp:12345", "tcp:4001", norebind=True)
    adb_device.reverse("tcp:12345", "tcp:4002")  # rebinding is allowed without norebind
    assert [i.local for i in adb_device.reverse_list()] == ["tcp:4002"]
    port = _reverse_tcp0(adb_device, "tcp:4003")
    assert port >= 32768
    with pytest.raises(adbutils.AdbError, match="not found"):
        adb_device.reverse_remove("tcp:1")
    adb_device.reverse_remove("tcp:12345")
    assert [(i.remote, i.local) for i in adb_device.reverse_list()] == [(f"tcp:{port}", "tcp:4003")]
    adb_device.reverse_remove_all()
    assert adb_device.reverse_list() == []


# ------------------------------------------------------------------------------------------ log buffers
def test_log_and_logcat_formats(adb_device):
    assert sh(adb_device, "logcat -c").returncode == 0
    assert sh(adb_device, "log -p w -t Probe 'hello world'").returncode == 0
    assert sh(adb_device, "log -t Probe quiet").returncode == 0
    assert sh(adb_device, "log -p x -t Probe bad").returncode == 1
    threadtime = sh(adb_device, "logcat -d -s Probe").output.splitlines()
    assert len(threadtime) == 3 and threadtime[0] == "--------- beginning of main"
    assert re.fullmatch(r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ W Probe   : hello world", threadtime[1])
    assert sh(adb_device, "logcat -d -v brief Probe:W *:S").output.splitlines()[1:] == [
        f"W/Probe   ({threadtime[1].split()[2]:>5}): hello world"]
    assert sh(adb_device, "logcat -d -v tag -b main -t 1 -s Probe").output == "I/Probe   : quiet\n"
    assert re.fullmatch(r"\d\d-\d\d [\d:.]+ I/Probe   \( *\d+\): quiet\n",
                        sh(adb_device, "logcat -d -v time -b main -s Probe:I -e qu").output)
    assert sh(adb_device, "logcat -d -b system -s Probe").output == ""
    assert sh(adb_device, "logcat -b nosuch -d").returncode != 0
    assert sh(adb_device, "logcat -c && logcat -d -s Probe").output == ""


def test_live_logcat_streams_new_entries(adb_device):
    sh(adb_device, "logcat -c")
    stream = adb_device.shell("logcat -v tag -s Live", stream=True)
    try:
        reader = stream.conn.makefile("r")
        sh(adb_device, "log -t Live first")
        assert reader.readline() == "--------- beginning of main\n"  # several buffers are read
        assert reader.readline() == "I/Live    : first\n"
        sh(adb_device, "log -p e -t Live second")
        assert reader.readline() == "E/Live    : second\n"
    finally:
        stream.close()


def test_activity_display_is_logged(adb_device):
    sh(adb_device, "logcat -c")
    assert sh(adb_device, f"am start -n {SETTINGS}/.Settings").returncode == 0
    adb_device.dump_hierarchy()  # the first draw of the new window
    lines = sh(adb_device, "logcat -d -v tag -s ActivityTaskManager").output.splitlines()
    assert any(re.fullmatch(rf"I/ActivityTaskManager: Displayed {SETTINGS}/\.Settings for user 0: \+\d+ms", x)
               for x in lines), lines
    sh(adb_device, "input keyevent HOME")


# ------------------------------------------------------------------------------------------ screenrecord
def _boxes(data: bytes, start: int = 0, end: int | None = None) -> dict[bytes, tuple[int, int]]:
    """ISO BMFF boxes of one level: type -> (payload start, payload end)."""
    out, pos, end = {}, start, len(data) if end is None else end
    while pos < end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        assert size >= 8, (kind, size)
        out[kind] = (pos + 8, pos + size)
        pos += size
    assert pos == end
    return out


def _mp4_samples(data: bytes) -> tuple[int, list[bytes]]:
    """(movie duration in ms, sample bytes) of a one-track MP4, read through moov/trak/.../stbl."""
    top = _boxes(data)
    assert list(top) == [b"ftyp", b"moov", b"mdat"] and data[8:12] == b"isom"
    moov = _boxes(data, *top[b"moov"])
    timescale, duration = struct.unpack(">II", data[moov[b"mvhd"][0] + 12:moov[b"mvhd"][0] + 20])
    mdia = _boxes(data, *_boxes(data, *moov[b"trak"])[b"mdia"])
    assert data[mdia[b"hdlr"][0] + 8:mdia[b"hdlr"][0] + 12] == b"vide"
    stbl = _boxes(data, *_boxes(data, *mdia[b"minf"])[b"stbl"])
    stsd = data[stbl[b"stsd"][0]:stbl[b"stsd"][1]]
    assert stsd[12:16] == b"mp4v" and b"esds" in stsd and bytes([0x04]) in stsd
    esds = stsd[stsd.index(b"esds") + 4:]
    assert esds[esds.index(b"\x04\x80\x80\x80") + 5] == 0x6C  # DecoderConfigDescriptor: JPEG
    count = struct.unpack(">I", data[stbl[b"stsz"][0] + 8:stbl[b"stsz"][0] + 12])[0]
    sizes = struct.unpack(f">{count}I", data[stbl[b"stsz"][0] + 12:stbl[b"stsz"][0] + 12 + 4 * count])
    offset = struct.unpack(">I", data[stbl[b"stco"][0] + 8:stbl[b"stco"][0] + 12])[0]
    assert offset == top[b"mdat"][0]
    samples = []
    for size in sizes:
        samples.append(data[offset:offset + size])
        offset += size
    assert offset == top[b"mdat"][1]
    return duration * 1000 // timescale, samples


def test_screenrecord_writes_an_mp4(adb_device):
    assert sh(adb_device, "which screenrecord").output == "/system/bin/screenrecord\n"
    assert sh(adb_device, "screenrecord --time-limit 2 /sdcard/Movies/a.mp4").returncode == 0
    duration, samples = _mp4_samples(adb_device.sync.read_bytes("/sdcard/Movies/a.mp4"))
    assert duration == 2000  # the logical clock moved by the time limit
    assert samples and all(s.startswith(b"\xff\xd8") and s.endswith(b"\xff\xd9") for s in samples)
    assert Image.open(io.BytesIO(samples[0])).size == (1080, 2400)
    assert sh(adb_device, "screenrecord --size 540x1200 --time-limit 1 /sdcard/Movies/b.mp4").returncode == 0
    _, small = _mp4_samples(adb_device.sync.read_bytes("/sdcard/Movies/b.mp4"))
    assert Image.open(io.BytesIO(small[0])).size == (540, 1200)
    assert sh(adb_device, "screenrecord").returncode == 2


def test_background_screenrecord_ends_on_sigint(adb_device):
    """The way adbutils' start_recording/stop_recording drive it: ``screenrecord F &``, then kill -INT."""
    script = "screenrecord /sdcard/Movies/bg.mp4 &\nPID=$!\nps -A | grep -c screenrecord\nkill -INT $PID\nwait\n"
    adb_device.sync.push(script.encode(), "/sdcard/rec.sh")
    res = sh(adb_device, "rm -f /sdcard/Movies/bg.mp4; sh /sdcard/rec.sh; ls /sdcard/Movies/bg.mp4")
    assert res.returncode == 0 and res.output == "1\n/sdcard/Movies/bg.mp4\n", res.output
    _mp4_samples(adb_device.sync.read_bytes("/sdcard/Movies/bg.mp4"))
    res = sh(adb_device, "rm -f /sdcard/Movies/k.mp4; screenrecord /sdcard/Movies/k.mp4 & kill -9 $!; "
                         "ls /sdcard/Movies/k.mp4")
    assert res.returncode == 1  # SIGKILL: the muxer never wrote the file


# ------------------------------------------------------------------------------------------ settings, kill
def test_brightness_mode_default(adb_device):
    assert sh(adb_device, "settings get system screen_brightness_mode").output == "0\n"


def test_shell_kills_its_own_uiautomator2_server(adb_device):
    adb_device.sync.push(b"jar", "/data/local/tmp/u2.jar")
    adb_device.shell("CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9009 &")
    table = sh(adb_device, "ps -A").output
    line = next(x for x in table.splitlines() if x.endswith(" app_process"))
    user, pid = line.split()[:2]
    assert user == "shell"
    assert sh(adb_device, f"kill {pid}").returncode == 0
    assert "app_process" not in sh(adb_device, "ps -A").output
    settings_pid = None
    sh(adb_device, f"am start -n {SETTINGS}/.Settings")
    for x in sh(adb_device, "ps -A").output.splitlines():
        if x.endswith(" " + SETTINGS):
            settings_pid = x.split()[1]
    res = sh(adb_device, f"kill {settings_pid}")  # another uid: not the shell's to kill
    assert res.returncode == 1 and "Operation not permitted" in res.output
    sh(adb_device, "input keyevent HOME")


# ------------------------------------------------------------------------------------------ gestures
def _timed(fn) -> float:
    start = time.monotonic()
    fn()
    return time.monotonic() - start


def test_gestures_take_their_duration_in_hardware_mode(hw_device):
    dev, _proc = hw_device
    assert _timed(lambda: sh(dev, "input swipe 540 1600 540 800 800")) >= 0.8
    assert _timed(lambda: sh(dev, "input touchscreen swipe 540 1200 545 1200 600")) >= 0.6  # a long press
    assert _timed(lambda: sh(dev, "input tap 540 1200")) < 0.5


def test_uiautomator_swipe_steps_take_5_ms_each_in_hardware_mode(hw_device):
    import uiautomator2

    _dev, proc = hw_device
    d = uiautomator2.connect(proc.serial)
    try:
        assert _timed(lambda: d.swipe(540, 1600, 540, 900, steps=200)) >= 1.0
        assert _timed(lambda: d.long_click(540, 1200, duration=0.7)) >= 0.7
    finally:
        d.stop_uiautomator()


def test_gestures_do_not_wait_in_deterministic_mode(adb_device):
    assert _timed(lambda: sh(adb_device, "input swipe 540 1600 540 800 3000")) < 1.5


# ------------------------------------------------------------------------------------------ content node
def _first_app_window(xml: str) -> ET.Element:
    return ET.fromstring(xml).find("node")


@pytest.mark.parametrize("package", [LAUNCHER, SETTINGS])
def test_activity_window_holds_android_id_content(adb_device, package):
    if package != LAUNCHER:
        sh(adb_device, f"am start -n {package}/.Settings")
    try:
        decor = _first_app_window(adb_device.dump_hierarchy())
        assert decor.get("class") == "android.widget.FrameLayout" and decor.get("resource-id") == ""
        assert decor.get("bounds") == "[0,0][1080,2400]" and decor.get("package") == package
        column = decor.find("node")
        assert column.get("class") == "android.widget.LinearLayout" and len(decor) == 1
        content = column.find("node")
        assert content.get("resource-id") == "android:id/content" and len(column) == 1
        assert content.get("class") == "android.widget.FrameLayout"
        top = int(re.match(r"\[0,(\d+)\]", content.get("bounds")).group(1))
        assert 0 < top < 200  # below the status bar
        assert len(content) == 1 and content.find("node").get("package") == package  # the content view
    finally:
        sh(adb_device, "input keyevent HOME")
