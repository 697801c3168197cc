"""The virtual device's caches have bounds in entries and bytes, so its memory stays flat over a long build
(tools/bench_memory.py measures the resident memory itself); the C allocator's arenas are capped."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import platform
import subprocess
import sys

import pytest
from PIL import Image

import emukit.vdevice
from emukit.images import BAND_ROWS, BandCache, encode_png
from emukit.lru import SizedLRU, image_bytes, sized_cache
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.ui import wm as wm_module


def test_sized_lru_holds_both_bounds() -> None:
    cache: SizedLRU[int, bytes] = SizedLRU(max_entries=3, max_bytes=100)
    for key in range(5):
        cache.put(key, b"x" * 10)
    assert len(cache) == 3 and cache.nbytes == 30
    assert cache.get(0) is None and cache.get(4) == b"x" * 10  # the oldest went first
    cache.put(9, b"y" * 90)  # over the byte budget: the least recently used go until it fits
    assert cache.nbytes <= 100 and 9 in cache and 4 in cache and 2 not in cache
    cache.put(10, b"z" * 101)  # larger than the whole budget: not kept, nothing else lost for it
    assert 10 not in cache and 9 in cache
    cache.put(9, b"w")  # replacing a value re-counts its bytes
    assert cache.nbytes == 11 and cache.get(9) == b"w"
    with pytest.raises(ValueError, match="positive"):
        SizedLRU(0, 10)


def test_sized_cache_is_bounded_by_bytes() -> None:
    calls = []

    @sized_cache(100, 3 * 64 * 64, image_bytes)
    def mask(size: int, alpha: int) -> Image.Image:
        calls.append((size, alpha))
        return Image.new("L", (size, size), alpha)

    for alpha in range(10):
        assert mask(64, alpha).getpixel((0, 0)) == alpha
    assert mask.cache.nbytes <= 3 * 64 * 64 and len(mask.cache) == 3  # type: ignore[attr-defined]
    mask(64, 9)
    assert len(calls) == 10  # the recent one was reused


def test_band_cache_is_bounded_by_bytes() -> None:
    cache = BandCache(max_bands=10_000, max_bytes=2_000)
    for shade in range(40):
        encode_png(Image.new("RGB", (10, BAND_ROWS * 2), (shade, 0, 0)), cache)
    assert 0 < cache.nbytes <= 2_000 and len(cache) < 40


def _module_caches():
    """Every function-level cache in emukit.vdevice: (qualified name, cache-bearing function)."""
    for info in pkgutil.walk_packages(emukit.vdevice.__path__, "emukit.vdevice."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) or hasattr(obj, "cache_info"):
                if getattr(obj, "__module__", None) == info.name and (hasattr(obj, "cache_info")
                                                                      or hasattr(obj, "cache")):
                    yield f"{info.name}.{name}", obj


def test_every_function_cache_in_the_device_is_bounded() -> None:
    found = dict(_module_caches())
    assert {"emukit.vdevice.ui.render._solid_mask", "emukit.vdevice.ui.render._gradient",
            "emukit.vdevice.ui.icons.icon_mask", "emukit.vdevice.ui.view._quoted"} <= set(found)
    for name, fn in found.items():
        if hasattr(fn, "cache_info"):
            assert fn.cache_info().maxsize is not None, f"{name}: lru_cache without maxsize"
        else:
            assert isinstance(fn.cache, SizedLRU), name
    for name in ("_solid_mask", "_gradient", "_corner"):  # image-valued: bounded by bytes, not only entries
        assert isinstance(found[f"emukit.vdevice.ui.render.{name}"].cache, SizedLRU)


def test_screen_caches_stay_within_their_budgets(tmp_path) -> None:
    """Distinct screens (every installed app's first screen) through a small encoded-screenshot budget."""
    device = VirtualDevice(tmp_path / "dev", wipe=True)
    wm = device.wm
    assert isinstance(wm._frames, SizedLRU) and isinstance(wm._pngs, SizedLRU)
    assert wm._pngs.max_entries == wm_module.PNG_CACHE_SIZE and wm._pngs.max_bytes == wm_module.PNG_CACHE_BYTES
    wm._pngs = SizedLRU(4, 400_000, wm._pngs._size_of)
    screens = set()
    for app in sorted(device.package_manager.apps)[:10]:
        device.start_activity(app)
        screens.add(device.screenshot_png())
        wm.screenshot_image()
    assert len(screens) >= 6
    assert len(wm._frames) <= wm_module.FRAME_CACHE_FRAMES and wm._frames.nbytes <= wm._frames.max_bytes
    assert len(wm._pngs) <= 4 and wm._pngs.nbytes <= 400_000
    assert wm._bands.max_bytes == wm_module.BAND_CACHE_BYTES and wm._bands.nbytes <= wm._bands.max_bytes


def test_a_png_screenshot_keeps_its_bytes_not_its_frame(tmp_path) -> None:
    """A PNG screenshot's frame is dropped once encoded (its encoded bytes are cached, and those are what a
    build reads again); a raw read (screenrecord, framebuffer:, takeScreenshot) keeps the frame for the next raw
    read of the same screen."""
    device = VirtualDevice(tmp_path / "dev", wipe=True)
    wm = device.wm
    wm.clear_caches()
    png = device.screenshot_png()
    assert len(wm._frames) == 0 and len(wm._pngs) == 1
    assert device.screenshot_png() == png and wm._pngs.hits == 1
    misses = wm._frames.misses
    image = wm.screenshot_image()
    assert len(wm._frames) == 1 and wm._frames.misses == misses + 1
    assert wm.screenshot_image().tobytes() == image.tobytes() and wm._frames.hits == 1


def test_a_hardware_mode_device_keeps_a_small_screenshot_cache(tmp_path) -> None:
    """In hardware mode the status-bar clock follows the host's, so a screenshot recurs only while a screen
    settles: the encoded-screenshot cache is small there (a screen read twice in a row still hits it), and so
    is the band cache (bands holding a clock are new at every tick)."""
    device = VirtualDevice(tmp_path / "dev", wipe=True, mode="hardware")
    wm = device.wm
    assert (wm._pngs.max_entries, wm._pngs.max_bytes) == (wm_module.HARDWARE_PNG_CACHE_SIZE,
                                                          wm_module.HARDWARE_PNG_CACHE_BYTES)
    assert wm_module.HARDWARE_PNG_CACHE_BYTES < wm_module.PNG_CACHE_BYTES
    for _ in range(3):  # a screen read twice in a row hits (unless the clock's minute turned in between)
        first = device.screenshot_png()
        hits = wm._pngs.hits
        if device.screenshot_png() == first:
            assert wm._pngs.hits == hits + 1
            break
    else:
        raise AssertionError("three screenshots in a row all differed from the one before")
    for app in sorted(device.package_manager.apps)[:10]:
        device.start_activity(app)
        device.screenshot_png()
    assert len(wm._pngs) <= wm_module.HARDWARE_PNG_CACHE_SIZE
    assert wm._pngs.nbytes <= wm_module.HARDWARE_PNG_CACHE_BYTES
    assert wm._bands.max_bytes == wm_module.HARDWARE_BAND_CACHE_BYTES < BandCache().max_bytes


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the arena cap and the trim are glibc calls")
def test_malloc_arenas_are_capped_and_free_pages_released_on_glibc() -> None:
    code = ("from emukit.vdevice.memory import limit_malloc_arenas, release_free_memory, malloc_totals\n"
            "print(limit_malloc_arenas())\n"
            "kept = [bytes(300_000) for _ in range(200)]\n"
            "del kept[::2]\n"
            "release_free_memory(0)\n"
            "print(malloc_totals()['uordblks'] > 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


def _hook_signalled_twice(monkeypatch, env: str, value: str, install, sig: int, state_dir) -> None:
    """A signal hook of emukit.vdevice.memory: not installed without ``env``; with it installed, ``sig`` sent
    to this process twice, then the previous handler put back."""
    import os
    import signal

    monkeypatch.delenv(env, raising=False)
    assert install(state_dir) is False
    monkeypatch.setenv(env, value)
    previous = signal.getsignal(sig)
    try:
        assert install(state_dir) is True
        os.kill(os.getpid(), sig)
        os.kill(os.getpid(), sig)
    finally:
        signal.signal(sig, previous)


def test_heap_snapshots_on_signal(tmp_path, monkeypatch) -> None:
    """The hook tools/bench_memory.py --trace relies on: off without the variable; with it, each SIGUSR1
    writes a loadable tracemalloc snapshot and the allocator's totals."""
    import json
    import signal
    import tracemalloc

    from emukit.vdevice.memory import HEAP_SNAPSHOTS_ENV, heap_snapshots_on_signal

    try:
        _hook_signalled_twice(monkeypatch, HEAP_SNAPSHOTS_ENV, "4", heap_snapshots_on_signal, signal.SIGUSR1,
                              tmp_path)
    finally:
        tracemalloc.stop()
    assert tracemalloc.Snapshot.load(str(tmp_path / "heap-2.tracemalloc")).traces is not None
    totals = json.loads((tmp_path / "heap-2.json").read_text())
    assert totals["traced"] >= 0 and "malloc" in totals


def test_cache_stats_on_signal(tmp_path, monkeypatch) -> None:
    """The hook tools/bench_memory.py --caches relies on: off without the variable; with it, each SIGUSR2
    writes every live cache of the process by name (a device's screen caches among them) with its bytes,
    budget and lookups, beside resident memory and the trims so far."""
    import json
    import signal

    from emukit.vdevice.memory import CACHE_STATS_ENV, cache_stats_on_signal

    device = VirtualDevice(tmp_path / "dev", wipe=True)
    device.screenshot_png()
    device.screenshot_png()
    _hook_signalled_twice(monkeypatch, CACHE_STATS_ENV, "1", cache_stats_on_signal, signal.SIGUSR2, tmp_path)
    report = json.loads((tmp_path / "caches-2.json").read_text())
    assert report["resident"] > 0 and set(report["trims"]) == {"calls", "trims"}
    named = lambda name: [cache for cache in report["caches"] if cache["name"] == name]  # noqa: E731
    # (other tests' devices may still be alive in this process: one of each name is this device's)
    assert any(c["entries"] >= 1 and c["hits"] >= 1 and 0 < c["bytes"] <= c["max_bytes"] == wm_module.PNG_CACHE_BYTES
               for c in named("wm screenshots"))
    assert any(c["max_bytes"] == wm_module.BAND_CACHE_BYTES and c["bytes"] > 0 for c in named("wm png bands"))
    assert named("emukit.vdevice.ui.render._line_mask") and named("wm frames")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the trim is a glibc call")
@pytest.mark.parametrize("mode", ["deterministic", "hardware"])
def test_a_snapshot_load_trims_once_resident_memory_grew_by_its_modes_slack(tmp_path, mode) -> None:
    """A snapshot load trims the allocator when the process's resident memory has grown by more than its
    mode's slack since the last trim (64 MB deterministic, 16 MB hardware), and not at every load after that.
    Each device is made in a fresh process (an allocator of its own, arenas capped as `emukit vdevice serve`
    caps them). Free memory is made by allocating 64 kB blocks and freeing every other one, so it lies between
    live blocks and only a trim gives it back; glibc keeps counting trimmed chunks free, which is why the
    rule reads resident pages. The loads: the first trims and sets the line; after growth of three quarters of
    the slack nothing is trimmed; after growth past it the freed pages go back; a load right after trims
    nothing."""
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from emukit.vdevice.memory import limit_malloc_arenas\n"
        "limit_malloc_arenas()\n"
        "import emukit.vdevice.snapshots as snapshots\n"
        "from emukit.vdevice.device import VirtualDevice\n"
        "trims = []\n"
        "release = snapshots.release_free_memory\n"
        "def counted(slack):\n"
        "    trims.append(slack)\n"
        "    return release(slack)\n"
        "snapshots.release_free_memory = counted\n"
        f"device = VirtualDevice(Path(sys.argv[1]), wipe=True, mode={mode!r})\n"
        "def resident():\n"
        "    return int(Path('/proc/self/statm').read_text().split()[1]) * os.sysconf('SC_PAGE_SIZE')\n"
        "def fragment(total):\n"
        "    blocks = [bytearray(64 * 1024) for _ in range(total // (64 * 1024))]\n"
        "    del blocks[::2]\n"
        "    return blocks\n"
        "from emukit.vdevice import memory\n"
        "device.snapshots.save('base')\n"
        "device.snapshots.load('base')\n"
        "slack = trims[-1]\n"
        "line = memory._TrimState.resident_after\n"
        "kept = [fragment(slack * 3 // 4)]\n"
        "before = resident()\n"
        "device.snapshots.load('base')\n"
        "small = (before - resident()) >> 20\n"
        "same_line = memory._TrimState.resident_after == line\n"
        "kept.append(fragment(2 * slack))\n"
        "before = resident()\n"
        "device.snapshots.load('base')\n"
        "large = (before - resident()) >> 20\n"
        "moved = memory._TrimState.resident_after != line\n"
        "line = memory._TrimState.resident_after\n"
        "device.snapshots.load('base')\n"
        "print(slack >> 20, small, same_line, large, moved, memory._TrimState.resident_after == line)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dev")], capture_output=True, text=True,
                         check=True).stdout
    slack, small, same_line, large, moved, kept_line = out.split()
    assert int(slack) == (16 if mode == "hardware" else 64)
    assert int(small) < 4 and same_line == "True"  # under the slack: kept for the next attempt's frames
    # 1.375 slacks freed between live blocks; the pages a trim can hand back are those whole inside a chunk
    assert int(large) >= int(slack) * 3 // 4 and moved == "True"
    assert kept_line == "True"  # no growth since: no trim
