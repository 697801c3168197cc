"""Build throughput: all four families with embedded virtual devices, pairs per minute and the median
per-branch time breakdown (snapshot load, setup, actions, captures, probes, shared action) plus the store,
and the CPU time the builder and the device processes used per pair.

    python tools/bench_build.py [--count 20] [--devices N] [--family all] [--profile FOLDER]

``--devices`` defaults to what ``emukit build-pairs`` starts (CPU cores + 1, 2 to 8). The wall time includes
starting the devices and building their base snapshots (about 10 s), so short runs understate the rate of
a long build.

``--profile FOLDER`` has each device profile its threads on the thread CPU clock
(:mod:`emukit.vdevice.profiling`) and write ``FOLDER/cpu-SERIAL.pstats`` when it stops, then prints the
functions with the most CPU; the profiler slows the devices several times over, so the timings of such a run
are not the build's.

Runs in a private HOME and adb server port; the data dir is a fresh temporary folder.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20, help="pairs per family")
    parser.add_argument("--devices", type=int, default=None)
    parser.add_argument("--family", default="all")
    parser.add_argument("--profile", type=Path, default=None, help="folder for the devices' CPU profiles")
    args = parser.parse_args()
    if args.profile is not None:
        from emukit.vdevice.profiling import CPU_PROFILE_ENV

        os.environ[CPU_PROFILE_ENV] = str(args.profile.resolve())

    home = Path(tempfile.mkdtemp(prefix="emukit-bench-build-"))
    os.environ["HOME"] = str(home)
    from emukit.device.adbserver import free_port

    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    from emukit.builder.run import BuildOptions, build_pairs
    from emukit.device.adbserver import AdbServer
    from emukit.templates import load_templates
    from emukit.workers import DeviceRequest, default_device_count

    devices = args.devices or default_device_count()
    options = BuildOptions(templates=load_templates(family=args.family), count_per_family=args.count,
                           data_dir=home / "data", devices=DeviceRequest(count=devices), adb_port=port)
    try:
        runner = build_pairs(options)
    finally:
        AdbServer(port).kill()
    pairs = runner.total_done
    print(f"{pairs} pairs ({runner.total_wanted} wanted) in {runner.wall_s:.1f} s with {devices} device(s): "
          f"{pairs / runner.wall_s * 60:.1f} pairs/minute")
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the device processes (the adb server is a daemon)
    print(f"CPU per pair: builder {(own.ru_utime + own.ru_stime) / max(pairs, 1) * 1000:.0f} ms, "
          f"devices {(kids.ru_utime + kids.ru_stime) / max(pairs, 1) * 1000:.0f} ms "
          f"({os.cpu_count()} CPU cores)")
    attempted = sum(tp.attempted_now for tp in runner.progress.values())
    print(f"attempts {attempted}, rejected {attempted - pairs}")
    families = sorted({t["pair.family"] for t in runner.timings})
    keys = sorted({k for t in runner.timings for k in t if k.startswith("A.")})
    print("median ms per branch (A):")
    print(f"{'family':<12}" + "".join(f"{k[2:]:>15}" for k in keys) + f"{'store/pair':>12}")
    for fam in families:
        rows = [t for t in runner.timings if t["pair.family"] == fam]
        print(f"{fam:<12}" + "".join(f"{statistics.median(t[k] for t in rows if k in t):>15.0f}" for k in keys)
              + f"{statistics.median(t['pair.store'] for t in rows):>12.0f}")
    for err in runner.errors:
        print("error:", err)
    if args.profile is not None:
        print_profiles(args.profile)
    return 0


def print_profiles(folder: Path, top: int = 25) -> None:
    """The functions with the most CPU (their own and with callees) over every device's profile."""
    import pstats

    paths = sorted(folder.glob("cpu-*.pstats"))
    if not paths:
        print(f"no CPU profile in {folder}")
        return
    stats = pstats.Stats(*map(str, paths))
    print(f"device CPU profile ({', '.join(p.name for p in paths)}): {stats.total_tt:.1f} s profiled")
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    sys.exit(main())
