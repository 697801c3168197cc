"""Children die with the emukit command that started them (emukit.device.lifeline), embedded devices stay
private, leftovers are reaped, and the adb server emukit starts is stopped by the rule of
emukit.device.adbserver.

Each command runs as a real ``python -m emukit ...`` process with its own ``EMUKIT_HOME`` and an adb server
port on which nothing runs, so it starts (and owns) its adb server, its embedded virtual devices, and for
``evaluate`` Chromium through Playwright. The test SIGKILLs the command itself (not its process group, as the
OOM killer or a crash would) and checks ``/proc`` 10 s later. Nothing is mocked.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emukit.device.adbserver import AdbServer, free_port
from tests.device.proctree import alive, descendants, sigkill_and_check, wait_for

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "pairs"


def _env(tmp_path: Path) -> tuple[dict[str, str], int]:
    port = free_port()
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(port), "EMUKIT_HOME": str(tmp_path / "home"),
           "HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"}
    for var in ("EMUKIT_TASKS", "EMUKIT_TEMPLATES", "EMUKIT_DATA", "EMUKIT_LIFELINE_FD"):
        env.pop(var, None)
    return env, port


def _start(emukit_cli: list[str], tmp_path: Path, *args: str) -> tuple[subprocess.Popen, int]:
    env, port = _env(tmp_path)
    proc = subprocess.Popen([*emukit_cli, *args], env=env, cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _has(children: dict[int, str], *words: str) -> bool:
    return any(all(w in cmd for w in words) for cmd in children.values())


def _kinds(proc: subprocess.Popen, *wanted: tuple[str, ...]) -> dict[int, str]:
    def ready() -> dict[int, str] | None:
        kids = descendants(proc.pid)
        return kids if all(_has(kids, *w) for w in wanted) else None

    return wait_for(ready, 120, f"children {wanted}", proc)  # type: ignore[return-value]


def test_build_pairs_sigkill_leaves_no_child_and_its_devices_stay_private(emukit_cli, tmp_path, adb_server):
    proc, port = _start(emukit_cli, tmp_path, "build-pairs", "--family", "persistent", "--template", "copy_direct",
                        "--count", "6", "--devices", "1", "--data-dir", str(tmp_path / "data"), "--quiet")
    kids = _kinds(proc, ("vdevice", "serve"), ("nodaemon", "server"), ("emukit.device.watchdog",))
    owned = AdbServer(port)
    serial = wait_for(lambda: next((s for s, st in owned.devices().items() if st == "device"), None), 60,
                      "the embedded device on the command's adb server", proc)
    assert int(str(serial).split("-")[1]) + 1 >= 30001  # a private port, outside 5555-5585
    assert serial not in adb_server.devices()  # another adb server on the machine never lists it
    record = json.loads(next((tmp_path / "data" / "vdevices").glob("*/owner.json")).read_text())
    assert record["owner_pid"] == proc.pid and alive(record["device_pid"])
    seen = sigkill_and_check(proc)
    assert set(kids) <= set(seen) | {p for p in kids if not alive(p)}
    assert not _listening(port)  # the adb server it started is gone too


def test_tasks_verify_sigkill_leaves_no_child(emukit_cli, tmp_path):
    proc, _ = _start(emukit_cli, tmp_path, "tasks", "verify", "note_revisit_01", "--data-dir", str(tmp_path / "data"))
    _kinds(proc, ("vdevice", "serve"), ("nodaemon", "server"))
    time.sleep(1.0)  # mid-replay
    sigkill_and_check(proc)


def test_annotate_sigkill_leaves_no_child(emukit_cli, tmp_path):
    proc, port = _start(emukit_cli, tmp_path, "annotate", "note_revisit_01", "--no-browser", "--data-dir",
                        str(tmp_path / "data"))
    _kinds(proc, ("vdevice", "serve"))
    out = b""
    while b"open http://127.0.0.1:" not in out:  # the annotator's server is up
        line = proc.stdout.readline()
        assert line, out.decode(errors="replace")
        out += line
    sigkill_and_check(proc)
    assert not _listening(port)


@pytest.mark.usefixtures("chromium")
def test_evaluate_sigkill_leaves_no_chromium(emukit_cli, tmp_path):
    proc, _ = _start(emukit_cli, tmp_path, "evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface", "--condition",
                     "observation", "--out", str(tmp_path / "out"))
    kids = _kinds(proc, ("chrom",))
    assert _has(kids, "playwright") or _has(kids, "node")  # Playwright's driver, the browser's parent
    sigkill_and_check(proc)


def test_reap_stops_a_leftover_whose_owner_is_gone_but_never_a_live_one(emukit_cli, tmp_path, adb_server):
    """A leftover as an older emukit (or a killed watchdog) could leave one: the owner claims the state dir,
    starts the device without a lifeline, and is SIGKILLed."""
    home = tmp_path / "home"
    owner = ("import subprocess, sys, time\nfrom pathlib import Path\n"
             "from emukit.device.ownership import DeviceClaim\n"
             "state = Path(sys.argv[1]); port = int(sys.argv[2])\n"
             "claim = DeviceClaim.acquire(f'emulator-{port - 1}', state, adb_port=port, adb_server_port=0)\n"
             "p = subprocess.Popen([sys.executable, '-m', 'emukit', 'vdevice', 'serve', '--port', str(port),"
             " '--state-dir', str(state.resolve()), '--no-register', '--grpc-port', '0'],"
             " start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
             "claim.update(device_pid=p.pid)\nprint('READY', p.pid, flush=True)\ntime.sleep(600)\n")
    from emukit.device.virtual import free_adb_ports

    env = {**adb_server.env, "EMUKIT_HOME": str(home)}
    env.pop("EMUKIT_LIFELINE_FD", None)

    def start_owner(name: str, first_port: int) -> tuple[subprocess.Popen, int]:
        port = free_adb_ports(1, start=first_port)[0]
        p = subprocess.Popen([sys.executable, "-c", owner, str(tmp_path / name), str(port)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        line = p.stdout.readline().decode()
        assert line.startswith("READY"), line + p.stdout.read().decode()
        return p, int(line.split()[1])

    from emukit.settings import vdevice_port_base

    dead_owner, leftover_pid = start_owner("dead", vdevice_port_base() + 100)  # this worker's block
    live_owner, live_pid = start_owner("live", vdevice_port_base() + 200)
    try:
        dead_owner.kill()
        dead_owner.wait(10)
        time.sleep(1.0)
        assert alive(leftover_pid)  # without a lifeline the device outlives its owner: a leftover

        def devices(*args: str) -> str:
            done = subprocess.run([*emukit_cli, "devices", *args], env=env,
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stdout + done.stderr
            return done.stdout

        listed = devices("--embedded")
        assert "leftover (run 'emukit devices --reap')" in listed and f"device pid {leftover_pid} running" in listed
        reaped = devices("--reap")
        assert "1 leftover(s) reaped" in reaped and "reaped (process stopped)" in reaped
        wait_for(lambda: not alive(leftover_pid), 10, "the leftover to stop")
        assert alive(live_pid)  # its owner lives: never reaped
        assert f"device pid {live_pid} running; owner pid {live_owner.pid}" in devices("--embedded")
    finally:
        for p in (dead_owner, live_owner):
            p.kill()
            p.wait(10)
        for pid in (leftover_pid, live_pid):
            if alive(pid):
                os.killpg(pid, 9)


def test_adb_server_emukit_starts_is_stopped_but_a_running_one_is_not(emukit_cli, tmp_path):
    env, port = _env(tmp_path)
    done = subprocess.run([*emukit_cli, "devices"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "no devices attached" in done.stdout
    wait_for(lambda: not _listening(port), 10, "the adb server emukit started to stop")
    users = AdbServer(port, home=tmp_path / "user-home")  # a user's own server, started with adb itself
    users.adb("start-server")
    try:
        assert _listening(port)
        done = subprocess.run([*emukit_cli, "devices"], env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        time.sleep(1.0)
        assert _listening(port)  # never stopped by emukit
    finally:
        users.adb("kill-server", check=False)
