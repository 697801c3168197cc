"""The expected wall time of a pair build on N real AVDs, from per-step costs measured in hardware mode.

    python tools/throughput_model.py --data-dir DATA [--pairs 800] [--avds 1 2 4 8] [--load-s 2.7] [--json]

DATA is the data dir of a build on hardware-mode virtual devices (``emukit build-pairs --vdevice-mode hardware``):
every stored branch keeps its step timings (snapshot load, setup, actions, captures, probes, shared action).
The model keeps what the device spends on a branch's own steps as measured, replaces the virtual device's
snapshot load by a real AVD's, and adds what an AVD costs once:

* a snapshot load on an AVD: ``--load-s`` seconds, default 2.7 = 0.64 s for the restore itself (the emulator logs
  "Successfully loaded snapshot using 580-694 ms": appandflow/stim issue 284) plus 2 s for adb to answer again
  (a multi-GB restore and the transport coming back take longer than 2 s on a loaded host: kaeawc/auto-mobile
  issue 6489);
* per AVD, once: a boot from its quick-boot snapshot (2.5-3.7 s, cold 25-28 s: appandflow/stim issue 284) and
  the five base snapshots, each built (1.0 s of device work on average, measured on a hardware-mode virtual
  device: 0.2-2.0 s, 5.1 s for the five) plus ``avd snapshot save`` (about 3 s, the console frozen meanwhile:
  kaeawc/auto-mobile issue 6961); ``emukit avd setup`` itself (installs, grants, first-run walks: 3.7 s on the
  virtual device) is done once per AVD before any build and left out;
* the step costs themselves (gestures of their real duration, captures, probes) as the hardware mode measured
  them. No public source gives screencap or hierarchy-dump times on an AVD; ``--capture-s`` substitutes a
  measured per-branch capture cost when one is known.

The host is assumed to run N AVDs without slowing each (an AVD wants 2 cores and 2 GB; the emulator's own
guidance), so the build's time divides by N; the fixed costs do not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

BRANCH_STEPS = ("setup", "actions", "captures", "probes", "shared_action")
SNAPSHOT_RESTORE_S = 0.64  # median of the 580-694 ms the emulator logs (appandflow/stim issue 284)
ADB_BACK_S = 2.0  # kaeawc/auto-mobile issue 6489: more than 2 s on a loaded host
BOOT_FROM_SNAPSHOT_S = 3.1  # 2.5-3.7 s (appandflow/stim issue 284)
SNAPSHOT_SAVE_S = 3.0  # kaeawc/auto-mobile issue 6961
BASE_SNAPSHOTS = 5
SNAPSHOT_BUILD_S = 1.0  # one base snapshot's content, built on a hardware-mode virtual device: 5.1 s for the five


def branch_costs(db_url: str) -> dict[str, dict[str, float]]:
    """Per family: the median seconds of each branch step, and how many branches were measured."""
    engine = create_engine(db_url)
    rows: dict[str, list[dict[str, float]]] = {}
    with engine.connect() as conn:
        for family, timings in conn.execute(text(
                "SELECT p.family, b.timings FROM branches b JOIN pairs p ON p.id = b.pair_pk")):
            data = json.loads(timings) if isinstance(timings, str) else timings
            rows.setdefault(family, []).append(data)
    engine.dispose()
    out: dict[str, dict[str, float]] = {}
    for family, items in sorted(rows.items()):
        costs = {step: statistics.median(float(t.get(step, 0.0)) for t in items) / 1000 for step in BRANCH_STEPS}
        costs["branches"] = float(len(items))
        out[family] = costs
    return out


def model(costs: dict[str, dict[str, float]], *, pairs: int, avds: list[int], load_s: float,
          capture_s: float | None) -> dict[str, object]:
    per_family: dict[str, float] = {}
    for family, c in costs.items():
        work = sum(c[s] for s in BRANCH_STEPS if s != "captures") + (c["captures"] if capture_s is None else capture_s)
        per_family[family] = 2 * (work + load_s)
    pair_s = statistics.mean(per_family.values())  # the build spreads its count evenly over the families
    fixed_s = BOOT_FROM_SNAPSHOT_S + BASE_SNAPSHOTS * (SNAPSHOT_BUILD_S + SNAPSHOT_SAVE_S)
    return {
        "pair_seconds_by_family": {f: round(v, 2) for f, v in per_family.items()},
        "pair_seconds": round(pair_s, 2),
        "fixed_seconds_per_avd": round(fixed_s, 1),
        "load_seconds": load_s,
        "pairs": pairs,
        "wall_minutes": {n: round((fixed_s + pairs * pair_s / n) / 60, 1) for n in avds},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="data dir of a hardware-mode build")
    parser.add_argument("--db", default=None, help="store URL (default sqlite:///DATA_DIR/emukit.db)")
    parser.add_argument("--pairs", type=int, default=800)
    parser.add_argument("--avds", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--load-s", type=float, default=SNAPSHOT_RESTORE_S + ADB_BACK_S,
                        help="seconds one snapshot load takes on an AVD (default 2.64)")
    parser.add_argument("--capture-s", type=float, default=None,
                        help="seconds of captures per branch on an AVD (default: as measured in hardware mode)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    url = args.db or f"sqlite:///{(args.data_dir / 'emukit.db').resolve()}"
    costs = branch_costs(url)
    if not costs:
        print(f"throughput_model: no stored branches in {url}", file=sys.stderr)
        return 1
    result = model(costs, pairs=args.pairs, avds=args.avds, load_s=args.load_s, capture_s=args.capture_s)
    if args.json:
        print(json.dumps({"measured_branch_seconds": costs, **result}, indent=1))
        return 0
    print("median seconds per branch step, measured in hardware mode:")
    for family, c in costs.items():
        steps = ", ".join(f"{s} {c[s]:.2f}" for s in BRANCH_STEPS)
        print(f"  {family:<11} {steps} ({int(c['branches'])} branches)")
    print(f"one pair on an AVD (two branches, each with a {args.load_s:.2f} s snapshot load): "
          + ", ".join(f"{f} {v:.1f} s" for f, v in result["pair_seconds_by_family"].items())  # type: ignore[union-attr]
          + f"; mean {result['pair_seconds']} s")
    print(f"fixed per AVD: {result['fixed_seconds_per_avd']} s (boot from its snapshot, {BASE_SNAPSHOTS} base "
          "snapshots built and saved)")
    for n, minutes in result["wall_minutes"].items():  # type: ignore[union-attr]
        print(f"  {args.pairs} pairs on {n} AVD(s): {minutes} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
