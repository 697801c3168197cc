"""The emulator console: auth token, `adb emu` commands, snapshots through the console, kill.

Real adb server and `adb emu`; a raw socket for the auth check.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import adbutils

from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports
from tests.integration.helpers import emu


def _recv_until_ok(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"OK\r\n") and b"KO:" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode()


def test_console_requires_auth_token(vdevice, adb_server):
    port = vdevice.adb_port - 1
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        banner = _recv_until_ok(sock)
        assert "Authentication required" in banner
        sock.sendall(b"avd name\n")
        assert "KO" in _recv_until_ok(sock)
        sock.sendall(b"auth wrong-token\n")
        assert "KO" in _recv_until_ok(sock)
        token = (Path(adb_server.env["HOME"]) / ".emulator_console_auth_token").read_text().strip()
        sock.sendall(f"auth {token}\n".encode())
        assert _recv_until_ok(sock).endswith("OK\r\n")
        sock.sendall(b"avd name\n")
        assert "emukit_virtual" in _recv_until_ok(sock)


def test_emu_ping_and_name(vdevice, adb_server):
    assert "I am alive!" in emu(adb_server, vdevice.serial, "ping")
    assert "emukit_virtual" in emu(adb_server, vdevice.serial, "avd", "name")
    assert "KO" in emu(adb_server, vdevice.serial, "avd", "snapshot", "load", "no_such_snapshot")


def test_snapshot_save_list_delete(vdevice, adb_server):
    assert emu(adb_server, vdevice.serial, "avd", "snapshot", "save", "tmp_snap").strip().endswith("OK")
    assert "tmp_snap" in emu(adb_server, vdevice.serial, "avd", "snapshot", "list")
    emu(adb_server, vdevice.serial, "avd", "snapshot", "delete", "tmp_snap")
    assert "tmp_snap" not in emu(adb_server, vdevice.serial, "avd", "snapshot", "list")


def test_emu_kill_stops_the_device(vdevice_factory, adb_server):
    """A process of its own: ``emu kill`` ends it."""
    proc = vdevice_factory()
    assert "bye bye" in emu(adb_server, proc.serial, "kill")
    proc.proc.wait(timeout=15)
    assert proc.proc.returncode == 0
    deadline = time.monotonic() + 10
    while adb_server.state(proc.serial) == "device" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert adb_server.state(proc.serial) != "device"


def test_four_devices_under_one_server(vdevice_factory, adb_server):
    """Processes of their own, on four consecutive ports chosen by the test."""
    from emukit.device.pool import consecutive_adb_ports

    ports = consecutive_adb_ports(4, TEST_PORT_BASE + 200)  # consecutive even console ports, all checked free
    procs = [vdevice_factory(adb_port=p) for p in ports]
    client = adbutils.AdbClient(port=adb_server.port)
    serials = {d.serial for d in client.device_list()}
    for proc in procs:
        assert proc.serial in serials
        assert client.device(proc.serial).shell("getprop ro.kernel.qemu") == "1"
    for proc in procs:
        assert proc.stop() == 0


def test_emu_sms_send_reaches_the_sms_provider(vdevice, adb_server):
    """``adb emu sms send`` as android_world's ``text_emulator`` issues it; the message is read back with
    ``content query --uri content://sms/inbox`` and cleared with sqlite3 on mmssms.db, as its SMS checks do."""
    dev = adbutils.AdbClient(port=adb_server.port).device(vdevice.serial)
    assert "OK" in emu(adb_server, vdevice.serial, "sms", "send", "+15550100", "Meet at 5,", "ok?")
    assert "bad phone number format" in emu(adb_server, vdevice.serial, "sms", "send", "555-0100", "x")
    assert "missing argument" in emu(adb_server, vdevice.serial, "sms", "send", "+15550100")
    rows = dev.shell("content query --uri content://sms/inbox --projection address:body:read:type")
    assert rows.strip() == "Row: 0 address=+15550100, body=Meet at 5, ok?, read=0, type=1"
    assert dev.shell("content query --uri content://sms/sent").strip() == "No result found."
    db = "/data/data/com.android.providers.telephony/databases/mmssms.db"
    assert dev.shell(f"sqlite3 {db} 'SELECT message_count, snippet FROM threads'").strip() == "1|Meet at 5, ok?"
    dev.shell(f"sqlite3 {db} 'DELETE FROM sms; DELETE FROM threads;'")
    assert dev.shell("content query --uri content://sms").strip() == "No result found."
