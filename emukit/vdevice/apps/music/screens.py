"""The destinations of the navigation host: the library tabs (For you, Songs, Albums, Artists, Playlists) and
the playlist, album and artist detail screens.

The Songs, Albums, Artists and Playlists tabs are ``fragment_main_recycler``: a toolbar (title centred,
search icon, overflow), the RecyclerView ``recycler_view`` reaching down to the bottom navigation with a
bottom padding of the mini player's height (so the mini player, drawn over the list, never hides the last
row for good), the empty view and the shuffle button. Songs shows ``item_list`` rows; Playlists, Albums and
Artists show ``item_grid`` cards in two columns. The playlist detail is ``fragment_playlist_detail_new``: a
collapsing header (cover, the name in ``@id/title``, ``@id/subtitle``, play and shuffle buttons) under a
pinned toolbar, then ``recyclerView`` with ``item_queue`` rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import library, playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import TAB_ENTRY, T, songs_label
from emukit.vdevice.apps.music.rows import (
    GRID_COLUMNS,
    GROUP,
    MINI_H,
    NAV_BAR_H,
    TOOLBAR_H,
    ListModel,
    RowSpec,
    art,
    empty_view,
    grid_card,
    grid_card_height,
    list_item,
    list_item_height,
    ordered_list,
    playlist_text,
    queue_item_height,
    recycler,
    song_spec,
    text_view,
    toolbar,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import dp
from emukit.vdevice.ui.view import Bounds, Style, View

FAB_SIZE = dp(56)


def content_area(ui: Ui) -> Bounds:
    """The navigation host's area: the whole frame (the bottom navigation and the panel are drawn over it)."""
    return ui.frame


def library_screen(ui: Ui, root: View) -> None:
    """The selected bottom navigation destination."""
    tab = ui.state.get("tab", "songs")
    if tab not in TAB_ENTRY:
        tab = "songs"
    builders: dict[str, Callable[[Ui, View, str], None]] = {
        "home": home_tab, "songs": songs_tab, "albums": group_tab, "artists": group_tab, "playlists": playlists_tab}
    builders[tab](ui, root, tab)


def _fab_margin(ui: Ui) -> int:
    """LibraryViewModel.setFabMargin: 16dp over the bottom navigation, and over the mini player when something
    is queued (AbsSlidingMusicPanelActivity.hideBottomSheet)."""
    return dp(16) + NAV_BAR_H + (MINI_H if playback.current(ui.device) is not None else 0)


def _main_recycler(ui: Ui, root: View, tab: str, *, count: int, item_h: int, columns: int,
                   build: Callable[[int, int, int, int], View], empty_entry: str, shuffle: bool) -> None:
    """``fragment_main_recycler`` for ``tab``: toolbar, list (or the empty view), the shuffle button."""
    left, top, right, bottom = content_area(ui)
    scrolls = ui.top.setdefault("scrolls", {})
    root.add(toolbar((left, top, right, top + TOOLBAR_H), T.desc(TAB_ENTRY[tab]), rid=T.rid("library_toolbar"),
                     nav=("search", lambda: None), centered=True,
                     overflow=lambda x, y: ui.open_menu("library", x, y, tab=tab)))
    area = (left, top + TOOLBAR_H, right, bottom - NAV_BAR_H)
    if count == 0:
        root.add(empty_view(area, empty_entry))
    else:
        model = ListModel(area, count, item_h, columns, padding_bottom=MINI_H)

        def scrolled(dy: int) -> None:
            scrolls["fab_hidden"] = dy > 0  # AbsRecyclerViewFragment: hide on scroll down, show on scroll up

        root.add(recycler(model, build, int(scrolls.get(tab, 0)), lambda v: scrolls.update({tab: v}),
                          rid=T.rid("songs_list"), on_scrolled=scrolled))
    if shuffle and not scrolls.get("fab_hidden"):
        y1 = bottom - _fab_margin(ui)
        box = (right - dp(16) - FAB_SIZE, y1 - FAB_SIZE, right - dp(16), y1)
        songs = library.songs(ui.device)
        root.add(View(cls="android.widget.ImageButton", bounds=box, resource_id=T.rid("shuffle_fab"),
                      content_desc=T.desc("shuffle_fab"), clickable=True, on_click=lambda: a.shuffle_all(ui, songs),
                      style=Style(bg=theme.PRIMARY_CONTAINER, radius=dp(16), elevation=8, icon="music.shuffle",
                                  icon_color=theme.ON_PRIMARY_CONTAINER, icon_size=dp(24))))


