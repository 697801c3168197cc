"""What a test device costs: starting a virtual device process (with and without the session's template of
snapshots) against resetting a running one from its clean snapshot, as the test suite's pool does.

    python tools/bench_pool.py [--runs 5]

Runs in a private HOME, adb server and port range; builds a template first (printed with its time). Each
reset follows a few writes (a file, a setting, the clipboard) so there is something to undo. Prints each
figure's median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="emukit-bench-pool-"))
    os.environ["HOME"] = str(home)
    os.environ["EMUKIT_HOME"] = str(home / ".emukit")
    sys.path.insert(0, str(ROOT))
    from emukit.device.adbserver import AdbServer, free_port
    from emukit.device.driver import Driver
    from emukit.device.virtual import VirtualDeviceProcess, free_adb_ports
    from emukit.snapshots import build_template, ensure_snapshot
    from tests.devicepool import SessionDevices

    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    server = AdbServer(port, home=home)
    server.start()
    procs: list[VirtualDeviceProcess] = []

    def start(template: Path | bool) -> VirtualDeviceProcess:
        proc = VirtualDeviceProcess(free_adb_ports(1, start=26001)[0], home / f"dev{len(procs)}", server,
                                    template=template)
        proc.start()
        procs.append(proc)
        return proc

    try:
        t0 = time.monotonic()
        template = home / "template"
        build_template(template, server)
        print(f"template (clean + {len(list((template / 'snapshots').iterdir())) - 1} bases): "
              f"{time.monotonic() - t0:.1f} s")
        figures: dict[str, list[float]] = {"start, no template, + files_base built": [],
                                           "start from the template, + files_base measured": [],
                                           "pool reset": []}
        for i in range(args.runs):
            for label, tpl in (("start, no template, + files_base built", False),
                               ("start from the template, + files_base measured", template)):
                t0 = time.monotonic()
                proc = start(tpl)
                driver = Driver(proc.serial, port)
                ensure_snapshot(driver, "files_base", home / f"data{i}{bool(tpl)}")
                driver.close()
                figures[label].append(time.monotonic() - t0)
                proc.stop()
        pool = SessionDevices(lambda: start(template), template, server)
        proc = pool.lease()
        driver = Driver(proc.serial, port)
        for _ in range(args.runs):
            driver.shell("echo dirty > /sdcard/Download/x.txt; settings put system screen_brightness 9", check=True)
            pool.give_back(proc)
            t0 = time.monotonic()
            proc = pool.lease()
            figures["pool reset"].append(time.monotonic() - t0)
            assert driver.shell("ls /sdcard/Download").text.strip() == ""
        driver.close()
        pool.close()
        for label, values in figures.items():
            print(f"{label}: median {statistics.median(values):.2f} s ({', '.join(f'{v:.2f}' for v in values)})")
    finally:
        for proc in procs:
            proc.stop()
        server.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
