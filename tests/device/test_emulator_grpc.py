"""The emulator gRPC controller: emukit's client (discovery + EmulatorControllerClient) against a real virtual
device process behind the real adb server, and the discovery-file parser on a real emulator's file.

The module points ``XDG_RUNTIME_DIR`` (where emulators advertise themselves on Linux) at a temporary folder
for the devices it starts, so nothing is written to the host's runtime dir.
"""

from __future__ import annotations

import os
import queue
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import adbutils
import grpc
import pytest
from google.protobuf.empty_pb2 import Empty

from emukit.device import emulator_grpc
from emukit.device.emulator_grpc import (
    EmulatorControllerClient,
    GrpcCallError,
    GrpcEndpoint,
    discovery_dir,
    find_endpoint,
    parse_discovery_file,
    read_discovery_file,
    running_emulators,
)
from emukit.errors import DeviceError
from emukit.proto import emulator_controller_pb2 as pb2
from emukit.proto import emulator_controller_pb2_grpc as pb2_grpc
from emukit.vdevice.grpc_service import (
    discovery_properties,
    remove_stale_discovery_files,
    write_discovery_file,
)
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports

REAL_INI = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "emulator_discovery_pid.ini"
SERVICE = "/android.emulation.control.EmulatorController/"


def _dead_pid() -> int:
    """The pid of a process that has exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# ---------------------------------------------------------------------------------------------- discovery
def test_parse_real_emulator_discovery_file():
    props = parse_discovery_file(REAL_INI.read_text())
    assert props["port.serial"] == "5554" and props["port.adb"] == "5555"
    assert props["avd.name"] == "Pixel 8 API 34"
    assert props["grpc.port"] == "8554"
    assert props["grpc.token"].endswith("==")  # base64 padding survives the first-'=' split
    assert props["cmdline"].startswith('"/') and props["cmdline"].endswith('"-feature" "a=b"')
    entry = read_discovery_file(REAL_INI)
    assert (entry.serial_port, entry.adb_port, entry.grpc_port) == (5554, 5555, 8554)
    assert entry.token == props["grpc.token"] and entry.avd_name == "Pixel 8 API 34"
    assert entry.pid is None  # the fixture's name is not pid_<pid>.ini
    # CRLF line ends, comments and blank lines
    assert parse_discovery_file("# c\r\n\r\nport.serial=5556\r\ngrpc.port = 8556\r\n") == {
        "port.serial": "5556", "grpc.port": "8556"}


def test_find_endpoint_from_discovery_files(tmp_path):
    live, dead = os.getpid(), _dead_pid()
    shutil.copy(REAL_INI, tmp_path / f"pid_{live}.ini")
    # left behind by an emulator that was killed: same console port, must be ignored
    (tmp_path / f"pid_{dead}.ini").write_text("port.serial=5554\nport.adb=5555\ngrpc.port=9999\n")
    (tmp_path / "notes.txt").write_text("port.serial=5554\ngrpc.port=1\n")  # not a discovery file
    other = tmp_path / "other"
    other.mkdir()
    (other / f"pid_{live}.ini").write_text("port.serial=5556\nport.adb=5557\ngrpc.port=8556\n")
    (other / "pid_1.ini").write_text("port.serial=5558\nport.adb=5559\n")  # pid 1 lives; no -grpc
    dirs = [tmp_path, other, tmp_path / "missing"]

    ep = find_endpoint("emulator-5554", dirs)
    assert (ep.port, ep.host, ep.target) == (8554, "127.0.0.1", "127.0.0.1:8554")
    assert ep.token == read_discovery_file(REAL_INI).token
    assert ep.discovery_file == tmp_path / f"pid_{live}.ini"
    assert find_endpoint("127.0.0.1:5555", dirs).port == 8554  # adb connect serial: matched on port.adb
    no_token = find_endpoint("emulator-5556", dirs)
    assert (no_token.port, no_token.token) == (8556, None)
    assert {e.serial_port for e in running_emulators(dirs)} == {5554, 5556, 5558}

    with pytest.raises(DeviceError, match=r"no running emulator with port.serial=5560 .*" + str(tmp_path)):
        find_endpoint("emulator-5560", dirs)
    with pytest.raises(DeviceError, match="has no gRPC endpoint"):
        find_endpoint("emulator-5558", dirs)
    with pytest.raises(DeviceError, match="not an emulator serial"):
        find_endpoint("R58M123ABC", dirs)


def test_discovery_dir_follows_the_emulator(tmp_path, monkeypatch):
    monkeypatch.setattr(emulator_grpc, "RUN_USER_ROOT", tmp_path / "run-user")
    home = tmp_path / "home"
    assert discovery_dir({"XDG_RUNTIME_DIR": "/xdg", "HOME": str(home)}, "Linux") == Path("/xdg/avd/running")
    # no XDG_RUNTIME_DIR and no /run/user/<uid>: the user directory, ANDROID_EMULATOR_HOME first
    assert discovery_dir({"HOME": str(home)}, "Linux") == home / ".android" / "avd" / "running"
    assert discovery_dir({"HOME": str(home), "ANDROID_EMULATOR_HOME": "/emu", "ANDROID_SDK_HOME": "/sdk"},
                         "Linux") == Path("/emu/avd/running")
    sdk_home = tmp_path / "sdkhome"
    assert discovery_dir({"ANDROID_SDK_HOME": str(sdk_home)}, "Linux") == sdk_home / "avd" / "running"
    (sdk_home / ".android").mkdir(parents=True)
    assert discovery_dir({"ANDROID_SDK_HOME": str(sdk_home)}, "Linux") == sdk_home / ".android/avd/running"
    # ANDROID_EMULATOR_HOME does not override XDG_RUNTIME_DIR (as with the emulator)
    assert discovery_dir({"XDG_RUNTIME_DIR": "/xdg", "ANDROID_EMULATOR_HOME": "/emu"}, "Linux") == Path(
        "/xdg/avd/running")
    if hasattr(os, "getuid"):
        run_user = tmp_path / "run-user" / str(os.getuid())
        run_user.mkdir(parents=True)
        assert discovery_dir({"HOME": str(home)}, "Linux") == run_user / "avd" / "running"
    assert discovery_dir({"HOME": "/Users/me"}, "Darwin") == Path(
        "/Users/me/Library/Caches/TemporaryItems/avd/running")
    assert discovery_dir({"LOCALAPPDATA": "/lad"}, "Windows") == Path("/lad/Temp/avd/running")


def test_discovery_file_writer(tmp_path):
    directory = tmp_path / "avd" / "running"
    props = discovery_properties(serial_port=5554, adb_port=5555, grpc_port=8555, token="t+/=",
                                 avd_name="emukit_virtual")
    path = write_discovery_file(directory, props, pid=os.getpid())
    assert path.name == f"pid_{os.getpid()}.ini"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert parse_discovery_file(path.read_text()) == props
    assert find_endpoint("emulator-5554", [directory]) == GrpcEndpoint(8555, "t+/=", discovery_file=path)
    stale = write_discovery_file(directory, props, pid=_dead_pid())
    assert remove_stale_discovery_files(directory) == 1
    assert path.exists() and not stale.exists()
    with pytest.raises(ValueError):
        write_discovery_file(directory, {"avd.name": "two\nlines"})


# ---------------------------------------------------------------------------------------------- a device
@pytest.fixture(scope="module")
def running_dir(adb_server, tmp_path_factory):
    """XDG_RUNTIME_DIR for this module's devices (and this process); yields its avd/running."""
    root = tmp_path_factory.mktemp("xdg-runtime")
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_RUNTIME_DIR", str(root))
    mp.setitem(adb_server.env, "XDG_RUNTIME_DIR", str(root))
    yield root / "avd" / "running"
    mp.undo()


