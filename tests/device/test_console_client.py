"""The console client against real virtual devices (``avd snapshot ...``, ``ping``, ``avd name``, ``kill``),
auth handling, reconnects, and waiting for a device to be usable after a snapshot load."""

from __future__ import annotations

import datetime as dt
import socket
import threading

import pytest

from emukit.device import boot
from emukit.device.boot import PostBootConfig
from emukit.device.console import ConsoleClient, console_port, parse_snapshot_list
from emukit.device.launcher import VirtualLauncher
from emukit.device.virtual import free_adb_ports
from emukit.errors import DeviceError
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports
from tests.device.fake_sdk import FIXTURES


def test_console_port_from_serial():
    assert console_port("emulator-5554") == 5554
    for bad in ("127.0.0.1:5555", "emulator-", "R58M123"):
        with pytest.raises(DeviceError, match="not an emulator serial"):
            console_port(bad)


def test_parse_snapshot_list_of_a_real_emulator():
    text = (FIXTURES / "console-snapshot-list.txt").read_text()
    assert parse_snapshot_list(text) == ["default_boot", "task_000_init"]
    assert parse_snapshot_list("List of snapshots present on all disks:\n") == []


def test_auth_ping_and_name(vdevice):
    with ConsoleClient.for_serial(vdevice.serial, timeout=10) as client:
        assert client.ping()
        assert client.avd_name() == "emukit_virtual"
        assert "ping" in client.command("help")
        with pytest.raises(DeviceError, match="console refused 'bogus'"):
            client.command("bogus")
        assert client.ping()  # the connection survives a KO


def test_wrong_or_missing_token(vdevice, tmp_path):
    wrong = tmp_path / "token"
    wrong.write_text("not-the-token")
    with pytest.raises(DeviceError, match="console refused console authentication"):
        ConsoleClient.for_serial(vdevice.serial, token_path=wrong).connect()
    with pytest.raises(DeviceError, match="cannot be read"):
        ConsoleClient.for_serial(vdevice.serial, token_path=tmp_path / "missing").connect()


def test_unreachable_console_names_the_device():
    port = free_adb_ports(1, start=TEST_PORT_BASE + 200)[0] - 1
    with pytest.raises(DeviceError, match=f"emulator-{port}: cannot connect to the console"):
        ConsoleClient(port, timeout=2).avd_name()
    assert not ConsoleClient(port, timeout=2).ping()


def test_snapshot_save_list_load_delete(vdevice, adb_server):
    serial = vdevice.serial
    shell = lambda cmd: boot.adb_shell(adb_server, serial, cmd)
    with ConsoleClient.for_serial(serial) as client:
        shell("echo before > /sdcard/Download/console_client.txt")
        client.snapshot_save("cc_snap")
        assert "cc_snap" in client.snapshot_list()
        shell("echo after > /sdcard/Download/console_client.txt")
        client.snapshot_load("cc_snap")
        hooked: list[bool] = []
        waited = client.wait_ready(adb_server, serial, timeout=20, post_load=lambda: hooked.append(True))
        assert waited < 20 and hooked == [True]
        assert shell("cat /sdcard/Download/console_client.txt") == "before"
        client.snapshot_delete("cc_snap")
        assert "cc_snap" not in client.snapshot_list()
        with pytest.raises(DeviceError, match="console refused 'avd snapshot load cc_snap'"):
            client.snapshot_load("cc_snap")
        with pytest.raises(DeviceError, match="no whitespace"):
            client.snapshot_save("two words")


def test_wait_ready_times_out_naming_the_serial(adb_server):
    client = ConsoleClient(5998)
    with pytest.raises(DeviceError, match="emulator-5998: timed out .* 'device'"):
        client.wait_ready(adb_server, "emulator-5998", timeout=0.3)


def test_load_re_roots_and_re_pins_the_clock(adb_server, tmp_path):
    """After a load the guest clock is the snapshot's; the launcher's hook pins it to the anchor again."""
    anchor = dt.datetime(2024, 5, 1, 8, 0, 0)
    port = free_adb_ports(1, start=TEST_PORT_BASE + 240)[0]
    launcher = VirtualLauncher(port, tmp_path / "dev", adb_server, setup=PostBootConfig(clock_anchor=anchor))
    try:
        serial = launcher.launch()
        date = lambda: boot.adb_shell(adb_server, serial, "date +%Y-%m-%dT%H:%M")
        assert date() == "2024-05-01T08:00"
        boot.adb_shell(adb_server, serial, "date 0101000020.00")  # an older clock, saved in the snapshot
        with ConsoleClient.for_serial(serial) as client:
            client.snapshot_save("clock_snap")
            boot.pin_clock(adb_server, serial, dt.datetime(2030, 1, 1))
            client.snapshot_load("clock_snap")
            assert date() == "2020-01-01T00:00"
            client.wait_ready(adb_server, serial, post_load=launcher.after_snapshot_load)
            assert date() == "2024-05-01T08:00"
            assert boot.adb_shell(adb_server, serial, "id -u") == "0"
    finally:
        launcher.stop()


def test_reconnects_after_the_device_restarts_and_kill(vdevice_factory, adb_server):
    """A process of its own: it is stopped, started again on the same port and killed."""
    proc = vdevice_factory()
    client = ConsoleClient.for_serial(proc.serial, timeout=10)
    assert client.ping()
    proc.stop()
    restarted = vdevice_factory(adb_port=proc.adb_port, state_dir=proc.state_dir, wipe=False)
    assert client.avd_name() == "emukit_virtual"  # the old connection broke; the client reconnected
    client.kill()
    restarted.proc.wait(timeout=15)
    assert restarted.proc.returncode == 0
    assert not client.ping()
    with pytest.raises(DeviceError, match="cannot connect"):
        client.command("ping")


def test_banner_without_auth_is_accepted(tmp_path):
    """A console that does not ask for a token (empty token file on the emulator side)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
            data = b""
            while b"\n" not in data:
                data += conn.recv(100)
            assert data.startswith(b"avd name")
            conn.sendall(b"Some_AVD\r\nOK\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client = ConsoleClient(port, token_path=tmp_path / "absent", timeout=5)
    assert client.avd_name() == "Some_AVD"
    client.close()
    thread.join(5)
    server.close()