def songs_tab(ui: Ui, root: View, tab: str) -> None:
    """SongsFragment: one ``item_list`` row per song (title A-Z); a tap plays from that song."""
    songs = library.songs(ui.device)

    def build(i: int, x0: int, y: int, x1: int) -> View:
        s = songs[i]
        spec = song_spec(s, on_click=lambda: a.play_list(ui, library.songs(ui.device), i),
                         on_menu=lambda x, yy: ui.open_menu("song", x, yy, song=s, index=i, source={"kind": "songs"}))
        return list_item(x0, y, x1, spec)

    _main_recycler(ui, root, tab, count=len(songs), item_h=list_item_height(), columns=1, build=build,
                   empty_entry="no_songs", shuffle=True)


def _card_h(ui: Ui) -> int:
    width = (ui.frame[2] - ui.frame[0]) // GRID_COLUMNS
    return grid_card_height(width)


def playlists_tab(ui: Ui, root: View, tab: str) -> None:
    """PlaylistsFragment: a two-column grid of ``item_grid`` cards (name, "N Songs  •  mm:ss", menu); a tap
    opens the playlist; the overflow menu has "New playlist"."""
    lists = pl.playlists(ui.device)

    def build(i: int, x0: int, y: int, x1: int) -> View:
        p = lists[i]
        spec = RowSpec(p["name"], playlist_text(p["songs"]), p["id"], icon="music.playlist",
                       on_click=lambda: open_playlist(ui, p["id"]),
                       on_menu=lambda x, yy: ui.open_menu("playlist", x, yy, pid=p["id"]))
        return grid_card(x0, y, x1, spec)

    _main_recycler(ui, root, tab, count=len(lists), item_h=_card_h(ui), columns=GRID_COLUMNS, build=build,
                   empty_entry="no_playlists", shuffle=False)


def group_tab(ui: Ui, root: View, tab: str) -> None:
    """AlbumsFragment / ArtistsFragment: two-column cards; a tap opens the album or artist."""
    albums = tab == "albums"
    groups = library.albums(ui.device) if albums else library.artists(ui.device)
    kind = "album" if albums else "artist"

    def build(i: int, x0: int, y: int, x1: int) -> View:
        g = groups[i]
        text = g["artist"] if albums else songs_label(len(g["songs"]))
        spec = RowSpec(g["name"], text, g["id"], icon="music.album" if albums else "music.artist",
                       on_click=lambda: ui.push(kind, id=g["id"]),
                       on_menu=lambda x, yy: ui.open_menu("group", x, yy, source={"kind": kind, "id": g["id"]}))
        return grid_card(x0, y, x1, spec)

    _main_recycler(ui, root, tab, count=len(groups), item_h=_card_h(ui), columns=GRID_COLUMNS, build=build,
                   empty_entry="no_albums" if albums else "no_artists", shuffle=False)


def home_tab(ui: Ui, root: View, tab: str) -> None:
    """HomeFragment ("For you"): the app's name in the toolbar, then the History / Last added / Most played /
    Shuffle buttons (abs_playlists.xml); the suggestion sections stay empty without a listening history."""
    left, top, right, _ = content_area(ui)
    root.add(toolbar((left, top, right, top + TOOLBAR_H), T.text("app_name"), rid=T.rid("library_toolbar"),
                     nav=("search", lambda: None), centered=True))
    songs = library.songs(ui.device)
    y = top + TOOLBAR_H + dp(16)
    half = (right - left - 3 * dp(16)) // 2
    cells = (("home_history", left + dp(16), y), ("home_last_added", left + 2 * dp(16) + half, y),
             ("home_top_played", left + dp(16), y + dp(56)), ("home_shuffle", left + 2 * dp(16) + half, y + dp(56)))
    for entry, x, yy in cells:
        act = (lambda: a.shuffle_all(ui, songs)) if entry == "home_shuffle" else (lambda: None)
        root.add(w.button((x, yy, x + half, yy + dp(48)), T.text(entry), act, kind="tonal", rid=T.rid(entry)))


