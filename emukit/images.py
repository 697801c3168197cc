"""PNG helpers shared by the virtual device, the world-model request builder, the annotator and the
evaluator: a header reader and one fast, deterministic PNG encoder.

The encoder writes 8-bit truecolour RGB with no ancillary chunks, so its output depends only on the pixels.
Pillow's encoder tries every row filter and is several times slower than needed for a 1080x2400 frame.
Screens are mostly flat colour, so the "Sub" filter (numpy) turns them into long runs of zeros that zlib at
level 1 compresses quickly. The image is cut into horizontal bands of :data:`BAND_ROWS` rows; each band is
deflated on its own (raw deflate ending in a sync flush, the last one in a final block) and the bands are
joined as one zlib stream with a combined Adler-32. Bands are compressed on two threads (zlib and hashlib
release the GIL).

A :class:`BandCache` keeps compressed bands by a digest of their pixels. Consecutive screens of one device
share most of their rows (bars, keyboard, empty list space), so with a cache only the rows that changed are
compressed again, and rows equal to the previous image's are found by comparison without being hashed; the
bytes are the same as without a cache.
"""

from __future__ import annotations

import hashlib
import struct
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PIL import Image

from emukit.lru import SizedLRU

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BAND_ROWS = 48
_MOD_ADLER = 65521
_WORKERS = 2
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()

