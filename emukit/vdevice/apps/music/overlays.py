"""Popup menus and dialogs of Retro Music (item texts are the real app's strings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import fmt_duration, rid
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

Item = tuple[str, Callable[[], object]]
DIALOG_ROW_H = 147
DIALOG_MAX_ROWS = 6


def _then_close(ui: Ui, fn: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        ui.close_overlays()
        fn()
    return run


def menu_items(ui: Ui, menu: dict[str, Any]) -> list[Item]:
    """The items of the open popup menu (see the module docstring of :mod:`actions` for what they do)."""
    kind = menu["kind"]
    song = menu.get("song") or {}
    if kind == "song":
        source, index = menu.get("source", {}), int(menu.get("index", 0))
        return [("Play", _then_close(ui, lambda: a.play_list(ui, a.source_songs(ui, source), index))),
                ("Play next", lambda: a.play_next(ui, [song])),
                ("Add to playing queue", lambda: a.enqueue(ui, [song])),
                ("Add to playlist", lambda: a.ask_playlist(ui, [song])),
                ("Details", lambda: a.details(ui, song))]
    if kind == "group":
        songs = a.source_songs(ui, menu.get("source", {}))
        return [("Play", _then_close(ui, lambda: a.play_list(ui, songs, 0))),
                ("Play next", lambda: a.play_next(ui, songs)),
                ("Add to playing queue", lambda: a.enqueue(ui, songs)),
                ("Add to playlist", lambda: a.ask_playlist(ui, songs))]
    if kind == "pl_song":
        pid, key = int(menu["pid"]), int(song.get("key", 0))
        return [("Remove from playlist", lambda: ui.open_dialog("remove_song", pid=pid, key=key,
                                                                 title=song.get("title", ""))),
                ("Play next", lambda: a.play_next(ui, [song])),
                ("Add to playing queue", lambda: a.enqueue(ui, [song])),
                ("Add to playlist", lambda: a.ask_playlist(ui, [song])),
                ("Details", lambda: a.details(ui, song))]
    if kind == "queue_song":
        index = int(menu.get("index", 0))
        return [("Play next", lambda: a.play_next(ui, [song])),
                ("Remove from playing queue", _then_close(ui, lambda: playback.remove_at(ui.device, index))),
                ("Add to playlist", lambda: a.ask_playlist(ui, [song])),
                ("Details", lambda: a.details(ui, song))]
    if kind == "playlist":
        pid = int(menu["pid"])
        playlist = pl.get(ui.device, pid) or {"name": "", "songs": []}
        songs = list(playlist["songs"])
        return [("Play", _then_close(ui, lambda: a.play_list(ui, songs, 0))),
                ("Play next", lambda: a.play_next(ui, songs)),
                ("Add to playing queue", lambda: a.enqueue(ui, songs)),
                ("Add to playlist", lambda: a.ask_playlist(ui, songs)),
                ("Rename", lambda: ui.open_dialog("rename", pid=pid, name=playlist["name"], error="")),
                ("Delete", lambda: ui.open_dialog("delete_playlist", pid=pid, name=playlist["name"]))]
    if kind == "player":
        current = playback.current(ui.device) or {}
        queue = list(playback.player(ui.device)["queue"])
        return [("Add to playlist", lambda: a.ask_playlist(ui, [current])),
                ("Save playing queue", lambda: a.ask_new_playlist(ui, queue)),
                ("Clear playing queue", lambda: a.clear_queue(ui)),
                ("Details", lambda: a.details(ui, current))]
    return []


def popup(ui: Ui, menu: dict[str, Any]) -> View:
    """The open popup menu, moved up when it would run past the bottom of the screen."""
    items = menu_items(ui, menu)
    height = 24 + w.ROW_H * len(items)
    y = max(ui.frame[1], min(int(menu["y"]), ui.frame[3] - 24 - height))
    return w.popup_menu(ui.frame, (int(menu["x"]), y), items, ui.close_overlays)


# ---------------------------------------------------------------------------------------------- dialogs
def dialog(ui: Ui, dlg: dict[str, Any]) -> View:
    """The open dialog; every one has Cancel and is dismissed by BACK or a tap outside."""
    builder = {"add_to_playlist": _add_to_playlist, "new_playlist": _name_dialog, "rename": _name_dialog,
               "delete_playlist": _delete_playlist, "remove_song": _remove_song, "details": _details}
    return builder.get(dlg["kind"], _details)(ui, dlg)


def _choice(box: Bounds, top: int, text: str, icon: str, on_click: Callable[[], object]) -> View:
    row = View(cls="android.widget.TextView", bounds=(box[0], top, box[2], top + DIALOG_ROW_H), text=text,
               resource_id="android:id/text1", clickable=True, on_click=on_click,
               style=Style(font_size=theme.TEXT_BODY_L, padding=156))
    row.add(View(cls="android.widget.ImageView", bounds=(box[0] + 36, top + 28, box[0] + 126, top + 118),
                 style=Style(icon=icon, icon_color=theme.TEXT_SECONDARY, icon_size=56)))
    return row


def _add_to_playlist(ui: Ui, dlg: dict[str, Any]) -> View:
    songs = dlg.get("songs", [])
    choices: list[tuple[str, str, Callable[[], object]]] = [
        ("New playlist", "plus", lambda: a.ask_new_playlist(ui, songs))]
    for p in pl.playlists(ui.device):
        choices.append((p["name"], "music.playlist", lambda pid=p["id"]: a.add_to_playlist(ui, pid, songs)))
    height = DIALOG_ROW_H * min(len(choices), DIALOG_MAX_ROWS)

    def content(box: Bounds) -> list[View]:
        rows = [(DIALOG_ROW_H, lambda top, c=c: _choice(box, top, *c)) for c in choices]
        return [w.scroll_list(box, rows, int(dlg.get("scroll", 0)), lambda v: dlg.update(scroll=v),
                              rid="android:id/select_dialog_listview", cls="android.widget.ListView")]

    return w.dialog(ui.frame, "Add to playlist", buttons=[("Cancel", ui.close_overlays)], content=content,
                    content_height=height, on_dismiss=ui.close_overlays)


def _name_dialog(ui: Ui, dlg: dict[str, Any]) -> View:
    """New playlist / Rename playlist: a name field with Cancel and Create / Rename."""
    rename = dlg["kind"] == "rename"
    field_id = rid("actionNewPlaylist")

    def set_name(text: str) -> None:
        dlg["name"] = text
        dlg["error"] = ""

    def confirm() -> None:
        if rename:
            a.rename_playlist(ui, int(dlg["pid"]), dlg.get("name", ""))
        else:
            a.create_playlist(ui, dlg.get("name", ""), dlg.get("songs", []))

    error = dlg.get("error", "")

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        out = [w.text_field((x0 + 24, y0 + 8, x1 - 24, y0 + 160), dlg.get("name", ""), set_name, key=field_id,
                            rid=field_id, hint="Playlist name", on_submit=confirm)]
        if error:
            out.append(w.label((x0 + 48, y0 + 168, x1 - 24, y0 + 220), error, size=theme.TEXT_SMALL,
                               color=theme.ERROR, rid=rid("textinput_error")))
        return out

    title = "Rename playlist" if rename else "New playlist"
    return w.dialog(ui.frame, title, buttons=[("Cancel", ui.close_overlays), ("Rename" if rename else "Create",
                                                                                confirm)],
                    content=content, content_height=230 if error else 176, on_dismiss=ui.close_overlays)


def _delete_playlist(ui: Ui, dlg: dict[str, Any]) -> View:
    pid = int(dlg["pid"])
    return w.dialog(ui.frame, "Delete playlist", f"Delete the playlist {dlg.get('name', '')}?",
                    buttons=[("Cancel", ui.close_overlays), ("Delete", lambda: a.delete_playlist(ui, pid))],
                    on_dismiss=ui.close_overlays)


def _remove_song(ui: Ui, dlg: dict[str, Any]) -> View:
    key = int(dlg["key"])
    return w.dialog(ui.frame, "Remove song from playlist",
                    f"Remove the song {dlg.get('title', '')} from the playlist?",
                    buttons=[("Cancel", ui.close_overlays), ("Remove", lambda: a.remove_from_playlist(ui, key))],
                    on_dismiss=ui.close_overlays)


def _details(ui: Ui, dlg: dict[str, Any]) -> View:
    song = dlg.get("song") or {}
    path = str(song.get("data", ""))
    lines = [f"File name: {path.rsplit('/', 1)[-1]}", f"File path: {path}",
             f"Length: {fmt_duration(int(song.get('duration', 0)))}", f"Title: {song.get('title', '')}",
             f"Artist: {song.get('artist', '')}", f"Album: {song.get('album', '')}"]
    return w.dialog(ui.frame, "Details", "\n".join(lines), buttons=[("OK", ui.close_overlays)],
                    on_dismiss=ui.close_overlays)
