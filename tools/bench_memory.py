"""Resident memory of the embedded virtual devices over a long build: samples every device process's RSS
while ``build_pairs`` runs and prints it against the pairs that device has stored so far, then the flat-memory
check: the median RSS over the samples taken while the device had stored 20-40 pairs against the median over
its last 30 pairs (within 10%), and the peak of the whole run (at most 350 MB). Medians of windows, because a
device's RSS swings by tens of MB within an attempt (frames rendered and freed) and drops at each snapshot
load (``emukit.vdevice.memory.release_free_memory``).

    python tools/bench_memory.py [--pairs 300] [--devices 1] [--mode deterministic] [--interval 2] [--trace]
                                 [--caches]

``--pairs`` is the number of pairs per device (the build asks for ``pairs * devices`` pairs, spread over
the four families). ``--trace`` (traceback depth 8) asks each device for heap snapshots (SIGUSR1,
:func:`emukit.vdevice.memory.heap_snapshots_on_signal`: the first starts tracemalloc) when it is up, once it
has stored ~30 pairs and at the end, prints the C allocator's totals at each and the allocation sites that
grew most in between: the owners of what a long run keeps. Tracing slows the devices; use it to find
growth, not to time. ``--caches`` asks each device for what its caches hold (SIGUSR2,
:func:`emukit.vdevice.memory.cache_stats_on_signal`) once it has stored ~30 pairs and at the end, and prints
each cache's bytes at both against its budget, its hit rate, the allocator's totals and the trims: cheap enough
to leave on while timing.

Runs in a private HOME and adb server port; the data dir is a fresh temporary folder. Also prints the CPU
seconds per pair of the builder and of the devices, as tools/bench_build.py does.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

EARLY_PAIRS = 30  # the "after 30 pairs" reading the last ones are compared with
EARLY_WINDOW = (20, 40)  # pairs stored: the samples whose median stands for "after 30 pairs"
PROGRESS_EVERY = 50  # a progress line per device every this many pairs (a long run killed keeps them)
LATE_PAIRS = 30  # the last this many pairs: the samples whose median stands for "at the end"
FLAT_RATIO = 1.10
CEILING_MB = 350


@dataclass
class DeviceTrace:
    serial: str
    samples: list[tuple[float, int, float]] = field(default_factory=list)  # (t s, pairs stored, rss MB)
    snapshots: list[Path] = field(default_factory=list)
    cache_stats: list[Path] = field(default_factory=list)

    def rss_at(self, pairs: int) -> float | None:
        """The first RSS sampled once the device had stored at least ``pairs`` pairs."""
        return next((mb for _, n, mb in self.samples if n >= pairs), None)

    def median_between(self, low: int, high: int) -> float | None:
        """The median RSS of the samples taken while the device had stored ``low`` to ``high`` pairs."""
        window = [mb for _, n, mb in self.samples if low <= n <= high]
        return statistics.median(window) if window else None


def sample_loop(prepared, traces: dict[str, DeviceTrace], stop: threading.Event, interval: float,
                trace: bool, t0: float, caches: bool = False) -> None:
    """Every ``interval`` s: each running device's RSS and pairs stored; with ``trace``, SIGUSR1 once a
    device passes EARLY_PAIRS (its first heap snapshot); with ``caches``, SIGUSR2 then (its cache report)."""
    while not stop.wait(interval):
        for launcher in prepared.pool.launchers:
            proc = getattr(getattr(launcher, "process", None), "proc", None)
            if proc is None or proc.poll() is not None:
                continue
            serial = launcher.serial
            rec = traces.setdefault(serial, DeviceTrace(serial))
            try:
                rss = psutil.Process(proc.pid).memory_info().rss / 2**20
            except psutil.Error:
                continue
            stored = prepared.runner.stored_by_device.get(serial, 0)
            if not rec.samples or rec.samples[-1][1] // PROGRESS_EVERY < stored // PROGRESS_EVERY:
                print(f"{serial}: {stored} pairs stored, RSS {rss:.0f} MB, {time.monotonic() - t0:.0f} s",
                      flush=True)
            rec.samples.append((time.monotonic() - t0, stored, rss))
            if trace and not rec.snapshots:
                rec.snapshots.append(snapshot(proc.pid, Path(launcher.process.state_dir), 1))
            elif trace and len(rec.snapshots) == 1 and stored >= EARLY_PAIRS:
                rec.snapshots.append(snapshot(proc.pid, Path(launcher.process.state_dir), 2))
            if caches and not rec.cache_stats and stored >= EARLY_PAIRS:
                rec.cache_stats.append(cache_report(proc.pid, Path(launcher.process.state_dir), 1, stored))


def snapshot(pid: int, state_dir: Path, k: int, timeout: float = 120.0) -> Path:
    """Ask the device ``pid`` for heap snapshot ``k`` and wait until it is written."""
    path = state_dir / f"heap-{k}.tracemalloc"
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + timeout
    size = -1
    while time.monotonic() < deadline:  # written once the size stops changing
        if path.exists() and path.stat().st_size == size and size > 0:
            return path
        size = path.stat().st_size if path.exists() else -1
        time.sleep(1.0)
    raise TimeoutError(f"no heap snapshot at {path} after {timeout:.0f} s")


def cache_report(pid: int, state_dir: Path, k: int, stored: int, timeout: float = 30.0) -> Path:
    """Ask the device ``pid`` for cache report ``k`` (written whole, by rename) and wait for it; the pairs
    stored then are recorded beside it."""
    path = state_dir / f"caches-{k}.json"
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no cache report at {path} after {timeout:.0f} s")
        time.sleep(0.2)
    report = json.loads(path.read_text())
    path.write_text(json.dumps({**report, "pairs": stored}))
    return path


def print_cache_reports(first: Path, last: Path) -> None:
    """Each cache's bytes in the two reports against its budget and its hit rate at the end; the allocator's
    totals and the snapshot-load trims at each."""
    a, b = (json.loads(path.read_text()) for path in (first, last))
    before = {c["name"]: c for c in a["caches"]}
    print(f"  caches (MB) after {a['pairs']} and {b['pairs']} pairs, budget, hit rate at the end:")
    for cache in sorted(b["caches"], key=lambda c: -c["bytes"]):
        early = before.get(cache["name"], {}).get("bytes", 0)
        looks = cache["hits"] + cache["misses"]
        rate = f"{cache['hits'] / looks:6.1%}" if looks else "     -"
        print(f"    {cache['name']:<44} {early / 2**20:6.1f} {cache['bytes'] / 2**20:6.1f} / "
              f"{cache['max_bytes'] / 2**20:5.1f}  {rate} of {looks}")
    for report in (a, b):
        m = report["malloc"]
        heap = (f"in use {m['uordblks'] / 2**20:.0f} MB, free held {m['fordblks'] / 2**20:.0f} MB, "
                if m else "")
        print(f"  after {report['pairs']} pairs: resident {(report['resident'] or 0) / 2**20:.0f} MB, {heap}"
              f"{report['trims']['trims']} trims at {report['trims']['calls']} snapshot loads")


def malloc_line(snap: Path) -> str:
    info = json.loads(snap.with_suffix(".json").read_text())
    m = info["malloc"]
    native = (f"malloc: heap {m['arena'] / 2**20:.0f} MB + mmapped {m['hblkhd'] / 2**20:.0f} MB, in use "
              f"{m['uordblks'] / 2**20:.0f} MB, free held {m['fordblks'] / 2**20:.0f} MB") if m else "malloc: -"
    return f"{snap.stem}: traced {info['traced'] / 2**20:.1f} MB; {native}"


def report_growth(first: Path, last: Path, top: int = 15) -> None:
    import tracemalloc

    keep = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen*")]
    old = tracemalloc.Snapshot.load(str(first)).filter_traces(keep)
    new = tracemalloc.Snapshot.load(str(last)).filter_traces(keep)
    print(f"  total traced: {sum(s.size for s in old.statistics('filename')) / 2**20:.1f} MB -> "
          f"{sum(s.size for s in new.statistics('filename')) / 2**20:.1f} MB")
    for stat in new.compare_to(old, "traceback")[:top]:
        print(f"  {stat.size_diff / 2**20:+8.2f} MB {stat.count_diff:+8d} blocks")
        frames = [f for f in stat.traceback if "/emukit/" in f.filename] or list(stat.traceback)
        for frame in frames[-4:]:
            print(f"      {frame.filename.split('/emukit/')[-1]}:{frame.lineno}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=300, help="pairs per device")
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--mode", default="deterministic", choices=("deterministic", "hardware"))
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--trace", action="store_true", help="heap snapshots and the sites that grew")
    parser.add_argument("--caches", action="store_true", help="what each cache holds after ~30 pairs and at the end")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="emukit-bench-memory-"))
    os.environ["HOME"] = str(home)
    if args.trace:
        from emukit.vdevice.memory import HEAP_SNAPSHOTS_ENV

        os.environ[HEAP_SNAPSHOTS_ENV] = "8"
    if args.caches:
        from emukit.vdevice.memory import CACHE_STATS_ENV

        os.environ[CACHE_STATS_ENV] = "1"
    from emukit.device.adbserver import free_port

    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    from emukit.builder.run import BuildOptions, prepare_build
    from emukit.workers import DeviceRequest, EmbeddedDevices
    from emukit.device.adbserver import AdbServer
    from emukit.templates import load_templates

    per_family = math.ceil(args.pairs * args.devices / 4)
    options = BuildOptions(templates=load_templates(family="all"), count_per_family=per_family,
                           data_dir=home / "data", devices=DeviceRequest(count=args.devices, embedded=EmbeddedDevices(mode=args.mode)),
                           adb_port=port)
    traces: dict[str, DeviceTrace] = {}
    stop = threading.Event()
    t0 = time.monotonic()
    prepared = prepare_build(options)
    finals: dict[str, Path] = {}

    def take_final(*_: object) -> None:
        """Before the pool closes: each device's last reading (and heap snapshot)."""
        for launcher in prepared.pool.launchers:
            proc = launcher.process.proc
            rec = traces.setdefault(launcher.serial, DeviceTrace(launcher.serial))
            stored = prepared.runner.stored_by_device.get(launcher.serial, 0)
            rec.samples.append((time.monotonic() - t0, stored, psutil.Process(proc.pid).memory_info().rss / 2**20))
            if args.trace:
                k = len(rec.snapshots) + 1
                finals[launcher.serial] = snapshot(proc.pid, Path(launcher.process.state_dir), k)
            if args.caches:
                k = len(rec.cache_stats) + 1
                rec.cache_stats.append(cache_report(proc.pid, Path(launcher.process.state_dir), k, stored))

    runner_run = prepared.runner.run

    def run_then_sample(pool, workers):
        runner_run(pool, workers)
        take_final()

    prepared.runner.run = run_then_sample  # type: ignore[method-assign]
    sampler = threading.Thread(target=sample_loop, args=(prepared, traces, stop, args.interval, args.trace, t0,
                                                         args.caches), daemon=True)
    sampler.start()
    try:
        runner = prepared.run()
    finally:
        stop.set()
        sampler.join()
        AdbServer(port).kill()
    pairs = runner.total_done
    print(f"{pairs} pairs in {runner.wall_s:.1f} s with {args.devices} {args.mode} device(s)")
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU per pair: builder {(own.ru_utime + own.ru_stime) / max(pairs, 1) * 1000:.0f} ms, "
          f"devices {(kids.ru_utime + kids.ru_stime) / max(pairs, 1) * 1000:.0f} ms")
    verdicts = []
    for serial, rec in sorted(traces.items()):
        print(f"{serial}: pairs stored -> RSS MB")
        marks = sorted({0, 10, EARLY_PAIRS, *range(50, args.pairs + 1, 50)})
        for mark in marks:
            mb = rec.rss_at(mark)
            if mb is not None:
                print(f"  {mark:>5} {mb:8.1f}")
        last_t, last_n, last_mb = rec.samples[-1]
        print(f"  {last_n:>5} {last_mb:8.1f}  (end, {last_t:.0f} s)")
        early = rec.median_between(*EARLY_WINDOW)
        late = rec.median_between(max(0, last_n - LATE_PAIRS), last_n)
        peak = max(mb for _, _, mb in rec.samples)
        if early is not None and late is not None and last_n >= 2 * EARLY_WINDOW[1]:
            ratio = late / early
            ok = ratio <= FLAT_RATIO and peak <= CEILING_MB
            verdicts.append(ok)
            print(f"  median RSS, pairs {EARLY_WINDOW[0]}-{EARLY_WINDOW[1]}: {early:.0f} MB; last {LATE_PAIRS} pairs: "
                  f"{late:.0f} MB; ratio {ratio:.3f} (at most {FLAT_RATIO}); peak {peak:.0f} MB (at most "
                  f"{CEILING_MB}): {'flat' if ok else 'NOT flat'}")
        if args.trace and serial in finals:
            snaps = [*rec.snapshots, finals[serial]]
            for snap in snaps:
                print(f"  {malloc_line(snap)}")
            for a, b in zip(snaps, snaps[1:]):
                print(f"{serial}: allocation sites that grew most from {a.stem} to {b.stem}")
                report_growth(a, b)
        if len(rec.cache_stats) >= 2:
            print_cache_reports(rec.cache_stats[0], rec.cache_stats[-1])
    for err in runner.errors:
        print("error:", err)
    return 0 if verdicts and all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