@pytest.fixture(scope="module")
def device(vdevice_factory, running_dir):
    """A process of its own: it writes its discovery file under this module's XDG_RUNTIME_DIR when it
    starts."""
    proc = vdevice_factory()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def endpoint(device) -> GrpcEndpoint:
    return find_endpoint(device.serial)


@pytest.fixture(scope="module")
def client(endpoint):
    c = EmulatorControllerClient(endpoint)
    yield c
    c.close()


@pytest.fixture(scope="module")
def adb_dev(device, adb_server):
    return adbutils.AdbClient(port=adb_server.port).device(device.serial)


@pytest.fixture(scope="module")
def u2(device):
    import uiautomator2

    d = uiautomator2.connect(device.serial)
    yield d
    d.stop_uiautomator()


def test_discovery_file_lives_as_long_as_the_device(vdevice_factory, running_dir):
    """A process of its own: its discovery file must go when it stops."""
    proc = vdevice_factory()
    path = running_dir / f"pid_{proc.proc.pid}.ini"
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    entry = read_discovery_file(path)
    assert entry.pid == proc.proc.pid
    assert (entry.serial_port, entry.adb_port) == (proc.adb_port - 1, proc.adb_port)
    assert entry.grpc_port == proc.adb_port + 3000  # default: adb port + 3000
    assert entry.token and len(entry.token) >= 64
    assert entry.props["emukit.vdevice"] == "1" and entry.avd_name
    ep = find_endpoint(proc.serial)
    assert (ep.port, ep.token, ep.discovery_file) == (entry.grpc_port, entry.token, path)
    with EmulatorControllerClient(ep) as c:
        assert c.status().booted
    assert proc.stop() == 0  # SIGTERM: clean shutdown
    assert not path.exists()
    with pytest.raises(DeviceError, match="no running emulator"):
        find_endpoint(proc.serial)


