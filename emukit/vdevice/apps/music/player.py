"""Now playing (the Normal style, PlayerFragment / fragment_player.xml) and the playing queue
(PlayingQueueFragment / fragment_playing_queue.xml).

Now playing fills the expanded sliding panel: the cover (half the height), the playback controls
(``songCurrentProgress`` / ``progressSlider`` / ``songTotalTime``, ``title``, ``text``, then repeat, previous,
play / pause, next, shuffle) and, at the bottom, ``playerToolbar`` with menu_player.xml's four icon items
(Sleep timer, Lyrics, Favorites, Now playing queue) and the overflow for the rest. The queue is a
destination of its own with no bottom navigation and no mini player: a toolbar ("Now playing queue",
"Up next  •  remaining time"), ``recyclerView`` with ``item_queue`` rows (played rows and the current one
at half alpha) and the "Clear queue" button.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import playback
from emukit.vdevice.apps.music.const import (
    REPEAT_NONE,
    REPEAT_THIS,
    SHUFFLE_ON,
    T,
    fmt_duration,
)
from emukit.vdevice.apps.music.rows import (
    ACCENT,
    GROUP,
    TOOLBAR_H,
    ListModel,
    MenuAction,
    art,
    art_color,
    ordered_list,
    queue_item_height,
    song_spec,
    text_view,
    toolbar,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import dp
from emukit.vdevice.ui.view import Bounds, Style, View

BIG = dp(72)  # the play / pause FloatingActionButton


def player_layer(ui: Ui) -> View:
    """The expanded panel (``slidingPanel`` > ``playerFragmentContainer``) showing Now playing."""
    device = ui.device
    song = playback.current(device) or {}
    p = playback.player(device)
    left, top, right, bottom = ui.frame
    seed = int(song.get("album_id", 0))
    panel = View(cls="android.widget.FrameLayout", bounds=ui.frame, resource_id=T.rid("player_container"),
                 clickable=True, on_click=lambda: None,
                 style=Style(bg=theme.mix(art_color(seed), (255, 255, 255), 0.78), bg2=theme.BACKGROUND))
    screen = View(cls=GROUP, bounds=ui.frame)
    cover_h = (bottom - top) // 2
    size = min(right - left - 2 * dp(32), cover_h - dp(32))
    x0 = (left + right - size) // 2
    screen.add(View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + cover_h)).add(
        art((x0, top + dp(24), x0 + size, top + dp(24) + size), seed, radius=dp(24))))
    bar_top = bottom - TOOLBAR_H
    controls = View(cls=GROUP, bounds=(left, top + cover_h, right, bar_top))
    _controls(ui, controls, song, p, top + cover_h, bar_top)
    screen.add(controls)
    screen.add(toolbar((left, bar_top, right, bottom), rid=T.rid("player_toolbar"), actions=[
        MenuAction("player_sleep_timer", "timer", lambda: None),
        MenuAction("player_lyrics", "notes", lambda: None),
        MenuAction("player_favorite", "star", lambda: None),
        MenuAction("now_playing_queue", "music.queue", lambda: a.open_queue_screen(ui))],
        overflow=lambda x, y: ui.open_menu("player", x, y)))
    panel.add(screen)
    return panel


def _controls(ui: Ui, box: View, song: dict[str, Any], p: dict[str, Any], top: int, bottom: int) -> None:
    """fragment_player_playback_controls.xml: progress row, title, artist, the five buttons."""
    device = ui.device
    left, right = ui.frame[0] + dp(24), ui.frame[2] - dp(24)
    y = top + dp(8)
    now, total = playback.progress_ms(device), int(song.get("duration", 0))
    frac = now / total if total else 0.0
    box.add(text_view((left, y, left + dp(56), y + dp(24)), fmt_duration(now), "player_progress",
                      size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
    sx0, sx1 = left + dp(60), right - dp(60)

    def seek(x1: int, y1: int, x2: int, y2: int) -> None:
        if total:
            playback.seek(device, int(total * max(0, min(x2 - sx0, sx1 - sx0)) / (sx1 - sx0)))

    slider = View(cls=T.cls("player_slider"), bounds=(sx0, y - dp(8), sx1, y + dp(32)),
                  resource_id=T.rid("player_slider"), on_drag=seek)
    mid = y + dp(12)
    fill = sx0 + int((sx1 - sx0) * max(0.0, min(1.0, frac)))
    slider.add(View(bounds=(sx0, mid - dp(2), sx1, mid + dp(2)),
                    style=Style(bg=theme.mix(ACCENT, (255, 255, 255), 0.7), radius=dp(2))))
    slider.add(View(bounds=(sx0, mid - dp(2), fill, mid + dp(2)), style=Style(bg=ACCENT, radius=dp(2))))
    box.add(slider)
    box.add(text_view((right - dp(56), y, right, y + dp(24)), fmt_duration(total), "player_total",
                      size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY, align="right"))
    y += dp(48)
    box.add(text_view((left, y, right, y + dp(32)), str(song.get("title", "")), "player_title",
                      size=theme.TEXT_TITLE, bold=True, align="center"))
    box.add(text_view((left, y + dp(36), right, y + dp(60)), str(song.get("artist", "")), "player_text",
                      color=theme.TEXT_SECONDARY, align="center"))
    cy = min(bottom - dp(48), y + dp(120))
    cx = (ui.frame[0] + ui.frame[2]) // 2
    t = w.TOUCH
    repeat_icon = "music.repeat_one" if p["repeat"] == REPEAT_THIS else "music.repeat"
    side = [(cx - dp(148), repeat_icon, lambda: playback.cycle_repeat(device), "player_repeat",
             p["repeat"] != REPEAT_NONE),
            (cx - dp(80), "skip_previous", lambda: playback.previous_song(device), "player_previous", None),
            (cx + dp(80), "skip_next", lambda: playback.next_song(device), "player_next", None),
            (cx + dp(148), "music.shuffle", lambda: playback.toggle_shuffle(device), "player_shuffle",
             p["shuffle"] == SHUFFLE_ON)]
    for x, icon, cb, entry, active in side:
        color = theme.TEXT if active is None else (ACCENT if active else theme.TEXT_HINT)
        box.add(View(cls=T.cls(entry), bounds=(x - t // 2, cy - t // 2, x + t // 2, cy + t // 2),
                     resource_id=T.rid(entry), clickable=True, on_click=cb,
                     style=Style(icon=icon, icon_color=color, icon_size=dp(28))))
    playing = p["playing"]
    box.add(View(cls="android.widget.ImageButton", bounds=(cx - BIG // 2, cy - BIG // 2, cx + BIG // 2, cy + BIG // 2),
                 resource_id=T.rid("player_play_pause"), clickable=True, on_click=lambda: playback.toggle_play(device),
                 style=Style(bg=ACCENT, radius=dp(20), icon="pause" if playing else "play",
                             icon_color=(255, 255, 255), icon_size=dp(32), elevation=6)))


def queue_screen(ui: Ui, root: View) -> None:
    """The playing queue: ordered rows with drag handles, a sideways swipe removes one."""
    device = ui.device
    entry = ui.top
    p = playback.player(device)
    queue, pos = p["queue"], p["pos"]
    left, top, right, bottom = ui.frame
    remaining = sum(int(s.get("duration", 0)) for s in queue[pos + 1:])
    subtitle = T.text("queue_subtitle", duration=fmt_duration(remaining))
    root.add(toolbar((left, top, right, top + TOOLBAR_H), T.text("queue_title"), rid=T.rid("queue_toolbar"),
                     nav=("arrow_back", lambda: a.leave(ui)), subtitle=subtitle))
    area: Bounds = (left, top + TOOLBAR_H, right, bottom)
    model = ListModel(area, len(queue), queue_item_height(), padding_bottom=dp(96))
    if "scroll" not in entry:  # linearLayoutManager.scrollToPositionWithOffset(position + 1, 0)
        entry["scroll"] = model.clamp(int(entry.get("first", 0)) * model.item_h)

    def menu(i: int, s: dict[str, Any]) -> Any:
        return lambda x, y: ui.open_menu("queue_song", x, y, song=s, index=i)

    specs = [song_spec(s, on_click=lambda i=i: playback.play_at(device, i), on_menu=menu(i, s), dim=i <= pos,
                       icon=("volume" if p["playing"] else "pause") if i == pos else "music")
             for i, s in enumerate(queue)]
    root.add(ordered_list(model, specs, ui.scroll(entry), ui.scroll_setter(entry), rid=T.rid("queue_list"),
                          on_move=lambda frm, to: playback.move(device, frm, to),
                          on_swipe_remove=lambda i: a.remove_from_queue(ui, i)))
    label = T.text("clear_queue")
    width = w.text_button_width(label) + dp(40)
    fab = (right - dp(16) - width, bottom - dp(16) - dp(56), right - dp(16), bottom - dp(16))
    root.add(View(cls=T.cls("clear_queue"), bounds=fab, text=label, resource_id=T.rid("clear_queue"), clickable=True,
                  on_click=lambda: a.clear_queue(ui),
                  style=Style(bg=ACCENT, fg=(255, 255, 255), radius=dp(16), elevation=8, icon="delete",
                              icon_color=(255, 255, 255), icon_size=dp(24), padding=dp(20),
                              font_size=theme.TEXT_LABEL, bold=True)))
