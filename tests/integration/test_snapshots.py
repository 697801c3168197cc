"""Snapshots restore the complete device state, byte for byte, and survive device restarts.

Real adb server, `adb emu avd snapshot ...` on the console of a real `emukit vdevice serve` process.
"""

from __future__ import annotations

import stat

import adbutils

from tests.integration.helpers import emu


def tree(dev: adbutils.AdbDevice, path: str) -> dict[str, bytes]:
    """Every file below ``path`` with its content, walked over the sync protocol."""
    out: dict[str, bytes] = {}
    for entry in dev.sync.list(path):
        if entry.path in (".", ".."):
            continue
        full = f"{path.rstrip('/')}/{entry.path}"
        if stat.S_ISDIR(entry.mode):
            out[full + "/"] = b""
            out.update(tree(dev, full))
        elif stat.S_ISREG(entry.mode):
            out[full] = dev.sync.read_bytes(full)
    return out


def fingerprint(dev: adbutils.AdbDevice) -> dict[str, object]:
    """Everything a snapshot must restore, read through adb."""
    return {
        "png": dev.shell("screencap -p", encoding=None),
        "xml": dev.dump_hierarchy(),
        "files": {**tree(dev, "/storage/emulated/0"), **tree(dev, "/data/data")},
        "uptime": dev.shell("cat /proc/uptime"),
        "date": dev.shell("date +%s"),
        "focus": dev.app_current().activity,
        "settings": dev.shell("settings get system time_12_24"),
    }


def test_load_restores_everything(pooled_device, adb_server):
    proc = pooled_device
    dev = adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    dev.shell("echo original > /sdcard/Documents/a.txt; mkdir -p /sdcard/Download/keep")
    dev.shell("am start -n com.android.settings/.DateTimeSettings")
    dev.shell("settings put system time_12_24 24")
    before = fingerprint(dev)
    assert "OK" in emu(adb_server, proc.serial, "avd", "snapshot", "save", "base")

    # change everything a snapshot must cover
    dev.shell("echo changed > /sdcard/Documents/a.txt; rm -r /sdcard/Download/keep; "
              "echo new > /sdcard/Music/new.txt; settings put system time_12_24 12; sleep 600")
    dev.keyevent(3)
    changed = fingerprint(dev)
    assert changed["png"] != before["png"] and changed["files"] != before["files"]

    assert "OK" in emu(adb_server, proc.serial, "avd", "snapshot", "load", "base")
    after = fingerprint(dev)
    assert after == before
    assert dev.shell("cat /sdcard/Documents/a.txt") == "original"


def test_snapshots_persist_across_restart(vdevice_factory, adb_server):
    """A process of its own: it is stopped and started again on the same state dir and port."""
    proc = vdevice_factory()
    dev = adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    dev.shell("echo persisted > /sdcard/Documents/p.txt")
    emu(adb_server, proc.serial, "avd", "snapshot", "save", "keepme")
    state_dir, port = proc.state_dir, proc.adb_port
    assert proc.stop() == 0

    again = vdevice_factory(wipe=False, state_dir=state_dir, adb_port=port)
    dev = adbutils.AdbClient(port=adb_server.port).device(again.serial)
    assert "keepme" in emu(adb_server, again.serial, "avd", "snapshot", "list")
    dev.shell("rm /sdcard/Documents/p.txt")
    emu(adb_server, again.serial, "avd", "snapshot", "load", "keepme")
    assert dev.shell("cat /sdcard/Documents/p.txt") == "persisted"
