"""Small video files for VLC's library, written locally: an ISO base media file (MP4) with ``ftyp``, a
``moov`` holding the movie header (``mvhd``, its duration) and one video track (``tkhd``, ``mdhd``, a
``vide`` handler, an ``avc1`` sample entry and empty sample tables), and an empty ``mdat``. Parsers accept it
as a video of the stated length and size; it carries no coded frames. :func:`read_mp4` reads the boxes back.
"""

from __future__ import annotations

import struct

TIMESCALE = 1000
_IDENTITY = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _full(kind: bytes, version: int, flags: int, payload: bytes) -> bytes:
    return _box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def make_mp4(seconds: float = 10.0, width: int = 320, height: int = 240) -> bytes:
    """An MP4 of ``seconds`` (stored in ``mvhd``/``tkhd``/``mdhd``) and ``width`` x ``height``."""
    duration = int(seconds * TIMESCALE)
    ftyp = _box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isomiso2avc1mp41")
    mvhd = _full(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, TIMESCALE, duration) + struct.pack(">IH", 0x10000, 0x100)
                 + b"\x00" * 10 + _IDENTITY + b"\x00" * 24 + struct.pack(">I", 2))
    tkhd = _full(b"tkhd", 0, 3, struct.pack(">IIIII", 0, 0, 1, 0, duration) + b"\x00" * 8
                 + struct.pack(">hhH", 0, 0, 0) + b"\x00\x00" + _IDENTITY + struct.pack(">II", width << 16, height << 16))
    mdhd = _full(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, TIMESCALE, duration) + struct.pack(">HH", 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, 0, b"\x00" * 4 + b"vide" + b"\x00" * 12 + b"VideoHandler\x00")
    avcc = _box(b"avcC", bytes((1, 0x42, 0xC0, 0x1E, 0xFF, 0xE0, 0x00)))  # baseline, no parameter sets
    avc1 = _box(b"avc1", b"\x00" * 6 + struct.pack(">H", 1) + b"\x00" * 16 + struct.pack(">HH", width, height)
                + struct.pack(">II", 0x480000, 0x480000) + b"\x00" * 4 + struct.pack(">H", 1) + b"\x00" * 32
                + struct.pack(">Hh", 0x18, -1) + avcc)
    stbl = _box(b"stbl", _full(b"stsd", 0, 0, struct.pack(">I", 1) + avc1)
                + _full(b"stts", 0, 0, struct.pack(">I", 0)) + _full(b"stsc", 0, 0, struct.pack(">I", 0))
                + _full(b"stsz", 0, 0, struct.pack(">II", 0, 0)) + _full(b"stco", 0, 0, struct.pack(">I", 0)))
    dinf = _box(b"dinf", _full(b"dref", 0, 0, struct.pack(">I", 1) + _full(b"url ", 0, 1, b"")))
    minf = _box(b"minf", _full(b"vmhd", 0, 1, b"\x00" * 8) + dinf + stbl)
    trak = _box(b"trak", tkhd + _box(b"mdia", mdhd + hdlr + minf))
    return ftyp + _box(b"moov", mvhd + trak) + _box(b"mdat", b"")


def read_mp4(data: bytes) -> dict[str, object]:
    """The top-level box types, the duration in ms (``mvhd``) and the track handler of an MP4."""
    out: dict[str, object] = {"boxes": [], "duration_ms": None, "handler": None}
    boxes: list[str] = []

    def walk(buf: bytes, containers: tuple[bytes, ...], top: bool) -> None:
        pos = 0
        while pos + 8 <= len(buf):
            size, kind = struct.unpack(">I4s", buf[pos:pos + 8])
            if size < 8 or pos + size > len(buf):
                raise ValueError(f"bad box {kind!r} at {pos}")
            body = buf[pos + 8:pos + size]
            if top:
                boxes.append(kind.decode("latin-1"))
            if kind == b"mvhd":
                scale, duration = struct.unpack(">II", body[12:20])
                out["duration_ms"] = duration * 1000 // scale
            elif kind == b"hdlr":
                out["handler"] = body[8:12].decode("latin-1")
            elif kind in containers:
                walk(body, containers, False)
            pos += size

    walk(data, (b"moov", b"trak", b"mdia", b"minf"), True)
    out["boxes"] = boxes
    return out
