"""The Now Playing screen and the playing queue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import playback
from emukit.vdevice.apps.music.const import (
    REPEAT_NONE,
    REPEAT_THIS,
    SHUFFLE_ON,
    fmt_duration,
    rid,
)
from emukit.vdevice.apps.music.rows import (
    ACCENT,
    app_bar,
    art,
    art_color,
    item_list,
    song_spec,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

BIG = 200  # play / pause button


def player_screen(ui: Ui, root: View) -> None:
    """Cover, title and artist, progress, and the transport controls (repeat, previous, play/pause, next,
    shuffle); the app bar has "Playing queue" and an overflow menu."""
    device = ui.device
    song = playback.current(device)
    if song is None:
        ui.pop()
        root.add(View(bounds=ui.frame))
        return
    p = playback.player(device)
    left, top, right, bottom = ui.frame
    seed = int(song.get("album_id", 0))
    root.style.bg = theme.mix(art_color(seed), (255, 255, 255), 0.78)
    root.style.bg2 = theme.BACKGROUND
    root.add(app_bar(ui.frame, "Now playing", on_back=ui.pop, bg=root.style.bg, rid=rid("playerToolbar"), actions=[
        w.Action("music.queue", "Playing queue", lambda: a.open_queue_screen(ui), rid("action_playing_queue")),
        w.Action("more_vert", "More options", lambda: ui.open_menu("player", right - 36, top + 40),
                 rid("action_overflow"))]))
    y = top + w.APP_BAR_H + 140
    size = 760
    x0 = (left + right - size) // 2
    root.add(art((x0, y, x0 + size, y + size), seed, radius=48, rid_=rid("player_image")))
    y += size + 60
    root.add(w.label((left + 72, y, right - 72, y + 84), song["title"], size=theme.TEXT_TITLE_L, bold=True,
                     align="center", rid=rid("title")))
    root.add(w.label((left + 72, y + 90, right - 72, y + 150), song["artist"], size=theme.TEXT_BODY_L,
                     color=theme.TEXT_SECONDARY, align="center", rid=rid("text")))
    y += 210
    _progress(ui, root, song, y)
    y += 170
    _controls(ui, root, p, y)
    nxt = p["pos"] + 1
    if 0 < nxt < len(p["queue"]):
        root.add(w.label((left + 72, bottom - 130, right - 72, bottom - 70), f"Up next: {p['queue'][nxt]['title']}",
                         size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY, align="center", rid=rid("nextSong")))


def _progress(ui: Ui, root: View, song: dict[str, Any], y: int) -> None:
    device = ui.device
    left, right = ui.frame[0] + 90, ui.frame[2] - 90
    now, total = playback.progress_ms(device), int(song["duration"])
    frac = now / total if total else 0.0
    fill = left + int((right - left) * max(0.0, min(1.0, frac)))

    def seek(x1: int, y1: int, x2: int, y2: int) -> None:
        if total:
            playback.seek(device, int(total * max(0, min(x2 - left, right - left)) / (right - left)))

    slider = View(cls="android.widget.SeekBar", bounds=(left - 30, y - 40, right + 30, y + 40),
                  resource_id=rid("progressSlider"), content_desc="Seek", on_drag=seek)
    slider.add(View(bounds=(left, y - 6, right, y + 6), style=Style(bg=theme.mix(ACCENT, (255, 255, 255), 0.7),
                                                                    radius=6)))
    slider.add(View(bounds=(left, y - 6, fill, y + 6), style=Style(bg=ACCENT, radius=6)))
    slider.add(View(bounds=(fill - 22, y - 22, fill + 22, y + 22), style=Style(bg=ACCENT, radius=22)))
    root.add(slider)
    root.add(w.label((left, y + 40, left + 300, y + 96), fmt_duration(now), size=theme.TEXT_SMALL,
                     color=theme.TEXT_SECONDARY, rid=rid("songCurrentProgress")))
    root.add(w.label((right - 300, y + 40, right, y + 96), fmt_duration(total), size=theme.TEXT_SMALL,
                     color=theme.TEXT_SECONDARY, align="right", rid=rid("songTotalTime")))


def _controls(ui: Ui, root: View, p: dict[str, Any], y: int) -> None:
    device = ui.device
    cx = (ui.frame[0] + ui.frame[2]) // 2
    t = w.TOUCH
    repeat_icon = "music.repeat_one" if p["repeat"] == REPEAT_THIS else "music.repeat"
    side = [(cx - 390, repeat_icon, "Cycle repeat mode", lambda: playback.cycle_repeat(device), "repeatButton",
             p["repeat"] != REPEAT_NONE),
            (cx - 210, "skip_previous", "Previous", lambda: playback.previous_song(device), "previousButton", None),
            (cx + 210, "skip_next", "Next", lambda: playback.next_song(device), "nextButton", None),
            (cx + 390, "music.shuffle", "Toggle shuffle mode", lambda: playback.toggle_shuffle(device), "shuffleButton",
             p["shuffle"] == SHUFFLE_ON)]
    for x, icon, desc, cb, name, active in side:
        color = theme.TEXT if active is None else (ACCENT if active else theme.TEXT_HINT)
        btn = w.icon_button((x - t // 2, y - t // 2, x + t // 2, y + t // 2), w.Action(icon, desc, cb, rid(name)),
                            color=color, size=68 if active is None else 72)
        if active is not None:
            btn.checkable, btn.checked = True, bool(active)
        root.add(btn)
    playing = p["playing"]
    root.add(View(cls="android.widget.ImageButton", bounds=(cx - BIG // 2, y - BIG // 2, cx + BIG // 2, y + BIG // 2),
                  content_desc="Pause" if playing else "Play", resource_id=rid("playPauseButton"), clickable=True,
                  on_click=lambda: playback.toggle_play(device),
                  style=Style(bg=ACCENT, radius=BIG // 2, icon="pause" if playing else "play",
                              icon_color=(255, 255, 255), icon_size=84, elevation=6)))


def queue_screen(ui: Ui, root: View) -> None:
    """The playing queue: ordered rows with drag handles; the current song is highlighted, played ones dim."""
    device = ui.device
    entry = ui.top
    p = playback.player(device)
    queue, pos = p["queue"], p["pos"]
    remaining = sum(int(s.get("duration", 0)) for s in queue[pos + 1:])
    subtitle = f"{pos + 1} of {len(queue)} • {fmt_duration(remaining)} remaining" if queue else "Empty"
    root.add(app_bar(ui.frame, "Playing queue", on_back=ui.pop, subtitle=subtitle, rid=rid("toolbar"), actions=[
        w.Action("delete", "Clear playing queue", lambda: a.clear_queue(ui), rid("clearQueue"))]))
    area = w.below_app_bar(ui.frame)
    if not queue:
        view = w.empty_state(area, "music.queue", "The playing queue is empty")
        view.resource_id = rid("empty")
        root.add(view)
        return

    def menu(i: int, s: dict[str, Any]) -> Callable[[int, int], object]:
        return lambda x, y: ui.open_menu("queue_song", x, y, song=s, index=i)

    specs = [song_spec(s, on_click=lambda i=i: playback.play_at(device, i), on_menu=menu(i, s), selected=i == pos,
                       dim=i < pos, icon=("volume" if p["playing"] else "pause") if i == pos else "music")
             for i, s in enumerate(queue)]
    root.add(item_list(area, specs, ui.scroll(entry), ui.scroll_setter(entry),
                       on_move=lambda frm, to: playback.move(device, frm, to),
                       on_swipe_remove=lambda i: playback.remove_at(device, i)))
