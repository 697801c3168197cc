"""Building blocks of Retro Music's screens: song rows (with drag handle and overflow), ordered lists with
drag-to-reorder, the bottom navigation and the mini player."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.vdevice.apps.music.const import TAB_IDS, TAB_LABELS, TABS, rid
from emukit.vdevice.apps.music.store import Song
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Color, Style, View

ROW_H = w.ROW_H2  # 72 dp list items
NAV_H = 200  # bottom navigation
MINI_H = 168  # mini player
ACCENT: Color = (234, 82, 111)  # Retro Music's default accent (pink)
ART_COLORS: tuple[Color, ...] = ((92, 107, 192), (38, 166, 154), (239, 108, 0), (171, 71, 188), (66, 165, 245),
                                 (124, 179, 66), (236, 64, 122), (141, 110, 99))
SWIPE_REMOVE_PX = 300

TAB_ICONS = {"songs": "music", "albums": "music.album", "artists": "music.artist", "playlists": "music.playlist"}


def app_bar(frame: Bounds, title: str, **kw: Any) -> View:
    """``widgets.app_bar`` whose title and subtitle carry resource ids (``toolbar_title``, ``toolbar_subtitle``)."""
    bar = w.app_bar(frame, title, **kw)
    labels = [v for v in bar.children if v.cls == "android.widget.TextView"]
    for view, name in zip(labels, ("toolbar_title", "toolbar_subtitle"), strict=False):
        view.resource_id = rid(name)
    return bar


def art_color(seed: int) -> Color:
    """The placeholder cover colour of an album (deterministic per id)."""
    return ART_COLORS[seed % len(ART_COLORS)]


def art(bounds: Bounds, seed: int, icon: str = "music", radius: int = 20, rid_: str = "") -> View:
    """A square placeholder cover: a coloured tile with a white glyph."""
    size = min(bounds[2] - bounds[0], bounds[3] - bounds[1])
    return View(cls="android.widget.ImageView", bounds=bounds, resource_id=rid_,
                style=Style(bg=art_color(seed), radius=radius, icon=icon, icon_color=(255, 255, 255),
                            icon_size=max(24, size * 45 // 100)))


@dataclass
class RowSpec:
    """What one row of a song / collection list shows and does."""

    title: str
    text: str
    seed: int
    on_click: Callable[[], object] | None = None
    on_menu: Callable[[int, int], object] | None = None  # called with the menu anchor (x, y)
    icon: str = "music"
    selected: bool = False
    dim: bool = False


def item_row(area: Bounds, top: int, spec: RowSpec, *, handle: Callable[[int, int, int, int], object] | None = None,
             on_swipe: Callable[[int, int, int, int], object] | None = None) -> View:
    """A two-line list item: [drag handle] cover, title / text, "More options" button."""
    left, _, right, _ = area
    bottom = top + ROW_H
    row = View(cls="android.widget.LinearLayout", bounds=(left, top, right, bottom), resource_id=rid("list_item"),
               clickable=spec.on_click is not None,
               on_click=spec.on_click, selected=spec.selected, on_drag=on_swipe,
               style=Style(bg=theme.PRIMARY_CONTAINER if spec.selected else None))
    x = left + 36
    if handle is not None:
        row.add(View(cls="android.widget.ImageView", bounds=(left, top + 32, left + w.TOUCH, top + 32 + w.TOUCH),
                     content_desc="Drag to reorder", resource_id=rid("drag_view"), long_clickable=True,
                     on_drag=handle, style=Style(icon="drag_handle", icon_color=theme.TEXT_SECONDARY, icon_size=60)))
        x = left + w.TOUCH
    row.add(art((x, top + 38, x + 112, top + 150), spec.seed, spec.icon, rid_=rid("image")))
    x += 112 + 40
    end = right - 24
    if spec.on_menu is not None:
        on_menu = spec.on_menu
        btn = (end - w.TOUCH, top + 32, end, top + 32 + w.TOUCH)
        row.add(w.icon_button(btn, w.Action("more_vert", "More options", lambda: on_menu(btn[2] - 12, btn[1] + 24),
                                            rid("menu"))))
        end -= w.TOUCH
    color = theme.TEXT_HINT if spec.dim else theme.TEXT
    row.add(w.label((x, top + 30, end - 12, top + 96), spec.title, size=theme.TEXT_BODY_L, color=color,
                    bold=spec.selected, valign="bottom", rid=rid("title")))
    row.add(w.label((x, top + 100, end - 12, top + 156), spec.text, size=theme.TEXT_LABEL,
                    color=theme.TEXT_HINT if spec.dim else theme.TEXT_SECONDARY, valign="top", rid=rid("text")))
    return row


def clamp_scroll(area: Bounds, count: int, scroll: int, padding: int = 0) -> int:
    """The scroll offset ``scroll_list`` will use for ``count`` rows in ``area``."""
    total = count * ROW_H + padding
    return max(0, min(scroll, max(0, total - (area[3] - area[1]))))


def item_list(area: Bounds, specs: Sequence[RowSpec], scroll: int, set_scroll: Callable[[int], object], *,
              on_move: Callable[[int, int], object] | None = None,
              on_swipe_remove: Callable[[int], object] | None = None, rid_: str = "recycler_view",
              padding: int = 48) -> View:
    """A scrollable list of rows. With ``on_move`` every row has a drag handle: a drag (or swipe) that starts
    on a handle and ends over another row moves the item to that row's index (``on_move(from, to)``); the
    drop index is taken from the list content under the end point, clamped to the list. With
    ``on_swipe_remove`` a sideways swipe across a row removes it; vertical swipes on rows still scroll."""
    eff = clamp_scroll(area, len(specs), scroll, padding)
    max_scroll = clamp_scroll(area, len(specs), 10 ** 9, padding)

    def index_at(y: int) -> int:
        return max(0, min(len(specs) - 1, (y - area[1] + eff) // ROW_H))

    def handle_for(i: int) -> Callable[[int, int, int, int], object] | None:
        if on_move is None:
            return None
        move = on_move
        return lambda x1, y1, x2, y2: move(i, index_at(y2))

    def swipe_for(i: int) -> Callable[[int, int, int, int], object] | None:
        if on_swipe_remove is None:
            return None
        remove = on_swipe_remove

        def swipe(x1: int, y1: int, x2: int, y2: int) -> None:
            dx, dy = x2 - x1, y2 - y1
            if abs(dx) >= SWIPE_REMOVE_PX and abs(dx) > 2 * abs(dy):
                remove(i)
            elif dy and abs(dy) * 2 >= abs(dx) and max_scroll:
                set_scroll(max(0, min(eff - dy, max_scroll)))
        return swipe

    rows = [(ROW_H, lambda top, i=i, s=s: item_row(area, top, s, handle=handle_for(i), on_swipe=swipe_for(i)))
            for i, s in enumerate(specs)]
    return w.scroll_list(area, rows, scroll, set_scroll, rid=rid(rid_), padding_bottom=padding)


def song_spec(song: Song, **kw: object) -> RowSpec:
    """A row for a song: title and artist, cover coloured by album."""
    return RowSpec(song["title"], song["artist"], int(song.get("album_id", 0)), **kw)  # type: ignore[arg-type]


def bottom_nav(frame: Bounds, tab: str, on_select: Callable[[str], object]) -> View:
    """Retro Music's bottom navigation: Songs, Albums, Artists, Playlists."""
    left, _, right, bottom = frame
    top = bottom - NAV_H
    bar = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom),
               resource_id=rid("bottomNavigationView"),
               style=Style(bg=theme.SURFACE))
    width = (right - left) // len(TABS)
    for i, name in enumerate(TABS):
        x0, x1 = left + i * width, (right if i == len(TABS) - 1 else left + (i + 1) * width)
        on = name == tab
        item = View(cls="android.widget.FrameLayout", bounds=(x0, top, x1, bottom), content_desc=TAB_LABELS[name],
                    resource_id=rid(TAB_IDS[name]), clickable=True, selected=on,
                    on_click=lambda name=name: on_select(name))
        cx = (x0 + x1) // 2
        item.add(View(cls="android.widget.ImageView", bounds=(cx - 80, top + 24, cx + 80, top + 108),
                      resource_id=rid("navigation_bar_item_icon_view"),
                      style=Style(bg=theme.mix(ACCENT, (255, 255, 255), 0.75) if on else None, radius=42,
                                  icon=TAB_ICONS[name], icon_size=60,
                                  icon_color=theme.mix(ACCENT, (0, 0, 0), 0.35) if on else theme.TEXT_SECONDARY)))
        item.add(w.label((x0, top + 116, x1, top + 172), TAB_LABELS[name], size=theme.TEXT_SMALL, align="center",
                         bold=on, color=theme.TEXT if on else theme.TEXT_SECONDARY,
                         rid=rid("navigation_bar_item_large_label_view")))
        bar.add(item)
    return bar


