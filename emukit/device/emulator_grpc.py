"""Client of the emulator's gRPC controller (``android.emulation.control.EmulatorController``).

A real emulator started with ``-grpc PORT`` (plus ``-grpc-use-token`` for a bearer token) serves this
service; emukit's virtual device serves the same calls (``emukit/vdevice/grpc_service.py``). emukit uses it
to read and set the guest clipboard without touching the UI (on Android 12+ the guest's clipboard monitor
feeds the emulator).

**Discovery.** A running emulator writes ``pid_<pid>.ini`` into its discovery directory, one ``key=value``
per line (``port.serial=5554``, ``port.adb=5555``, ``avd.name=...``, ``grpc.port=8554``,
``grpc.token=...``), and removes it when it exits. :func:`find_endpoint` finds a device's gRPC port and token
by scanning those files for the one whose ``port.serial`` is the serial's console port. The directory
follows the emulator's rule (its ``ConfigDirs::getDiscoveryDirectory``), see :func:`discovery_dir`.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from emukit.errors import DeviceError

LOOPBACK = "127.0.0.1"
DEFAULT_TIMEOUT = 5.0
DISCOVERY_GLOB = "pid_*.ini"
RUN_USER_ROOT = Path("/run/user")  # Linux fallback when XDG_RUNTIME_DIR is unset (module-level for tests)
_PID_FILE = re.compile(r"^pid_(\d+)\.ini$")


# ---------------------------------------------------------------------------------------------- discovery
def user_directory(environ: Mapping[str, str] | None = None) -> Path:
    """The emulator's user directory (``ConfigDirs::getUserDirectory``): ``$ANDROID_EMULATOR_HOME``, else
    ``$ANDROID_PREFS_ROOT`` or the deprecated ``$ANDROID_SDK_HOME`` (their ``.android`` subfolder when it
    exists), else ``$HOME/.android``."""
    env = os.environ if environ is None else environ
    if env.get("ANDROID_EMULATOR_HOME"):
        return Path(env["ANDROID_EMULATOR_HOME"])
    for key in ("ANDROID_PREFS_ROOT", "ANDROID_SDK_HOME"):
        if env.get(key):
            root = Path(env[key])
            return root / ".android" if (root / ".android").is_dir() else root
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".android"


def discovery_dir(environ: Mapping[str, str] | None = None, system: str | None = None) -> Path:
    """The directory an emulator started with ``environ`` writes its ``pid_<pid>.ini`` into.

    As the emulator decides it: ``$XDG_RUNTIME_DIR/avd/running`` on Linux,
    ``$HOME/Library/Caches/TemporaryItems/avd/running`` on macOS, ``%LOCALAPPDATA%/Temp/avd/running`` on
    Windows. When that variable is unset: ``/run/user/<uid>/avd/running`` if that folder exists (Linux),
    else ``<user directory>/avd/running`` (:func:`user_directory`, where ``ANDROID_EMULATOR_HOME`` applies).
    """
    env = os.environ if environ is None else environ
    system = system or platform.system()
    root: Path | None = None
    if system == "Windows":
        if env.get("LOCALAPPDATA"):
            root = Path(env["LOCALAPPDATA"]) / "Temp"
    elif system == "Darwin":
        if env.get("HOME"):
            root = Path(env["HOME"]) / "Library" / "Caches" / "TemporaryItems"
    elif env.get("XDG_RUNTIME_DIR"):
        root = Path(env["XDG_RUNTIME_DIR"])
    if root is None:
        run_user = _run_user_dir() if system == "Linux" else None
        root = run_user if run_user is not None and run_user.exists() else user_directory(env)
    return root / "avd" / "running"


def discovery_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where to look for running emulators: :func:`discovery_dir` for this environment first, then the
    fallbacks an emulator started from another environment (no ``XDG_RUNTIME_DIR``) would have used."""
    env = os.environ if environ is None else environ
    candidates = [discovery_dir(env)]
    if platform.system() == "Linux":
        run_user = _run_user_dir()
        if run_user is not None:
            candidates.append(run_user / "avd" / "running")
    candidates.append(user_directory(env) / "avd" / "running")
    out: list[Path] = []
    for path in candidates:
        if path not in out:
            out.append(path)
    return out


def _run_user_dir() -> Path | None:
    getuid = getattr(os, "getuid", None)
    return RUN_USER_ROOT / str(getuid()) if getuid else None


