"""The virtual device process's memory: the C allocator's arenas, and heap snapshots for finding growth.

A device serves every adb connection on a thread of its own. glibc gives threads their own malloc arenas
(up to eight per core), and a screen frame (~10 MB) or a band of one freed in one arena is not reused by
another: over a build the arenas fill with free but held memory (measured: 540 MB free of 825 MB in the
heap after 30 pairs, for 290 MB in use). :func:`limit_malloc_arenas` caps them at
:data:`MALLOC_ARENAS`, and :func:`release_free_memory` hands the free pages back after each snapshot load,
which keeps a device's resident memory within its caches' budgets (``tools/bench_memory.py`` measures it).
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import signal
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


RELEASE_ABOVE = 128 * 2**20  # free-but-held bytes in the arenas above which a snapshot load trims them
# In hardware mode a device spends an attempt waiting in real time (gestures, clocks), not computing, so it
# trims above 16 MB: under the 128 MB line its free memory crept up over a whole build and was never handed back
# (heap snapshots: 71 MB free after 30 pairs, 87 MB after 47; docs/building.md, "Memory of a long build").
HARDWARE_RELEASE_ABOVE = 16 * 2**20


def release_free_memory(above: int = RELEASE_ABOVE) -> bool:
    """``malloc_trim(0)`` where the C library is glibc and the arenas hold more than ``above`` bytes free:
    their free pages go back to the system (frames and bands an attempt freed would otherwise stay resident,
    scattered among live blocks). Called after each snapshot load. Each trim costs page faults when the next
    frames are allocated: trimming whenever 32 MB were free cost ~7% more device CPU per pair (80-pair runs
    with and without it), at 128 MB a device trims rarely and stays flat. Returns whether memory was
    released."""
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None) if libc is not None else None
    if trim is None:
        return False
    if above > 0 and malloc_totals().get("fordblks", above + 1) <= above:
        return False
    return bool(trim(0))


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