def mini_player(bounds: Bounds, song: Song, playing: bool, fraction: float, *, on_open: Callable[[], object],
                on_toggle: Callable[[], object], on_next: Callable[[], object]) -> View:
    """The collapsed player above the navigation: progress line, cover, title / artist, play-pause, next."""
    left, top, right, _ = bounds
    bar = View(cls="android.widget.FrameLayout", bounds=bounds, resource_id=rid("miniPlayerFragment"),
               clickable=True, on_click=on_open, content_desc="Now playing",
               style=Style(bg=theme.mix(theme.SURFACE, ACCENT, 0.06)))
    bar.add(View(cls="android.widget.ProgressBar", bounds=(left, top, right, top + 6), resource_id=rid("progressBar"),
                 style=Style(bg=theme.DIVIDER)))
    bar.add(View(bounds=(left, top, left + int((right - left) * max(0.0, min(1.0, fraction))), top + 6),
                 style=Style(bg=ACCENT)))
    bar.add(art((left + 36, top + 30, left + 144, top + 138), int(song.get("album_id", 0)), rid_=rid("image")))
    end = right - 24 - 2 * w.TOUCH
    bar.add(w.label((left + 180, top + 22, end - 12, top + 86), song["title"], size=theme.TEXT_BODY_L,
                    rid=rid("miniPlayerTitle")))
    bar.add(w.label((left + 180, top + 88, end - 12, top + 144), song["artist"], size=theme.TEXT_LABEL,
                    color=theme.TEXT_SECONDARY, rid=rid("miniPlayerText")))
    y = top + (MINI_H - w.TOUCH) // 2
    bar.add(w.icon_button((end, y, end + w.TOUCH, y + w.TOUCH),
                          w.Action("pause" if playing else "play", "Pause" if playing else "Play", on_toggle,
                                   rid("miniPlayerPlayPauseButton")), color=theme.TEXT))
    bar.add(w.icon_button((end + w.TOUCH, y, end + 2 * w.TOUCH, y + w.TOUCH),
                          w.Action("skip_next", "Next", on_next, rid("actionNext")), color=theme.TEXT, size=52))
    return bar
