"""The virtual device process's memory: the C allocator's arenas, and heap snapshots for finding growth.

A device serves every adb connection on a thread of its own. glibc gives threads their own malloc arenas
(up to eight per core), and a screen frame (~10 MB) or a band of one freed in one arena is not reused by
another: over a build the arenas fill with free but held memory (measured: 540 MB free of 825 MB in the
heap after 30 pairs, for 290 MB in use). :func:`limit_malloc_arenas` caps them at
:data:`MALLOC_ARENAS`, and :func:`release_free_memory` hands the free pages back at a snapshot load once
resident memory has grown by a mode's slack since the last trim, which keeps a device's resident memory within
its caches' budgets (``tools/bench_memory.py`` measures it).
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import signal
import threading
from pathlib import Path

MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # glibc malloc.h


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    """The process's C library, loaded once (a snapshot load asks for it), with ``mallinfo2``'s result type
    set where it has one."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if hasattr(libc, "mallinfo2"):
        libc.mallinfo2.restype = _MallInfo2
    return libc


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """``mallopt(M_ARENA_MAX, arenas)`` where the C library is glibc; call it before threads start. Returns
    whether it was applied (False elsewhere, where the allocator keeps its defaults)."""
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None) if libc is not None else None
    if mallopt is None or getattr(libc, "gnu_get_libc_version", None) is None:
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


# A snapshot load trims the allocator once the process's resident memory has grown by this much since the
# last trim. Resident memory, not glibc's free count: a trim hands pages back (madvise) but leaves their chunks
# counted free, so a rule on the free count, once over its line, trims at every load. An attempt frees its
# frames (~10 MB each at 1080x2400) when it ends; between trims they stay resident and are reused, after a
# trim the next attempt faults them in again, which is the trim's cost. Measured over a 300-pair build in
# deterministic mode (docs/building.md, "Memory of a long build"): a slack of 48 MB (with the caches' budgets
# before the same change) trimmed at 327 of 643 loads and cost ~10% more device CPU per pair; 64 MB with
# today's budgets trimmed at 14 and at 28 of 643 loads in two runs, at no measurable CPU.
RESIDENT_SLACK = 64 * 2**20
# In hardware mode a device spends an attempt waiting in real time (gestures, clocks), not computing, so its
# line is lower: under the earlier rule (trim above 128 MB free) its free memory crept up over a whole build
# and was never handed back (heap snapshots: 71 MB free after 30 pairs, 87 MB after 47; docs/building.md,
# "Memory of a long build").
HARDWARE_RESIDENT_SLACK = 16 * 2**20


def resident_bytes() -> int | None:
    """The process's resident memory (``/proc/self/statm``), or None where there is no such file."""
    try:
        pages = int(Path("/proc/self/statm").read_bytes().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * _page_size()


@functools.lru_cache(maxsize=1)
def _page_size() -> int:
    return os.sysconf("SC_PAGE_SIZE")


class _TrimState:
    """The resident memory right after the process's last trim (None before the first), and how many calls
    and trims there were: the allocator is the process's, so is this."""

    lock = threading.Lock()
    resident_after: int | None = None
    calls = 0
    trims = 0


def release_free_memory(slack: int = RESIDENT_SLACK) -> bool:
    """``malloc_trim(0)`` where the C library is glibc, at the first call and then whenever the process's
    resident memory has grown by more than ``slack`` bytes since the last trim (``slack=0``: always): the
    arenas' free pages go back to the system (frames and bands an attempt freed would otherwise stay resident,
    scattered among live blocks). Called after each snapshot load. Growth that is not free memory (a cache
    filling) also triggers a trim, once per ``slack`` bytes, after which the line moves up with it. Where
    resident memory cannot be read, the rule falls back to the allocator's free count. Returns
    ``malloc_trim``'s answer: whether it trimmed and memory went back."""
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None) if libc is not None else None
    if trim is None:
        return False
    with _TrimState.lock:
        _TrimState.calls += 1
        now = resident_bytes()
        if slack > 0:
            if now is None:
                if malloc_totals().get("fordblks", slack + 1) <= slack:
                    return False
            elif _TrimState.resident_after is not None and now - _TrimState.resident_after <= slack:
                return False
        released = bool(trim(0))
        _TrimState.trims += 1
        _TrimState.resident_after = resident_bytes()
        return released


