"""What the media scanner reads from a file, and the path rules it applies (MediaProvider at android-14.0.0_r1;
facts and citations in the MediaStore section of docs/vdevice.md).

* MIME type from the file name (``MimeUtils.resolveMimeType``: the extension in the platform's MIME map,
  ``application/octet-stream`` otherwise) and the media type from the MIME type (``MimeUtils.resolveMediaType``).
* The columns derived from a path (``FileUtils.computeValuesFromData``): volume, relative path, display name,
  ``bucket_id`` (Java ``String.hashCode`` of the lower-cased parent folder) and ``bucket_display_name``.
* Hidden and unscannable folders (``FileUtils.isDirectoryHidden``, ``ModernMediaScanner.shouldScanDirectory``).
* Image sizes from the PNG / JPEG / GIF header, MP4 duration and video size from the ``mvhd`` / ``tkhd`` boxes (read
  by seeking, never the media data), MP3 tags through :func:`emukit.media.read_tags`.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from emukit.media import UNKNOWN, read_tags

SHARED_STORAGE = "/storage/emulated/0"
VOLUME_EXTERNAL_PRIMARY = "external_primary"
VOLUME_INTERNAL = "internal"

#: ``FileColumns.MEDIA_TYPE_*`` (MediaStore.java:2111-2158)
MEDIA_TYPE_NONE, MEDIA_TYPE_IMAGE, MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO = 0, 1, 2, 3
MEDIA_TYPE_PLAYLIST, MEDIA_TYPE_SUBTITLE, MEDIA_TYPE_DOCUMENT = 4, 5, 6
#: ``android.mtp.MtpConstants`` format codes (``MimeUtils.resolveFormatCode``)
FORMAT_UNDEFINED, FORMAT_ASSOCIATION, FORMAT_DEFINED = 0x3000, 0x3001, 0x3800
FORMAT_UNDEFINED_AUDIO, FORMAT_UNDEFINED_VIDEO = 0xB900, 0xB980
UNKNOWN_MIME = "application/octet-stream"  # ClipDescription.MIMETYPE_UNKNOWN

#: extension -> MIME type: Android's overrides (frameworks/base mime/java-res/android.mime.types: mp3 and m4a are
#: audio/mpeg, jpg image/jpeg, txt text/plain, mkv video/x-matroska, mov video/quicktime) over the usual
#: mime.types values
MIME_TYPES = {
    "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png", "gif": "image/gif",
    "bmp": "image/x-ms-bmp", "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "dng": "image/x-adobe-dng",
    "mp4": "video/mp4", "m4v": "video/mp4", "3gp": "video/3gpp", "3gpp": "video/3gpp", "mkv": "video/x-matroska",
    "webm": "video/webm", "mov": "video/quicktime", "avi": "video/avi", "ts": "video/mp2ts", "mpeg": "video/mpeg",
    "mpg": "video/mpeg",
    "mp3": "audio/mpeg", "m4a": "audio/mpeg", "mpa": "audio/mpeg", "aac": "audio/aac", "flac": "audio/flac",
    "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg", "wav": "audio/x-wav", "amr": "audio/amr",
    "mid": "audio/midi", "midi": "audio/midi", "mka": "audio/x-matroska",
    "m3u": "audio/x-mpegurl", "m3u8": "audio/x-mpegurl", "pls": "audio/x-scpls", "wpl": "application/vnd.ms-wpl",
    "srt": "application/x-subrip", "vtt": "text/vtt", "lrc": "application/lrc",
    "txt": "text/plain", "csv": "text/comma-separated-values", "htm": "text/html", "html": "text/html",
    "xml": "text/xml", "md": "text/markdown", "json": "application/json", "pdf": "application/pdf",
    "epub": "application/epub+zip", "doc": "application/msword", "rtf": "text/rtf", "zip": "application/zip",
    "apk": "application/vnd.android.package-archive",
}
_PLAYLISTS = {"application/vnd.apple.mpegurl", "application/vnd.ms-wpl", "application/x-extension-smpl",
              "application/x-mpegurl", "application/xspf+xml", "audio/mpegurl", "audio/x-mpegurl", "audio/x-scpls"}
_SUBTITLES = {"application/lrc", "application/smil+xml", "application/ttml+xml", "application/x-extension-cap",
              "application/x-extension-srt", "application/x-extension-sub", "application/x-extension-vtt",
              "application/x-subrip", "text/vtt"}
_DOCUMENTS = {"application/epub+zip", "application/msword", "application/pdf", "application/rtf",
              "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
              "application/vnd.oasis.opendocument.presentation", "application/vnd.oasis.opendocument.spreadsheet",
              "application/vnd.oasis.opendocument.text",
              "application/vnd.openxmlformats-officedocument.presentationml.presentation",
              "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
              "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/x-mspublisher"}
#: ``FileUtils.DEFAULT_FOLDER_NAMES`` on S and later
DEFAULT_FOLDERS = ("Music", "Podcasts", "Ringtones", "Alarms", "Notifications", "Pictures", "Movies", "Download",
                   "DCIM", "Documents", "Audiobooks", "Recordings")
#: ``FileUtils.sAudioTypes``: folder name -> flag column (``computeAudioTypeValuesFromData``)
AUDIO_TYPES = (("Ringtones", "is_ringtone"), ("Notifications", "is_notification"), ("Alarms", "is_alarm"),
               ("Podcasts", "is_podcast"), ("Audiobooks", "is_audiobook"), ("Music", "is_music"),
               ("Recordings", "is_recording"))
_RELATIVE = re.compile(r"^/storage/(?:emulated/[0-9]+/|[^/]+/)", re.IGNORECASE)  # PATTERN_RELATIVE_PATH
_VOLUME = re.compile(r"^/storage/([^/]+)", re.IGNORECASE)  # PATTERN_VOLUME_NAME
_VISIBLE = re.compile(r"^/storage/[^/]+(?:/[0-9]+)?$", re.IGNORECASE)  # PATTERN_VISIBLE
_INVISIBLE = re.compile(r"^/storage/[^/]+(?:/[0-9]+)?/(?:(?:Android/(?:data|obb|sandbox)$)|(?:\.transforms$)|"
                        r"(?:(?:Movies|Music|Pictures)/.thumbnails$))", re.IGNORECASE)  # PATTERN_INVISIBLE
_EXPIRES = re.compile(r"^\.(pending|trashed)-(\d+)-([^/]+)$", re.IGNORECASE)  # PATTERN_EXPIRES_FILE
_OWNED = re.compile(r"^/storage/[^/]+/(?:[0-9]+/)?Android/(?:data|media|obb)/([^/]+)(/?.*)?", re.IGNORECASE)
_DOWNLOAD = re.compile(r"^/storage/[^/]+/(?:[0-9]+/)?Download/.+", re.IGNORECASE)  # PATTERN_DOWNLOADS_FILE
_ALBUM_ART = re.compile(r"(?:(?:^folder|(?:^AlbumArt(?:(?:_\{.*\}_)?(?:small|large))?))(?:\.jpg$)|(?:\._.*))",
                        re.IGNORECASE)  # ModernMediaScanner.PATTERN_ALBUM_ART


def java_hash(text: str) -> int:
    """Java's ``String.hashCode`` (UTF-16 code units), as a signed 32-bit int."""
    h = 0
    for unit in struct.unpack(f"<{len(text.encode('utf-16-le')) // 2}H", text.encode("utf-16-le")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


# ---------------------------------------------------------------------------------------------- types
def mime_type(name: str) -> str:
    """``MimeUtils.resolveMimeType``: the lower-cased extension (after the last dot) in the MIME map."""
    base = name.rstrip("/").rsplit("/", 1)[-1]
    if "." not in base:
        return UNKNOWN_MIME
    return MIME_TYPES.get(base.rsplit(".", 1)[1].lower(), UNKNOWN_MIME)


def media_type(mime: str | None) -> int:
    """``MimeUtils.resolveMediaType``."""
    if mime is None:
        return MEDIA_TYPE_NONE
    low = mime.lower()
    if low in _PLAYLISTS:
        return MEDIA_TYPE_PLAYLIST
    if low in _SUBTITLES:
        return MEDIA_TYPE_SUBTITLE
    for prefix, kind in (("audio/", MEDIA_TYPE_AUDIO), ("video/", MEDIA_TYPE_VIDEO), ("image/", MEDIA_TYPE_IMAGE)):
        if low.startswith(prefix):
            return kind
    if low.startswith("text/") or low in _DOCUMENTS:
        return MEDIA_TYPE_DOCUMENT
    return MEDIA_TYPE_NONE


def format_code(mime: str | None) -> int:
    """``MimeUtils.resolveFormatCode``."""
    return {MEDIA_TYPE_AUDIO: FORMAT_UNDEFINED_AUDIO, MEDIA_TYPE_VIDEO: FORMAT_UNDEFINED_VIDEO,
            MEDIA_TYPE_IMAGE: FORMAT_DEFINED}.get(media_type(mime), FORMAT_UNDEFINED)


# ---------------------------------------------------------------------------------------------- path columns
def volume_name(path: str) -> str:
    m = _VOLUME.match(path)
    if m is None:
        return VOLUME_INTERNAL
    return VOLUME_EXTERNAL_PRIMARY if m.group(1) == "emulated" else m.group(1).lower()


def relative_path(path: str) -> str | None:
    m = _RELATIVE.match(path)
    if m is None:
        return None
    last = path.rfind("/")
    return "/" if last < m.end() else path[m.end():last + 1]


def display_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def file_title(name: str) -> str:
    """``FileUtils.extractFileName``: the name without its last extension."""
    return name.rsplit(".", 1)[0] if "." in name else name


def owner_of(path: str) -> str | None:
    """``extractPathOwnerPackageName``: the package of an ``Android/data|media|obb/<pkg>/...`` path."""
    m = _OWNED.match(path)
    return m.group(1) if m else None


def path_values(path: str) -> dict[str, Any]:
    """``FileUtils.computeValuesFromData`` (for a caller that is not the FUSE thread: ``is_pending`` 0)."""
    name = display_name(path)
    values: dict[str, Any] = {"_data": path, "volume_name": volume_name(path), "relative_path": relative_path(path),
                              "is_trashed": 0, "date_expires": None, "_display_name": name, "is_pending": 0}
    m = _EXPIRES.match(name)
    if m:
        values.update(is_pending=int(m.group(1).lower() == "pending"), is_trashed=int(m.group(1).lower() == "trashed"),
                      date_expires=int(m.group(2)), _display_name=m.group(3))
    parent = posixpath.dirname(path.lower())
    values["bucket_id"] = java_hash(parent)
    values["bucket_display_name"] = None if values["relative_path"] == "/" else posixpath.basename(
        posixpath.dirname(path))
    values["is_download"] = int(bool(_DOWNLOAD.match(path)))
    return values


def audio_flags(path: str) -> dict[str, int]:
    low = path.lower()
    flags = {column: int(f"/{folder.lower()}/" in low) for folder, column in AUDIO_TYPES}
    if not any(flags.values()):
        flags["is_music"] = 1
    return flags


# ---------------------------------------------------------------------------------------------- hidden paths
def should_be_visible(path: str) -> bool:
    return bool(_VISIBLE.match(path))


def should_be_invisible(path: str) -> bool:
    return bool(_INVISIBLE.match(path))


def is_directory_hidden(path: str, host: Path) -> bool:
    """``FileUtils.isDirectoryHidden``; like the platform, deletes a ``.nomedia`` that can never hide its folder
    (the storage root, a top-level standard folder, ``DCIM/Camera``, a Screenshots folder at the top or in a
    standard folder)."""
    name = display_name(path)
    if name.startswith("."):
        return True
    nomedia = host / ".nomedia"
    if not os.path.lexists(nomedia):
        return False
    rel = (relative_path(path) or "").strip("/")
    parts = rel.split("/") if rel else [""]
    top_level = parts == [""]
    never_hidden = (should_be_visible(path) or (top_level and name.lower() in {f.lower() for f in DEFAULT_FOLDERS})
                    or (rel + "/" + name + "/").lower().lstrip("/") == "dcim/camera/"
                    or (name.lower() == "screenshots" and len(parts) == 1
                        and (parts[0] == "" or parts[0].lower() in {f.lower() for f in DEFAULT_FOLDERS})))
    if never_hidden:
        with contextlib.suppress(OSError):
            if nomedia.is_file() or nomedia.is_symlink():
                nomedia.unlink()
        return False
    return True


def is_file_hidden(name: str) -> bool:
    return not _EXPIRES.match(name) and name.startswith(".")


def is_album_art(name: str) -> bool:
    return bool(_ALBUM_ART.match(name))


# ---------------------------------------------------------------------------------------------- metadata
def image_size(host: Path) -> tuple[int, int] | None:
    """Width and height from a PNG, JPEG or GIF header (what the scanner gets from EXIF or the bitmap bounds)."""
    try:
        with open(host, "rb") as fh:
            head = fh.read(32)
            if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
                w, h = struct.unpack(">II", head[16:24])
                return (w, h) if w and h else None
            if head[:6] in (b"GIF87a", b"GIF89a"):
                w, h = struct.unpack("<HH", head[6:10])
                return (w, h) if w and h else None
            if head[:2] == b"\xff\xd8":
                return _jpeg_size(fh)
    except OSError:
        return None
    return None


def _jpeg_size(fh: Any) -> tuple[int, int] | None:
    fh.seek(2)
    while True:
        byte = fh.read(1)
        while byte and byte != b"\xff":
            byte = fh.read(1)
        while byte == b"\xff":
            byte = fh.read(1)
        if not byte:
            return None
        marker = byte[0]
        if marker in (0x01, *range(0xD0, 0xD8)):
            continue
        if marker in (0xD9, 0xDA):  # end of image / start of scan before any frame header
            return None
        raw = fh.read(2)
        if len(raw) < 2:
            return None
        length = struct.unpack(">H", raw)[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            body = fh.read(5)
            if len(body) < 5:
                return None
            h, w = struct.unpack(">HH", body[1:5])
            return (w, h) if w and h else None
        fh.seek(length - 2, os.SEEK_CUR)


_CONTAINERS = {b"moov", b"trak", b"mdia"}


def mp4_info(host: Path) -> dict[str, Any]:
    """``duration`` (ms, from ``mvhd``), ``width``/``height`` (the first video track's ``tkhd``) and ``has_video``
    of an ISO media file, reading box headers by seeking."""
    out: dict[str, Any] = {"duration": None, "width": None, "height": None, "has_video": False}
    with contextlib.suppress(OSError, struct.error), open(host, "rb") as fh:  # unreadable: the columns stay NULL
        _walk_boxes(fh, 0, os.fstat(fh.fileno()).st_size, out, {})
    return out


def _walk_boxes(fh: Any, start: int, end: int, out: dict[str, Any], track: dict[str, Any]) -> None:
    pos = start
    while pos + 8 <= end:
        fh.seek(pos)
        size, kind = struct.unpack(">I4s", fh.read(8))
        header = 8
        if size == 1:
            size = struct.unpack(">Q", fh.read(8))[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            return
        body = pos + header
        if kind == b"mvhd":
            fh.seek(body)
            version = fh.read(1)[0]
            if version == 1:
                fh.seek(body + 20)
                scale, duration = struct.unpack(">IQ", fh.read(12))
            else:
                fh.seek(body + 12)
                scale, duration = struct.unpack(">II", fh.read(8))
            if scale:
                out["duration"] = duration * 1000 // scale
        elif kind == b"trak":
            sub: dict[str, Any] = {}
            _walk_boxes(fh, body, pos + size, out, sub)
            if sub.get("handler") == b"vide" and not out["has_video"]:
                out["has_video"] = True
                out["width"], out["height"] = sub.get("width"), sub.get("height")
        elif kind == b"tkhd":
            fh.seek(body)
            version = fh.read(1)[0]
            fh.seek(body + (88 if version == 1 else 76))
            w, h = struct.unpack(">II", fh.read(8))
            track["width"], track["height"] = (w >> 16) or None, (h >> 16) or None
        elif kind == b"hdlr":
            fh.seek(body + 8)
            track["handler"] = fh.read(4)
        elif kind in _CONTAINERS:
            _walk_boxes(fh, body, pos + size, out, track)
        pos += size


def group_id(name: str) -> int:
    """The id of an album or artist name: a positive hash of its lower-cased key, so every song of one album (or
    artist) shares it and it survives a rescan, as the provider's ``album_id`` / ``artist_id`` (hashes of the
    album and artist keys) do. The hash itself is the stand-in's own (crc32), not the provider's."""
    return zlib.crc32(name.strip().lower().encode()) & 0x7FFFFFFF


def audio_info(host: Path, path: str) -> dict[str, Any]:
    """The retriever's audio values: title, artist (else album artist), album, duration, year, track, composer,
    album artist; absent tags are left out (the scanner's defaults stay)."""
    try:
        tags = read_tags(host.read_bytes(), path)
    except OSError:
        return {}
    out: dict[str, Any] = {"title": tags.title}
    artist = tags.artist if tags.artist != UNKNOWN else tags.album_artist
    if artist:
        out["artist"] = artist
    if tags.album != UNKNOWN:
        out["album"] = tags.album
    if tags.duration_ms:
        out["duration"] = tags.duration_ms
    if tags.year:
        out["year"] = tags.year
    if tags.track:
        out["track"] = tags.track
    if tags.composer:
        out["composer"] = tags.composer
    if tags.album_artist:
        out["album_artist"] = tags.album_artist
    return out


def audio_group_ids(values: dict[str, Any]) -> dict[str, int]:
    """``album_id`` and ``artist_id`` of an audio row's final values (:func:`group_id` of its album and artist)."""
    return {"album_id": group_id(values.get("album") or UNKNOWN),
            "artist_id": group_id(values.get("artist") or UNKNOWN)}