def parse_discovery_file(text: str) -> dict[str, str]:
    """``key=value`` lines of a discovery file. Blank lines and ``#`` comments are skipped; a value is
    everything after the first ``=`` (a ``cmdline`` value keeps its quotes); CRLF is accepted."""
    props: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        props[key.strip()] = value.strip()
    return props


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (always True where that cannot be asked without side effects)."""
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class DiscoveryEntry:
    """One running emulator, from its ``pid_<pid>.ini``."""

    path: Path
    pid: int | None
    props: dict[str, str] = field(default_factory=dict)

    def _int(self, key: str) -> int | None:
        try:
            return int(self.props[key])
        except (KeyError, ValueError):
            return None

    @property
    def serial_port(self) -> int | None:
        return self._int("port.serial")

    @property
    def adb_port(self) -> int | None:
        return self._int("port.adb")

    @property
    def grpc_port(self) -> int | None:
        return self._int("grpc.port")

    @property
    def token(self) -> str | None:
        return self.props.get("grpc.token") or None

    @property
    def avd_name(self) -> str | None:
        return self.props.get("avd.name")


def read_discovery_file(path: Path) -> DiscoveryEntry:
    path = Path(path)
    match = _PID_FILE.match(path.name)
    return DiscoveryEntry(path, int(match.group(1)) if match else None,
                          parse_discovery_file(path.read_text(encoding="utf-8", errors="replace")))


def running_emulators(dirs: list[Path] | None = None) -> list[DiscoveryEntry]:
    """Every readable ``pid_<pid>.ini`` in ``dirs`` (default :func:`discovery_dirs`) whose process is alive,
    newest first. Files left behind by an emulator that did not exit cleanly are skipped."""
    found: list[tuple[float, DiscoveryEntry]] = []
    for directory in dirs if dirs is not None else discovery_dirs():
        try:
            paths = sorted(Path(directory).glob(DISCOVERY_GLOB))
        except OSError:
            continue
        for path in paths:
            try:
                entry = read_discovery_file(path)
                mtime = path.stat().st_mtime
            except OSError:
                continue  # removed while we looked, or unreadable
            if entry.pid is not None and not pid_alive(entry.pid):
                continue
            found.append((mtime, entry))
    found.sort(key=lambda item: item[0], reverse=True)
    return [entry for _, entry in found]


@dataclass(frozen=True)
class GrpcEndpoint:
    """Where an emulator's gRPC controller listens, and the bearer token it wants (None: no token)."""

    port: int
    token: str | None = None
    host: str = LOOPBACK
    discovery_file: Path | None = None

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port}"


_EMULATOR_SERIAL = re.compile(r"^emulator-(\d+)$")
_LOOPBACK_SERIAL = re.compile(r"^(?:127\.0\.0\.1|localhost):(\d+)$")


def find_endpoint(serial: str, dirs: list[Path] | None = None) -> GrpcEndpoint:
    """The gRPC endpoint of the emulator behind an adb serial: ``emulator-<console port>`` (matched against
    ``port.serial``) or ``127.0.0.1:<adb port>`` (matched against ``port.adb``). Raises :class:`DeviceError`
    when no running emulator matches or the one found has no gRPC port."""
    if m := _EMULATOR_SERIAL.match(serial):
        key, port = "port.serial", int(m.group(1))
    elif m := _LOOPBACK_SERIAL.match(serial):
        key, port = "port.adb", int(m.group(1))
    else:
        raise DeviceError(f"{serial!r} is not an emulator serial (emulator-<console port>); "
                          "only emulators have a gRPC controller")
    dirs = dirs if dirs is not None else discovery_dirs()
    for entry in running_emulators(dirs):
        if (entry.serial_port if key == "port.serial" else entry.adb_port) != port:
            continue
        if entry.grpc_port is None:
            raise DeviceError(f"emulator {serial} ({entry.path}) has no gRPC endpoint: start it with "
                              "-grpc PORT (and -grpc-use-token)")
        return GrpcEndpoint(entry.grpc_port, entry.token, discovery_file=entry.path)
    where = ", ".join(str(d) for d in dirs) or "(no directory)"
    raise DeviceError(f"no running emulator with {key}={port} for {serial}: no {DISCOVERY_GLOB} discovery "
                      f"file of a live process in {where}")


