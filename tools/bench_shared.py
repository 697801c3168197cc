"""Scale-out throughput: one builder with four devices against two builders with two devices each, every
builder an ``emukit build-pairs`` process on one PostgreSQL store (its job queue splits the work), all on
this machine.

    python tools/bench_shared.py [--count 12] [--family all] [--runs 3]

Each run builds ``--count`` pairs per family into a fresh database of one real PostgreSQL server (Debian's
``postgresql`` binaries, as in the tests: ``tests/postgres.py``). The two set-ups alternate (one, two, one,
two, ...) so that drift of the machine hits both alike; the medians are quoted. Two rates per run:

* overall: pairs / (wall time from starting the builders to the last one exiting), devices' start and
  base snapshots included;
* steady: (pairs - 1) / (time between the first and the last stored pair's ``created_at``).

Runs in a private HOME and adb server port; both set-ups share that one adb server, as builders on one
machine do.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_setup(builders: int, devices: int, url: str, family: str, count: int, work: Path,
              env: dict[str, str], extra: tuple[str, ...] = ()) -> tuple[float, float, int]:
    """Start ``builders`` processes with ``devices`` each on one store; returns (overall, steady, pairs)."""
    import psycopg

    artifacts = work / "artifacts"
    procs = []
    started = time.monotonic()
    for i in range(builders):
        cmd = [sys.executable, "-m", "emukit", "build-pairs", "--family", family, "--count", str(count),
               "--devices", str(devices), "--data-dir", str(work / f"builder{i}"), "--artifacts", str(artifacts),
               "--db", url, "--quiet", *extra]
        log = open(work / f"builder{i}.log", "w")  # noqa: SIM115 - closed below
        procs.append((subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    for proc, log in procs:
        code = proc.wait()
        log.close()
        if code:
            raise SystemExit(f"a builder exited {code}; see {log.name}")
    wall = time.monotonic() - started
    with psycopg.connect(url) as conn:
        n, first, last = conn.execute("SELECT count(*), min(created_at), max(created_at) FROM pairs").fetchone()
    span = (last - first).total_seconds()
    return n / wall * 60, (n - 1) / span * 60 if span > 0 else float("nan"), n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=12, help="pairs per family")
    parser.add_argument("--family", default="all")
    parser.add_argument("--runs", type=int, default=3, help="runs of each set-up")
    parser.add_argument("--with-local", action="store_true",
                        help="also one builder with 4 devices and --local-work (no queue) on the same server")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="emukit-bench-shared-"))
    sys.path.insert(0, str(ROOT))
    from emukit.device.adbserver import AdbServer, free_port
    from tests.postgres import postgres_server

    port = free_port()
    env = {**os.environ, "HOME": str(home), "EMUKIT_HOME": str(home / ".emukit"),
           "ANDROID_ADB_SERVER_PORT": str(port)}
    setups: dict[str, tuple[int, int, tuple[str, ...]]] = {"one builder, 4 devices": (1, 4, ()),
                                                         "two builders, 2 devices each": (2, 2, ())}
    if args.with_local:
        setups["one builder, 4 devices, --local-work"] = (1, 4, ("--local-work",))
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in setups}
    try:
        with postgres_server() as server:
            for run in range(args.runs):
                for i, (name, (builders, devices, extra)) in enumerate(setups.items()):
                    work = home / f"run{run}-setup{i}"
                    work.mkdir()
                    got = run_setup(builders, devices, server.new_database(), args.family, args.count, work, env,
                                    extra)
                    results[name].append(got)
                    print(f"run {run + 1} {name}: {got[2]} pairs, {got[0]:.1f} pairs/min overall, "
                          f"{got[1]:.1f} steady", flush=True)
    finally:
        AdbServer(port).kill()
    medians = {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
               for name, rs in results.items()}
    for name, (overall, steady) in medians.items():
        print(f"median {name}: {overall:.1f} pairs/min overall, {steady:.1f} steady ({args.runs} runs)")
    (one_o, one_s), (two_o, two_s) = list(medians.values())[:2]
    print(f"two builders / one builder: {two_o / one_o:.0%} overall, {two_s / one_s:.0%} steady")
    return 0


if __name__ == "__main__":
    sys.exit(main())
