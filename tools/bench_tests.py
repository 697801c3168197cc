"""Wall time of the test suite, a lane of it, or ``.ci/run`` on a fresh clone: several runs, their median.

    python tools/bench_tests.py --lane fast [--workers 2] [--runs 2]       # the lane to run while working
    python tools/bench_tests.py --lane all --workers 2 --runs 2            # the whole suite, as CI runs it
    python tools/bench_tests.py --ci --runs 1                              # bash .ci/run in a fresh clone
    python tools/bench_tests.py --lane all --tree ../old --tree . --runs 2 # old and new trees, alternated

Each run is a separate ``python -m pytest`` process (``-p no:cacheprovider``) in the tree given, with that
tree first on ``PYTHONPATH`` so its ``emukit`` and ``tests`` are the ones imported; with several ``--tree``
the runs alternate between them (old, new, old, new...), so both see the same machine. ``--ci`` clones the
tree's committed ``HEAD`` into a temporary folder and times ``bash .ci/run`` there with ``CI=true``. The
pytest summary line of each run is printed with its wall time; the table at the end gives the median per
tree. ``--durations N`` adds pytest's slowest-N table to each run's log (written next to the summary).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed).*) in [\d.]+s", re.MULTILINE)


def run_pytest(tree: Path, args: argparse.Namespace, log: Path) -> tuple[float, str, int]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if args.lane != "all":
        cmd += ["--lane", args.lane]
    if args.workers is not None:
        cmd += ["-n", str(args.workers)]
    if args.durations:
        cmd += [f"--durations={args.durations}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    start = time.monotonic()
    with open(log, "w") as out:
        rc = subprocess.run(cmd, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    wall = time.monotonic() - start
    found = SUMMARY.findall(log.read_text(errors="replace"))
    return wall, found[-1][0] if found else "(no pytest summary)", rc


def run_ci(tree: Path, log: Path) -> tuple[float, str, int]:
    with tempfile.TemporaryDirectory(prefix="emukit-ci-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(tree), str(clone)], check=True)
        start = time.monotonic()
        with open(log, "w") as out:
            rc = subprocess.run(["bash", ".ci/run"], cwd=clone, env={**os.environ, "CI": "true"},
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
        wall = time.monotonic() - start
    found = SUMMARY.findall(log.read_text(errors="replace"))
    return wall, found[-1][0] if found else "(no pytest summary)", rc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lane", choices=("fast", "all"), default="all")
    parser.add_argument("--workers", default=None, help="pytest -n (xdist workers; 0: one process)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--tree", type=Path, action="append", default=None,
                        help="a source tree to run in (repeat to alternate trees; default: this checkout)")
    parser.add_argument("--ci", action="store_true", help="time `bash .ci/run` in a fresh clone instead")
    parser.add_argument("--durations", type=int, default=0)
    parser.add_argument("--logs", type=Path, default=Path(tempfile.gettempdir()) / "emukit-bench-tests")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [Path(__file__).resolve().parents[1]])]
    args.logs.mkdir(parents=True, exist_ok=True)
    walls: dict[Path, list[float]] = {t: [] for t in trees}
    failed = False
    for i in range(args.runs):
        for t_index, tree in enumerate(trees):
            log = args.logs / f"run{i + 1}-tree{t_index + 1}{'-ci' if args.ci else ''}.log"
            wall, summary, rc = run_ci(tree, log) if args.ci else run_pytest(tree, args, log)
            walls[tree].append(wall)
            failed |= rc != 0
            print(f"run {i + 1} {tree}: {wall:.0f} s, exit {rc}: {summary} (log: {log})", flush=True)
    what = ".ci/run on a fresh clone" if args.ci else (
        f"pytest --lane {args.lane}" + (f" -n {args.workers}" if args.workers is not None else ""))
    print(f"\n{what}, {args.runs} run(s) each")
    for tree, values in walls.items():
        print(f"  {tree}: median {statistics.median(values):.0f} s  ({', '.join(f'{v:.0f}' for v in values)})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
