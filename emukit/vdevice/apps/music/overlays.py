"""Popup menus and dialogs of Retro Music, with the real menus' items (in their menu files' order, the items
the virtual app implements) and the Material 3 alert dialog's structure (m3_alert_dialog.xml): ``alertTitle``,
``android:id/message``, a list of ``android:id/text1`` items or a custom view, and the buttons
``android:id/button2`` (negative) and ``android:id/button1`` (positive). Texts come from the table ``T``.

AppCompat's popup menus (PopupMenu and a toolbar's overflow) are a ListView of ListMenuItemView rows, each
with its text in ``@id/title`` (entry ``popup_item``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import T, fmt_duration
from emukit.vdevice.apps.music.rows import TEXT
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.render import font, wrap
from emukit.vdevice.ui.theme import dp
from emukit.vdevice.ui.view import Bounds, Style, View

Item = tuple[str, Callable[[], object]]  # (table entry of the item's title, what it does)
MENU_ROW_H = dp(48)
DIALOG_ROW_H = dp(48)
DIALOG_MAX_ROWS = 8


def _then_close(ui: Ui, fn: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        ui.close_overlays()
        fn()
    return run


def menu_items(ui: Ui, menu: dict[str, Any]) -> list[Item]:
    """The items of the open popup menu (see :mod:`actions` for what they do)."""
    kind = menu["kind"]
    song = menu.get("song") or {}
    close = ui.close_overlays
    if kind == "song":  # menu_item_song.xml
        return [("song_play_next", lambda: a.play_next(ui, [song])),
                ("song_add_to_queue", lambda: a.enqueue(ui, [song])),
                ("song_add_to_playlist", lambda: a.ask_playlist(ui, [song])),
                ("song_details", lambda: a.details(ui, song))]
    if kind == "group":  # an album's or artist's card
        songs = a.source_songs(ui, menu.get("source", {}))
        return [("playlist_play", _then_close(ui, lambda: a.play_list(ui, songs, 0))),
                ("song_play_next", lambda: a.play_next(ui, songs)),
                ("song_add_to_queue", lambda: a.enqueue(ui, songs)),
                ("song_add_to_playlist", lambda: a.ask_playlist(ui, songs))]
    if kind == "pl_song":  # menu_item_playlist_song.xml
        pid = int(menu["pid"])
        return [("playlist_song_remove", lambda: ui.open_dialog("remove_song", pid=pid, song=song)),
                ("song_play_next", lambda: a.play_next(ui, [song])),
                ("song_add_to_queue", lambda: a.enqueue(ui, [song])),
                ("song_add_to_playlist", lambda: a.ask_playlist(ui, [song])),
                ("song_details", lambda: a.details(ui, song))]
    if kind == "queue_song":  # menu_item_playing_queue_song.xml
        index = int(menu.get("index", 0))
        return [("song_play_next", lambda: a.play_next(ui, [song])),
                ("queue_song_remove", _then_close(ui, lambda: a.remove_from_queue(ui, index))),
                ("song_add_to_playlist", lambda: a.ask_playlist(ui, [song])),
                ("song_details", lambda: a.details(ui, song))]
    if kind == "playlist":  # menu_item_playlist.xml (a card) / menu_playlist_detail.xml (the detail's toolbar)
        pid = int(menu["pid"])
        playlist = pl.get(ui.device, pid) or {"name": "", "songs": []}
        songs = list(playlist["songs"])
        return [("playlist_play", _then_close(ui, lambda: a.play_list(ui, songs, 0))),
                ("song_play_next", lambda: a.play_next(ui, songs)),
                ("song_add_to_queue", lambda: a.enqueue(ui, songs)),
                ("song_add_to_playlist", lambda: a.ask_playlist(ui, songs)),
                ("playlist_rename", lambda: ui.open_dialog("rename", pid=pid, name=playlist["name"])),
                ("playlist_delete", lambda: ui.open_dialog("delete_playlist", pid=pid, name=playlist["name"])),
                ("playlist_save", close)]
    if kind == "library":  # menu_main.xml + PlaylistsFragment.onCreateMenu (New playlist, Import playlist)
        items: list[Item] = [("menu_grid_size", close), ("menu_sort_order", close)]
        if menu.get("tab") == "playlists":
            items += [("menu_new_playlist", lambda: a.ask_new_playlist(ui)), ("menu_import_playlist", close)]
        return items + [("menu_settings", close)]
    if kind == "player":  # menu_player.xml: the items not shown as icons
        current = playback.current(ui.device) or {}
        queue = list(playback.player(ui.device)["queue"])
        return [("player_add_to_playlist", lambda: a.ask_playlist(ui, [current])),
                ("player_save_queue", lambda: a.ask_new_playlist(ui, queue)),
                ("player_clear_queue", lambda: a.clear_queue(ui)),
                ("player_details", lambda: a.details(ui, current))]
    return []


def popup(ui: Ui, menu: dict[str, Any]) -> View:
    """The open popup menu below its anchor, moved up when it would run past the bottom of the screen; a tap
    outside dismisses it."""
    items = menu_items(ui, menu)
    f = font(theme.TEXT_BODY_L)
    width = max(dp(180), max((int(f.getlength(T.text(e))) for e, _ in items), default=0) + dp(48))
    height = dp(16) + MENU_ROW_H * len(items)
    right = min(int(menu["x"]), ui.frame[2] - dp(8))
    top = max(ui.frame[1], min(int(menu["y"]), ui.frame[3] - dp(8) - height))
    layer = View(bounds=ui.frame, on_click=ui.close_overlays)
    frame = View(cls="android.widget.FrameLayout", bounds=(right - width, top, right, top + height),
                 style=Style(bg=theme.SURFACE, radius=dp(4), elevation=12))
    listing = View(cls="android.widget.ListView", bounds=frame.bounds)
    for i, (entry, callback) in enumerate(items):
        y = top + dp(8) + i * MENU_ROW_H
        row = View(cls="android.widget.LinearLayout", bounds=(right - width, y, right, y + MENU_ROW_H),
                   clickable=True, on_click=callback)
        row.add(View(cls=TEXT, bounds=(right - width + dp(16), y, right - dp(16), y + MENU_ROW_H),
                     text=T.text(entry), resource_id=T.rid("popup_item"),
                     style=Style(font_size=theme.TEXT_BODY_L, fg=theme.TEXT)))
        listing.add(row)
    frame.add(listing)
    layer.add(frame)
    return layer


# ---------------------------------------------------------------------------------------------- dialogs
def dialog(ui: Ui, dlg: dict[str, Any]) -> View:
    """The open dialog; each is dismissed by BACK or a tap outside."""
    builder = {"add_to_playlist": _add_to_playlist, "new_playlist": _name_dialog, "rename": _name_dialog,
               "delete_playlist": _delete_playlist, "remove_song": _remove_song, "details": _details}
    return builder.get(dlg["kind"], _details)(ui, dlg)


def alert(ui: Ui, title_entry: str, *, title: str | None = None, message: str = "",
          negative: tuple[str, Callable[[], object]] | None = None,
          positive: tuple[str, Callable[[], object]] | None = None,
          content: Callable[[Bounds], View] | None = None, content_height: int = 0) -> View:
    """A MaterialAlertDialog: ``parentPanel`` with the title, the message or a custom view (``content(box)``)
    and the buttons at the right: the negative one (``button2``, setNegativeButton), then the positive one
    (``button1``, setPositiveButton)."""
    buttons = [(T.rid("dialog_negative"), *negative)] if negative else []
    buttons += [(T.rid("dialog_positive"), *positive)] if positive else []
    left, top, right, bottom = ui.frame
    width = right - left - 2 * dp(32)
    msg_f = font(theme.TEXT_BODY)
    lines = len(wrap(message, msg_f, width - 2 * dp(24), 8)) if message else 0
    line_h = dp(22)
    height = dp(24) + dp(40) + (lines * line_h + dp(16) if message else 0) + content_height + \
        (dp(72) if buttons else dp(24))
    x0, y0 = left + dp(32), (top + bottom - height) // 2
    layer = w.scrim(ui.frame, ui.close_overlays)
    panel = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x0 + width, y0 + height),
                 style=Style(bg=theme.SURFACE, radius=dp(28), elevation=16))
    panel.add(View(cls=TEXT, bounds=(x0 + dp(24), y0 + dp(24), x0 + width - dp(24), y0 + dp(56)),
                   text=title if title is not None else T.text(title_entry), resource_id=T.rid("dialog_title"),
                   style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE)))
    y = y0 + dp(64)
    if message:
        panel.add(View(cls=TEXT, bounds=(x0 + dp(24), y, x0 + width - dp(24), y + lines * line_h), text=message,
                       resource_id=T.rid("dialog_message"),
                       style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_BODY, valign="top",
                                   max_lines=lines)))
        y += lines * line_h + dp(16)
    if content is not None:
        panel.add(content((x0, y, x0 + width, y + content_height)))
        y += content_height
    end = x0 + width - dp(24)
    bar = View(cls="android.widget.ScrollView", bounds=(x0, y0 + height - dp(64), x0 + width, y0 + height - dp(8)))
    placed = []
    for rid, text, callback in reversed(buttons):
        bw = w.text_button_width(text)
        placed.insert(0, w.button((end - bw, y0 + height - dp(60), end, y0 + height - dp(20)), text, callback,
                                  kind="text", rid=rid))
        end -= bw + dp(8)
    bar.add(*placed)
    if buttons:
        panel.add(bar)
    layer.add(panel)
    return layer


def _choice(box: Bounds, top: int, text: str, on_click: Callable[[], object]) -> View:
    """An item of a list dialog (mtrl_alert_select_dialog_item: a TextView ``android:id/text1``)."""
    return View(cls=T.cls("add_to_playlist_choice"), bounds=(box[0], top, box[2], top + DIALOG_ROW_H), text=text,
                resource_id=T.rid("add_to_playlist_choice"), clickable=True, on_click=on_click,
                style=Style(font_size=theme.TEXT_BODY_L, fg=theme.TEXT, padding=dp(24)))


def _add_to_playlist(ui: Ui, dlg: dict[str, Any]) -> View:
    """AddToPlaylistDialog: New playlist, then the playlists in database order; Cancel."""
    songs = dlg.get("songs", [])
    names = [T.text("add_to_playlist_new")] + [p["name"] for p in pl.in_table_order(ui.device)]
    shown = min(len(names), DIALOG_MAX_ROWS)
    scroll = int(dlg.get("scroll", 0))
    max_scroll = max(0, (len(names) - shown) * DIALOG_ROW_H)

    def pick(i: int) -> Callable[[], object]:
        if i == 0:
            return lambda: a.ask_new_playlist(ui, songs)
        return lambda: a.add_to_playlist_named(ui, names[i], songs)

    def content(box: Bounds) -> View:
        listing = View(cls="android.widget.ListView", bounds=box, scrollable=max_scroll > 0,
                       on_scroll=(lambda dy: dlg.update(scroll=max(0, min(scroll + dy, max_scroll))))
                       if max_scroll else None)
        for i, name in enumerate(names):
            y = box[1] - min(scroll, max_scroll) + i * DIALOG_ROW_H
            if y + DIALOG_ROW_H > box[1] and y < box[3]:
                listing.add(_choice(box, y, name, pick(i)))
        return listing

    return alert(ui, "add_to_playlist_dialog", negative=(T.text("dialog_negative"), ui.close_overlays),
                 content=content, content_height=shown * DIALOG_ROW_H)


def _name_dialog(ui: Ui, dlg: dict[str, Any]) -> View:
    """CreatePlaylistDialog / RenamePlaylistDialog (dialog_playlist.xml): the name field with Cancel and
    Create / Rename."""
    rename = dlg["kind"] == "rename"
    field_id = T.rid("new_playlist_name")

    def set_name(text: str) -> None:
        dlg["name"] = text

    def confirm() -> None:
        if rename:
            a.rename_playlist(ui, int(dlg["pid"]), dlg.get("name", ""))
        else:
            a.create_playlist(ui, dlg.get("name", ""), dlg.get("songs", []))

    def content(box: Bounds) -> View:
        x0, y0, x1, _ = box
        holder = View(cls="android.widget.LinearLayout", bounds=box)
        container = View(cls="android.widget.LinearLayout", bounds=(x0 + dp(16), y0 + dp(8), x1 - dp(16),
                                                                     y0 + dp(72)),
                         resource_id=T.rid("new_playlist_name_box"))
        frame = View(cls="android.widget.FrameLayout", bounds=container.bounds)
        edit = w.text_field(container.bounds, dlg.get("name", ""), set_name, key=field_id, rid=field_id,
                            hint=T.text("new_playlist_name_box"), on_submit=confirm)
        edit.cls = T.cls("new_playlist_name")
        frame.add(edit)
        container.add(frame)
        holder.add(container)
        return holder

    title_entry = "rename_dialog" if rename else "new_playlist_dialog"
    positive = T.text("rename_confirm") if rename else T.text("new_playlist_create")
    return alert(ui, title_entry, negative=(T.text("dialog_negative"), ui.close_overlays), positive=(positive, confirm),
                 content=content, content_height=dp(88))


def _delete_playlist(ui: Ui, dlg: dict[str, Any]) -> View:
    pid = int(dlg["pid"])
    return alert(ui, "delete_playlist_dialog", message=T.text("delete_playlist_message", playlist=dlg.get("name", "")),
                 negative=(T.text("dialog_negative"), ui.close_overlays),
                 positive=(T.text("delete_playlist_confirm"), lambda: a.delete_playlist(ui, pid)))


def _remove_song(ui: Ui, dlg: dict[str, Any]) -> View:
    song = dlg.get("song") or {}
    pid = int(dlg["pid"])
    return alert(ui, "remove_song_dialog", message=T.text("remove_song_message", title=song.get("title", "")),
                 negative=(T.text("dialog_negative"), ui.close_overlays),
                 positive=(T.text("remove_song_confirm"), lambda: a.remove_from_playlist(ui, pid, song)))


def _details(ui: Ui, dlg: dict[str, Any]) -> View:
    song = dlg.get("song") or {}
    path = str(song.get("data", ""))
    lines = [path.rsplit("/", 1)[-1], path, fmt_duration(int(song.get("duration", 0))), str(song.get("title", "")),
             str(song.get("artist", "")), str(song.get("album", ""))]
    return alert(ui, "details_dialog", message="\n".join(lines), positive=(T.text("details_ok"), ui.close_overlays))
