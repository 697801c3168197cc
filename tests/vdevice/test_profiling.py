"""The CPU profile hook of a measurement run (emukit.vdevice.profiling; tools/bench_build.py --profile)."""

from __future__ import annotations

import pstats
import subprocess
import sys


def test_threads_are_profiled_on_their_cpu_clock_and_merged(tmp_path) -> None:
    """In a fresh process (the hook is process-wide): a thread that spins and one that sleeps are both
    profiled, the spinning one's function carries its CPU and the sleeping one's almost none (the thread CPU
    clock, not the wall clock), and the merged file loads with pstats."""
    code = (
        "import os, sys, threading, time\n"
        "from emukit.vdevice.profiling import CPU_PROFILE_ENV, dump_profile, profile_threads\n"
        "os.environ[CPU_PROFILE_ENV] = sys.argv[1]\n"
        "profiles = profile_threads()\n"
        "def spin():\n"
        "    end = time.thread_time() + 0.3\n"
        "    while time.thread_time() < end:\n"
        "        pass\n"
        "def nap():\n"
        "    time.sleep(0.3)\n"
        "threads = [threading.Thread(target=spin), threading.Thread(target=nap)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(dump_profile(profiles, 'emulator-5554'))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str(tmp_path / "cpu-emulator-5554.pstats")
    stats = pstats.Stats(out).stats  # type: ignore[attr-defined]
    cumulative = {func[2]: entry[3] for func, entry in stats.items()}
    assert cumulative["spin"] >= 0.25
    assert cumulative["nap"] < 0.05


def test_no_profile_without_the_variable(monkeypatch) -> None:
    from emukit.vdevice.profiling import CPU_PROFILE_ENV, dump_profile, profile_threads

    monkeypatch.delenv(CPU_PROFILE_ENV, raising=False)
    assert profile_threads() is None
    assert dump_profile(None, "emulator-5554") is None
