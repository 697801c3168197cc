"""Retro Music (``code.name.monkey.retromusic``): songs, playing queue, playlists, drag reordering; the
Ordered Collection family's app.

Every selector comes from the table of the installed build (``tables/code.name.monkey.retromusic``, read from
RetroMusicPlayer/RetroMusicPlayer at the 6.1.0 commit and the AppCompat / Material sources it draws with).
Structure and behaviour this profile relies on, from the same sources:

- A list row is a child of the screen's RecyclerView: ``recycler_view`` on the library tabs
  (fragment_main_recycler.xml), ``recyclerView`` on the playlist detail and the queue. Rows are read from
  those children only: ``@id/title`` also names the playlist detail's header (its name), the player's song
  title and every popup menu item (AppCompat's ListMenuItemView). Parts (title, menu, drag handle) belong to
  the row that contains them, so a Playlists card (``item_grid``, two columns: integers.xml
  default_grid_columns) is never paired with its neighbour's menu.
- What the app draws over a list hides the rows under it: the mini player (56 dp above the bottom navigation,
  the list only padded by that much), the bottom navigation, the Songs tab's shuffle button and the queue's
  "Clear queue" button. A row is used only when the part to touch is inside the list and clear of those; else
  the list is scrolled, by a swipe inside the list's clear part of its height less the tallest row.
- "New playlist" is an item of the Playlists toolbar's overflow menu (PlaylistsFragment.onCreateMenu
  ``menu.add``, no showAsAction), under the AppCompat overflow button "More options".
- Now playing is the sliding panel over the current screen, opened from the mini player; "Now playing queue"
  (menu_player.xml ``now_playing``, showAsAction always) is an icon in its bottom toolbar and opens the queue,
  collapsing the panel; leaving the queue (BACK) expands the panel again (PlayingQueueFragment.onDestroy).
- A playlist is empty when its empty view (entry ``empty``) shows: after its last song is removed the
  detail list keeps showing that row (PlaylistDetailsFragment.songs swaps only non-empty lists), and saves it
  back when the screen is left (onPause -> OrderablePlaylistSongAdapter.saveSongs), so the empty view, not the
  rows, says when removing is done.
"""

from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from emukit.actions import Element
from emukit.apps.base import AppProfile, SeedSection, operation, register_app
from emukit.apps.selectors import SelectorTable, table
from emukit.device.driver import Driver
from emukit.device.facts import media_index
from emukit.errors import ConfigError, DeviceError
from emukit.hierarchy import parse_bounds

PACKAGE = "code.name.monkey.retromusic"
MUSIC_FOLDER = "/storage/emulated/0/Music"


