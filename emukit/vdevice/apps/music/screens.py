"""The library (bottom navigation: Songs, Albums, Artists, Playlists) and the album, artist and playlist
detail screens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import library, playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import (
    TAB_LABELS,
    TABS,
    fmt_duration,
    rid,
    songs_label,
)
from emukit.vdevice.apps.music.rows import (
    MINI_H,
    NAV_H,
    RowSpec,
    app_bar,
    bottom_nav,
    item_list,
    mini_player,
    song_spec,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, View

HEADER_H = 132


def with_mini_player(ui: Ui, root: View, area: Bounds) -> Bounds:
    """Add the mini player at the bottom of ``area`` (when something is queued); returns the area above it."""
    song = playback.current(ui.device)
    if song is None:
        return area
    p = playback.player(ui.device)
    left, top, right, bottom = area
    fraction = playback.progress_ms(ui.device) / song["duration"] if song["duration"] else 0.0
    root.add(mini_player((left, bottom - MINI_H, right, bottom), song, p["playing"], fraction,
                         on_open=lambda: a.open_player(ui), on_toggle=lambda: playback.toggle_play(ui.device),
                         on_next=lambda: playback.next_song(ui.device)))
    return left, top, right, bottom - MINI_H


def _empty(area: Bounds, icon: str, text: str) -> View:
    view = w.empty_state(area, icon, text)
    view.resource_id = rid("empty")
    return view


# ---------------------------------------------------------------------------------------------- library
def library_screen(ui: Ui, root: View) -> None:
    """The main screen: app bar, the selected tab's list, mini player and bottom navigation."""
    tab = ui.state.get("tab", "songs")
    if tab not in TABS:
        tab = "songs"
    frame = ui.frame
    actions = [w.Action("plus", "New playlist", lambda: a.ask_new_playlist(ui), rid("action_new_playlist"))] \
        if tab == "playlists" else []
    root.add(app_bar(frame, "Retro Music", actions=actions, rid=rid("toolbar")))

    def select(name: str) -> None:
        ui.close_overlays()
        ui.state["tab"] = name

    root.add(bottom_nav(frame, tab, select))
    area = with_mini_player(ui, root, (frame[0], frame[1] + w.APP_BAR_H, frame[2], frame[3] - NAV_H))
    entry = ui.top
    scrolls = entry.setdefault("scrolls", {})
    getattr(_Tabs, tab)(ui, root, area, scrolls)


class _Tabs:
    """One builder per library tab (``area`` is the space between app bar and mini player)."""

    @staticmethod
    def songs(ui: Ui, root: View, area: Bounds, scrolls: dict[str, Any]) -> None:
        songs = library.songs(ui.device)
        if not songs:
            root.add(_empty(area, "music", "You have no songs"))
            return
        left, top, right, bottom = area
        root.add(w.label((left + 48, top, right - 400, top + HEADER_H), songs_label(len(songs)),
                         color=theme.TEXT_SECONDARY, rid=rid("songCount")))
        root.add(w.button((right - 396, top + 20, right - 36, top + HEADER_H - 20), "Shuffle all",
                          lambda: a.shuffle_all(ui, songs), kind="tonal", rid=rid("shuffle_button")))

        def menu(i: int, s: dict[str, Any]) -> Callable[[int, int], object]:
            return lambda x, y: ui.open_menu("song", x, y, song=s, index=i, source={"kind": "songs"})

        specs = [song_spec(s, on_click=lambda i=i: a.play_list(ui, library.songs(ui.device), i), on_menu=menu(i, s))
                 for i, s in enumerate(songs)]
        root.add(item_list((left, top + HEADER_H, right, bottom), specs, int(scrolls.get("songs", 0)),
                           lambda v: scrolls.update(songs=v)))

    @staticmethod
    def albums(ui: Ui, root: View, area: Bounds, scrolls: dict[str, Any]) -> None:
        groups = library.albums(ui.device)
        if not groups:
            root.add(_empty(area, "music.album", "You have no albums"))
            return
        specs = [RowSpec(g["name"], f"{g['artist']} • {songs_label(len(g['songs']))}", g["id"], icon="music.album",
                         on_click=lambda g=g: ui.push("album", id=g["id"]),
                         on_menu=lambda x, y, g=g: ui.open_menu("group", x, y, source={"kind": "album", "id": g["id"]}))
                 for g in groups]
        root.add(item_list(area, specs, int(scrolls.get("albums", 0)), lambda v: scrolls.update(albums=v)))

    @staticmethod
    def artists(ui: Ui, root: View, area: Bounds, scrolls: dict[str, Any]) -> None:
        groups = library.artists(ui.device)
        if not groups:
            root.add(_empty(area, "music.artist", "You have no artists"))
            return
        specs = [RowSpec(g["name"], f"{g['albums']} album{'s' if g['albums'] != 1 else ''} • "
                         f"{songs_label(len(g['songs']))}", g["id"], icon="music.artist",
                         on_click=lambda g=g: ui.push("artist", id=g["id"]),
                         on_menu=lambda x, y, g=g: ui.open_menu("group", x, y,
                                                                source={"kind": "artist", "id": g["id"]}))
                 for g in groups]
        root.add(item_list(area, specs, int(scrolls.get("artists", 0)), lambda v: scrolls.update(artists=v)))

    @staticmethod
    def playlists(ui: Ui, root: View, area: Bounds, scrolls: dict[str, Any]) -> None:
        lists = pl.playlists(ui.device)
        if not lists:
            root.add(_empty(area, "music.playlist", "You have no playlists"))
            return
        specs = [RowSpec(p["name"], songs_label(len(p["songs"])), p["id"], icon="music.playlist",
                         on_click=lambda p=p: ui.push("playlist", id=p["id"]),
                         on_menu=lambda x, y, p=p: ui.open_menu("playlist", x, y, pid=p["id"]))
                 for p in lists]
        root.add(item_list(area, specs, int(scrolls.get("playlists", 0)), lambda v: scrolls.update(playlists=v)))


