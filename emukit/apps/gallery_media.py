"""Small valid images for Simple Gallery Pro's seed: a JPEG or PNG of one colour with a caption bar, written by
Pillow with fixed settings, so the same spec gives the same bytes (the pinned Pillow of pyproject.toml).

A real gallery decodes these like any camera picture; nothing is downloaded."""

from __future__ import annotations

import hashlib
import io

from PIL import Image, ImageDraw

#: formats by file extension
FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG"}


def colour_of(name: str) -> tuple[int, int, int]:
    """A stable mid-tone colour per name."""
    d = hashlib.sha256(name.encode()).digest()
    return (64 + d[0] % 160, 64 + d[1] % 160, 64 + d[2] % 160)


def make_image(name: str, width: int = 320, height: int = 240, caption: str | None = None) -> bytes:
    """The bytes of ``name`` (its extension picks JPEG or PNG): a solid colour with ``caption`` (default: the
    name) on a white bar."""
    ext = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ".jpg"
    fmt = FORMATS.get(ext)
    if fmt is None:
        raise ValueError(f"{name}: only {', '.join(sorted(FORMATS))} images can be made")
    img = Image.new("RGB", (width, height), colour_of(name))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, height - 40, width, height), fill=(255, 255, 255))
    draw.text((10, height - 30), caption if caption is not None else name, fill=(0, 0, 0))
    out = io.BytesIO()
    if fmt == "JPEG":
        img.save(out, format="JPEG", quality=85, optimize=False, progressive=False)
    else:
        img.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
