"""The virtual device process: ADB transport and console listeners on 127.0.0.1, registration with the adb
server (the way an emulator announces itself), ADB services, faults, and clean shutdown."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

from emukit.vdevice.console import ConsoleSession, load_or_create_token
from emukit.vdevice.device import VirtualDevice, format_screen
from emukit.vdevice.logd import BUFFERS
from emukit.vdevice.memory import cache_stats_on_signal, heap_snapshots_on_signal, limit_malloc_arenas
from emukit.vdevice.profiling import dump_profile, profile_threads
from emukit.vdevice.sync import SyncSession
from emukit.vdevice.transport import Connection, Stream, banner_for

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
DEFAULT_ADB_SERVER_PORT = 5037


def adb_server_port() -> int:
    return int(os.environ.get("ANDROID_ADB_SERVER_PORT", DEFAULT_ADB_SERVER_PORT))


def adb_binary() -> str:
    """The adb executable: ``$ADBUTILS_ADB_PATH``, ``adb`` on PATH, or the one in the adbutils wheel."""
    from adbutils import adb_path

    return adb_path()


def ensure_adb_server(port: int, timeout: float = 15.0) -> None:
    """Start the adb server on ``port`` unless one answers there."""
    with contextlib.suppress(OSError):
        socket.create_connection((LOOPBACK, port), timeout=1).close()
        return
    subprocess.run([adb_binary(), "-P", str(port), "start-server"], check=True, timeout=timeout,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def register_emulator(adb_port: int, server_port: int) -> bool:
    """Send ``host:emulator:<adb_port>`` to the adb server, as an emulator does on boot."""
    request = f"host:emulator:{adb_port}".encode()
    try:
        with socket.create_connection((LOOPBACK, server_port), timeout=2) as sock:
            sock.sendall(b"%04x" % len(request) + request)
        return True
    except OSError as exc:
        log.warning("could not register with the adb server on port %d: %s", server_port, exc)
        return False


class DeviceServer:
    """Runs one :class:`VirtualDevice` behind an adb transport port and a console port."""

    def __init__(self, device: VirtualDevice, adb_port: int, server_port: int | None = None,
                 grpc_port: int = 0) -> None:
        if adb_port % 2 == 0:
            raise ValueError(f"adb port must be odd (console = adb port - 1), got {adb_port}")
        self.device = device
        self.adb_port = adb_port
        self.console_port = adb_port - 1
        self.server_port = server_port or adb_server_port()
        self.stopped = threading.Event()
        self.connections: set[Connection] = set()
        self._clock = threading.Lock()
        self._listeners: list[socket.socket] = []
        self.grpc_port = grpc_port  # gRPC controller port; 0: none (see _start_grpc)
        self.grpc = None  # emukit.vdevice.grpc_service.GrpcService while it runs
        self._adb_accepts = 0  # adb transport connections accepted so far (see _reregister_later)

    @property
    def serial(self) -> str:
        return f"emulator-{self.console_port}"

    # ------------------------------------------------------------------ lifecycle
    def start(self, register: bool = True) -> None:
        load_or_create_token()  # like the emulator: the token file exists before anyone connects
        self._listeners = [self._listen(self.console_port), self._listen(self.adb_port)]
        self._start_grpc()
        threading.Thread(target=self._accept_loop, args=(self._listeners[0], self._on_console),
                         daemon=True, name="console-accept").start()
        threading.Thread(target=self._accept_loop, args=(self._listeners[1], self._on_adb),
                         daemon=True, name="adb-accept").start()
        threading.Thread(target=self._fault_watch, daemon=True, name="faults").start()
        if register:
            ensure_adb_server(self.server_port)
            register_emulator(self.adb_port, self.server_port)

    @staticmethod
    def _listen(port: int) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, port))
        except OSError as exc:
            sock.close()
            raise OSError(exc.errno, f"port {port} on {LOOPBACK} is not free: {exc.strerror}") from None
        sock.listen(16)
        return sock

    def serve_forever(self) -> None:
        """Block until SIGINT/SIGTERM, ``adb emu kill`` or :meth:`stop`."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.stopped.set())
        while not self.stopped.wait(0.5):
            pass
        self.shutdown()

    def stop(self) -> None:
        self.stopped.set()

    def shutdown(self) -> None:
        self.stopped.set()
        self._stop_grpc()
        for sock in self._listeners:
            with contextlib.suppress(OSError):
                sock.close()
        self.drop_connections()
        with self.device.lock:
            self.device.persist()

    def drop_connections(self) -> None:
        with self._clock:
            conns = list(self.connections)
        for conn in conns:
            conn.shutdown()

    # ------------------------------------------------------------------ gRPC controller (grpc_service.py)
    def _start_grpc(self) -> None:
        """Serve the emulator's gRPC controller on 127.0.0.1:grpc_port and write the discovery file."""
        if not self.grpc_port:
            return
        from emukit.vdevice.grpc_service import GrpcService

        self.grpc = GrpcService(self.device, self.grpc_port, serial_port=self.console_port,
                                adb_port=self.adb_port)
        try:
            self.grpc.start()
        except OSError:
            self.grpc = None
            for sock in self._listeners:
                sock.close()
            raise

    def _stop_grpc(self) -> None:
        """Remove the discovery file and stop the gRPC server."""
        if self.grpc is not None:
            self.grpc.stop()
            self.grpc = None

    # ------------------------------------------------------------------ accept loops
    def _accept_loop(self, listener: socket.socket, handler) -> None:
        while not self.stopped.is_set():
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handler, args=(sock,), daemon=True).start()

    def _on_console(self, sock: socket.socket) -> None:
        ConsoleSession(sock, self.device, on_kill=self.stop, on_fault=self.fault).serve()

    def _on_adb(self, sock: socket.socket) -> None:
        if self.device.faults.offline:
            sock.close()
            return
        conn = Connection(sock, banner_for(self.device.state.props), self.resolve, self.device.faults)
        with self._clock:
            self.connections.add(conn)
            self._adb_accepts += 1
        try:
            conn.serve()
        finally:
            with self._clock:
                self.connections.discard(conn)

    # ------------------------------------------------------------------ faults
    def fault(self, name: str, args: list[str]) -> str:
        """Console ``fault`` commands; returns the status text."""
        faults = self.device.faults
        name = name.lower()
        if name == "clear":
            faults.clear()
        elif name == "drop":
            self.drop_connections()
            self._reregister_later(0.2)
        elif name == "offline":
            seconds = float(args[0]) if args else 5.0
            faults.go_offline(seconds)
            self.drop_connections()
        elif name == "delay":
            faults.delay_ms = int(args[0]) if args else 0
        elif name == "crash":
            return f"crashed {self.device.crash_foreground()}"
        elif name == "corrupt":
            faults.corrupt_next = int(args[0]) if args else 1
        elif name != "status":
            raise ValueError(f"unknown fault {name!r} (status|clear|drop|offline S|delay MS|crash|corrupt N)")
        return faults.describe()

    def _reregister_later(self, delay: float) -> None:
        """Announce the device to the adb server ``delay`` seconds after its transport went away.

        The server refuses an announcement while it still holds the old transport (a few hundred ms after
        the drop here) and reconnects on its own one second after that (adb's LOCAL_PORT_RETRY_INTERVAL), as
        it does for a real emulator. In hardware mode that is left as it is; in deterministic mode the device
        announces again every :data:`REANNOUNCE_INTERVAL` until a new connection arrives (at most
        :data:`REANNOUNCE_FOR` seconds), so ``adb root`` takes 0.3 s instead of 1.3 s."""
        accepted = self._adb_accepts
        repeat = self.device.mode != "hardware"

        def run() -> None:
            time.sleep(delay)
            deadline = time.monotonic() + REANNOUNCE_FOR
            while not self.stopped.is_set():
                register_emulator(self.adb_port, self.server_port)
                if (not repeat or self.stopped.wait(REANNOUNCE_INTERVAL) or self._adb_accepts != accepted
                        or time.monotonic() > deadline):
                    return
        threading.Thread(target=run, daemon=True).start()

    def _fault_watch(self) -> None:
        """Announce the device again when an offline period ends."""
        faults = self.device.faults
        was_offline = False
        while not self.stopped.wait(0.1):
            if faults.drop_requested.is_set() and faults.offline:
                was_offline = True
                faults.drop_requested.clear()
            if was_offline and not faults.offline:
                was_offline = False
                register_emulator(self.adb_port, self.server_port)

    # ------------------------------------------------------------------ services
    def resolve(self, service: str):
        """Handler for an ADB service name, or None to refuse it. Shell lines and uiautomator2 calls mark
        their own screen-memo scope, the framebuffer only reads the screen and the reverse table is not
        device state; every other service (sync, root, reboot) may change the device."""
        handler = self._resolve(service)
        if handler is None or handler in (self._shell_v1, self._shell_v2, self._u2, self._framebuffer,
                                          self._reverse):
            return handler

        def changing(stream: Stream, svc: str) -> None:
            with self.device.ui_changing():
                handler(stream, svc)

        return changing

    def _resolve(self, service: str):
        if service.startswith(("shell:", "exec:")):
            return self._shell_v1
        if service.startswith("shell,") and ":" in service:
            opts = service.split(":", 1)[0].split(",")
            return self._shell_v2 if "v2" in opts else self._shell_v1
        if service.startswith("sync:"):
            return lambda stream, _svc: SyncSession(stream, self.device.fs,
                                                    on_write=self.device.media.fuse_created).serve()
        if service.startswith("tcp:"):
            try:
                port = int(service[4:].split(":")[0])
            except ValueError:
                return None
            if port not in self.device.u2_ports:
                return None
            return self._u2
        if service == "framebuffer:":
            return self._framebuffer
        if service.startswith("reverse:"):
            return self._reverse
        if service.startswith(("root:", "unroot:")):
            return self._root
        if service.startswith("reboot:"):
            return self._reboot
        return None

    def _command_of(self, service: str) -> str:
        return service.split(":", 1)[1] if ":" in service else ""

    def _run(self, command: str, out, err, closed: threading.Event, stdin: bytes = b"") -> int:
        from emukit.vdevice.shell import run_shell

        return run_shell(self.device, command, out, err, stdin, closed)

    @staticmethod
    def _streamed_install(stream: Stream, command: str) -> bytes:
        """The APK bytes of a streamed install: ``adb install`` opens ``exec:cmd package 'install' -S SIZE``
        and writes SIZE bytes after it, which ``cmd package install -S`` reads from its input (adb
        client/adb_install.cpp ``install_app_streamed``; PackageManagerShellCommand ``runInstall``); other
        commands get no input."""
        words = command.replace("'", " ").replace('"', " ").split()
        if len(words) < 4 or words[:2] not in (["cmd", "package"], ["pm", "install"]) or "-S" not in words:
            return b""
        if words[:2] == ["cmd", "package"] and words[2] not in ("install", "install-write"):
            return b""
        try:
            want = int(words[words.index("-S") + 1])
        except (IndexError, ValueError):
            return b""
        data = b""
        while len(data) < want:
            chunk = stream.recv()
            if not chunk:
                break
            data += chunk
        return data

    def _shell_v1(self, stream: Stream, service: str) -> None:
        command = self._command_of(service)
        if not command.strip():
            self._interactive(stream)
            return
        corrupt = self.device.faults.take_corruption()

        def write(data: bytes) -> None:
            if data:
                stream.send(_corrupt(data) if corrupt else data)

        closed = self._closed_event(stream)
        stdin = self._streamed_install(stream, command) if service.startswith("exec:") else b""
        self._run(command, write, write, closed, stdin)

    def _interactive(self, stream: Stream) -> None:
        prompt = lambda: ("emu64x:/ # " if self.device.state.rooted else "emu64x:/ $ ").encode()
        closed = self._closed_event(stream)
        stream.send(prompt())
        pending = b""
        while True:
            data = stream.recv()
            if not data:
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode("utf-8", "replace").strip()
                if text in ("exit", "logout"):
                    return
                if text:
                    self._run(text, stream.send, stream.send, closed)
                stream.send(prompt())

    def _shell_v2(self, stream: Stream, service: str) -> None:
        command = self._command_of(service)
        corrupt = self.device.faults.take_corruption()

        def packet(ident: int):
            def write(data: bytes) -> None:
                if data:
                    payload = _corrupt(data) if corrupt else data
                    stream.send(struct.pack("<BI", ident, len(payload)) + payload)
            return write

        closed = self._closed_event(stream)
        if not command.strip():
            command = "true"
        code = self._run(command, packet(1), packet(2), closed)
        stream.send(struct.pack("<BIB", 3, 1, code & 0xFF))

    @staticmethod
    def _closed_event(stream: Stream) -> threading.Event:
        """Set when the host closes the stream (for long-running commands)."""
        return stream.closed

    def _u2(self, stream: Stream, _service: str) -> None:
        from emukit.vdevice.u2server import serve_connection

        def send(data: bytes) -> None:
            stream.send(data)

        serve_connection(self.device, stream.recv, send)

    def _framebuffer(self, stream: Stream, _service: str) -> None:
        """``framebuffer:``: adbd runs ``screencap`` and sends its pixels behind the ``fbinfo`` header."""
        with self.device.ui_reading(), self.device.lock:
            image = self.device.wm.screenshot_image()
        stream.send(framebuffer_header(image.width, image.height) + image.convert("RGBA").tobytes())

    def _reverse(self, stream: Stream, service: str) -> None:
        """``reverse:forward:[norebind:]LOCAL;REMOTE``, ``reverse:killforward:LOCAL``,
        ``reverse:killforward-all`` and ``reverse:list-forward``, answered as adbd's reverse_service does
        (daemon/services.cpp, adb.cpp ``handle_forward_request``; LineageOS android_packages_modules_adb
        lineage-21.0 d312257c): on the device side one ``OKAY`` (no connect OKAY, the adb server sends that),
        ``FAIL`` + a length-prefixed message on an error, and the listing as one length-prefixed string."""
        conn = stream.conn
        table = conn.reverse_forwards
        request = service[len("reverse:"):]
        if request == "list-forward":
            # adb_listeners.cpp format_listeners: "<serial> <local> <remote>\n" per listener, the serial of
            # a TCP transport on the device being "host-<fd>" (daemon/transport_local.cpp)
            listing = "".join(f"host-{conn.fd} {local} {remote}\n" for local, remote in table.items())
            stream.send(_protocol_string(listing))
        elif request == "killforward-all":
            table.clear()
            stream.send(b"OKAY")
        elif request.startswith("killforward:"):
            local = request[len("killforward:"):]
            if ";" in local or not local:
                stream.send(b"FAIL" + _protocol_string(f"bad killforward: {local}"))
            elif table.pop(local, None) is None:
                stream.send(b"FAIL" + _protocol_string(f"listener '{local}' not found"))
            else:
                stream.send(b"OKAY")
        elif request.startswith("forward:"):
            spec = request[len("forward:"):]
            norebind = spec.startswith("norebind:")
            spec = spec[len("norebind:"):] if norebind else spec
            pieces = spec.split(";")
            if len(pieces) != 2 or not all(pieces) or pieces[1].startswith("*"):
                stream.send(b"FAIL" + _protocol_string(f"bad forward: {spec}"))
                return
            local, remote = pieces
            if norebind and local in table:
                stream.send(b"FAIL" + _protocol_string("cannot rebind existing socket"))
                return
            resolved = ""
            if local == "tcp:0":  # the device picks a free port and reports it
                used = {int(k[4:]) for k in table if k.startswith("tcp:") and k[4:].isdigit()}
                port = next(p for p in range(REVERSE_EPHEMERAL_FIRST, 65536) if p not in used)
                local, resolved = f"tcp:{port}", str(port)
            table[local] = remote
            stream.send(b"OKAY" + (_protocol_string(resolved) if resolved else b""))
        else:
            stream.send(b"FAIL" + _protocol_string("not a reverse forwarding command"))

    def _root(self, stream: Stream, service: str) -> None:
        want_root = service.startswith("root:")
        with self.device.lock:
            already = self.device.state.rooted == want_root
            self.device.state.rooted = want_root
        if want_root:
            stream.send(b"adbd is already running as root\n" if already else b"restarting adbd as root\n")
        else:
            stream.send(b"adbd not running as root\n" if already else b"restarting adbd as non root\n")
        if not already:
            # adbd restarts: the whole transport goes away at once (which also ends this stream) and the
            # server reconnects to the emulator port.
            self.drop_connections()
            self._reregister_later(0.05)

    def _reboot(self, stream: Stream, _service: str) -> None:
        stream.close()
        with self.device.lock:
            self.device.reboot()
            self.device.logs.clear(BUFFERS)  # logd starts afresh
        self.drop_connections()
        self._reregister_later(0.2)


