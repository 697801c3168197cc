"""The virtual device's shell can never reach the host: no host files read, listed, written or removed
through paths, symlinks or SQL, and no host program run. In-process against a fresh ``VirtualDevice``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import emukit.vdevice.shell as shell_pkg
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell

SECRET = b"host-secret-contents-7d1f"


@pytest.fixture()
def device(tmp_path):
    return VirtualDevice(tmp_path / "dev", wipe=True)


@pytest.fixture()
def outside(tmp_path) -> Path:
    """A host folder outside the device root holding a secret file."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_bytes(SECRET)
    return folder


def sh(device, command: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    out: list[bytes] = []
    err: list[bytes] = []
    rc = run_shell(device, command, out.append, err.append, stdin)
    return rc, b"".join(out), b"".join(err)


def test_host_etc_is_not_readable(device):
    rc, out, err = sh(device, "cat /etc/passwd")
    assert rc == 1 and out == b"" and b"No such file or directory" in err
    rc, out, _ = sh(device, "cat ../../../../etc/hostname; cat /../../../../../etc/passwd")
    assert rc == 1 and out == b""
    rc, out, _ = sh(device, "cd /data/local/tmp; cat ../../../../../../../etc/passwd")
    assert out == b""


def test_ls_root_is_the_device_root(device):
    rc, out, _ = sh(device, "ls /")
    assert out.decode().split() == sorted(os.listdir(device.fs.root))
    assert sh(device, "ls /..")[1] == out
    assert b"sdcard" in out and b"usr" not in out and b"home" not in out


def test_device_symlink_to_absolute_path_stays_inside(device):
    rc, _, err = sh(device, "ln -s /etc /sdcard/escape")
    assert rc == 0, err
    rc, out, _ = sh(device, "cat /sdcard/escape/hosts")
    assert out == device.fs.read_bytes("/etc/hosts")
    assert sh(device, "cat /sdcard/escape/passwd")[0] == 1
    assert sh(device, "ls /sdcard/escape")[1] == b"hosts\n"


def test_host_made_symlink_to_host_path_resolves_in_device(device, outside):
    link = device.fs.host("/sdcard/Download") / "hostlink"
    os.symlink(str(outside), link)  # as if someone planted an absolute host path inside the root
    for cmd in ("cat /sdcard/Download/hostlink/secret.txt", "ls /sdcard/Download/hostlink/",
                "find /sdcard/Download/hostlink/", "grep -r secret /sdcard/Download/",
                "md5sum /sdcard/Download/hostlink/secret.txt", "echo /sdcard/Download/hostlink/*",
                "cp /sdcard/Download/hostlink/secret.txt /sdcard/copy.txt; cat /sdcard/copy.txt",
                "sqlite3 /sdcard/Download/hostlink/secret.txt .tables", "stat /sdcard/Download/hostlink/secret.txt"):
        rc, out, err = sh(device, cmd)
        assert SECRET not in out + err, cmd
        assert b"secret.txt" not in out or cmd.startswith("echo"), cmd
    sh(device, "echo overwrite > /sdcard/Download/hostlink/secret.txt")
    sh(device, "touch /sdcard/Download/hostlink/new.txt; mkdir -p /sdcard/Download/hostlink/newdir")
    sh(device, "cp -r /sdcard/Download /data/local/tmp/dl; rm -rf /sdcard/Download/hostlink/")
    sh(device, "rm -rf /data/local/tmp/dl")
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_writes_through_links_land_inside_the_root(device, outside):
    sh(device, f"ln -s {outside} /data/local/tmp/out")
    rc, _, err = sh(device, "echo pwned > /data/local/tmp/out/secret.txt")
    assert rc == 1 and b"can't create" in err  # the link names a device folder that does not exist
    sh(device, f"mkdir -p {outside}; echo pwned > /data/local/tmp/out/secret.txt; cp /etc/hosts /data/local/tmp/out/")
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert not (outside / "hosts").exists()
    inside = device.fs.root / str(outside).lstrip("/")
    assert (inside / "secret.txt").read_bytes() == b"pwned\n" and (inside / "hosts").exists()


def test_rm_rf_root_only_touches_the_device(device, tmp_path):
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("keep")
    beside = device.state_dir / "beside.txt"
    beside.write_text("keep")
    rc, _, _ = sh(device, "rm -rf /")
    assert sentinel.read_text() == "keep" and beside.read_text() == "keep"
    assert device.fs.root.is_dir() and os.listdir(device.fs.root) == []
    assert sh(device, "rm -rf /../..; rm -rf ../../..")[0] == 0
    assert sentinel.exists() and beside.exists()


def test_sqlite_cannot_attach_host_files(device, tmp_path, outside):
    host_db = tmp_path / "host.db"
    db = "/data/local/tmp/x.db"
    for sql in (f"ATTACH DATABASE '{host_db}' AS x", f"ATTACH '{outside / 'secret.txt'}' AS y",
                f"VACUUM INTO '{host_db}'", f"ATTACH 'file:{host_db}?mode=rwc' AS z",
                "PRAGMA temp_store_directory = '/tmp'", "SELECT load_extension('/usr/lib/x.so')"):
        rc, out, err = sh(device, f"sqlite3 {db} \"{sql}\"")
        assert rc == 1 and err.startswith(b"Error:"), sql
    assert not host_db.exists()
    rc, out, _ = sh(device, f"sqlite3 {db} .databases")
    assert str(tmp_path).encode() not in out


def test_path_commands_map_to_the_table_not_the_host(device):
    rc, out, err = sh(device, "/bin/ls /")
    assert out.decode().split() == sorted(os.listdir(device.fs.root))
    assert sh(device, "/usr/bin/id")[0] == 127
    assert sh(device, "python3 -c 'print(1)'")[0] == 127
    assert sh(device, "/bin/sh -c 'echo $0'")[1] == b"/system/bin/sh\n"


def test_no_host_process_or_dynamic_code_in_shell_source():
    root = Path(shell_pkg.__file__).parent
    forbidden = re.compile(r"\bsubprocess\b|\bos\.(system|popen|exec\w*|spawn\w*|fork\w*|posix_spawn\w*)\b|"
                           r"(?<![\w.])(eval|exec|compile)\s*\(|__import__|\bimportlib\b|\bpty\b|\bctypes\b")
    sources = list(root.rglob("*.py"))
    assert len(sources) > 10
    for path in sources:
        text = path.read_text()
        for lineno, line in enumerate(text.splitlines(), 1):
            assert not forbidden.search(line), f"{path.name}:{lineno}: {line.strip()}"