# ---------------------------------------------------------------------------------------------- client
class GrpcCallError(DeviceError):
    """A gRPC call failed; :attr:`code` is the ``grpc.StatusCode``."""

    def __init__(self, message: str, code: object) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class EmulatorStatus:
    version: str
    uptime_ms: int
    booted: bool


_HINTS = {
    "UNAUTHENTICATED": "the token is missing or wrong (grpc.token in the discovery file)",
    "UNAVAILABLE": "nothing answers there (is the emulator running with -grpc PORT?)",
    "DEADLINE_EXCEEDED": "no answer in time",
    "UNIMPLEMENTED": "this emulator does not serve that call",
}


class ClipboardStream:
    """Texts of the clips the guest sets (the current one first); :meth:`cancel` ends it."""

    def __init__(self, call: object, wrap) -> None:
        self._call = call
        self._wrap = wrap

    def __iter__(self) -> Iterator[str]:
        import grpc

        try:
            for clip in self._call:  # type: ignore[attr-defined]
                yield clip.text
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise self._wrap("streamClipboard", exc) from None

    def cancel(self) -> None:
        self._call.cancel()  # type: ignore[attr-defined]

    def __enter__(self) -> ClipboardStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class EmulatorControllerClient:
    """The emulator's gRPC controller over one reused channel; every call has a deadline (``timeout``
    seconds, overridable per call) and sends ``authorization: Bearer <token>`` when the endpoint has one.
    Failures raise :class:`GrpcCallError`."""

    def __init__(self, endpoint: GrpcEndpoint, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        import grpc

        from emukit.proto import emulator_controller_pb2_grpc as pb2_grpc

        self.endpoint = endpoint
        self.timeout = timeout
        # a local endpoint: never through an HTTP proxy from the environment
        self._channel = grpc.insecure_channel(endpoint.target, options=[("grpc.enable_http_proxy", 0)])
        self._stub = pb2_grpc.EmulatorControllerStub(self._channel)
        self._metadata = (("authorization", f"Bearer {endpoint.token}"),) if endpoint.token else ()

    @classmethod
    def for_serial(cls, serial: str, *, dirs: list[Path] | None = None,
                   timeout: float = DEFAULT_TIMEOUT) -> EmulatorControllerClient:
        return cls(find_endpoint(serial, dirs), timeout=timeout)

    # ------------------------------------------------------------------ calls
    def get_clipboard(self, timeout: float | None = None) -> str:
        """The guest clipboard's text ("" when empty). Reads only: the screen does not change."""
        from google.protobuf.empty_pb2 import Empty

        return self._call("getClipboard", self._stub.getClipboard, Empty(), timeout).text

    def set_clipboard(self, text: str, timeout: float | None = None) -> None:
        from emukit.proto.emulator_controller_pb2 import ClipData

        self._call("setClipboard", self._stub.setClipboard, ClipData(text=text), timeout)

    def status(self, timeout: float | None = None) -> EmulatorStatus:
        from google.protobuf.empty_pb2 import Empty

        reply = self._call("getStatus", self._stub.getStatus, Empty(), timeout)
        return EmulatorStatus(version=reply.version, uptime_ms=int(reply.uptime), booted=bool(reply.booted))

    def stream_clipboard(self, timeout: float | None = None) -> ClipboardStream:
        """The current clip's text, then each clip the guest sets, until cancelled (or ``timeout`` seconds
        for the whole stream; default: no deadline)."""
        from google.protobuf.empty_pb2 import Empty

        call = self._stub.streamClipboard(Empty(), timeout=timeout, metadata=self._metadata)
        return ClipboardStream(call, self._error)

    def _call(self, name: str, method, request, timeout: float | None):
        import grpc

        try:
            return method(request, timeout=self.timeout if timeout is None else timeout,
                          metadata=self._metadata)
        except grpc.RpcError as exc:
            raise self._error(name, exc) from None

    def _error(self, name: str, exc) -> GrpcCallError:
        code = exc.code()
        hint = _HINTS.get(code.name, "")
        detail = exc.details() or ""
        message = f"gRPC {name} on {self.endpoint.target} failed: {code.name}"
        message += f" ({detail})" if detail else ""
        message += f": {hint}" if hint else ""
        return GrpcCallError(message, code)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> EmulatorControllerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