# Deterministic mode: how often the device announces itself again after its transport went away, and for how
# long (the adb server's own retry comes a second after it dropped the old transport).
REANNOUNCE_INTERVAL = 0.1
REANNOUNCE_FOR = 3.0

# The device side's ephemeral ports (Linux ip_local_port_range starts at 32768), for ``reverse:forward:tcp:0``.
REVERSE_EPHEMERAL_FIRST = 32768


def framebuffer_header(width: int, height: int) -> bytes:
    """adbd's ``struct fbinfo`` for an RGBA_8888 screen (daemon/framebuffer_service.cpp, LineageOS
    android_packages_modules_adb lineage-21.0 d312257c): 14 little-endian u32, version 2
    (DDMS_RAWIMAGE_VERSION), bpp 32, colorSpace 1 (sRGB, screencap's COLORSPACE_SRGB), size, width, height,
    then offset/length of red (0/8), blue (16/8), green (8/8) and alpha (24/8)."""
    return struct.pack("<14I", 2, 32, 1, width * height * 4, width, height, 0, 8, 16, 8, 8, 8, 24, 8)


def _protocol_string(text: str) -> bytes:
    """adb's SendProtocolString: four hex digits of length, then the bytes."""
    data = text.encode()
    return b"%04x" % len(data) + data


