"""Ordered Collection: a Retro Music playlist (``SongEntity`` by ``song_key``) or the playing queue (row
order of ``playing_queue``), read from a local copy of the app's whole ``databases`` folder (with ``-wal`` and
``-shm``), never from the device's live files."""

from __future__ import annotations

import shlex
import sqlite3
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.base import (
    CliOption,
    FamilyProbe,
    ProbeResult,
    ProbeUsageError,
    register_probe,
)

MUSIC_PACKAGE = "code.name.monkey.retromusic"
DATABASES = f"/data/data/{MUSIC_PACKAGE}/databases"


class FolderMissing(DeviceError):
    """The device folder does not exist (``ls`` says "No such file or directory")."""


def pull_folder(driver: Driver, folder: str, dest: Path) -> list[str]:
    """Copy every regular file of a device folder into ``dest`` (binary-safe); returns the names.
    :class:`FolderMissing` when the folder does not exist, DeviceError when it cannot be listed."""
    listing = driver.shell(f"ls -1 {shlex.quote(folder)}")
    if not listing.ok:
        why = listing.stderr.decode(errors="replace") or listing.text
        if "No such file or directory" in why:
            raise FolderMissing(f"{driver.serial}: {folder} does not exist")
        raise DeviceError(f"{driver.serial}: cannot list {folder}: {why}")
    names = [n for n in listing.text.splitlines() if n and "/" not in n]
    for name in names:
        (dest / name).write_bytes(driver.wire.exec_out(f"cat {shlex.quote(f'{folder}/{name}')}"))
    return names


def _query(db: Path, sql: str, args: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def probe_ordered(driver: Driver, playlist: str | None = None) -> ProbeResult:
    """``{"collection_type": "playlist"|"playing_queue", "ordered_items": [title, ...]}``.

    An app that has not created its database yet (installed but never opened, or just cleared) holds no
    queue and no playlist: the state is then an empty collection, and ``evidence["reason"]`` says which file
    is missing (``reason`` is None when the database was read)."""
    ctype = "playlist" if playlist is not None else "playing_queue"
    db_name = "playlist.db" if playlist is not None else "music_playback_state.db"
    reason: str | None = None
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory(prefix="emukit-probe-") as tmp:
        folder = Path(tmp)
        try:
            names = pull_folder(driver, DATABASES, folder)
        except FolderMissing:
            names = []
            reason = f"{DATABASES} does not exist: {MUSIC_PACKAGE} has not been opened since it was installed or cleared"
        if reason is None and db_name not in names:
            reason = f"no {db_name} in {DATABASES}: the app has not created it yet (nothing was ever " + \
                     ("saved to a playlist)" if playlist is not None else "queued)")
        if reason is None and playlist is not None:
            rows = _query(folder / db_name,
                          "SELECT s.song_key, s.id, s.title, s.data FROM SongEntity s JOIN PlaylistEntity p "
                          "ON s.playlist_creator_id = p.playlist_id WHERE p.playlist_name = ? ORDER BY s.song_key",
                          (playlist,))
        elif reason is None:
            rows = _query(folder / db_name, "SELECT rowid, _id, title, _data FROM playing_queue ORDER BY rowid")
    return ProbeResult(
        family="ordered",
        canonical={"collection_type": ctype, "ordered_items": [r[2] for r in rows]},
        evidence={"databases": sorted(names), "playlist": playlist, "reason": reason,
                  "rows": [{"order_key": r[0], "song_id": r[1], "title": r[2], "data": r[3]} for r in rows]},
    )


#: the apps whose collections the probe reads (``app``): Retro Music (the Table 6 producer) and VLC
ORDERED_APPS = ("music", "vlc")


@register_probe
class OrderedProbe(FamilyProbe):
    """:func:`probe_ordered` of ``playlist`` (None: the playing queue) in Retro Music, or with ``app: vlc`` a VLC
    playlist by the titles its rows show (:func:`emukit.apps.vlc.probe_playlist`); ``emukit probe --playlist
    [--app vlc]``."""

    family = "ordered"
    cli_options = (CliOption("--playlist", help="ordered: playlist name (default: the playing queue)"),
                   CliOption("--app", choices=ORDERED_APPS,
                             help="ordered: the app holding the collection (default music: Retro Music; vlc: a VLC "
                                  "playlist, --playlist required)"))

    def read(self, driver: Driver, **params: Any) -> ProbeResult:
        app = params.get("app") or "music"
        if app == "vlc":
            from emukit.apps.vlc import probe_playlist

            if not params.get("playlist"):
                raise ProbeUsageError("ordered: VLC has no playing queue to probe; give the playlist")
            return probe_playlist(driver, params["playlist"], "title")
        if app != "music":
            raise ProbeUsageError(f"ordered: app {app!r} is not one of {', '.join(ORDERED_APPS)}")
        return probe_ordered(driver, params.get("playlist"))

    def params_from_cli(self, options: Mapping[str, Any]) -> dict[str, Any]:
        params = {"playlist": options.get("playlist")}
        if options.get("app") and options["app"] != "music":
            params["app"] = options["app"]
            if not params["playlist"]:
                raise ProbeUsageError("--family ordered --app vlc needs --playlist NAME")
        return params


def collection_items(driver: Driver, playlist: str | None) -> list[str] | None:
    """Titles in order: of the playlist named ``playlist`` (None when no playlist has that name), or of the
    playing queue (empty before anything was ever queued). For milestone checks, which must tell a missing
    playlist from an empty one; the canonical probe is :func:`probe_ordered`."""
    with tempfile.TemporaryDirectory(prefix="emukit-probe-") as tmp:
        folder = Path(tmp)
        try:
            names = pull_folder(driver, DATABASES, folder)
        except DeviceError:  # no databases folder: the app never ran, so nothing was queued or created
            names = []
        if playlist is None:
            if "music_playback_state.db" not in names:
                return []
            return [r[0] for r in _query(folder / "music_playback_state.db",
                                         "SELECT title FROM playing_queue ORDER BY rowid")]
        if "playlist.db" not in names:
            return None
        db = folder / "playlist.db"
        if not _query(db, "SELECT 1 FROM PlaylistEntity WHERE playlist_name = ?", (playlist,)):
            return None
        return [r[0] for r in _query(db, "SELECT s.title FROM SongEntity s JOIN PlaylistEntity p ON "
                                         "s.playlist_creator_id = p.playlist_id WHERE p.playlist_name = ? "
                                         "ORDER BY s.song_key", (playlist,))]
