"""The session's device pool (tests/devicepool.py) gives a device back in a known state.

The first test leases a device and dirties every kind of state a test can leave behind: shared storage and
app data (a pushed file, Markor's notebook), the clipboard (set over the emulator's gRPC controller), a
running Clock timer, the music app's saved playing queue, the installed apps (Markor uninstalled), settings
and adbd's root, and saves a snapshot of its own. The second test leases a device from the same pool (the
same process: the pool hands idle devices back last-in first-out) and finds none of it, reading exactly what
the device read when first leased; a third compares that with a device process started fresh for the test.
The tests run in this order (pytest keeps a module's order), each on a lease of its own.
"""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver
from emukit.media import make_mp3
from emukit.probes import probe
from tests.integration.helpers import wait_usable

SD = "/storage/emulated/0"
MARKOR = "net.gsantner.markor"
MUSIC = "code.name.monkey.retromusic"
SEEN: dict[str, object] = {}


def device_state(serial: str, adb_port: int) -> dict[str, object]:
    """Everything the dirtying test touches, read through adb, the console and gRPC."""
    d = Driver(serial, adb_port, default_timeout=10)
    try:
        return {
            "files": d.shell("find /storage/emulated/0 /data -type f | sort | xargs md5sum").text,
            "settings": {ns: d.shell(f"settings list {ns}").text for ns in ("global", "system", "secure")},
            "packages": sorted(d.shell("pm list packages").text.split()),
            "clipboard": probe(d, "clipboard").canonical,
            "timer": probe(d, "temporal").canonical,
            "queue": probe(d, "ordered").canonical,
            "user": d.shell("id -u").text.strip(),
            "clock": d.shell("date +%s").text.strip(),
            "foreground": d.current_app()[0],
            "snapshots": sorted(ConsoleClient.for_serial(serial).snapshot_list()),
        }
    finally:
        d.close()


@pytest.fixture
def leased(device_pool, adb_server):
    """A device leased for this test alone (the module's ``vdevice`` would span all three)."""
    proc = device_pool.lease()
    yield proc
    device_pool.give_back(proc)


def test_a_dirties_every_kind_of_state(leased, adb_server):
    before = device_state(leased.serial, adb_server.port)
    SEEN.update(serial=leased.serial, before=before)
    d = Driver(leased.serial, adb_server.port, default_timeout=10)
    try:
        d.adbutils().root()
        wait_usable(adb_server, leased.serial)
        sync = d.adbutils().sync
        sync.push(b"left behind", f"{SD}/Download/left.txt")
        for title in ("Alpha Song", "Bravo Song"):
            sync.push(make_mp3(title, "Band"), f"{SD}/Music/{title.lower().replace(' ', '_')}.mp3")
        music = profile_for(d, "music")
        music.launch(fresh=True)
        music.seed_queue(["Bravo Song", "Alpha Song"])
        d.emulator_controller().set_clipboard("Kestrel7")
        d.shell("settings put global auto_time 1; settings put system screen_brightness 17", check=True)
        clock = profile_for(d, "clock")
        clock.launch(fresh=True)
        clock.open_timers()
        clock.start_timer(300)
        d.shell(f"pm uninstall {MARKOR}", check=True)
        with ConsoleClient.for_serial(leased.serial) as console:
            console.snapshot_save("left_behind")
    finally:
        d.close()
    after = device_state(leased.serial, adb_server.port)
    changed = {key for key in before if before[key] != after[key]}
    assert changed >= {"files", "settings", "packages", "clipboard", "timer", "queue", "user", "snapshots"}, changed
    assert after["clipboard"]["clipboard_text"] == "Kestrel7" and after["timer"]["timer_active"]
    assert after["queue"]["ordered_items"] == ["Bravo Song", "Alpha Song"]


def test_b_the_next_lease_sees_none_of_it(leased, adb_server, device_pool):
    assert leased.serial == SEEN["serial"]  # the same process, reset from its clean snapshot
    assert device_pool.resets >= 1
    now = device_state(leased.serial, adb_server.port)
    assert {k: now[k] for k in now if now[k] != SEEN["before"][k]} == {}


def test_c_a_reset_device_reads_as_a_fresh_process(leased, adb_server, vdevice_factory):
    """A pooled device after its reset against one started for this test (same template)."""
    fresh = vdevice_factory()
    try:
        reset, new = device_state(leased.serial, adb_server.port), device_state(fresh.serial, adb_server.port)
    finally:
        fresh.stop()
    assert {k: (reset[k], new[k]) for k in reset if reset[k] != new[k]} == {}
