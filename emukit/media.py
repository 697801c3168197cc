"""Audio files for the virtual device: small MP3s with ID3 tags, and a tag reader for the media index.

:func:`make_mp3` builds a file a real media scanner accepts: an ID3v2.3 tag (title, artist, album, length)
followed by a few silent MPEG-1 Layer III frames. :func:`read_tags` reads ID3v2.2/2.3/2.4 text frames (and an
ID3v1 trailer), falling back to the file name as title, like Android's MediaScanner does for untagged files.
"""

from __future__ import annotations

import posixpath
import struct
from dataclasses import dataclass

UNKNOWN = "<unknown>"  # MediaStore's value for a missing artist / album
AUDIO_EXTENSIONS = (".mp3", ".m4a", ".aac", ".flac", ".ogg", ".oga", ".opus", ".wav", ".mid", ".amr")
MIME_TYPES = {".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".flac": "audio/flac",
              ".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg", ".wav": "audio/x-wav",
              ".mid": "audio/midi", ".amr": "audio/amr"}

# MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, joint stereo: 417-byte frames of 1152 samples.
_FRAME_HEADER = b"\xff\xfb\x90\x64"
_FRAME_LEN = 417
_BITRATES = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
_RATES = (44100, 48000, 32000)
_V22_IDS = {"TT2": "TIT2", "TP1": "TPE1", "TAL": "TALB", "TLE": "TLEN", "TRK": "TRCK", "TYE": "TYER",
            "TCM": "TCOM", "TP2": "TPE2"}


@dataclass
class AudioTags:
    """What the media scanner stores for one audio file."""

    title: str
    artist: str = UNKNOWN
    album: str = UNKNOWN
    duration_ms: int = 0
    track: int = 0
    year: int = 0
    composer: str | None = None
    album_artist: str | None = None


def _syncsafe(value: int) -> bytes:
    return bytes(((value >> 21) & 0x7F, (value >> 14) & 0x7F, (value >> 7) & 0x7F, value & 0x7F))


def _unsyncsafe(data: bytes) -> int:
    return (data[0] << 21) | (data[1] << 14) | (data[2] << 7) | data[3]


def _text_frame(frame_id: str, text: str) -> bytes:
    """An ID3v2.3 text frame: Latin-1 when possible, else UTF-16 with a BOM."""
    try:
        body = b"\x00" + text.encode("latin-1")
    except UnicodeEncodeError:
        body = b"\x01" + b"\xff\xfe" + text.encode("utf-16-le")
    return frame_id.encode("ascii") + struct.pack(">I", len(body)) + b"\x00\x00" + body


def make_mp3(title: str, artist: str, album: str = "", duration_s: int = 180, *, track: int = 0,
             year: int = 0, frames: int = 8) -> bytes:
    """A small, valid-looking MP3: ID3v2.3 tag (TIT2, TPE1, TALB, TLEN, ...) plus ``frames`` silent frames.

    ``duration_s`` is recorded in the TLEN frame (the audio itself is only a fraction of a second).
    """
    body = _text_frame("TIT2", title) + _text_frame("TPE1", artist)
    if album:
        body += _text_frame("TALB", album)
    if track:
        body += _text_frame("TRCK", str(track))
    if year:
        body += _text_frame("TYER", str(year))
    body += _text_frame("TLEN", str(int(duration_s * 1000)))
    body += b"\x00" * 64  # padding, as taggers leave
    tag = b"ID3\x03\x00\x00" + _syncsafe(len(body)) + body
    frame = _FRAME_HEADER + b"\x00" * (_FRAME_LEN - len(_FRAME_HEADER))
    return tag + frame * frames


def _decode_text(data: bytes) -> str:
    """Decode an ID3 text frame body (encoding byte + text); first value only, NULs stripped."""
    if not data:
        return ""
    enc, raw = data[0], data[1:]
    try:
        if enc == 1:
            text = raw.decode("utf-16")
        elif enc == 2:
            text = raw.decode("utf-16-be")
        elif enc == 3:
            text = raw.decode("utf-8")
        else:
            text = raw.decode("latin-1")
    except UnicodeDecodeError:
        text = raw.decode("latin-1", errors="replace")
    return text.split("\x00", 1)[0].strip()