def tab_title(tab: str) -> str:
    """The label of a library tab."""
    return TAB_LABELS.get(tab, "Songs")


# ---------------------------------------------------------------------------------------------- details
def playlist_screen(ui: Ui, root: View) -> None:
    """A playlist: its songs in order, each with a drag handle and "Remove from playlist" in its menu."""
    entry = ui.top
    pid = int(entry.get("id", 0))
    playlist = pl.get(ui.device, pid)
    if playlist is None:  # deleted meanwhile
        ui.pop()
        root.add(View(bounds=ui.frame))
        return
    songs = playlist["songs"]
    subtitle = f"{songs_label(len(songs))} • {fmt_duration(pl.duration_ms(playlist))}"
    bar_actions = [w.Action("play", "Play all", lambda: a.play_list(ui, list(songs), 0), rid("playAction"))] \
        if songs else []
    bar_actions += [w.Action("more_vert", "More options",
                            lambda: ui.open_menu("playlist", ui.frame[2] - 36, ui.frame[1] + 40, pid=pid),
                            rid("action_overflow"))]
    root.add(app_bar(ui.frame, playlist["name"], on_back=ui.pop, subtitle=subtitle, actions=bar_actions,
                       rid=rid("toolbar")))
    area = with_mini_player(ui, root, w.below_app_bar(ui.frame))
    if not songs:
        root.add(_empty(area, "music.playlist", "Playlist is empty"))
        return

    def menu(s: dict[str, Any]) -> Callable[[int, int], object]:
        return lambda x, y: ui.open_menu("pl_song", x, y, song=s, pid=pid)

    specs = [song_spec(s, on_click=lambda i=i: a.play_list(ui, list(songs), i), on_menu=menu(s))
             for i, s in enumerate(songs)]
    root.add(item_list(area, specs, ui.scroll(entry), ui.scroll_setter(entry),
                       on_move=lambda frm, to: pl.move(ui.device, pid, frm, to)))


def group_screen(ui: Ui, root: View) -> None:
    """An album's or an artist's songs."""
    entry = ui.top
    kind = entry["s"]
    groups = library.albums(ui.device) if kind == "album" else library.artists(ui.device)
    group = next((g for g in groups if g["id"] == entry.get("id")), None)
    if group is None:
        ui.pop()
        root.add(View(bounds=ui.frame))
        return
    songs = group["songs"]
    subtitle = group["artist"] if kind == "album" else f"{songs_label(len(songs))}"
    root.add(app_bar(ui.frame, group["name"], on_back=ui.pop, subtitle=subtitle, rid=rid("toolbar"),
                       actions=[w.Action("play", "Play all", lambda: a.play_list(ui, list(songs), 0),
                                         rid("playAction"))]))
    area = with_mini_player(ui, root, w.below_app_bar(ui.frame))
    source = {"kind": kind, "id": group["id"]}

    def menu(i: int, s: dict[str, Any]) -> Callable[[int, int], object]:
        return lambda x, y: ui.open_menu("song", x, y, song=s, index=i, source=source)

    specs = [song_spec(s, on_click=lambda i=i: a.play_list(ui, list(songs), i), on_menu=menu(i, s))
             for i, s in enumerate(songs)]
    root.add(item_list(area, specs, ui.scroll(entry), ui.scroll_setter(entry)))