# a compressed band: (raw deflate bytes, adler32 of the filtered rows, length of the filtered rows)
Band = tuple[bytes, int, int]


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) of a PNG, read from its IHDR header (no decoding); ValueError for anything else."""
    if len(png) < 24 or not png.startswith(PNG_SIGNATURE) or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


BAND_KEY_BYTES = 41  # SHA-256 digest + (rows, width, last) packed
BAND_OVERHEAD = 200  # bytes of Python objects around each cached band (tuple, ints, key, LRU slot)


def _band_bytes(band: Band) -> int:
    return len(band[0]) + BAND_KEY_BYTES + BAND_OVERHEAD


class BandCache(SizedLRU[bytes, Band]):
    """Compressed PNG bands by (SHA-256 of the band's pixels, shape, is-last-band); least recently used out,
    at most ``max_bands`` bands holding ``max_bytes`` together (compressed bytes plus their bookkeeping).
    ``previous`` holds the last image encoded with the cache (pixels, band keys, bands): its unchanged rows
    are reused by comparison, without hashing (one image's pixels, ~7.8 MB at 1080x2400, on top of the
    budget)."""

    def __init__(self, max_bands: int = 8192, max_bytes: int = 16 * 2**20, name: str = "png bands") -> None:
        super().__init__(max_bands, max_bytes, _band_bytes, name)
        self.previous: tuple[np.ndarray, list[bytes], list[Band]] | None = None

    def clear(self) -> None:
        super().clear()
        self.previous = None

    def count_hit(self) -> None:
        """Count a hit on a band already looked up for this image (a band repeated within one image)."""
        with self._lock:
            self.hits += 1


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="png")
        return _pool


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _deflate_band(rows: np.ndarray, last: bool) -> Band:
    """Filter (Sub, 3 bytes per pixel) and raw-deflate one band of RGB rows (shape: height x width*3)."""
    height, width = rows.shape
    out = np.empty((height, width + 1), np.uint8)
    out[:, 0] = 1
    out[:, 1:4] = rows[:, :3]
    np.subtract(rows[:, 3:], rows[:, :-3], out=out[:, 4:])
    raw = memoryview(out.reshape(-1))
    comp = zlib.compressobj(1, zlib.DEFLATED, -15)
    data = comp.compress(raw) + comp.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
    return data, zlib.adler32(raw), len(raw)


def _band_keys(pixels: np.ndarray, spans: list[tuple[int, int, bool]]) -> list[bytes]:
    """The cache keys of ``pixels[lo:hi]`` for each (lo, hi, last) span: SHA-256 of the rows (the fastest
    digest hashlib has where the CPU has SHA extensions), shape, last."""
    return [hashlib.sha256(pixels[lo:hi]).digest() + struct.pack(">II?", hi - lo, pixels.shape[1], last)
            for lo, hi, last in spans]


def _deflate_spans(pixels: np.ndarray, spans: list[tuple[int, int, bool]]) -> list[Band]:
    """The compressed band of ``pixels[lo:hi]`` for each (lo, hi, last) span."""
    return [_deflate_band(pixels[lo:hi], last) for lo, hi, last in spans]


def _halves(items: list) -> list[list]:
    """``items`` cut in two runs (one per thread); one run when there are fewer than two items."""
    middle = len(items) // 2
    return [items[:middle], items[middle:]] if middle else [items]


def _in_threads(function, pixels: np.ndarray, items: list) -> list:
    """``function(pixels, run)`` over both halves of ``items`` on the pool, results joined in order."""
    if not items:
        return []
    futures = [_executor().submit(function, pixels, run) for run in _halves(items)]
    return [result for future in futures for result in future.result()]


def _encode_bands(pixels: np.ndarray, spans: list[tuple[int, int, bool]], cache: BandCache | None) -> list[Band]:
    """The compressed bands of ``pixels`` for each (lo, hi, last) span.

    With ``cache``, a band whose rows equal the same rows of the image encoded just before (compared, not
    hashed: most rows of consecutive screens are unchanged) takes that image's band; the other bands are
    hashed and looked up from this thread, so each distinct band that is not cached counts one miss and is
    compressed once (a band repeated within the image is a hit), whatever the threads' timing; only those
    bands are compressed, on both threads."""
    if cache is None:
        return _in_threads(_deflate_spans, pixels, spans)
    keys: list[bytes | None] = [None] * len(spans)
    found: dict[bytes, Band | None] = {}
    previous = cache.previous
    if previous is not None and previous[0].shape == pixels.shape:
        before, before_keys, before_bands = previous
        for i, (lo, hi, _) in enumerate(spans):
            if np.array_equal(pixels[lo:hi], before[lo:hi]):
                keys[i] = before_keys[i]
                found[before_keys[i]] = before_bands[i]
                cache.count_hit()
    fresh = [i for i, key in enumerate(keys) if key is None]
    missing: list[int] = []  # the first index of each distinct band not in the cache
    for i, key in zip(fresh, _in_threads(_band_keys, pixels, [spans[i] for i in fresh])):
        keys[i] = key
        if key in found:
            cache.count_hit()
            continue
        found[key] = cache.get(key)
        if found[key] is None:
            missing.append(i)
    for i, band in zip(missing, _in_threads(_deflate_spans, pixels, [spans[i] for i in missing])):
        found[keys[i]] = band  # type: ignore[index]
        cache.put(keys[i], band)  # type: ignore[arg-type]
    bands: list[Band] = [found[key] for key in keys]  # type: ignore[misc,index]
    cache.previous = (pixels, keys, bands)  # type: ignore[assignment]
    return bands


def _adler_concat(parts: list[tuple[int, int]]) -> int:
    """Adler-32 of concatenated buffers from their (adler, length) pairs."""
    a, b = 1, 0
    for adler, length in parts:
        a2, b2 = adler & 0xFFFF, adler >> 16
        b = (b + b2 + (a - 1) * length) % _MOD_ADLER
        a = (a + a2 - 1) % _MOD_ADLER
    return (b << 16) | a


def encode_png(image: Image.Image, cache: BandCache | None = None) -> bytes:
    """Encode ``image`` as RGB PNG bytes (8-bit truecolour, no ancillary chunks); equal pixels give equal
    bytes, with or without ``cache``."""
    if image.mode != "RGB":
        image = image.convert("RGB")
    width, height = image.size
    if width == 0 or height == 0:
        raise ValueError(f"cannot encode an empty {width}x{height} image")
    pixels = np.ascontiguousarray(np.asarray(image).reshape(height, width * 3))
    edges = [*range(0, height, BAND_ROWS), height]
    spans = [(lo, hi, hi == height) for lo, hi in zip(edges, edges[1:])]
    bands = _encode_bands(pixels, spans, cache)
    adler = _adler_concat([(ad, n) for _, ad, n in bands])
    idat = b"\x78\x01" + b"".join(data for data, _, _ in bands) + struct.pack(">I", adler)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return PNG_SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")
