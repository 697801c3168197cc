"""Where a virtual device spends its CPU: a per-thread profile on the thread CPU clock, for measurement runs.

A device serves each adb service on a thread of its own, so a profiler of the main thread sees almost nothing,
and one timed on the wall clock counts every thread's waits. With ``$EMUKIT_VDEVICE_CPU_PROFILE`` set to a
folder, :func:`profile_threads` gives every thread started afterwards a ``cProfile.Profile`` timed by
``time.thread_time`` and :meth:`ThreadProfiles.dump` merges them into ``FOLDER/cpu-SERIAL.pstats`` when the
device stops (``python tools/bench_build.py --profile FOLDER`` sets it; docs/building.md, "Where a pair's CPU
goes"). The profiler's own cost inflates Python-heavy code several times over: read shares, not times. Each
thread keeps its profile until the end, so profile short runs (tens of pairs), not nights.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import threading
import time
from pathlib import Path

CPU_PROFILE_ENV = "EMUKIT_VDEVICE_CPU_PROFILE"


class ThreadProfiles:
    """One ``cProfile.Profile`` per thread, on the thread CPU clock, merged on :meth:`dump`."""

    def __init__(self) -> None:
        self._profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        """Profile the calling thread and every thread started from now on."""
        threading.setprofile(self._profile_this_thread)
        self._profile_this_thread()

    def _profile_this_thread(self, *_: object) -> None:
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self._profiles.append(profile)
        profile.enable()  # replaces this hook for the thread

    def dump(self, path: Path) -> int:
        """Stop profiling new threads and write the merged statistics to ``path``; returns how many threads'
        profiles went in."""
        threading.setprofile(None)  # type: ignore[arg-type]
        with self._lock:
            profiles = list(self._profiles)
        merged: pstats.Stats | None = None
        for profile in profiles:
            profile.disable()
            profile.create_stats()
            if not profile.stats:  # type: ignore[attr-defined]
                continue
            if merged is None:
                merged = pstats.Stats(profile)
            else:
                merged.add(profile)
        if merged is None:
            return 0
        path.parent.mkdir(parents=True, exist_ok=True)
        merged.dump_stats(str(path))
        return len(profiles)


def profile_threads() -> ThreadProfiles | None:
    """With ``$EMUKIT_VDEVICE_CPU_PROFILE`` set, start profiling every thread (call before the device's
    threads start); None otherwise."""
    if not os.environ.get(CPU_PROFILE_ENV):
        return None
    profiles = ThreadProfiles()
    profiles.start()
    return profiles


def dump_profile(profiles: ThreadProfiles | None, serial: str) -> Path | None:
    """Write ``profiles`` (from :func:`profile_threads`) to ``$EMUKIT_VDEVICE_CPU_PROFILE/cpu-SERIAL.pstats``."""
    folder = os.environ.get(CPU_PROFILE_ENV)
    if profiles is None or not folder:
        return None
    path = Path(folder) / f"cpu-{serial}.pstats"
    return path if profiles.dump(path) else None