def test_clipboard_set_by_uiautomator2_is_read_over_grpc(client, u2):
    u2.set_clipboard("copied in the guest ✓", "label")
    assert client.get_clipboard() == "copied in the guest ✓"
    u2.set_clipboard("")
    assert client.get_clipboard() == ""


def test_set_clipboard_over_grpc_reaches_the_guest(client, u2):
    client.set_clipboard("from the host\nline two")
    assert u2.clipboard == "from the host\nline two"
    assert client.get_clipboard() == "from the host\nline two"


def test_get_clipboard_touches_no_ui(client, adb_dev, u2):
    u2.set_clipboard("look, no hands")
    adb_dev.app_start("com.android.settings")
    before = (adb_dev.shell("screencap -p", encoding=None), adb_dev.dump_hierarchy(),
              adb_dev.app_current().package)
    for _ in range(3):
        assert client.get_clipboard() == "look, no hands"
    after = (adb_dev.shell("screencap -p", encoding=None), adb_dev.dump_hierarchy(),
             adb_dev.app_current().package)
    assert before[0].startswith(b"\x89PNG")
    assert after == before
    adb_dev.keyevent("KEYCODE_HOME")


def test_status_uses_the_device_clock(client, adb_dev):
    status = client.status()
    assert status.booted and status.version.startswith("emukit-vdevice ")
    uptime_s = float(adb_dev.shell("cat /proc/uptime").split()[0])
    assert abs(status.uptime_ms - uptime_s * 1000) < 10  # logical clock: it has not moved in between
    adb_dev.shell("sleep 5")  # advances the logical clock
    assert client.status().uptime_ms == status.uptime_ms + 5000


def test_stream_clipboard_reports_guest_clips(client, u2):
    u2.set_clipboard("before the stream")
    got: queue.Queue[str] = queue.Queue()
    stream = client.stream_clipboard()
    reader = threading.Thread(target=lambda: [got.put(text) for text in stream], daemon=True)
    reader.start()
    try:
        assert got.get(timeout=10) == "before the stream"  # the current clip at once
        client.set_clipboard("set by the host")  # not echoed, as with the emulator
        time.sleep(0.5)
        u2.set_clipboard("copied in the guest")
        assert got.get(timeout=10) == "copied in the guest"
        assert got.empty()
    finally:
        stream.cancel()
        reader.join(10)
    assert not reader.is_alive()


