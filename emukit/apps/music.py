"""Retro Music (``code.name.monkey.retromusic``): songs, playing queue, playlists, drag reordering; the
Ordered Collection family's app. The virtual build uses Retro Music's own ids and strings; verified there."""

from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from emukit.apps.base import AppProfile, operation
from emukit.device.actions import Element
from emukit.errors import ConfigError, DeviceError

PACKAGE = "code.name.monkey.retromusic"
DATA = f"/data/data/{PACKAGE}"
PLAYLIST_DB = f"{DATA}/databases/playlist.db"
QUEUE_DB = f"{DATA}/databases/music_playback_state.db"
PREFS = f"{DATA}/shared_prefs/{PACKAGE}_preferences.xml"
MEDIA_DB = "/data/data/com.android.providers.media.module/databases/external.db"
ROW_H = 189  # a two-line list row (72 dp)
_MEDIA_COLS = ("_id", "title", "track", "year", "duration", "_data", "date_modified", "album_id", "album",
               "artist_id", "artist", "composer", "album_artist")
_QUEUE_COLS = ", ".join(_MEDIA_COLS)
_ENTITY_COLS = ("playlist_creator_id, id, title, track_number, year, duration, data, date_modified, album_id, "
                "album_name, artist_id, artist_name, composer, album_artist")


def _song(row: dict[str, Any]) -> dict[str, Any]:
    """A MediaStore row with the app's defaults for missing values (its tables declare them NOT NULL)."""
    ints = ("_id", "track", "year", "duration", "date_modified", "album_id", "artist_id")
    texts = ("title", "_data", "album", "artist")
    return {c: (row.get(c) or 0) if c in ints else (row.get(c) or "") if c in texts else row.get(c)
            for c in _MEDIA_COLS}


