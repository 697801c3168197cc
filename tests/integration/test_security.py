"""The virtual device never exposes the host: loopback only, paths confined to the device root, no host
commands, console behind its token. Real adb server and a real `emukit vdevice serve` process."""

from __future__ import annotations

import os

import adbutils


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a LISTEN socket on ``port``, from /proc/net/tcp{,6}."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table) as fh:
            next(fh)
            for line in fh:
                local, _remote, state = line.split()[1:4]
                addr, hexport = local.split(":")
                if int(hexport, 16) == port and state == "0A":
                    found.add(addr)
    return found


def test_listens_on_loopback_only(vdevice):
    for port in (vdevice.adb_port, vdevice.adb_port - 1):
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, little-endian hex


def test_paths_stay_inside_device_root(adb_device, vdevice, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host only")
    assert "host only" not in adb_device.shell(f"cat {secret}")
    assert "root:" not in adb_device.shell("cat /etc/passwd")
    assert "root:" not in adb_device.shell("cat /sdcard/../../../../../../etc/passwd")
    # a symlink pointing at a host path resolves inside the device
    adb_device.shell(f"ln -s {tmp_path} /sdcard/Download/escape")
    assert "host only" not in adb_device.shell("cat /sdcard/Download/escape/host-secret.txt")
    # pushing through such a link writes inside the device root, never onto the host path
    adb_device.sync.push(b"pushed", "/sdcard/Download/escape/host-secret.txt")
    assert secret.read_text() == "host only"
    assert (vdevice.state_dir / "fs" / str(tmp_path).lstrip("/") / "host-secret.txt").read_bytes() == b"pushed"
    # pulling an absolute host path reads the device's file of that name (absent), not the host's
    assert not adb_device.sync.exists(str(secret)) or adb_device.sync.read_bytes(str(secret)) == b"pushed"


def test_no_host_command_execution(adb_device, tmp_path):
    marker = tmp_path / "should-not-exist"
    for attempt in (f"touch {marker}", f"sh -c 'touch {marker}'", f"/bin/sh -c 'touch {marker}'",
                    f"$(touch {marker})", f"`touch {marker}`", f"python3 -c 'open(\"{marker}\",\"w\")'"):
        adb_device.shell(attempt)
    assert not marker.exists()


def test_rm_rf_root_only_wipes_the_device(pooled_device, adb_server, tmp_path):
    """A pooled device: the pool's reset loads the clean snapshot, which brings the wiped files back."""
    proc = pooled_device
    sentinel = proc.state_dir.parent / "sentinel.txt"
    sentinel.write_text("outside the device root")
    dev = adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    dev.shell("rm -rf /")
    assert sentinel.read_text() == "outside the device root"
    assert proc.state_dir.exists()
    proc.stop()
