"""Median latencies of the virtual device through the real client stack.

Starts its own adb server (free port, isolated HOME) and one virtual device, then times: shell echo via
adbutils, one uiautomator2 JSON-RPC call, a screenshot (adbutils, screencap -p), a hierarchy dump
(uiautomator2), and a snapshot save and load (console, as `adb emu` sends them; also timed through the
`adb emu` CLI, which adds a process start).

    python tools/bench_vdevice.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(fn, rounds: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


class Console:
    """An authenticated console connection (what `adb emu` opens per command)."""

    def __init__(self, port: int, home: Path) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self._until_ok()
        token = (home / ".emulator_console_auth_token").read_text().strip()
        self.cmd(f"auth {token}")

    def _until_ok(self) -> str:
        data = b""
        while not (data.endswith(b"OK\r\n") or b"KO:" in data):
            data += self.sock.recv(65536)
        return data.decode()

    def cmd(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\n")
        reply = self._until_ok()
        if "KO:" in reply:
            raise RuntimeError(reply)
        return reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="emukit-bench-"))
    os.environ["HOME"] = str(home)
    from emukit.device.adbserver import AdbServer, adb_binary, free_port
    from emukit.device.virtual import VirtualDeviceProcess, free_adb_ports

    server = AdbServer(free_port(), home=home)
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
    import adbutils
    import uiautomator2

    server.start()
    proc = VirtualDeviceProcess(free_adb_ports(1, start=27001)[0], home / "dev", server)
    try:
        serial = proc.start()
        dev = adbutils.AdbClient(port=server.port).device(serial)
        d = uiautomator2.connect(serial)
        console = Console(proc.adb_port - 1, home)
        console.cmd("avd snapshot save bench")
        n = args.rounds
        from emukit.device.driver import Driver

        drv = Driver(serial, server.port)
        drv.ensure_ui()
        rows = [
            ("adbutils shell('echo hi')", timed(lambda: dev.shell("echo hi"), n)),
            ("uiautomator2 JSON-RPC deviceInfo", timed(lambda: d.jsonrpc.deviceInfo(), n)),
            ("adbutils screenshot() (screencap -p)", timed(dev.screenshot, n)),
            ("uiautomator2 dump_hierarchy()", timed(d.dump_hierarchy, n)),
            ("snapshot save (console)", timed(lambda: console.cmd("avd snapshot save bench"), n)),
            ("snapshot load (console)", timed(lambda: console.cmd("avd snapshot load bench"), n)),
            ("snapshot load (adb emu CLI)", timed(lambda: subprocess.run(
                [adb_binary(), "-P", str(server.port), "-s", serial, "emu", "avd", "snapshot", "load", "bench"],
                env=server.env, capture_output=True, check=True), max(5, n // 3))),
            ("emukit Driver.shell('echo hi')", timed(lambda: drv.shell("echo hi"), n)),
            ("emukit Driver JSON-RPC deviceInfo", timed(lambda: drv.rpc("deviceInfo"), n)),
            ("emukit Driver.screenshot() (exec screencap -p)", timed(drv.screenshot, n)),
            ("emukit Driver.hierarchy()", timed(drv.hierarchy, n)),
            ("screenshot after the clock moved (uncached render)", timed(lambda: (drv.shell("sleep 60"), drv.screenshot()), n)),
        ]
        width = max(len(name) for name, _ in rows)
        print(f"{'operation':<{width}}  median ms  (rounds={n})")
        for name, ms in rows:
            print(f"{name:<{width}}  {ms:9.2f}")
        drv.close()
        d.stop_uiautomator()
    finally:
        proc.stop()
        server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