def _id3v2_frames(data: bytes) -> tuple[dict[str, str], int]:
    """Text frames of a leading ID3v2 tag (IDs normalised to v2.3/2.4 names) and the tag's total size."""
    if len(data) < 10 or data[:3] != b"ID3":
        return {}, 0
    major, flags = data[3], data[5]
    end = 10 + _unsyncsafe(data[6:10])
    pos = 10
    if flags & 0x40 and major >= 3:  # extended header
        ext = _unsyncsafe(data[10:14]) if major == 4 else struct.unpack(">I", data[10:14])[0] + 4
        pos += ext
    frames: dict[str, str] = {}
    id_len, head_len = (3, 6) if major == 2 else (4, 10)
    while pos + head_len <= min(end, len(data)):
        frame_id = data[pos:pos + id_len].decode("latin-1")
        if not frame_id.strip("\x00"):
            break
        if major == 2:
            size = int.from_bytes(data[pos + 3:pos + 6], "big")
        elif major == 4:
            size = _unsyncsafe(data[pos + 4:pos + 8])
        else:
            size = struct.unpack(">I", data[pos + 4:pos + 8])[0]
        body = data[pos + head_len:pos + head_len + size]
        frame_id = _V22_IDS.get(frame_id, frame_id)
        if frame_id.startswith("T") and frame_id not in frames:
            frames[frame_id] = _decode_text(body)
        pos += head_len + size
    return frames, end


def _id3v1(data: bytes) -> dict[str, str]:
    if len(data) < 128 or data[-128:-125] != b"TAG":
        return {}
    tail = data[-128:]

    def field(a: int, b: int) -> str:
        return tail[a:b].split(b"\x00", 1)[0].decode("latin-1").strip()

    return {"TIT2": field(3, 33), "TPE1": field(33, 63), "TALB": field(63, 93), "TYER": field(93, 97)}


def _int_prefix(text: str) -> int:
    digits = ""
    for ch in text.strip():
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def _mpeg_duration_ms(data: bytes, start: int) -> int:
    """Estimate the length of constant-bitrate MPEG audio from the first frame header after ``start``."""
    i = data.find(b"\xff", start)
    while 0 <= i < len(data) - 4:
        b1, b2 = data[i + 1], data[i + 2]
        if b1 & 0xE0 == 0xE0 and (b1 >> 3) & 3 == 3 and (b1 >> 1) & 3 == 1:  # MPEG-1 Layer III
            rate_i, sr_i = b2 >> 4, (b2 >> 2) & 3
            if 0 < rate_i < 15 and sr_i < 3:
                return (len(data) - i) * 8 // _BITRATES[rate_i]
        i = data.find(b"\xff", i + 1)
    return 0


def read_tags(data: bytes, path: str) -> AudioTags:
    """Title, artist, album, duration... of an audio file's bytes; the file name is the fallback title."""
    frames, tag_end = _id3v2_frames(data)
    for key, value in _id3v1(data).items():
        if value and not frames.get(key):
            frames[key] = value
    stem = posixpath.splitext(posixpath.basename(path))[0]
    duration = _int_prefix(frames.get("TLEN", ""))
    if not duration and path.lower().endswith(".mp3"):
        duration = _mpeg_duration_ms(data, tag_end)
    if not duration and data[:4] == b"RIFF" and data[8:12] == b"WAVE" and len(data) >= 44:
        byte_rate = struct.unpack("<I", data[28:32])[0]
        duration = (len(data) - 44) * 1000 // byte_rate if byte_rate else 0
    return AudioTags(
        title=frames.get("TIT2") or stem,
        artist=frames.get("TPE1") or UNKNOWN,
        album=frames.get("TALB") or UNKNOWN,
        duration_ms=duration,
        track=_int_prefix(frames.get("TRCK", "")),
        year=_int_prefix(frames.get("TYER") or frames.get("TDRC") or ""),
        composer=frames.get("TCOM") or None,
        album_artist=frames.get("TPE2") or None,
    )


def is_audio(name: str) -> bool:
    """True for file names the media scanner indexes as audio."""
    return name.lower().endswith(AUDIO_EXTENSIONS) and not name.startswith(".")


def mime_type(name: str) -> str:
    """The MIME type MediaStore records for an audio file name."""
    return MIME_TYPES.get(posixpath.splitext(name.lower())[1], "audio/*")
