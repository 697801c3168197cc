"""Ground-truth probes and the time warp against a real virtual device behind the real adb server.

Probes must be read-only: running all of them twice leaves the screenshot, the hierarchy and every other
probe's value unchanged.
"""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.probes import probe
from emukit.timewarp import warp
from tests.integration.helpers import wait_usable

SD = "/storage/emulated/0"
CLOCK = "com.google.android.deskclock"


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    Driver(vdevice.serial, adb_server.port).adbutils().root()
    wait_usable(adb_server, vdevice.serial)
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()


def test_persistent_probe(driver):
    driver.shell(f"echo data > {SD}/Download/a.txt; rm -f {SD}/Documents/a.txt", check=True)
    result = probe(driver, "persistent", source=f"{SD}/Download/a.txt", destination=f"{SD}/Documents/a.txt",
                   sha256=True)
    assert result.canonical == {"source_exists": True, "destination_exists": False}
    src = result.evidence["stat"][f"{SD}/Download/a.txt"]
    assert src["size"] == 5 and len(src["sha256"]) == 64


def _fresh_timer(driver, seconds: int) -> None:
    """A cleared Clock running one timer of ``seconds``, started through the profile."""
    driver.shell(f"pm clear {CLOCK}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(seconds)


def test_temporal_probe_and_warp(driver):
    _fresh_timer(driver, 300)
    result = probe(driver, "temporal")
    assert result.canonical == {"timer_active": True, "remaining_seconds": 300}
    # DeskClock's preferences are in device-protected storage; the probe reads that file first
    assert result.evidence["prefs_path"] == f"/data/user_de/0/{CLOCK}/shared_prefs/{CLOCK}_preferences.xml"
    driver.home()
    record = warp(driver, 120)
    assert record.seconds == 120 and record.method
    assert record.details["prefs_path"] == result.evidence["prefs_path"]  # written where it was read
    assert record.details["broadcast_exit"] == 0
    assert record.details["timers_after"][0]["remaining_ms"] == 180_000
    assert probe(driver, "temporal").canonical == {"timer_active": True, "remaining_seconds": 180}
    warp(driver, 200)
    assert probe(driver, "temporal").canonical == {"timer_active": False, "remaining_seconds": 0}
    driver.shell("cmd statusbar expand-notifications", check=True)
    assert driver.exists(resourceId=f"{CLOCK}:id/state", text="Time's up") and driver.exists(text="Stop")
    driver.shell("cmd statusbar collapse", check=True)


def test_temporal_probe_falls_back_to_credential_encrypted_prefs(driver):
    """A credential-encrypted copy alone (not yet moved by the app) is read there; the warp writes the
    device-protected copy the app reads and drops the other one, which the app would move over it."""
    _fresh_timer(driver, 300)
    de = f"/data/user_de/0/{CLOCK}/shared_prefs/{CLOCK}_preferences.xml"
    ce = f"/data/data/{CLOCK}/shared_prefs/{CLOCK}_preferences.xml"
    driver.home()
    driver.shell(f"am force-stop {CLOCK}; mkdir -p /data/data/{CLOCK}/shared_prefs; mv {de} {ce}", check=True)
    result = probe(driver, "temporal")
    assert result.evidence["prefs_path"] == ce
    assert result.canonical == {"timer_active": True, "remaining_seconds": 300}
    details = warp(driver, 60).details
    assert (details["prefs_path"], details["prefs_read_from"]) == (de, ce)
    after = probe(driver, "temporal")
    assert after.evidence["prefs_path"] == de
    assert after.canonical == {"timer_active": True, "remaining_seconds": 240}


def test_warp_keeps_paused_timers(driver):
    driver.shell(f"pm clear {CLOCK}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(600)
    clock.pause()
    warp(driver, 900)
    assert probe(driver, "temporal").canonical == {"timer_active": False, "remaining_seconds": 600}


def test_clipboard_probe_reads_grpc_without_touching_the_ui(driver):
    driver.ensure_ui()
    driver.rpc("setClipboard", "label", "Kestrel7")
    before = driver.wait_stable()
    assert probe(driver, "clipboard").canonical == {"clipboard_type": "text", "clipboard_text": "Kestrel7"}
    assert driver.wait_stable() == before


def test_probes_are_read_only(driver):
    from emukit.media import make_mp3

    driver.shell(f"echo x > {SD}/Download/ro.txt", check=True)
    driver.adbutils().sync.push(make_mp3("Amber", "Band"), f"{SD}/Music/amber.mp3")
    music = profile_for(driver, "music")
    music.launch(fresh=True)
    music.add_to_queue("Amber")
    driver.home()
    params = {"persistent": {"source": f"{SD}/Download/ro.txt", "destination": f"{SD}/Music/ro.txt"},
              "temporal": {}, "clipboard": {}, "ordered": {}}
    before_screen = driver.wait_stable()
    first = {f: probe(driver, f, **params[f]).canonical for f in params}
    second = {f: probe(driver, f, **params[f]).canonical for f in params}
    assert first == second
    assert first["ordered"]["ordered_items"] == ["Amber"]
    assert driver.wait_stable() == before_screen
