"""A minimal MP4 file for ``screenrecord``: one video track of still frames.

The container follows ISO/IEC 14496-12 (ISO base media file format) and 14496-14 (MP4): ``ftyp``, ``moov``
(``mvhd``, one ``trak`` with ``tkhd`` and ``mdia``/``minf``/``stbl``) and ``mdat``. Real screenrecord encodes
H.264 (``avc1``); the virtual device has no video encoder, so its samples are JPEG pictures in an ``mp4v``
sample entry whose decoder configuration names JPEG (objectTypeIndication 0x6C, "Visual ISO/IEC 10918-1",
in the MPEG-4 Systems object type table), which MP4 readers such as ffmpeg's demuxer accept as Motion JPEG.
Frame durations are in milliseconds (timescale 1000).
"""

from __future__ import annotations

import io
import struct

from PIL import Image

TIMESCALE = 1000
JPEG_OBJECT_TYPE = 0x6C
_MATRIX = struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)


def _box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full(kind: bytes, version: int, flags: int, *payload: bytes) -> bytes:
    return _box(kind, struct.pack(">I", (version << 24) | flags), *payload)


def _descriptor(tag: int, body: bytes) -> bytes:
    """An MPEG-4 descriptor with the four-byte size form (0x80 0x80 0x80 len)."""
    size = len(body)
    return bytes([tag, 0x80 | (size >> 21 & 0x7F), 0x80 | (size >> 14 & 0x7F), 0x80 | (size >> 7 & 0x7F),
                  size & 0x7F]) + body


def _esds() -> bytes:
    config = _descriptor(4, bytes([JPEG_OBJECT_TYPE, (0x04 << 2) | 1]) + b"\x00\x00\x00" + struct.pack(">II", 0, 0))
    sl = _descriptor(6, b"\x02")
    return _full(b"esds", 0, 0, _descriptor(3, struct.pack(">HB", 1, 0) + config + sl))


def _sample_entry(width: int, height: int) -> bytes:
    name = b"emukit screenrecord"
    visual = (b"\x00" * 6 + struct.pack(">H", 1) + b"\x00" * 16 + struct.pack(">HHII", width, height, 0x00480000,
                                                                            0x00480000)
              + struct.pack(">IH", 0, 1) + bytes([len(name)]) + name.ljust(31, b"\x00") + struct.pack(">Hh", 0x18, -1))
    return _box(b"mp4v", visual, _esds())


def _moov(width: int, height: int, sizes: list[int], durations: list[int], data_offset: int) -> bytes:
    total = sum(durations)
    mvhd = _full(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, TIMESCALE, total), struct.pack(">IH", 0x00010000, 0x0100),
                 b"\x00" * 10, _MATRIX, b"\x00" * 24, struct.pack(">I", 2))
    tkhd = _full(b"tkhd", 0, 3, struct.pack(">IIIII", 0, 0, 1, 0, total), b"\x00" * 8, struct.pack(">hhhH", 0, 0, 0, 0),
                 _MATRIX, struct.pack(">II", width << 16, height << 16))
    mdhd = _full(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, TIMESCALE, total), struct.pack(">HH", 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, 0, struct.pack(">I", 0), b"vide", b"\x00" * 12, b"VideoHandle\x00")
    vmhd = _full(b"vmhd", 0, 1, struct.pack(">HHHH", 0, 0, 0, 0))
    dinf = _box(b"dinf", _full(b"dref", 0, 0, struct.pack(">I", 1), _full(b"url ", 0, 1)))
    runs: list[list[int]] = []
    for d in durations:
        if runs and runs[-1][1] == d:
            runs[-1][0] += 1
        else:
            runs.append([1, d])
    stts = _full(b"stts", 0, 0, struct.pack(">I", len(runs)), *(struct.pack(">II", n, d) for n, d in runs))
    stsc = _full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, len(sizes), 1))
    stsz = _full(b"stsz", 0, 0, struct.pack(">II", 0, len(sizes)), *(struct.pack(">I", s) for s in sizes))
    stco = _full(b"stco", 0, 0, struct.pack(">II", 1, data_offset))
    stbl = _box(b"stbl", _full(b"stsd", 0, 0, struct.pack(">I", 1), _sample_entry(width, height)), stts, stsc, stsz,
                stco)
    minf = _box(b"minf", vmhd, dinf, stbl)
    return _box(b"moov", mvhd, _box(b"trak", tkhd, _box(b"mdia", mdhd, hdlr, minf)))


def still_frames_mp4(frames: list[tuple[Image.Image, int]]) -> bytes:
    """An MP4 of ``frames``: (picture, how long it shows in ms), at least one."""
    if not frames:
        raise ValueError("a recording has at least one frame")
    width, height = frames[0][0].size
    pictures = []
    for image, _ in frames:
        buf = io.BytesIO()
        image.convert("RGB").save(buf, "JPEG", quality=85)
        pictures.append(buf.getvalue())
    sizes = [len(p) for p in pictures]
    durations = [max(1, int(ms)) for _, ms in frames]
    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isom", b"iso2", b"mp41")
    head = len(ftyp) + len(_moov(width, height, sizes, durations, 0)) + 8
    moov = _moov(width, height, sizes, durations, head)
    return ftyp + moov + _box(b"mdat", *pictures)