def test_token_is_required(endpoint):
    assert endpoint.token
    channel = grpc.insecure_channel(endpoint.target)
    stub = pb2_grpc.EmulatorControllerStub(channel)
    try:
        for metadata in ((), (("authorization", "Bearer wrong"),), (("authorization", endpoint.token),),
                         (("x-token", endpoint.token),)):
            for call, request in ((stub.getClipboard, Empty()), (stub.setClipboard, pb2.ClipData(text="x")),
                                  (stub.getStatus, Empty())):
                with pytest.raises(grpc.RpcError) as info:
                    call(request, timeout=5, metadata=metadata)
                assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as info:
                list(stub.streamClipboard(Empty(), timeout=5, metadata=metadata))
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        good = (("authorization", f"Bearer {endpoint.token}"),)
        assert isinstance(stub.getClipboard(Empty(), timeout=5, metadata=good), pb2.ClipData)
        # a method this device does not serve: refused before authentication, unimplemented after
        other = channel.unary_unary(SERVICE + "getBattery")
        for metadata, code in (((), grpc.StatusCode.UNAUTHENTICATED), (good, grpc.StatusCode.UNIMPLEMENTED)):
            with pytest.raises(grpc.RpcError) as info:
                other(b"", timeout=5, metadata=metadata)
            assert info.value.code() == code
    finally:
        channel.close()
    # the client reports it as a DeviceError that keeps the code
    with EmulatorControllerClient(GrpcEndpoint(endpoint.port, "wrong")) as bad:
        with pytest.raises(GrpcCallError, match="UNAUTHENTICATED") as err:
            bad.get_clipboard()
        assert err.value.code == grpc.StatusCode.UNAUTHENTICATED


def _listening_addresses(port: int) -> set[str]:
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


def test_grpc_listens_on_loopback_only(endpoint):
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("needs Linux /proc/net")
    # 127.0.0.1, or ::ffff:127.0.0.1 when gRPC binds a dual-stack socket (little-endian hex words)
    loopback = {"0100007F", "0000000000000000FFFF00000100007F"}
    addresses = _listening_addresses(endpoint.port)
    assert addresses and addresses <= loopback, addresses
    with pytest.raises(OSError):  # another loopback address of the host is not served
        socket.create_connection(("127.0.0.2", endpoint.port), timeout=2).close()


def test_client_fails_fast_without_a_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free once closed
    with EmulatorControllerClient(GrpcEndpoint(port, "t"), timeout=2) as c:
        t0 = time.monotonic()
        with pytest.raises(GrpcCallError) as err:
            c.get_clipboard()
        assert err.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        assert time.monotonic() - t0 < 5


# ---------------------------------------------------------------------------------------------- CLI
def _serve(adb_server, tmp_path, *args: str) -> tuple[subprocess.Popen, int]:
    from emukit.device.virtual import free_adb_ports

    port = free_adb_ports(1, start=TEST_PORT_BASE + 200)[0]
    env = dict(adb_server.env, XDG_RUNTIME_DIR=str(tmp_path / "xdg"))
    proc = subprocess.Popen([sys.executable, "-m", "emukit", "vdevice", "serve", "--port", str(port),
                             "--state-dir", str(tmp_path / "state"), "--wipe-data", "--no-register", *args],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    return proc, port


def test_grpc_port_zero_disables_grpc(adb_server, tmp_path):
    proc, port = _serve(adb_server, tmp_path, "--grpc-port", "0")
    try:
        line = proc.stdout.readline()
        assert "ready" in line and ", grpc " not in line
        assert not list((tmp_path / "xdg").glob("**/pid_*.ini"))
        assert _listening_addresses(port + 3000) == set()
    finally:
        proc.terminate()
        proc.wait(10)


def test_busy_grpc_port_is_reported(adb_server, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        grpc_port = busy.getsockname()[1]
        proc, _port = _serve(adb_server, tmp_path, "--grpc-port", str(grpc_port))
        try:
            _out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 1
    assert f"gRPC port {grpc_port} on 127.0.0.1 is not free" in err
    assert not list((tmp_path / "xdg").glob("**/pid_*.ini"))
