"""The shared PNG encoder (emukit.images): lossless, deterministic, and byte-identical with a band cache."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from emukit.images import BAND_ROWS, BandCache, encode_png, png_size


def _decode(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.mode == "RGB"
    return np.asarray(image)


@pytest.mark.parametrize(("width", "height"), [(1, 1), (53, 37), (64, BAND_ROWS), (80, BAND_ROWS * 3 + 5)])
def test_round_trip_and_cache_gives_the_same_bytes(width: int, height: int) -> None:
    rng = np.random.default_rng(width * height)
    pixels = rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8)
    pixels[: height // 2] = (200, 10, 30)  # flat rows as on a screen
    image = Image.fromarray(pixels, "RGB")
    plain = encode_png(image)
    cache = BandCache()
    assert encode_png(image, cache) == plain
    assert encode_png(image, cache) == plain  # now every band comes from the cache
    assert np.array_equal(_decode(plain), pixels)
    assert png_size(plain) == (width, height)
    assert plain[12:16] == b"IHDR" and b"tEXt" not in plain and b"pHYs" not in plain


def test_only_changed_bands_are_compressed_again() -> None:
    base = np.full((BAND_ROWS * 10, 120, 3), 240, np.uint8)
    changed = base.copy()
    changed[BAND_ROWS * 4 + 3: BAND_ROWS * 4 + 9, 10:50] = (0, 0, 255)  # inside band 4 only
    cache = BandCache()
    encode_png(Image.fromarray(base, "RGB"), cache)
    first_misses = cache.misses
    # identical flat bands share one cache entry: 9 equal inner bands + the last one
    assert first_misses == 2 and cache.hits == 8
    png = encode_png(Image.fromarray(changed, "RGB"), cache)
    assert cache.misses == first_misses + 1
    assert png == encode_png(Image.fromarray(changed, "RGB"))
    assert np.array_equal(_decode(png), changed)


def test_cache_is_bounded_and_other_modes_are_converted() -> None:
    cache = BandCache(max_bands=3)
    for shade in range(6):
        encode_png(Image.new("RGB", (10, BAND_ROWS * 2), (shade, shade, shade)), cache)
    assert len(cache) == 3
    rgba = Image.new("RGBA", (7, 5), (1, 2, 3, 128))
    assert np.array_equal(_decode(encode_png(rgba)), np.asarray(rgba.convert("RGB")))


def test_empty_image_is_refused() -> None:
    with pytest.raises(ValueError, match="empty 0x4 image"):
        encode_png(Image.new("RGB", (0, 4)))


def test_the_request_encoder_shares_one_cache_across_threads_and_gives_the_plain_bytes() -> None:
    """``emukit.wm.canonical.encode_png`` keeps one band cache for the process: images encoded one after
    another and from several threads at once (the builder's device workers) give the cache-free bytes."""
    from concurrent.futures import ThreadPoolExecutor

    from emukit.wm import canonical

    rng = np.random.default_rng(7)
    base = np.full((BAND_ROWS * 6, 90, 3), 240, np.uint8)
    images = []
    for i in range(12):
        pixels = base.copy()
        row = int(rng.integers(0, base.shape[0] - 20))
        pixels[row:row + 20, 10:60] = rng.integers(0, 256, size=(20, 50, 3), dtype=np.uint8)  # what changed
        pixels[-4:] = (i, 0, 0)  # the last band differs between every image
        images.append(Image.fromarray(pixels, "RGB"))
    plain = [encode_png(image) for image in images]
    assert [canonical.encode_png(image) for image in images] == plain
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(canonical.encode_png, images)) == plain
    assert canonical._BANDS.hits > 0