def _sql(value: Any) -> str:
    """An SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool | int | float):
        return str(int(value)) if isinstance(value, bool) else str(value)
    return "'" + str(value).replace("'", "''") + "'"


class MusicProfile(AppProfile):
    package = PACKAGE
    name = "music"
    activity = f"{PACKAGE}.activities.MainActivity"

    # ------------------------------------------------------------------ rows
    def _rows(self, elements: list[Element] | None = None) -> list[tuple[Element, dict[str, Element]]]:
        """(title element, {part id: element}) for each visible list row, top to bottom."""
        elements = self.driver.elements() if elements is None else elements
        titles = [e for e in elements if e.resource_id == self.rid("title")]
        parts = [e for e in elements if e.resource_id in (self.rid("menu"), self.rid("drag_view"))]
        rows = []
        for title in titles:
            top, bottom = title.bounds[1], title.bounds[3]
            mid = (top + bottom) // 2
            found = {p.resource_id.rsplit("/", 1)[1]: p for p in parts if p.bounds[1] <= mid < p.bounds[3]}
            rows.append((title, found))
        return rows

    def _list_box(self, elements: list[Element]) -> tuple[int, int, int, int] | None:
        """Bounds of the on-screen list (RecyclerView)."""
        return next((e.bounds for e in elements if e.resource_id == self.rid("recycler_view")), None)

    @staticmethod
    def _whole(row: tuple[Element, dict[str, Element]], rows: list[tuple[Element, dict[str, Element]]],
               box: tuple[int, int, int, int] | None) -> bool:
        """Whether the row is wholly on screen: inside the list, and its title and buttons as tall as the
        tallest of their kind (a hierarchy dump clips the bounds of a row cut off at the list's edge)."""
        def height(view: Element) -> int:
            return view.bounds[3] - view.bounds[1]

        tallest: dict[str, int] = {}
        for title, parts in rows:
            for kind, view in {"title": title, **parts}.items():
                tallest[kind] = max(tallest.get(kind, 0), height(view))
        for kind, view in {"title": row[0], **row[1]}.items():
            if height(view) < tallest[kind]:
                return False
            if box is not None and not (box[1] <= view.bounds[1] and view.bounds[3] <= box[3]):
                return False
        return True

    def _scroll(self, box: tuple[int, int, int, int], down: bool) -> None:
        """One swipe that moves the list by its height less a row (a cut-off row ends up whole)."""
        top, bottom = box[1], box[3]
        dy = max(200, bottom - top - ROW_H - 12)
        x = (box[0] + box[2]) // 2
        if down:
            self.driver.swipe(x, bottom - 24, x, bottom - 24 - dy, 400)
        else:
            self.driver.swipe(x, top + 24, x, top + 24 + dy, 400)

    def _row(self, title: str) -> tuple[Element, dict[str, Element]]:
        """The row titled ``title``, scrolled wholly into view. A list sorted by title (the Songs tab) is
        scrolled straight towards it; otherwise down first, then up once the end is reached."""
        return self._locate(title)[0]

    def _locate(self, title: str) -> tuple[tuple[Element, dict[str, Element]], list[Element]]:
        """:meth:`_row` with the screen's elements it was found on."""
        down: bool | None = None
        last: list[str] | None = None
        for _ in range(12):
            elements = self.driver.elements()
            box = self._list_box(elements)
            rows = self._rows(elements)
            texts = [r[0].text for r in rows]
            match = next((r for r in rows if r[0].text == title), None)
            if match is not None and self._whole(match, rows, box):
                return match, elements
            if box is None:
                break
            if match is not None:  # cut off at an edge: at the top, scroll up; at the bottom, down
                down = not any(v.bounds[1] <= box[1] for v in (match[0], *match[1].values()))
            elif texts == last:  # the last swipe did not move the list: at an end
                down = not down
            elif down is None:
                keys = [t.lower() for t in texts]
                down = not (len(keys) > 1 and keys == sorted(keys) and title.lower() < keys[0])
            last = texts
            self._scroll(box, down)
        raise DeviceError(f"{self.driver.serial}: no row titled {title!r}")

    def _row_menu(self, title: str, item: str) -> None:
        (_title, parts), elements = self._locate(title)
        if "menu" not in parts:
            raise DeviceError(f"{self.driver.serial}: row {title!r} has no menu")
        # tap the row's "More options" by selector (the n-th one on screen), so the recorded action names it
        menus = [e for e in elements if e.resource_id == self.rid("menu")]
        tapped = self.driver.tap(resourceId=self.rid("menu"), instance=menus.index(parts["menu"]))
        b, t = parts["menu"].bounds, tapped.element.bounds if tapped.element is not None else None
        if t is not None and not (t[0] <= b[0] and t[1] <= b[1] and b[2] <= t[2] and b[3] <= t[3]):
            raise DeviceError(f"{self.driver.serial}: tapped the menu at {tapped.element.bounds}, not the one of "
                              f"row {title!r}")
        self.driver.tap(text=item)

    # ------------------------------------------------------------------ library
    @operation
    def tab(self, name: str) -> None:
        """Songs, Albums, Artists or Playlists."""
        self.driver.tap(description=name)

    @operation
    def add_to_queue(self, title: str) -> None:
        self._row_menu(title, "Add to playing queue")

    @operation
    def play_next(self, title: str) -> None:
        self._row_menu(title, "Play next")

    @operation
    def play(self, title: str) -> None:
        """Tap the song: the queue becomes this list, starting at the song."""
        row, _ = self._row(title)
        self.driver.tap(*row.center)

    @operation
    def add_to_playlist(self, title: str, playlist: str) -> None:
        self._row_menu(title, "Add to playlist")
        self.driver.tap(resourceId="android:id/text1", text=playlist)

    # ------------------------------------------------------------------ playlists
    @operation
    def create_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self.driver.tap(description="New playlist")
        self.driver.tap(resourceId=self.rid("actionNewPlaylist"))
        self.driver.type_text(name)
        self.driver.tap(text="Create")

    @operation
    def open_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self.driver.tap(resourceId=self.rid("title"), text=name)
        self.driver.element(resourceId=self.rid("toolbar_title"), text=name)

    @operation
    def remove_from_playlist(self, title: str) -> None:
        self._row_menu(title, "Remove from playlist")
        self.driver.tap(resourceId="android:id/button1")

    @operation
    def delete_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self._row_menu(name, "Delete")
        self.driver.tap(resourceId="android:id/button1")

    # ------------------------------------------------------------------ player
    @operation
    def open_now_playing(self) -> None:
        self.driver.tap(resourceId=self.rid("miniPlayerTitle"))
        self.driver.element(description="Playing queue")

    @operation
    def open_queue(self) -> None:
        self.driver.tap(description="Playing queue")

    @operation
    def back(self) -> None:
        self.driver.back()

    # ------------------------------------------------------------------ reorder (playlist detail or queue)
    @operation
    def move(self, from_index: int, to_index: int, method: str = "swipe") -> None:
        """Drag the row at ``from_index`` by its handle onto the row at ``to_index`` (visible rows, 0-based);
        ``method``: "swipe" (``input swipe`` with a duration) or "drag" (long-press drag)."""
        rows = self._rows()
        handle = rows[from_index][1].get("drag_view")
        if handle is None:
            raise DeviceError(f"{self.driver.serial}: row {from_index} has no drag handle")
        x1, y1 = handle.center
        y2 = rows[to_index][0].center[1]
        if method == "drag":
            self.driver.drag(x1, y1, x1, y2, 1000, element=handle)
        else:
            self.driver.swipe(x1, y1, x1, y2, 1000)

    @operation
    def moves(self, moves: Sequence[Sequence[int]], method: str = "swipe") -> None:
        """Several handle drags in a row: ``[[from, to], ...]`` (visible rows, 0-based, each on the order the
        previous drags left)."""
        for frm, to in moves:
            self.move(int(frm), int(to), method)

    # ------------------------------------------------------------------ several songs (one row menu each)
    @operation
    def add_all_to_queue(self, titles: Sequence[str]) -> None:
        """"Add to playing queue" for each song, in this order (from the list on screen)."""
        for title in titles:
            self.add_to_queue(title)

    @operation
    def add_all_to_playlist(self, titles: Sequence[str], playlist: str) -> None:
        """"Add to playlist" → ``playlist`` for each song, in this order."""
        for title in titles:
            self.add_to_playlist(title, playlist)

    @operation
    def add_to_playlists(self, titles: Sequence[str], playlists: Sequence[str]) -> None:
        """Song ``titles[i]`` into playlist ``playlists[i]``, one after the other (interleaved additions)."""
        if len(titles) != len(playlists):
            raise ConfigError(f"add_to_playlists: {len(titles)} titles but {len(playlists)} playlists")
        for title, playlist in zip(titles, playlists, strict=True):
            self.add_to_playlist(title, playlist)

    @operation
    def remove_all_from_playlist(self) -> None:
        """On an open playlist: "Remove from playlist" for the top row until the playlist is empty."""
        for _ in range(200):
            rows = self._rows()
            if not rows:
                self.driver.element(resourceId=self.rid("empty"))
                return
            self.remove_from_playlist(rows[0][0].text)
        raise DeviceError(f"{self.driver.serial}: the playlist did not become empty")

    def visible_titles(self) -> list[str]:
        """Titles of the visible list rows, top to bottom (an observation helper, not an action)."""
        return [title.text for title, _ in self._rows()]

    # ------------------------------------------------------------------ setup only (adb-side, never shown)
    # A template's ``setup`` may give the app a starting collection that both branches share (an existing
    # playlist, a restored playing queue): written into the app's own databases through adb while the app is
    # stopped, exactly as the app stores them; follow with ``launch: music``. Refused in recorded steps.
    def _setup_only(self, what: str) -> None:
        if self.driver.recorder is not None:
            raise ConfigError(f"music.{what} writes the app's databases through adb: use it in a template's "
                              f"setup, never in branch or converge steps")

    def _media(self, titles: Sequence[str]) -> list[dict[str, Any]]:
        """MediaStore rows of the songs titled ``titles`` (in that order)."""
        if not titles:
            return []
        sql = (f"SELECT {_QUEUE_COLS} FROM files WHERE _data LIKE '/storage/emulated/0/Music/%' "
               f"AND title IN ({', '.join(_sql(t) for t in dict.fromkeys(titles))}) ORDER BY _id")
        out = self.driver.shell(f"sqlite3 -json {MEDIA_DB} {shlex.quote(sql)}", check=True).text.strip()
        by_title: dict[str, dict[str, Any]] = {}
        for row in json.loads(out or "[]"):
            by_title.setdefault(row["title"], row)
        missing = [t for t in titles if t not in by_title]
        if missing:
            raise ConfigError(f"music: no song titled {', '.join(map(repr, missing))} in the media library")
        return [_song(by_title[t]) for t in titles]

    def _write(self, db: str, statements: list[str]) -> None:
        script = "BEGIN; " + "; ".join(statements) + "; COMMIT;"
        self.driver.shell(f"sqlite3 {db} {shlex.quote(script)}", check=True)

    def _own(self) -> None:
        """Give files written as root back to the app (a real device; the virtual one has no owners)."""
        self.driver.shell(f"chown -R $(stat -c %u:%g {DATA}) {DATA}/databases {DATA}/shared_prefs 2>/dev/null; "
                          f"restorecon -R {DATA} 2>/dev/null; true")

    def seed_playlist(self, name: str, titles: Sequence[str] = ()) -> None:
        """Setup: playlist ``name`` (created if missing) gets ``titles`` appended in order; the app is
        stopped first."""
        self._setup_only("seed_playlist")
        songs = self._media(titles)
        self.driver.shell(f"am force-stop {PACKAGE}", check=True)
        pid = f"(SELECT playlist_id FROM PlaylistEntity WHERE playlist_name = {_sql(name)})"
        statements = [(f"INSERT INTO PlaylistEntity (playlist_name) SELECT {_sql(name)} WHERE NOT EXISTS "
                       f"(SELECT 1 FROM PlaylistEntity WHERE playlist_name = {_sql(name)})")]
        for s in songs:
            values = [s[c] for c in _MEDIA_COLS]  # SongEntity's columns after playlist_creator_id, in order
            statements.append(f"INSERT OR REPLACE INTO SongEntity ({_ENTITY_COLS}) VALUES "
                              f"({pid}, {', '.join(_sql(v) for v in values)})")
        self._write(PLAYLIST_DB, statements)
        self._own()

    def seed_queue(self, titles: Sequence[str], position: int = 0) -> None:
        """Setup: the saved playing queue becomes ``titles`` with song ``position`` current (not playing,
        at 0:00), as MusicService restores it on the next start; the app is stopped first."""
        self._setup_only("seed_queue")
        songs = self._media(titles)
        self.driver.shell(f"am force-stop {PACKAGE}", check=True)
        rows = ", ".join("(" + ", ".join(_sql(s[c]) for c in _MEDIA_COLS) + ")" for s in songs)
        statements = []
        for table in ("playing_queue", "original_playing_queue"):
            statements.append(f"DELETE FROM {table}")
            if rows:
                statements.append(f"INSERT INTO {table} ({_QUEUE_COLS}) VALUES {rows}")
        self._write(QUEUE_DB, statements)
        current = self.driver.shell(f"cat {PREFS} 2>/dev/null").text.strip()
        try:
            root = ET.fromstring(current) if current else ET.Element("map")
        except ET.ParseError:
            root = ET.Element("map")
        values = {"POSITION": position if songs else -1, "POSITION_IN_TRACK": 0}
        for node in list(root):
            if node.get("name") in values:
                root.remove(node)
        for key, value in values.items():
            ET.SubElement(root, "int", {"name": key, "value": str(value)})
        xml = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n" + ET.tostring(root, encoding="unicode")
        self.driver.shell(f"mkdir -p {DATA}/shared_prefs", check=True)
        self.driver.adbutils().sync.push(xml.encode() + b"\n", PREFS)
        self._own()