def malloc_totals() -> dict[str, int]:
    """glibc's ``mallinfo2()`` (bytes: ``arena`` from the heaps, ``hblkhd`` in mmapped chunks, ``uordblks``
    in use, ``fordblks`` free but held); empty where the C library has none."""
    libc = _libc()
    fn = getattr(libc, "mallinfo2", None) if libc is not None else None
    if fn is None:
        return {}
    info = fn()
    return {name: int(getattr(info, name)) for name, _ in _MallInfo2._fields_}


HEAP_SNAPSHOTS_ENV = "EMUKIT_VDEVICE_HEAP_SNAPSHOTS"  # set (to a traceback depth): SIGUSR1 writes heap snapshots


def heap_snapshots_on_signal(state_dir: Path) -> bool:
    """With ``$EMUKIT_VDEVICE_HEAP_SNAPSHOTS`` set to a traceback depth, each SIGUSR1 writes a tracemalloc
    heap snapshot to ``STATE_DIR/heap-K.tracemalloc`` (K = 1, 2, ...) and the allocator's totals
    (:func:`malloc_totals`) to ``heap-K.json``; the first signal starts tracing, so later snapshots show what
    was allocated since and is still held (``tools/bench_memory.py --trace`` compares them). Returns whether
    the handler was installed."""
    depth = os.environ.get(HEAP_SNAPSHOTS_ENV)
    if not depth:
        return False
    import tracemalloc

    taken = [0]

    def dump(*_: object) -> None:
        if not tracemalloc.is_tracing():
            tracemalloc.start(int(depth))
        taken[0] += 1
        base = Path(state_dir) / f"heap-{taken[0]}"
        Path(f"{base}.json").write_text(json.dumps({"traced": tracemalloc.get_traced_memory()[0],
                                                    "malloc": malloc_totals()}))
        tracemalloc.take_snapshot().dump(f"{base}.tracemalloc")

    signal.signal(signal.SIGUSR1, dump)
    return True


CACHE_STATS_ENV = "EMUKIT_VDEVICE_CACHE_STATS"  # set (to anything): SIGUSR2 writes what each cache holds


def cache_stats() -> dict[str, object]:
    """What the process holds: resident memory, the allocator's totals, the snapshot-load trims so far
    (:func:`release_free_memory`) and each live cache's bytes, entries, budgets, hits and misses
    (:func:`emukit.lru.live_caches`)."""
    from emukit.lru import live_caches

    return {"resident": resident_bytes(), "malloc": malloc_totals(),
            "trims": {"calls": _TrimState.calls, "trims": _TrimState.trims},
            "caches": [{"name": c.name, "bytes": c.nbytes, "max_bytes": c.max_bytes, "entries": len(c),
                        "max_entries": c.max_entries, "hits": c.hits, "misses": c.misses} for c in live_caches()]}


def cache_stats_on_signal(state_dir: Path) -> bool:
    """With ``$EMUKIT_VDEVICE_CACHE_STATS`` set, each SIGUSR2 writes :func:`cache_stats` to
    ``STATE_DIR/caches-K.json`` (K = 1, 2, ...): cheap enough for a whole build (``tools/bench_memory.py
    --caches`` asks after ~30 pairs and at the end). Returns whether the handler was installed."""
    if not os.environ.get(CACHE_STATS_ENV):
        return False
    taken = [0]

    def dump(*_: object) -> None:
        taken[0] += 1
        path = Path(state_dir) / f"caches-{taken[0]}.json"
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(cache_stats()))
        os.replace(partial, path)  # a reader never sees half a file

    signal.signal(signal.SIGUSR2, dump)
    return True