# ---------------------------------------------------------------------------------------------- details
def open_playlist(ui: Ui, pid: int) -> None:
    """PlaylistsFragment.onPlaylistClick: the detail screen, its adapter filled with the playlist's songs."""
    playlist = pl.get(ui.device, pid)
    if playlist is not None:
        ui.push("playlist", id=pid, rows=[dict(s) for s in playlist["songs"]], known=len(playlist["songs"]))


def sync_detail(ui: Ui, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The detail adapter's rows after the database changed: the songs LiveData swaps a non-empty list in and
    leaves the last rows when it turns empty (PlaylistDetailsFragment.songs, lines 172-179)."""
    playlist = pl.get(ui.device, int(entry.get("id", 0)))
    songs = list(playlist["songs"]) if playlist is not None else []
    db_ids = [s["id"] for s in songs]
    if db_ids != entry.get("db_ids"):  # a change the LiveData delivers (not the adapter's own reorder)
        entry["db_ids"] = db_ids
        if songs:
            entry["rows"] = [dict(s) for s in songs]
    return list(entry.get("rows", []))


HEADER_COLUMN = dp(44 + 16 + 20 + 16 + 56)  # title (textAppearanceDisplaySmall), subtitle, play / shuffle row


def detail_header_height(ui: Ui) -> int:
    """The expanded collapsing header: the toolbar's height of top padding, then the taller of the cover
    (0.4 of the width inside 16dp margins, square) and the title / subtitle / buttons column, and 16dp."""
    inner = ui.frame[2] - ui.frame[0] - 2 * dp(16)
    return TOOLBAR_H + max(int((inner - dp(16)) * 0.4), HEADER_COLUMN) + dp(16)


def playlist_screen(ui: Ui, root: View) -> None:
    """The playlist's songs in order (``item_queue`` rows with drag handles; a drag reorders the adapter only,
    saved when the screen is left)."""
    entry = ui.top
    pid = int(entry.get("id", 0))
    playlist = pl.get(ui.device, pid) or {"name": "", "songs": []}
    rows = sync_detail(ui, entry)
    left, top, right, bottom = ui.frame
    header_h = detail_header_height(ui)
    max_collapse = header_h - TOOLBAR_H
    row_h = queue_item_height()
    collapsed_area = (left, top + TOOLBAR_H, right, bottom)
    model_c = ListModel(collapsed_area, len(rows), row_h, padding_bottom=MINI_H)
    total = max_collapse + model_c.max_scroll
    scroll = max(0, min(int(entry.get("scroll", 0)), total))
    collapse = min(scroll, max_collapse)

    container = View(cls=GROUP, bounds=ui.frame, resource_id=T.rid("playlist_container"))
    bar_bottom = top + header_h - collapse
    appbar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, bar_bottom))
    collapsing = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bar_bottom),
                      resource_id=T.rid("playlist_collapsing_bar"))
    header = View(cls=GROUP, bounds=(left, top - collapse, right, top + header_h - collapse))
    inner = right - left - 2 * dp(16)
    side = int((inner - dp(16)) * 0.4)
    hy = top - collapse + TOOLBAR_H
    img = (left + dp(16), hy, left + dp(16) + side, hy + side)
    cover = art(img, pid, "music.playlist", radius=dp(28))
    header.add(cover)
    tx = img[2] + dp(16)
    header.add(text_view((tx, hy, right - dp(16), hy + dp(44)), playlist["name"], "playlist_header_title",
                         size=theme.TEXT_TITLE_L))
    header.add(text_view((tx, hy + dp(60), right - dp(16), hy + dp(80)), playlist_text(playlist["songs"]),
                         "playlist_header_subtitle", size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY))
    by = hy + dp(96)
    bw = (right - dp(16) - tx - dp(16)) // 2
    songs_now = list(rows)
    header.add(View(cls=T.cls("playlist_play_button"), bounds=(tx, by, tx + bw, by + dp(56)),
                    resource_id=T.rid("playlist_play_button"), clickable=True,
                    on_click=lambda: a.play_list(ui, songs_now, 0),
                    style=Style(bg=theme.PRIMARY_CONTAINER, radius=dp(28), icon="play",
                                icon_color=theme.ON_PRIMARY_CONTAINER, icon_size=dp(24))))
    header.add(View(cls=T.cls("playlist_shuffle_button"), bounds=(tx + bw + dp(16), by, tx + 2 * bw + dp(16),
                                                                  by + dp(56)),
                    resource_id=T.rid("playlist_shuffle_button"), clickable=True,
                    on_click=lambda: a.shuffle_all(ui, songs_now),
                    style=Style(bg=theme.SURFACE_VARIANT, radius=dp(28), icon="music.shuffle",
                                icon_color=theme.TEXT, icon_size=dp(24))))
    collapsing.add(header)
    collapsing.add(toolbar((left, top, right, top + TOOLBAR_H), rid=T.rid("playlist_toolbar"),
                           nav=("arrow_back", lambda: a.leave(ui)),
                           overflow=lambda x, y: ui.open_menu("playlist", x, y, pid=pid),
                           bg=theme.BACKGROUND if collapse >= max_collapse else None))
    appbar.add(collapsing)
    container.add(appbar)
    area = (left, bar_bottom, right, bottom)
    if rows:
        def set_scroll(value: int) -> None:
            entry["scroll"] = value

        def scroll_by(dy: int) -> None:
            set_scroll(max(0, min(scroll + dy, total)))

        def move(frm: int, to: int) -> None:
            current = list(entry.get("rows", []))
            if 0 <= frm < len(current) and 0 <= to < len(current) and frm != to:
                current.insert(to, current.pop(frm))  # OrderablePlaylistSongAdapter.onMoveItem
                entry["rows"] = current

        model = ListModel(area, len(rows), row_h, padding_bottom=MINI_H)
        specs = [song_spec(s, on_click=lambda i=i: a.play_list(ui, list(entry.get("rows", [])), i),
                           on_menu=lambda x, y, s=s: ui.open_menu("pl_song", x, y, song=s, pid=pid))
                 for i, s in enumerate(rows)]
        listing = ordered_list(model, specs, scroll - collapse, lambda v: set_scroll(collapse + v),
                               rid=T.rid("playlist_detail_list"), on_move=move)
        listing.on_scroll = scroll_by if total > 0 else None
        listing.scrollable = total > 0
        listing.resource_id = T.rid("playlist_detail_list")
        container.add(listing)
    if not playlist["songs"]:
        container.add(empty_view(area, "no_songs"))
    root.add(container)


def group_screen(ui: Ui, root: View) -> None:
    """An album's or an artist's songs (``item_list`` rows under a toolbar)."""
    entry = ui.top
    kind = entry["s"]
    groups = library.albums(ui.device) if kind == "album" else library.artists(ui.device)
    group = next((g for g in groups if g["id"] == entry.get("id")), None)
    if group is None:
        return
    songs = group["songs"]
    left, top, right, bottom = ui.frame
    root.add(toolbar((left, top, right, top + TOOLBAR_H), group["name"], rid=T.rid("library_toolbar"),
                     nav=("arrow_back", lambda: a.leave(ui))))
    source = {"kind": kind, "id": group["id"]}

    def build(i: int, x0: int, y: int, x1: int) -> View:
        s = songs[i]
        spec = song_spec(s, on_click=lambda: a.play_list(ui, list(songs), i),
                         on_menu=lambda x, yy: ui.open_menu("song", x, yy, song=s, index=i, source=source))
        return list_item(x0, y, x1, spec)

    model = ListModel((left, top + TOOLBAR_H, right, bottom), len(songs), list_item_height(), padding_bottom=MINI_H)
    root.add(recycler(model, build, ui.scroll(entry), ui.scroll_setter(entry), rid=T.rid("songs_list")))
