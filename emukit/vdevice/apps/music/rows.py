"""Building blocks of Retro Music's screens, shaped like the real layouts: the toolbar (MaterialToolbar with
an ActionMenuView), the list rows ``item_list`` (Songs), the cards ``item_grid`` (Playlists, Albums, Artists),
the rows ``item_queue`` (playlist detail, playing queue), the RecyclerView that holds them (a grid with
columns, drag-to-reorder, swipe-away), the bottom navigation, the mini player and the empty view.

Sizes are Material's dp (``theme.dp``) so the same layout fits any display; ids, texts and content-descs come
from the selector table ``T``. Classes are what a uiautomator dump of the real widgets reports (their
accessibility class names): MaterialTextView ``android.widget.TextView``, AppCompatImageView
``android.widget.ImageView``, ConstraintLayout ``android.view.ViewGroup``, MaterialCardView
``androidx.cardview.widget.CardView`` (MaterialCardView.java:191), MaterialToolbar ``android.view.ViewGroup``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from emukit.vdevice.apps.music.const import TAB_ENTRY, TABS, T, songs_label
from emukit.vdevice.apps.music.store import Song
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import dp
from emukit.vdevice.ui.view import Bounds, Color, Style, View

TOOLBAR_H = dp(64)  # ?actionBarSize of Material 3
NAV_BAR_H = dp(80)  # @dimen/bottom_nav_height (values/dimens.xml:15)
MINI_H = dp(56)  # @dimen/mini_player_height (values/dimens.xml:14)
LIST_ROW_H = dp(64)  # item_list / item_queue minHeight ?attr/listPreferredItemHeight
GRID_COLUMNS = 2  # integers.xml default_grid_columns: PreferenceUtil.playlistGridSize / albumGridSize
ACCENT: Color = (234, 82, 111)  # Retro Music's default accent (pink)
ART_COLORS: tuple[Color, ...] = ((92, 107, 192), (38, 166, 154), (239, 108, 0), (171, 71, 188), (66, 165, 245),
                                 (124, 179, 66), (236, 64, 122), (141, 110, 99))
SWIPE_REMOVE_DP = 110  # a sideways swipe this long removes a queue row (RecyclerViewSwipeManager)

TEXT = "android.widget.TextView"
IMAGE = "android.widget.ImageView"
GROUP = "android.view.ViewGroup"
CARD = "androidx.cardview.widget.CardView"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"

TAB_ICONS = {"home": "home", "songs": "music", "albums": "music.album", "artists": "music.artist",
             "playlists": "music.playlist"}


def art_color(seed: int) -> Color:
    """The placeholder cover colour of an album (deterministic per id)."""
    return ART_COLORS[seed % len(ART_COLORS)]


def art(bounds: Bounds, seed: int, icon: str = "music", radius: int | None = None) -> View:
    """A cover image (``@id/image``): a coloured tile with a white glyph, as the app's default art."""
    size = min(bounds[2] - bounds[0], bounds[3] - bounds[1])
    return View(cls=IMAGE, bounds=bounds, resource_id=T.rid("row_image"),
                style=Style(bg=art_color(seed), radius=dp(8) if radius is None else radius, icon=icon,
                            icon_color=(255, 255, 255), icon_size=max(dp(10), size * 45 // 100)))


def card(bounds: Bounds, rid: str, child: View) -> View:
    """A MaterialCardView (``imageContainer`` / ``imageTextContainer``) around one child."""
    return View(cls=CARD, bounds=bounds, resource_id=rid).add(child)


def text_view(bounds: Bounds, text: str, entry: str, *, size: int = theme.TEXT_BODY_L, color: Color = theme.TEXT,
              bold: bool = False, align: str = "left", valign: str = "center") -> View:
    """A TextView with the id of the table entry ``entry``."""
    view = w.label(bounds, text, size=size, color=color, bold=bold, align=align, valign=valign, rid=T.rid(entry))
    view.cls = TEXT
    return view


# ---------------------------------------------------------------------------------------------- toolbar
@dataclass
class MenuAction:
    """An item of a toolbar's ActionMenuView shown as an icon (showAsAction always)."""

    entry: str  # the table entry: resource id + content-desc
    icon: str
    on_click: Callable[[], object]


def toolbar(bounds: Bounds, title: str = "", *, rid: str, nav: tuple[str, Callable[[], object]] | None = None,
            centered: bool = False, subtitle: str = "", actions: Sequence[MenuAction] = (),
            overflow: Callable[[int, int], object] | None = None, bg: Color | None = None) -> View:
    """A MaterialToolbar: navigation icon, title (and subtitle), then its ActionMenuView on the right with the
    icon-only items (ActionMenuItemView: the item's id, content-desc = its title) and the overflow button
    (content-desc "More options"); ``overflow(x, y)`` opens the overflow menu under it."""
    left, top, right, bottom = bounds
    bar = View(cls=GROUP, bounds=bounds, resource_id=rid, style=Style(bg=bg))
    touch = w.TOUCH
    y0 = top + (bottom - top - touch) // 2
    x = left + dp(16)
    if nav is not None:
        icon, on_nav = nav
        bar.add(View(cls="android.widget.ImageButton", bounds=(left + dp(4), y0, left + dp(4) + touch, y0 + touch),
                     clickable=True, on_click=on_nav,
                     style=Style(icon=icon, icon_color=theme.TEXT, icon_size=dp(24))))
        x = left + dp(4) + touch + dp(12)
    items: list[View] = []
    end = right - dp(4)
    if overflow is not None:
        on_overflow = overflow
        box = (end - touch, y0, end, y0 + touch)
        items.append(View(cls=IMAGE, bounds=box, content_desc=T.desc("more_options"), clickable=True,
                          on_click=lambda: on_overflow(box[2] - dp(4), box[1]),
                          style=Style(icon="more_vert", icon_color=theme.TEXT, icon_size=dp(24))))
        end -= touch
    for action in reversed(list(actions)):
        items.insert(0, View(cls=TEXT, bounds=(end - touch, y0, end, y0 + touch), resource_id=T.rid(action.entry),
                             content_desc=T.desc(action.entry), clickable=True, on_click=action.on_click,
                             style=Style(icon=action.icon, icon_color=theme.TEXT, icon_size=dp(24))))
        end -= touch
    if title:
        size = theme.TEXT_TITLE if not subtitle else theme.TEXT_BODY_L
        if centered:
            span = max(right - end, x - left)
            title_box = (left + span, top, right - span, bottom)
            bar.add(View(cls=TEXT, bounds=title_box, text=title,
                         style=Style(fg=theme.TEXT, font_size=size, align="center")))
        elif subtitle:
            mid = (top + bottom) // 2
            bar.add(View(cls=TEXT, bounds=(x, top + dp(8), end, mid + dp(2)), text=title,
                         style=Style(fg=theme.TEXT, font_size=size, valign="bottom")))
            bar.add(View(cls=TEXT, bounds=(x, mid + dp(2), end, bottom - dp(8)), text=subtitle,
                         style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_SMALL, valign="top")))
        else:
            bar.add(View(cls=TEXT, bounds=(x, top, end, bottom), text=title,
                         style=Style(fg=theme.TEXT, font_size=size)))
    if items:
        menu_view = View(cls="androidx.appcompat.widget.LinearLayoutCompat",
                         bounds=(items[0].bounds[0], y0, right - dp(4), y0 + touch))
        menu_view.add(*items)
        bar.add(menu_view)
    return bar


# ---------------------------------------------------------------------------------------------- rows
@dataclass
class RowSpec:
    """What one row or card of a list shows and does."""

    title: str
    text: str
    seed: int
    on_click: Callable[[], object] | None = None
    on_menu: Callable[[int, int], object] | None = None  # called with the menu button's top-right corner
    icon: str = "music"
    dim: bool = False  # played songs in the queue (alpha 0.5)
    extra: dict[str, Any] = field(default_factory=dict)


def _menu_button(box: Bounds, on_menu: Callable[[int, int], object] | None, alpha: bool = False) -> View:
    """The row's ``@id/menu`` (style OverFlowButton: 48 dp, no content-desc)."""
    return View(cls=IMAGE, bounds=box, resource_id=T.rid("row_menu"), clickable=on_menu is not None,
                on_click=(lambda: on_menu(box[2], box[1])) if on_menu is not None else None,
                style=Style(icon="more_vert", icon_color=theme.TEXT_HINT if alpha else theme.TEXT_SECONDARY,
                            icon_size=dp(24)))


def _two_lines(x: int, top: int, end: int, bottom: int, spec: RowSpec) -> list[View]:
    """``@id/title`` over ``@id/text`` (paddingHorizontal 16dp, a packed vertical chain)."""
    mid = (top + bottom) // 2
    hint = spec.dim
    return [text_view((x, mid - dp(22), end, mid + dp(1)), spec.title, "row_title", size=theme.TEXT_BODY_L,
                      color=theme.TEXT_HINT if hint else theme.TEXT, valign="bottom"),
            text_view((x, mid + dp(3), end, mid + dp(22)), spec.text, "row_text", size=theme.TEXT_LABEL,
                      color=theme.TEXT_HINT if hint else theme.TEXT_SECONDARY, valign="top")]


def list_item(left: int, top: int, right: int, spec: RowSpec) -> View:
    """``item_list``: cover, title / text and the menu button; ``drag_view`` is gone (item_list.xml:22)."""
    x0, x1 = left + dp(1), right - dp(1)
    y0, y1 = top + dp(2), top + dp(2) + LIST_ROW_H
    row = View(cls=GROUP, bounds=(x0, y0, x1, y1), clickable=spec.on_click is not None, on_click=spec.on_click)
    size = dp(45)
    iy = (y0 + y1 - size) // 2
    img = (x0 + dp(16), iy, x0 + dp(16) + size, iy + size)
    row.add(card(img, T.rid("row_image_frame"), art(img, spec.seed, spec.icon)))
    menu_box = (x1 - w.TOUCH, (y0 + y1 - w.TOUCH) // 2, x1, (y0 + y1 + w.TOUCH) // 2)
    row.add(*_two_lines(img[2] + dp(16), y0, menu_box[0] - dp(16), y1, spec))
    row.add(_menu_button(menu_box, spec.on_menu))
    return row


def list_item_height() -> int:
    """One ``item_list`` row with its vertical margins."""
    return LIST_ROW_H + 2 * dp(2)


def grid_card(left: int, top: int, right: int, spec: RowSpec) -> View:
    """``item_grid``: a square cover, then the title container (title, text) with the menu button on its
    right, all inside the card (margin 2dp, padding 4dp)."""
    x0, x1 = left + dp(2), right - dp(2)
    y0 = top + dp(2)
    inner = (x0 + dp(4), x1 - dp(4))
    side = inner[1] - inner[0]
    img = (inner[0], y0 + dp(4), inner[1], y0 + dp(4) + side)
    ty0 = img[3]
    ty1 = ty0 + grid_caption_height()
    node = View(cls=GROUP, bounds=(x0, y0, x1, ty1 + dp(4)), clickable=spec.on_click is not None,
                on_click=spec.on_click)
    node.add(card(img, T.rid("row_image_card"),
                  art(img, spec.seed, spec.icon, radius=dp(12))))
    menu_box = (inner[1] - w.TOUCH, (ty0 + ty1 - w.TOUCH) // 2, inner[1], (ty0 + ty1 + w.TOUCH) // 2)
    caption = View(cls="android.widget.LinearLayout", bounds=(inner[0], ty0, menu_box[0], ty1),
                   resource_id=T.rid("card_caption"))
    cx0, cx1 = inner[0] + dp(12), menu_box[0] - dp(12)
    caption.add(text_view((cx0, ty0 + dp(12), cx1, ty0 + dp(36)), spec.title, "row_title", size=theme.TEXT_BODY_L,
                          bold=True),
                text_view((cx0, ty0 + dp(40), cx1, ty0 + dp(60)), spec.text, "row_text", size=theme.TEXT_LABEL,
                          color=theme.TEXT_SECONDARY))
    node.add(caption, _menu_button(menu_box, spec.on_menu))
    return node


def grid_caption_height() -> int:
    """The title container of a card: 12dp padding, a title line, 4dp, a text line, 12dp."""
    return dp(72)


def grid_card_height(width: int) -> int:
    """The height of an ``item_grid`` card in a column ``width`` px wide (the cover is square)."""
    return dp(2) + dp(4) + (width - 2 * dp(2) - 2 * dp(4)) + grid_caption_height() + dp(4) + dp(2)


def queue_item(left: int, top: int, right: int, spec: RowSpec,
               handle: Callable[[int, int, int, int], object] | None,
               on_swipe: Callable[[int, int, int, int], object] | None = None) -> View:
    """``item_queue``: FrameLayout > ``dummy_view`` > row with ``drag_view`` (shown by the playlist and queue
    adapters), cover, title / text and the menu button."""
    y1 = top + LIST_ROW_H
    outer = View(cls="android.widget.FrameLayout", bounds=(left, top, right, y1 + dp(1)),
                 clickable=spec.on_click is not None, on_click=spec.on_click, on_drag=on_swipe)
    dummy = View(cls="android.widget.FrameLayout", bounds=(left, top, right, y1 + dp(1)),
                 resource_id=T.rid("queue_row_frame"))
    row = View(cls=GROUP, bounds=(left + dp(1), top, right - dp(1), y1))
    hx1 = left + dp(1) + dp(40)
    row.add(View(cls=IMAGE, bounds=(left + dp(1), top, hx1, y1), resource_id=T.rid("row_drag_handle"),
                 on_drag=handle, style=Style(icon="drag_handle", icon_color=theme.TEXT_HINT if spec.dim
                                             else theme.TEXT_SECONDARY, icon_size=dp(24))))
    size = dp(40)
    iy = (top + y1 - size) // 2
    img = (hx1, iy, hx1 + size, iy + size)
    row.add(card(img, T.rid("row_image_card"),
                 art(img, spec.seed, spec.icon, radius=dp(4))))
    menu_box = (right - dp(1) - w.TOUCH, (top + y1 - w.TOUCH) // 2, right - dp(1), (top + y1 + w.TOUCH) // 2)
    row.add(*_two_lines(img[2] + dp(16), top, menu_box[0] - dp(16), y1, spec))
    row.add(_menu_button(menu_box, spec.on_menu, alpha=spec.dim))
    dummy.add(row)
    outer.add(dummy)
    return outer


def queue_item_height() -> int:
    """One ``item_queue`` row (64dp and its 1dp bottom margin)."""
    return LIST_ROW_H + dp(1)


# ---------------------------------------------------------------------------------------------- lists
@dataclass
class ListModel:
    """A RecyclerView's content: item heights (a grid: per row of ``columns`` items) and its scroll range."""

    area: Bounds
    count: int
    item_h: int
    columns: int = 1
    padding_bottom: int = 0

    @property
    def rows(self) -> int:
        return -(-self.count // self.columns)

    @property
    def max_scroll(self) -> int:
        return max(0, self.rows * self.item_h + self.padding_bottom - (self.area[3] - self.area[1]))

    def clamp(self, scroll: int) -> int:
        return max(0, min(scroll, self.max_scroll))

    def index_at(self, y: int, scroll: int) -> int:
        """The item (single column) under screen y, clamped to the list."""
        return max(0, min(self.count - 1, (y - self.area[1] + self.clamp(scroll)) // self.item_h))


def recycler(model: ListModel, build: Callable[[int, int, int, int], View], scroll: int,
             set_scroll: Callable[[int], object], *, rid: str,
             on_scrolled: Callable[[int], object] | None = None) -> View:
    """A RecyclerView over ``model.area``: only the items that show are children (a RecyclerView lays out
    no more), each built by ``build(index, left, top, right)``; a vertical swipe scrolls it (``on_scrolled``
    gets the direction: positive when the content moved up)."""
    left, top, right, bottom = model.area
    eff = model.clamp(scroll)

    def on_scroll(dy: int) -> None:
        new = model.clamp(eff + dy)
        if new != eff:
            set_scroll(new)
            if on_scrolled is not None:
                on_scrolled(new - eff)

    view = View(cls=RECYCLER, bounds=model.area, resource_id=rid, scrollable=model.max_scroll > 0,
                on_scroll=on_scroll if model.max_scroll > 0 else None)
    width = (right - left) // model.columns
    for i in range(model.count):
        row, col = divmod(i, model.columns)
        y = top - eff + row * model.item_h
        if y + model.item_h <= top or y >= bottom:
            continue
        x0 = left + col * width
        x1 = right if col == model.columns - 1 else x0 + width
        view.add(build(i, x0, y, x1))
    return view


def ordered_list(model: ListModel, specs: Sequence[RowSpec], scroll: int, set_scroll: Callable[[int], object], *,
                 rid: str, on_move: Callable[[int, int], object] | None,
                 on_swipe_remove: Callable[[int], object] | None = None) -> View:
    """A list of ``item_queue`` rows. A drag (or ``input swipe``) that starts on a row's handle and ends over
    another row moves the item to that row's index (``on_move(from, to)``), the drop index read from the
    content under the end point; with ``on_swipe_remove`` a sideways swipe across a row removes it, while a
    vertical one still scrolls."""
    eff = model.clamp(scroll)

    def handle_for(i: int) -> Callable[[int, int, int, int], object] | None:
        if on_move is None:
            return None
        move = on_move
        return lambda x1, y1, x2, y2: move(i, model.index_at(y2, eff))

    def swipe_for(i: int) -> Callable[[int, int, int, int], object] | None:
        if on_swipe_remove is None:
            return None
        remove = on_swipe_remove

        def swipe(x1: int, y1: int, x2: int, y2: int) -> None:
            dx, dy = x2 - x1, y2 - y1
            if abs(dx) >= dp(SWIPE_REMOVE_DP) and abs(dx) > 2 * abs(dy):
                remove(i)
            elif dy and abs(dy) * 2 >= abs(dx):
                set_scroll(model.clamp(eff - dy))
        return swipe

    return recycler(model, lambda i, x0, y, x1: queue_item(x0, y, x1, specs[i], handle_for(i), swipe_for(i)),
                    scroll, set_scroll, rid=rid)


def song_spec(song: Song, **kw: Any) -> RowSpec:
    """A song row: title and artist (SongAdapter.getSongText), cover coloured by album."""
    return RowSpec(song["title"], song["artist"], int(song.get("album_id", 0)), **kw)


def playlist_text(songs: Sequence[Song]) -> str:
    """MusicUtil.getPlaylistInfoString: ``N Songs  •  mm:ss``."""
    from emukit.vdevice.apps.music.const import fmt_duration, info_string

    return info_string(songs_label(len(songs)), fmt_duration(sum(int(s.get("duration", 0)) for s in songs)))


def empty_view(area: Bounds, entry: str) -> View:
    """``@android:id/empty``: the emoji over the message, centred in ``area``."""
    cx, cy = (area[0] + area[2]) // 2, (area[1] + area[3]) // 2
    half = min((area[2] - area[0]) // 2 - dp(16), dp(160))
    box = View(cls="android.widget.LinearLayout", bounds=(cx - half, cy - dp(72), cx + half, cy + dp(40)),
               resource_id=T.rid("empty"))
    box.add(text_view((cx - dp(40), cy - dp(72), cx + dp(40), cy - dp(16)), T.text("empty_emoji"), "empty_emoji",
                      size=theme.TEXT_TITLE_L, align="center"))
    box.add(text_view((cx - half, cy, cx + half, cy + dp(40)), T.text(entry), "empty_text",
                      color=theme.TEXT_SECONDARY, align="center"))
    return box


# ---------------------------------------------------------------------------------------------- bottom bars
def bottom_nav(frame: Bounds, tab: str, on_select: Callable[[str], object]) -> View:
    """The bottom navigation (TintedBottomNavigationView ``navigationView``): For you, Songs, Albums, Artists,
    Playlists; only the selected item shows its label (five items: labels of the selected one)."""
    left, _, right, bottom = frame
    top = bottom - NAV_BAR_H
    bar = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom), resource_id=T.rid("bottom_nav"),
               style=Style(bg=theme.SURFACE))
    menu_view = View(cls=GROUP, bounds=(left, top, right, bottom))
    width = (right - left) // len(TABS)
    for i, name in enumerate(TABS):
        x0, x1 = left + i * width, (right if i == len(TABS) - 1 else left + (i + 1) * width)
        on = name == tab
        entry = TAB_ENTRY[name]
        # the selected item reports clickable=false (NavigationBarItemView.onInitializeAccessibilityNodeInfo)
        # but still takes a tap: the reselection
        item = View(cls="android.widget.FrameLayout", bounds=(x0, top, x1, bottom), content_desc=T.desc(entry),
                    resource_id=T.rid(entry), clickable=not on, selected=on, on_click=lambda name=name: on_select(name))
        cx = (x0 + x1) // 2
        item.add(View(cls=IMAGE, bounds=(cx - dp(32), top + dp(12), cx + dp(32), top + dp(44)),
                      style=Style(bg=theme.mix(ACCENT, (255, 255, 255), 0.75) if on else None, radius=dp(16),
                                  icon=TAB_ICONS[name], icon_size=dp(24),
                                  icon_color=theme.mix(ACCENT, (0, 0, 0), 0.35) if on else theme.TEXT_SECONDARY)))
        if on:
            item.add(View(cls=TEXT, bounds=(x0, top + dp(48), x1, top + dp(68)), text=T.desc(entry),
                          style=Style(fg=theme.TEXT, font_size=theme.TEXT_SMALL, align="center", bold=True)))
        menu_view.add(item)
    bar.add(menu_view)
    return bar


def mini_player(bounds: Bounds, song: Song, playing: bool, *, on_open: Callable[[], object],
                on_toggle: Callable[[], object]) -> View:
    """``fragment_mini_player`` (root id ``miniPlayerFragment``): cover, ``miniPlayerTitle`` ("title • artist"),
    the round progress with the play / pause button; a tap elsewhere on it opens Now playing."""
    left, top, right, bottom = bounds
    bar = View(cls="android.widget.LinearLayout", bounds=bounds, resource_id=T.rid("mini_player"), clickable=True,
               on_click=on_open, style=Style(bg=theme.mix(theme.SURFACE, ACCENT, 0.06)))
    size = dp(40)
    iy = (top + bottom - size) // 2
    img = (left + dp(16), iy, left + dp(16) + size, iy + size)
    bar.add(card(img, T.rid("row_image_frame"),
                 art(img, int(song.get("album_id", 0)), radius=dp(6))))
    pp = (right - dp(48), iy - dp(4), right, iy + size + dp(4))
    title = text_view((img[2] + dp(16), top, pp[0] - dp(8), bottom),
                      T.text("mini_player_line", title=song["title"], artist=song["artist"]), "mini_player_title")
    bar.add(title)
    holder = View(cls="android.widget.FrameLayout", bounds=pp)
    ring = View(cls=T.cls("mini_player_progress"), bounds=pp, resource_id=T.rid("mini_player_progress"),
                style=Style(border=theme.mix(ACCENT, (255, 255, 255), 0.6), border_width=dp(3), radius=dp(24)))
    button = View(cls=IMAGE, bounds=(pp[0] + dp(4), iy, pp[2] - dp(4), iy + size),
                  resource_id=T.rid("mini_player_play_pause"), clickable=True, on_click=on_toggle,
                  style=Style(icon="pause" if playing else "play", icon_color=theme.TEXT, icon_size=dp(24)))
    holder.add(ring, button)
    bar.add(holder)
    return bar