class SongSpec(BaseModel):
    """A song of a base snapshot's library: an MP3 with these ID3 tags (:func:`emukit.media.make_mp3`)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    artist: str = "Unknown artist"
    album: str = ""
    file: str | None = None  # device path; default Music/<title in snake case>.mp3

    def path(self) -> str:
        return self.file or f"{MUSIC_FOLDER}/{self.title.lower().replace(' ', '_')}.mp3"


class SongSeed(SeedSection):
    """``songs:`` in a base snapshot spec: MP3 files in shared storage, which Retro Music indexes through the
    MediaStore on its next launch (the spec's ``warm_apps: [music]``)."""

    key = "songs"
    item = SongSpec
    provision = True

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        from emukit.media import make_mp3

        return {song.path(): make_mp3(song.title, song.artist, song.album) for song in items}

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        sync = driver.adbutils().sync
        for path, data in cls.device_files(items).items():
            sync.push(data, path)
DATA = f"/data/data/{PACKAGE}"
PLAYLIST_DB = f"{DATA}/databases/playlist.db"
QUEUE_DB = f"{DATA}/databases/music_playback_state.db"
PREFS = f"{DATA}/shared_prefs/{PACKAGE}_preferences.xml"
MAX_SCROLLS = 12  # swipes tried to bring a row into view
FIRST_RUN_STEPS = 8  # screens the first-run walk handles at most (permission screen, prompts, changelog)
SHEET_OUTSIDE_DP = (180, 24)  # where a tap closes the What's New sheet: inside touch_outside, above the sheet
_MEDIA_COLS = ("_id", "title", "track", "year", "duration", "_data", "date_modified", "album_id", "album",
               "artist_id", "artist", "composer", "album_artist")
_QUEUE_COLS = ", ".join(_MEDIA_COLS)
_ENTITY_COLS = ("playlist_creator_id, id, title, track_number, year, duration, data, date_modified, album_id, "
                "album_name, artist_id, artist_name, composer, album_artist")
#: the screen's list, in the order they are looked for
_LISTS = ("songs_list", "playlist_detail_list", "queue_list")
#: what the app draws over a list (the player's container covers it all while Now playing is expanded)
_OVER_LISTS = ("mini_player", "bottom_nav", "shuffle_fab", "clear_queue", "player_container")
#: the bottom navigation's items
_TABS = ("tab_home", "tab_songs", "tab_albums", "tab_artists", "tab_playlists")
Box = tuple[int, int, int, int]


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


# ---------------------------------------------------------------------------------------------- the screen
def _element(node: ET.Element) -> Element:
    return Element(text=node.get("text", ""), resource_id=node.get("resource-id", ""),
                   content_desc=node.get("content-desc", ""), cls=node.get("class", ""),
                   bounds=parse_bounds(node.get("bounds", "[0,0][0,0]")))


def _matches(node: ET.Element, query: dict[str, Any]) -> bool:
    """Whether a dump node has every field of a table selector (``resourceId``, ``className``, ``text``,
    ``description``)."""
    attrs = {"resourceId": "resource-id", "className": "class", "text": "text", "description": "content-desc"}
    return all(node.get(attrs[k], "") == v for k, v in query.items() if k in attrs)


def _height(box: Box) -> int:
    return box[3] - box[1]


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass
class Row:
    """One row (or grid card) of a list: the list's child and the parts inside it."""

    bounds: Box
    title: Element
    parts: dict[str, Element] = field(default_factory=dict)  # "menu", "drag_view" -> element


@dataclass
class Screen:
    """What one hierarchy dump shows of the app: its list, the list's rows, what covers the list."""

    root: ET.Element
    list_box: Box | None
    rows: list[Row]
    covers: list[Box]
    nodes: list[ET.Element]

    def usable(self, view: Element | Box) -> bool:
        """Inside the list and clear of everything drawn over it."""
        box = view.bounds if isinstance(view, Element) else view
        if self.list_box is not None:
            lb = self.list_box
            if not (lb[0] <= box[0] and lb[1] <= box[1] and box[2] <= lb[2] and box[3] <= lb[3]):
                return False
        return not any(_overlaps(box, c) for c in self.covers)

    def clear_box(self) -> Box | None:
        """The list's part above whatever covers its whole width at the bottom (mini player, navigation)."""
        if self.list_box is None:
            return None
        left, top, right, bottom = self.list_box
        for c in self.covers:
            if c[0] <= left + (right - left) // 4 and c[2] >= right - (right - left) // 4 and top < c[1] < bottom:
                bottom = c[1]
        return left, top, right, bottom


def read_screen(xml: str, tbl: SelectorTable) -> Screen:
    """The list, its rows (each a child of the list holding a ``title``; parts by containment) and the
    boxes of what covers it, from a hierarchy dump."""
    root = ET.fromstring(xml)
    nodes = list(root.iter("node"))
    listing = None
    for name in _LISTS:
        query = tbl.query(name)
        found = [n for n in nodes if _matches(n, query)]
        if found:
            listing = found[-1]  # the topmost when several are in the dump
            break
    rows: list[Row] = []
    if listing is not None:
        want = {"title": tbl.query("row_title"), "menu": tbl.query("row_menu"),
                "drag_view": tbl.query("row_drag_handle")}
        for child in listing.findall("node"):
            parts: dict[str, Element] = {}
            for descendant in child.iter("node"):
                for kind, query in want.items():
                    if kind not in parts and _matches(descendant, query):
                        parts[kind] = _element(descendant)
            title = parts.pop("title", None)
            if title is not None:
                rows.append(Row(parse_bounds(child.get("bounds", "[0,0][0,0]")), title, parts))
    rows.sort(key=lambda r: (r.bounds[1], r.bounds[0]))
    covers = [parse_bounds(n.get("bounds", "[0,0][0,0]")) for name in _OVER_LISTS
              for n in nodes if _matches(n, tbl.query(name))]
    list_box = parse_bounds(listing.get("bounds", "[0,0][0,0]")) if listing is not None else None
    return Screen(root, list_box, rows, covers, nodes)


def list_titles(xml: str, tbl: SelectorTable | None = None) -> list[str]:
    """Titles of the rows a dump's list shows completely and uncovered, top to bottom (left to right in a
    grid): the list outcome of the Ordered Collection family."""
    screen = read_screen(xml, tbl or table(PACKAGE))
    return [r.title.text for r in screen.rows if _whole(r, screen) and screen.usable(r.title)]


def _whole(row: Row, screen: Screen) -> bool:
    """Whether a row shows in full: a dump clips the bounds of a row cut off at the list's edge, so its height
    (and its title's) must be the tallest of the list's."""
    tallest = max(_height(r.bounds) for r in screen.rows)
    title = max(_height(r.title.bounds) for r in screen.rows)
    return _height(row.bounds) >= tallest and _height(row.title.bounds) >= title


@register_app
class MusicProfile(AppProfile):
    package = PACKAGE
    name = "music"
    seed = SongSeed
    main_screens = ("library",)
    activity = f"{PACKAGE}.activities.MainActivity"
    #: the device's MediaStore index (:func:`emukit.device.facts.media_index`), looked up the first time it is read
    _media_index: str | None = None

    # ------------------------------------------------------------------ rows
    def _screen(self) -> Screen:
        return read_screen(self.driver.hierarchy(), self.table)

    def _rows(self) -> list[Row]:
        """The rows of the list on screen, top to bottom."""
        return self._screen().rows

    def _ready(self, row: Row, screen: Screen, parts: Sequence[str]) -> bool:
        """The row shows in full and its title and ``parts`` can be touched."""
        views = [row.title, *(row.parts[p] for p in parts if p in row.parts)]
        return _whole(row, screen) and all(screen.usable(v) for v in views) and all(p in row.parts for p in parts)

    def _scroll(self, screen: Screen, down: bool) -> None:
        """One swipe inside the list's clear part, by its height less the tallest row (so a row cut off at one
        edge ends up whole); ``down`` moves the content up."""
        box = screen.clear_box()
        if box is None:
            raise DeviceError(f"{self.driver.serial}: no list on screen to scroll")
        tallest = max((_height(r.bounds) for r in screen.rows), default=0)
        margin = self.driver.dp(16)
        dy = max(self.driver.dp(48), _height(box) - tallest - 2 * margin)
        x = (box[0] + box[2]) // 2
        if down:
            self.driver.swipe(x, box[3] - margin, x, box[3] - margin - dy, 600)
        else:
            self.driver.swipe(x, box[1] + margin, x, box[1] + margin + dy, 600)

    def _locate(self, title: str, parts: Sequence[str] = ()) -> tuple[Row, Screen]:
        """The row titled ``title``, scrolled into view whole and with ``parts`` clear. A list sorted by title
        (the Songs tab) is scrolled straight towards it; otherwise down first, then up once the end is
        reached."""
        down: bool | None = None
        last: list[str] | None = None
        for _ in range(MAX_SCROLLS):
            screen = self._screen()
            texts = [r.title.text for r in screen.rows]
            match = next((r for r in screen.rows if r.title.text == title), None)
            if match is not None and self._ready(match, screen, parts):
                return match, screen
            if screen.list_box is None:
                break
            if match is not None:  # cut off or covered: near the top, scroll up; else down
                box = screen.clear_box() or screen.list_box
                down = match.bounds[1] > (box[1] + box[3]) // 2
            elif texts == last:  # the last swipe did not move the list: at an end
                down = not down
            elif down is None:
                keys = [t.lower() for t in texts]
                down = not (len(keys) > 1 and keys == sorted(keys) and title.lower() < keys[0])
            last = texts
            self._scroll(screen, bool(down))
        raise DeviceError(f"{self.driver.serial}: no row titled {title!r} could be brought into view")

    def _open_row_menu(self, title: str) -> None:
        """Open the popup menu of the row titled ``title`` (its item is tapped next)."""
        row, screen = self._locate(title, ("menu",))
        menu = row.parts["menu"]
        # tap the row's menu by selector (the n-th one in the dump), so the recorded action names it
        query = self.table.query("row_menu")
        menus = [_element(n) for n in screen.nodes if _matches(n, query)]
        tapped = self.driver.tap(**self.sel("row_menu"), instance=menus.index(menu))
        b, t = menu.bounds, tapped.element.bounds if tapped.element is not None else None
        if t is not None and not (t[0] <= b[0] and t[1] <= b[1] and b[2] <= t[2] and b[3] <= t[3]):
            raise DeviceError(f"{self.driver.serial}: tapped the menu at {t}, not the one of row {title!r}")

    # ------------------------------------------------------------------ library
    @operation
    def tab(self, name: str) -> None:
        """A bottom navigation item by its label: For you, Songs, Albums, Artists or Playlists."""
        labels = [self.table.desc(e) for e in _TABS]
        if name not in labels:
            raise ConfigError(f"music.tab: no tab {name!r} (the bottom navigation has {', '.join(labels)})")
        self.driver.tap(**self.sel("bottom_tab", label=name))

    @operation
    def add_to_queue(self, title: str) -> None:
        self._open_row_menu(title)
        self.driver.tap(**self.sel("song_add_to_queue"))

    @operation
    def play_next(self, title: str) -> None:
        self._open_row_menu(title)
        self.driver.tap(**self.sel("song_play_next"))

    @operation
    def play(self, title: str) -> None:
        """Tap the song: the queue becomes this list, starting at the song."""
        row, _ = self._locate(title)
        self.driver.tap(*row.title.center)

    @operation
    def add_to_playlist(self, title: str, playlist: str) -> None:
        self._open_row_menu(title)
        self.driver.tap(**self.sel("song_add_to_playlist"))
        self.driver.tap(**self.sel("add_to_playlist_choice", playlist=playlist))

    # ------------------------------------------------------------------ playlists
    @operation
    def create_playlist(self, name: str) -> None:
        """Playlists tab, "More options", "New playlist", type the name, "Create"."""
        self.driver.tap(**self.sel("tab_playlists"))
        self.driver.tap(**self.sel("more_options"))
        self.driver.tap(**self.sel("menu_new_playlist"))
        self.driver.tap(**self.sel("new_playlist_name"))
        self.driver.type_text(name)
        self.driver.tap(**self.sel("new_playlist_create"))

    @operation
    def open_playlist(self, name: str) -> None:
        """Tap the playlist's card on the Playlists tab; the detail screen shows its name in the header."""
        self.driver.tap(**self.sel("tab_playlists"))
        self._locate(name)
        self.driver.tap(**self.sel("row_title"), text=name)
        self.driver.element(**self.sel("playlist_header_title"), text=name)
        self.driver.element(**self.sel("playlist_collapsing_bar"))

    @operation
    def remove_from_playlist(self, title: str) -> None:
        self._open_row_menu(title)
        self.driver.tap(**self.sel("playlist_song_remove"))
        self.driver.tap(**self.sel("remove_song_confirm"))

    @operation
    def delete_playlist(self, name: str) -> None:
        self.driver.tap(**self.sel("tab_playlists"))
        self._open_row_menu(name)
        self.driver.tap(**self.sel("playlist_delete"))
        self.driver.tap(**self.sel("delete_playlist_confirm"))

    # ------------------------------------------------------------------ player
    @operation
    def open_now_playing(self) -> None:
        """Tap the mini player: the panel expands to Now playing (its toolbar has "Now playing queue")."""
        self.driver.tap(**self.sel("mini_player_title"))
        self.driver.element(**self.sel("now_playing_queue"))

    @operation
    def open_queue(self) -> None:
        """"Now playing queue" in the Now playing toolbar: the playing queue."""
        self.driver.tap(**self.sel("now_playing_queue"))
        self.driver.element(**self.sel("queue_list"))

    @operation
    def back(self) -> None:
        self.driver.back()

    @operation
    def scroll_to_top(self) -> None:
        """Swipe the list on screen towards its top until its rows stop changing. Ends the same way whatever
        scrolling came before: at the top, and on the Songs tab with the shuffle button shown (it hides on a
        scroll down and shows on a scroll up, AbsRecyclerViewFragment.kt:69-80). The list stays in the
        hierarchy under an expanded Now playing, so two runs that leave it differently differ there."""
        last: list[str] | None = None
        for _ in range(MAX_SCROLLS):
            screen = self._screen()
            if screen.list_box is None:
                return
            texts = [r.title.text for r in screen.rows]
            if texts == last:
                return
            last = texts
            self._scroll(screen, down=False)
        raise DeviceError(f"{self.driver.serial}: the list did not reach its top")

    # ------------------------------------------------------------------ reorder (playlist detail or queue)
    @operation
    def move(self, from_index: int, to_index: int, method: str = "swipe") -> None:
        """Drag the row at ``from_index`` by its handle onto the row at ``to_index`` (rows of the list on
        screen, 0-based); ``method``: "swipe" (``input swipe`` with a duration) or "drag" (long-press drag)."""
        screen = self._screen()
        rows = screen.rows
        handle = rows[from_index].parts.get("drag_view")
        if handle is None or not screen.usable(handle):
            raise DeviceError(f"{self.driver.serial}: row {from_index} has no drag handle to touch")
        x1, y1 = handle.center
        y2 = rows[to_index].title.center[1]
        if method == "drag":
            self.driver.drag(x1, y1, x1, y2, 1000, element=handle)
        else:
            self.driver.swipe(x1, y1, x1, y2, 1000)

    @operation
    def moves(self, moves: Sequence[Sequence[int]], method: str = "swipe") -> None:
        """Several handle drags in a row: ``[[from, to], ...]`` (rows on screen, 0-based, each on the order the
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
        """On an open playlist: "Remove from playlist" for the top row until the empty view shows."""
        empty = self.table.query("empty")
        for _ in range(200):
            screen = self._screen()
            if any(_matches(n, empty) for n in screen.nodes):
                return
            if not screen.rows:
                raise DeviceError(f"{self.driver.serial}: the playlist shows neither rows nor its empty view")
            self.remove_from_playlist(screen.rows[0].title.text)
        raise DeviceError(f"{self.driver.serial}: the playlist did not become empty")

    def visible_titles(self) -> list[str]:
        """Titles of the rows the list on screen shows in full, top to bottom (an observation helper, not an
        action)."""
        return list_titles(self.driver.hierarchy(), self.table)

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
        sql = (f"SELECT {_QUEUE_COLS} FROM files WHERE media_type = 2 AND _data LIKE '/storage/emulated/0/Music/%' "
               f"AND title IN ({', '.join(_sql(t) for t in dict.fromkeys(titles))}) ORDER BY _id")
        index = self._media_index or media_index(self.driver)  # the module's package differs between images
        self._media_index = index
        out = self.driver.shell(f"sqlite3 -json {index} {shlex.quote(sql)}", check=True).text.strip()
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

    def seed_queue(self, titles: Sequence[str], position: int = 0, position_ms: int = 0) -> None:
        """Setup: the saved playing queue becomes ``titles`` with song ``position`` current (not playing,
        ``position_ms`` into the track), as MusicService restores it on the next start (both queues of one
        size, a saved POSITION and POSITION_IN_TRACK, MusicService.restoreQueuesAndPositionIfNecessary);
        the app is stopped first."""
        self._setup_only("seed_queue")
        songs = self._media(titles)
        self.driver.shell(f"am force-stop {PACKAGE}", check=True)
        rows = ", ".join("(" + ", ".join(_sql(s[c]) for c in _MEDIA_COLS) + ")" for s in songs)
        statements = []
        for tbl in ("playing_queue", "original_playing_queue"):
            statements.append(f"DELETE FROM {tbl}")
            if rows:
                statements.append(f"INSERT INTO {tbl} ({_QUEUE_COLS}) VALUES {rows}")
        self._write(QUEUE_DB, statements)
        current = self.driver.shell(f"cat {PREFS} 2>/dev/null").text.strip()
        try:
            root = ET.fromstring(current) if current else ET.Element("map")
        except ET.ParseError:
            root = ET.Element("map")
        values = {"POSITION": position if songs else -1, "POSITION_IN_TRACK": int(position_ms) if songs else 0}
        for node in list(root):
            if node.get("name") in values:
                root.remove(node)
        for key, value in values.items():
            ET.SubElement(root, "int", {"name": key, "value": str(value)})
        xml = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n" + ET.tostring(root, encoding="unicode")
        self.driver.shell(f"mkdir -p {DATA}/shared_prefs", check=True)
        self.driver.adbutils().sync.push(xml.encode() + b"\n", PREFS)
        self._own()

    # ------------------------------------------------------------------ first run
    def first_run_screen(self) -> str | None:
        """Which first-run screen is in front (the table name of what leaves it); ``"library"`` when none is and
        the bottom navigation shows; None while the screen changes."""
        if self.driver.exists(**self.sel("permissions:allow_button")):  # the runtime permission prompt
            return "allow_button"
        if self.driver.exists(**self.sel("permission_finish"), enabled=True):  # PermissionActivity, all granted
            return "permission_finish"
        if self.driver.exists(**self.sel("permission_grant_audio")):  # PermissionActivity, audio not granted
            return "permission_grant_audio"
        if self.driver.exists(**self.sel("changelog_dismiss")):  # the What's New sheet
            return "changelog_dismiss"
        return "library" if self.driver.exists(**self.sel("bottom_nav")) else None

    @operation
    def complete_first_run(self) -> None:
        """Launch Retro Music and walk its first-run screens until the library shows; taps nothing that is not
        there (after the first run the library shows at once).

        What the real app shows (RetroMusicPlayer at the 6.1.0 pin): without its storage/audio permissions every
        screen starts PermissionActivity (AbsSlidingMusicPanelActivity.kt 206-207), whose storage row asks for
        them (AbsBaseActivity.requestPermissions, the system prompt) and whose finish button is enabled once they
        are granted and opens the library (PermissionActivity.kt 79-92, 110); the first start of a release build
        shows the What's New bottom sheet (MainActivity.kt 56, WhatsNewFragment.showChangeLog 144-151)."""
        self.launch()
        acted = False
        for _ in range(FIRST_RUN_STEPS):
            screen = self.driver.wait_until(self.first_run_screen, "Retro Music's library or a first-run screen")
            if screen == "library" and acted:  # start it again: done when a start opens on the library at once
                self.launch(fresh=True)
                acted = False
                continue
            if screen == "library":
                return
            acted = True
            if screen == "allow_button":
                self.driver.tap(**self.sel("permissions:allow_button"))
            elif screen == "permission_finish":
                self.driver.tap(**self.sel("permission_finish"))
            elif screen == "permission_grant_audio":
                self.driver.tap(**self.sel("permission_grant_audio"))
            else:  # a tap on the window behind the sheet, near its top: the sheet covers touch_outside's centre
                self.driver.tap(**self.sel("changelog_dismiss"), at_dp=SHEET_OUTSIDE_DP)
            self.driver.wait_idle()
        raise DeviceError(f"{self.driver.serial}: Retro Music still shows a first-run screen after "
                          f"{FIRST_RUN_STEPS} steps")
