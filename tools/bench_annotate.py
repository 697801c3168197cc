"""Median latencies of the annotator's server on the virtual device, through its HTTP API.

Starts its own adb server and virtual device (isolated HOME), copies the shipped task code_to_new_note_01 as a
draft into a temporary folder, serves it with ``AnnotateApp`` and times, over ``--rounds`` replays of the
task's reference: one action (POST /api/action until the new screen is read and the checklist re-evaluated),
a state poll (GET /api/state?poll=1), the review (POST /api/review) at the end of the run, and an undo of the
last action (the initial state restored and the other actions replayed).

    python tools/bench_annotate.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="emukit-bench-"))
    os.environ["HOME"] = str(home)
    os.environ["ANDROID_ADB_SERVER_PORT"] = "0"
    from emukit.annotate import AnnotateApp, start_server
    from emukit.device.adbserver import free_port
    from emukit.tasks.files import load_task, save_task
    from emukit.tasks.schema import Provenance
    from emukit.workers import DeviceRequest, one_device

    os.environ["ANDROID_ADB_SERVER_PORT"] = str(free_port())
    shipped = load_task(ROOT / "tasks" / "code_to_new_note_01.yaml")
    folder = home / "tasks"
    save_task(shipped.model_copy(update={"id": "bench_task", "provenance": Provenance()}), folder)
    task = load_task(folder / "bench_task.yaml")
    fields = {"type", "x", "y", "x2", "y2", "text", "key", "duration_ms"}
    samples: dict[str, list[float]] = {"action": [], "poll": [], "review": [], "undo 1 (replays the rest)": []}
    with one_device(DeviceRequest(), home / "data") as device:
        app = AnnotateApp(device, task, tasks_folder=folder, annotator="bench", poll_interval_s=0.0)
        app.start()
        server, _ = start_server(app)
        headers = {"Content-Type": "application/json", "X-Emukit-Tab": "bench"}
        tokens = app.state().get("tokens")
        if tokens:
            headers |= {"X-Emukit-Server": tokens["server"], "X-Emukit-Task": tokens["task"]}

        def call(method: str, path: str, body: dict | None = None) -> tuple[float, dict]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
            t0 = time.perf_counter()
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            resp = conn.getresponse()
            data = json.loads(resp.read() or b"{}")
            ms = (time.perf_counter() - t0) * 1000
            conn.close()
            if resp.status != 200:
                raise RuntimeError(f"{method} {path}: {resp.status} {data}")
            return ms, data

        try:
            for _ in range(args.rounds):
                call("POST", "/api/restart", {"confirm": True})
                for ref in shipped.provenance.reference:
                    ms, _ = call("POST", "/api/action", ref.model_dump(mode="json", include=fields,
                                                                       exclude_none=True))
                    samples["action"].append(ms)
                    samples["poll"].append(call("GET", "/api/state?poll=1")[0])
                if hasattr(app, "review"):
                    samples["review"].append(call("POST", "/api/review", {})[0])
                if hasattr(app, "undo"):
                    samples["undo 1 (replays the rest)"].append(call("POST", "/api/undo", {"n": 1})[0])
        finally:
            server.shutdown()
            server.server_close()
    n = len(shipped.provenance.reference)
    print(f"annotate server on the virtual device: {args.rounds} replays of a {n}-action reference")
    for name, values in samples.items():
        if values:
            print(f"{name:<28} median {statistics.median(values):8.1f} ms  (n={len(values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
