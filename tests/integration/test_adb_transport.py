"""The virtual device behind the real adb server: discovery, shell v1/v2, sync, tcp refusal, root.

Nothing is mocked: the adb binary from the adbutils wheel, adbutils and a real `emukit vdevice serve`
process.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess

import adbutils
import pytest

from emukit.device.adbserver import adb_binary
from tests.integration.helpers import wait_usable


def adb(server, serial, *args, input_bytes=None, check=True) -> subprocess.CompletedProcess:
    return subprocess.run([adb_binary(), "-P", str(server.port), "-s", serial, *args], env=server.env,
                          capture_output=True, timeout=60, input=input_bytes, check=check)


def test_listed_as_emulator_without_connect(adb_server, vdevice):
    out = subprocess.run([adb_binary(), "-P", str(adb_server.port), "devices"], env=adb_server.env,
                         capture_output=True, text=True, check=True).stdout
    assert f"{vdevice.serial}\tdevice" in out
    assert vdevice.serial.startswith("emulator-")


def test_shell_v1_and_v2_exit_codes(adb_server, vdevice, adb_device):
    # adb CLI uses shell v2 (advertised feature) and propagates the exit status.
    assert adb(adb_server, vdevice.serial, "shell", "echo", "hi").stdout == b"hi\n"
    assert adb(adb_server, vdevice.serial, "shell", "exit 3", check=False).returncode == 3
    assert adb(adb_server, vdevice.serial, "shell", "false", check=False).returncode == 1
    # adbutils shell (v1) and shell2 with and without v2
    assert adb_device.shell("echo hello") == "hello"
    r1 = adb_device.shell2("ls /nonexistent-dir")
    assert r1.returncode == 1 and "No such file" in r1.output
    r2 = adb_device.shell2("echo out; echo err >&2; exit 7", v2=True)
    assert r2.returncode == 7
    assert r2.stdout.strip() == "out" and r2.stderr.strip() == "err"


def test_unknown_command_fails_like_android(adb_device):
    r = adb_device.shell2("frobnicate --now", v2=True)
    assert r.returncode == 127
    assert "frobnicate" in r.stderr and "not found" in r.stderr


@pytest.mark.parametrize("size", [1, 4096, 65535, 65536, 65537, 1_000_003, 10 * 1024 * 1024])
def test_sync_push_pull_binary_safe(adb_device, tmp_path, size):
    payload = os.urandom(size)
    src = tmp_path / "src.bin"
    src.write_bytes(payload)
    remote = f"/sdcard/Download/blob_{size}.bin"
    adb_device.sync.push(src, remote)
    info = adb_device.sync.stat(remote)
    assert info.size == size and stat.S_ISREG(info.mode)
    dst = tmp_path / "dst.bin"
    adb_device.sync.pull(remote, dst)
    assert dst.read_bytes() == payload
    md5 = adb_device.shell(f"md5sum {remote}").split()[0]
    assert md5 == hashlib.md5(payload).hexdigest()
    adb_device.shell(f"rm {remote}")


def test_sync_with_adb_cli_and_listing(adb_server, vdevice, tmp_path):
    src = tmp_path / "hello.txt"
    src.write_bytes(b"\x00\x01binary\xff\n")
    adb(adb_server, vdevice.serial, "push", str(src), "/sdcard/Documents/newdir/hello.txt")
    listing = adb(adb_server, vdevice.serial, "ls", "/sdcard/Documents/newdir").stdout.decode()
    assert "hello.txt" in listing
    out = tmp_path / "back.txt"
    adb(adb_server, vdevice.serial, "pull", "/sdcard/Documents/newdir/hello.txt", str(out))
    assert out.read_bytes() == src.read_bytes()
    missing = adb(adb_server, vdevice.serial, "pull", "/sdcard/nope.txt", str(tmp_path / "x"), check=False)
    assert missing.returncode != 0
    assert b"No such file" in missing.stderr or b"does not exist" in missing.stderr


def test_sync_stat_missing_and_list(adb_device):
    assert not adb_device.sync.exists("/sdcard/definitely-missing")
    names = {f.path for f in adb_device.sync.list("/sdcard/")}
    assert {"Download", "Music", "Documents", "Pictures", "DCIM"} <= names


def test_tcp_port_refused_without_server(adb_device):
    with pytest.raises(adbutils.AdbError):
        adb_device.create_connection(adbutils.Network.TCP, 9123)


def test_root_and_date(adb_server, vdevice, adb_device):
    assert "restarting adbd as root" in adb_device.root() or "already" in adb_device.root()
    dev = wait_usable(adb_server, vdevice.serial)
    assert "uid=0(root)" in dev.shell("id")
