"""`emukit devices`, `emukit probe` and `emukit snapshots` as a user runs them (subprocesses), against a real
virtual device behind the real adb server."""

from __future__ import annotations

import json
import subprocess


def emukit(emukit_cli, adb_server, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([*emukit_cli, *args], env=adb_server.env, capture_output=True,
                          text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_devices_lists_the_virtual_device(emukit_cli, vdevice, adb_server):
    rows = json.loads(emukit(emukit_cli, adb_server, "devices", "--json").stdout)
    row = next(r for r in rows if r["serial"] == vdevice.serial)
    assert row == {"serial": vdevice.serial, "kind": "virtual", "state": "device", "api_level": "34",
                   "model": "sdk_gphone64_x86_64"}
    assert vdevice.serial in emukit(emukit_cli, adb_server, "devices").stdout


def test_probe_prints_canonical_state(emukit_cli, vdevice, adb_server, adb_device):
    adb_device.shell("echo x > /sdcard/Download/p.txt")
    out = emukit(emukit_cli, adb_server, "probe", vdevice.serial, "--family", "persistent", "--path",
                 "/sdcard/Download/p.txt", "--path", "/sdcard/Documents/p.txt").stdout
    assert json.loads(out) == {"destination_exists": False, "source_exists": True}
    bad = emukit(emukit_cli, adb_server, "probe", vdevice.serial, "--family", "persistent", check=False)
    assert bad.returncode == 2 and "--path" in bad.stderr
    temporal = json.loads(emukit(emukit_cli, adb_server, "probe", vdevice.serial, "--family", "temporal").stdout)
    assert temporal == {"remaining_seconds": 0, "timer_active": False}


def test_snapshots_build_and_verify(emukit_cli, vdevice, adb_server, tmp_path):
    listed = emukit(emukit_cli, adb_server, "snapshots", "list").stdout
    assert "files_base" in listed
    data = tmp_path / "data"
    emukit(emukit_cli, adb_server, "snapshots", "build", "files_base", "--device", vdevice.serial, "--data-dir", str(data))
    ok = emukit(emukit_cli, adb_server, "snapshots", "verify", "files_base", "--device", vdevice.serial, "--data-dir", str(data))
    assert "matches" in ok.stdout
    fp = data / "snapshots" / vdevice.serial / "files_base.json"
    recorded = json.loads(fp.read_text())
    fp.write_text(json.dumps({**recorded, "files": "0" * 64}))
    bad = emukit(emukit_cli, adb_server, "snapshots", "verify", "files_base", "--device", vdevice.serial, "--data-dir", str(data),
                 check=False)
    assert bad.returncode == 1 and "differs" in bad.stdout
    missing = emukit(emukit_cli, adb_server, "snapshots", "build", "no_such_spec", "--device", vdevice.serial, check=False)
    assert missing.returncode == 1 and "no such snapshot spec" in missing.stdout