def _corrupt(data: bytes) -> bytes:
    """Fault injection: flip every byte of a reply."""
    return bytes(b ^ 0xFF for b in data)


def serve(port: int, state_dir: Path, *, avd_name: str, clock_mode: str, wipe: bool,
          register: bool = True, grpc_port: int = 0, screen: tuple[int, int, int] | None = None,
          mode: str = "deterministic") -> None:
    """Entry point of ``emukit vdevice serve``; ``screen`` (width, height, dpi) is the display and ``mode``
    (:data:`emukit.vdevice.device.MODES`) the behaviour, both fixed for the life of the process (default
    1080x2400 at 420 dpi, deterministic)."""
    limit_malloc_arenas()  # before the first thread starts
    profiles = profile_threads()  # a measurement run's CPU profile (emukit.vdevice.profiling)
    device = VirtualDevice(state_dir, avd_name=avd_name, clock_mode=clock_mode, wipe=wipe, screen=screen,
                           mode=mode)
    server = DeviceServer(device, port, grpc_port=grpc_port)
    server.start(register=register)
    from emukit.device.lifeline import watch_parent

    watch_parent(server.stop)  # started by an emukit command: stop when it dies, whatever kills it
    heap_snapshots_on_signal(device.state_dir)
    cache_stats_on_signal(device.state_dir)
    grpc_note = f", grpc {server.grpc.port}" if server.grpc else ""
    print(f"{server.serial} ready (adb 127.0.0.1:{server.adb_port}, console {server.console_port}{grpc_note}, "
          f"screen {format_screen(device.screen)}, mode {device.mode}, state {device.state_dir})", flush=True)
    try:
        server.serve_forever()
    finally:
        dump_profile(profiles, server.serial)
