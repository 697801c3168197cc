"""MainActivity (the folders), MediaActivity (one folder's media) and ViewPagerActivity (the viewer), drawn from
the pinned table and the real layouts (activity_main.xml, directory_item_grid_square.xml, activity_media.xml,
photo_item_grid.xml, activity_medium.xml, bottom_actions.xml, menu_viewpager.xml); the viewer's dialogs are in
:mod:`.dialogs`.

First run (hardware mode; MainActivity.kt:161-185, extensions/Activity.kt:134-170): MainActivity asks
READ_MEDIA_IMAGES through the permission dialog (denied: toast "Storage permission is required" and finish), then,
without all-files access, shows AllFilesPermissionDialog ("All files" opens Settings' All files access page for the
app, "Media only" the media management page). The prompt is shown once per MainActivity instance (a field, not a
preference), and again wherever a file operation needs it (handleMediaManagementPrompt before Copy to, Move to,
Delete, Rename). The deterministic device's Gallery has its permissions and all-files access, as after
android_world's setup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.simplegallery import data as D
from emukit.vdevice.apps.simplegallery.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
MEDIA = ".activities.MediaActivity"
VIEWER = ".activities.ViewPagerActivity"
READ_IMAGES = "android.permission.READ_MEDIA_IMAGES"
# asked after READ_MEDIA_IMAGES is granted (MainActivity.kt:173-177); the same "Photos and videos" group, so the
# grant covers them without a second dialog
WITH_IMAGES = ("android.permission.READ_MEDIA_VIDEO", "android.permission.ACCESS_MEDIA_LOCATION")
SEARCH_H = dp(56)
#: a stand-in colour per file for the thumbnails and the viewer (the pixels are not the file's)
_SWATCHES = ((239, 154, 154), (144, 202, 249), (165, 214, 167), (255, 224, 130), (206, 147, 216),
             (128, 203, 196), (255, 171, 145), (176, 190, 197))


def swatch(ctx: Ctx, path: str) -> tuple[int, int, int]:
    """The stand-in colour of a file, from its bytes as the real thumbnail comes from its pixels: two files with
    the same picture look the same, whatever their names."""
    return _SWATCHES[D.content_key(ctx.device, path) % len(_SWATCHES)]


def search_bar(ctx: Ctx, menu_entry: str, hint: str, items: list[parts.MenuItem],
               on_icon: Callable[[], Any] | None = None) -> View:
    """Simple-Commons MySearchMenu (menu_search.xml): the rounded holder, its icon, the search EditText and the
    toolbar with the menu at its end."""
    left, top, right, _ = ctx.frame
    bar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + SEARCH_H + dp(8)),
               resource_id=T.rid(menu_entry))
    layout = View(cls="android.widget.LinearLayout", bounds=bar.bounds, resource_id=T.rid("search_bar_layout"))
    inner = View(cls="android.widget.RelativeLayout",
                 bounds=(left + dp(8), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)),
                 style=Style(bg=theme.SURFACE_VARIANT, radius=dp(28)))
    inner.add(View(cls="android.widget.ImageView", bounds=(left + dp(16), top + dp(16), left + dp(48), top + dp(48)),
                   resource_id=T.rid("search_icon"), clickable=on_icon is not None, on_click=on_icon,
                   style=Style(icon="arrow_back" if on_icon else "search", icon_color=theme.TEXT_SECONDARY,
                               icon_size=dp(24))))

    def set_query(text: str) -> None:
        ctx.state["query"] = text

    inner.add(w.text_field((left + dp(56), top + dp(4), right - dp(120), top + SEARCH_H + dp(4)),
                           ctx.state.get("query", ""), set_query, key=T.rid("search_field"), hint=hint,
                           rid=T.rid("search_field"), outlined=False))
    sub = ctx.app.ctx(ctx.device, ctx.act, (right - dp(112), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)))
    toolbar = parts.toolbar(sub, "toolbar", "", items)
    toolbar.style = Style()
    inner.add(toolbar)
    layout.add(inner)
    bar.add(layout)
    return bar


def folder_tile(ctx: Ctx, box: Bounds, folder: D.Folder, on_click: Callable[[], Any]) -> View:
    """directory_item_grid_square.xml: the square thumbnail, the name and count over its bottom."""
    x0, y0, x1, y1 = box
    tile = View(cls="android.widget.RelativeLayout", bounds=box, resource_id=T.rid("folder_tile"), clickable=True,
                long_clickable=True, on_click=on_click)
    thumb = folder.media[0].path if folder.media else folder.path
    tile.add(View(cls="android.widget.ImageView", bounds=(x0 + dp(4), y0 + dp(4), x1 - dp(4), y1 - dp(4)),
                  resource_id=T.rid("folder_thumbnail"), style=Style(bg=swatch(ctx, thumb), radius=dp(8))))
    tile.add(w.label((x0 + dp(12), y1 - dp(52), x1 - dp(12), y1 - dp(30)), folder.name, rid=T.rid("folder_name"),
                     color=(255, 255, 255), bold=True))
    tile.add(w.label((x0 + dp(12), y1 - dp(30), x1 - dp(12), y1 - dp(10)), str(len(folder.media)),
                     rid=T.rid("folder_count"), color=(255, 255, 255), size=theme.TEXT_LABEL))
    return tile


def grid_rows(area: Bounds, count: int, columns: int,
              build: Callable[[int, Bounds], View]) -> list[tuple[int, Callable[[int], View]]]:
    """Rows of square cells for parts.recycler: each row a LinearLayout-free strip of ``columns`` cells."""
    size = (area[2] - area[0]) // columns
    rows = []
    for r in range((count + columns - 1) // columns):
        def row(top: int, r: int = r) -> View:
            strip = View(cls="android.widget.FrameLayout", bounds=(area[0], top, area[2], top + size))
            for c in range(columns):
                i = r * columns + c
                if i < count:
                    strip.add(build(i, (area[0] + c * size, top, area[0] + (c + 1) * size, top + size)))
            return strip
        rows.append((size, row))
    return rows


# ---------------------------------------------------------------------------------------------- MainActivity
class MainScreen(Screen):
    activity = ".activities.MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state["check_permissions"] = True

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.pop("check_permissions", False):
            permissions.request_permissions(ctx.device, ctx.act, [READ_IMAGES], code=1)

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        if not results.get(READ_IMAGES):
            ctx.toast(T.text("no_storage_permission_toast"))
            ctx.device.finish_top()
            return
        for perm in WITH_IMAGES:
            ctx.device.grant_permission(ctx.app.package, perm)
        if not D.has_all_files_access(ctx.device) and not ctx.state.get("prompted"):
            ctx.state["prompted"] = True  # mWasMediaManagementPromptShown
            ctx.open_dialog("all_files")

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("menu"):
            ctx.state.pop("menu")
            return True
        if ctx.state.get("query"):
            ctx.state.pop("query")
            ctx.device.state.ui.focused_id = None
            return True
        return False

    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("main_root"), style=Style(bg=theme.BACKGROUND))
        items = [parts.MenuItem("menu_open_camera", "image", lambda: None),
                 parts.MenuItem("menu_show_all", "apps", lambda: None),
                 parts.MenuItem("menu_sort", "sort", lambda: None, always=False),
                 parts.MenuItem("menu_settings", "settings", lambda: None, always=False)]
        root.add(search_bar(ctx, "main_menu", T.text("search_folders_hint"), items))
        body = (frame[0], frame[1] + SEARCH_H + dp(8), frame[2], frame[3])
        holder = View(cls="android.widget.RelativeLayout", bounds=body)
        shown = []
        if ctx.device.permission_granted(ctx.app.package, READ_IMAGES):
            found = D.folders(ctx.device)
            D.cache_folders(ctx.device, found)
            query = str(ctx.state.get("query", "")).lower()
            shown = [f for f in found if query in f.name.lower()]
        if not shown:
            holder.add(w.label((body[0] + dp(16), body[1] + dp(16), body[2] - dp(16), body[1] + dp(96)),
                               T.text("folders_empty"), rid=T.rid("folders_empty"), align="center", max_lines=3,
                               color=theme.TEXT_SECONDARY))
        else:
            area = (body[0] + dp(4), body[1], body[2] - dp(4), body[3])

            def tile(i: int, box: Bounds) -> View:
                folder = shown[i]
                return folder_tile(ctx, box, folder, lambda: ctx.start(MEDIA, {"directory": folder.path}))

            holder.add(parts.recycler(ctx, "folders_grid", area, grid_rows(area, len(shown), 2, tile)))
        root.add(holder)
        menu = parts.overflow_menu(ctx, "toolbar", items, T.rid("overflow_title"))
        if menu is not None:
            root.add(menu)
        return root

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] == "all_files":
            from emukit.vdevice.apps.simplegallery.dialogs import all_files_dialog

            return all_files_dialog(ctx)
        return None


# ---------------------------------------------------------------------------------------------- MediaActivity
class MediaScreen(Screen):
    activity = MEDIA

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state["directory"] = extras.get("directory", D.STORAGE)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("query"):
            ctx.state.pop("query")
            ctx.device.state.ui.focused_id = None
            return True
        return False

    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        path = ctx.state["directory"]
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("media_root"), style=Style(bg=theme.BACKGROUND))
        name = D.folder_name(path) if path != D.RECYCLE_BIN else T.text("recycle_bin_name")
        def toggle_names() -> None:  # MediaActivity.toggleFilenameVisibility (MediaActivity.kt:527-530)
            D.set_display_file_names(ctx.device, not D.display_file_names(ctx.device))

        # menu_media.xml: "Toggle filename visibility" is always an action while the folder is a grid
        # (MediaActivity.kt:282); the rest of the menu does nothing here
        items = [parts.MenuItem("media_toggle_filename", "label", toggle_names),
                 parts.MenuItem("menu_sort", "sort", lambda: None, always=False)]
        root.add(search_bar(ctx, "media_menu", T.text("search_in_hint", folder=name), items,
                            on_icon=ctx.device.finish_top))
        body = (frame[0], frame[1] + SEARCH_H + dp(8), frame[2], frame[3])
        media = D.folder_media(ctx.device, path)
        D.cache_media(ctx.device, path, media)
        query = str(ctx.state.get("query", "")).lower()
        media = [m for m in media if query in m.name.lower()]
        if not media:
            root.add(w.label((body[0] + dp(16), body[1] + dp(16), body[2] - dp(16), body[1] + dp(96)),
                             T.text("media_empty"), rid=T.rid("media_empty"), align="center", max_lines=3,
                             color=theme.TEXT_SECONDARY))
            return root
        area = (body[0] + dp(2), body[1], body[2] - dp(2), body[3])
        names = D.display_file_names(ctx.device)

        def tile(i: int, box: Bounds) -> View:
            m = media[i]
            x0, y0, x1, y1 = box
            cell = View(cls="android.widget.RelativeLayout", bounds=box, resource_id=T.rid("media_tile"),
                        clickable=True, long_clickable=True,
                        on_click=lambda: ctx.start(VIEWER, {"path": m.path, "directory": path}))
            cell.add(View(cls="android.widget.ImageView", bounds=(x0 + dp(1), y0 + dp(1), x1 - dp(1), y1 - dp(1)),
                          resource_id=T.rid("media_thumbnail"), style=Style(bg=swatch(ctx, m.path))))
            if names:  # photo_item_grid.xml medium_name: at the tile's foot, white on a gradient, up to 3 lines
                cell.add(w.label((x0 + dp(1) + dp(4), y1 - dp(1) - dp(40), x1 - dp(1) - dp(4), y1 - dp(1) - dp(4)),
                                 m.name, rid=T.rid("media_name"), size=theme.TEXT_LABEL, color=(255, 255, 255),
                                 max_lines=3))
            return cell

        root.add(parts.recycler(ctx, "media_grid", area, grid_rows(area, len(media), 3, tile)))
        return root


# ---------------------------------------------------------------------------------------------- ViewPagerActivity
def viewer_media(ctx: Ctx) -> list[D.MediaFile]:
    return D.folder_media(ctx.device, ctx.state["directory"])


def current(ctx: Ctx) -> D.MediaFile | None:
    """The file shown: the one at the remembered path, else the one at the remembered position."""
    media = viewer_media(ctx)
    if not media:
        return None
    for i, m in enumerate(media):
        if m.path == ctx.state.get("path"):
            ctx.state["pos"] = i
            return m
    pos = min(int(ctx.state.get("pos", 0)), len(media) - 1)
    ctx.state["path"] = media[pos].path
    return media[pos]


def after_removal(ctx: Ctx) -> None:
    """The shown file left the folder (moved, binned, deleted): show the next one, or finish when none is left
    (ViewPagerActivity.kt:1110-1129)."""
    ctx.state.pop("path", None)
    if not viewer_media(ctx):
        ctx.device.finish_top()


class ViewerScreen(Screen):
    activity = VIEWER

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        path = extras.get("path", "")
        ctx.state["path"] = path
        ctx.state["directory"] = extras.get("directory") or path.rsplit("/", 1)[0]

    def on_resume(self, ctx: Ctx) -> None:
        if current(ctx) is None:
            ctx.device.finish_top()

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("menu"):
            ctx.state.pop("menu")
            return True
        return False

    def _items(self, ctx: Ctx) -> list[parts.MenuItem]:
        """menu_viewpager.xml with the default bottom actions taken out (ViewPagerActivity.kt:159-210): two ifRoom
        icons fit beside the overflow on a portrait phone (ActionBarPolicy: 3 buttons at 411 dp)."""
        from emukit.vdevice.apps.simplegallery import dialogs

        def nothing() -> None:
            return None

        return [parts.MenuItem("viewer_rotate", "refresh", nothing),
                parts.MenuItem("viewer_properties", "info", lambda: dialogs.guarded(ctx, "properties", False)),
                parts.MenuItem("viewer_rename", "edit", lambda: dialogs.guarded(ctx, "rename", True), always=False),
                parts.MenuItem("viewer_hide", "lock", nothing, always=False),
                parts.MenuItem("viewer_copy_to", "copy", lambda: dialogs.guarded(ctx, "copy", True),
                               always=False),
                parts.MenuItem("viewer_move_to", "folder", lambda: dialogs.guarded(ctx, "move", True),
                               always=False),
                parts.MenuItem("viewer_set_as", "image", nothing, always=False),
                parts.MenuItem("viewer_settings", "settings", nothing, always=False)]

    def build(self, ctx: Ctx) -> View:
        from emukit.vdevice.apps.simplegallery import dialogs

        frame = ctx.frame
        left, top, right, bottom = frame
        root = View(cls="android.widget.RelativeLayout", bounds=frame, resource_id=T.rid("viewer_root"),
                    style=Style(bg=(0, 0, 0)))
        medium = current(ctx)
        if medium is None:
            return root
        media = viewer_media(ctx)

        def swipe(x1: int, y1: int, x2: int, y2: int) -> None:
            if abs(x2 - x1) <= abs(y2 - y1):
                return
            pos = int(ctx.state.get("pos", 0)) + (1 if x2 < x1 else -1)
            if 0 <= pos < len(media):
                ctx.state["pos"] = pos
                ctx.state["path"] = media[pos].path

        pager = View(cls="androidx.viewpager.widget.ViewPager", bounds=frame, resource_id=T.rid("viewer_pager"),
                     scrollable=len(media) > 1, on_drag=swipe)
        height = (right - left) * 3 // 4
        y0 = (top + bottom - height) // 2
        pager.add(View(cls="android.widget.ImageView", bounds=(left, y0, right, y0 + height),
                       style=Style(bg=swatch(ctx, medium.path))))
        root.add(pager)
        bar_h = dp(64)
        actions = View(cls="androidx.constraintlayout.widget.ConstraintLayout",
                       bounds=(left, bottom - bar_h, right, bottom), resource_id=T.rid("bottom_actions"))
        entries = (("bottom_favorite", "star", lambda: None), ("bottom_edit", "edit", lambda: None),
                   ("bottom_share", "share", lambda: None),
                   ("bottom_delete", "delete", lambda: dialogs.guarded(ctx, "delete", True)))
        step = (right - left) // len(entries)
        for i, (entry, icon, on_click) in enumerate(entries):
            actions.add(View(cls="android.widget.ImageView",
                             bounds=(left + i * step, bottom - bar_h, left + (i + 1) * step, bottom),
                             resource_id=T.rid(entry), content_desc=T.desc(entry), clickable=True,
                             long_clickable=True, on_click=on_click,
                             style=Style(icon=icon, icon_color=(255, 255, 255), icon_size=dp(24))))
        root.add(actions)
        items = self._items(ctx)
        appbar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + parts.TOOLBAR_H),
                      resource_id=f"{D.PACKAGE}:id/medium_viewer_appbar")
        bar = parts.toolbar(ctx, "viewer_toolbar", medium.name, items, on_up=ctx.device.finish_top,
                            up_desc=T.desc("viewer_up"))
        bar.style = Style(bg=(0, 0, 0), bg_alpha=90)
        _whiten(bar)
        appbar.add(bar)
        root.add(appbar)
        menu = parts.overflow_menu(ctx, "viewer_toolbar", items, T.rid("overflow_title"))
        if menu is not None:
            root.add(menu)
        return root

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        from emukit.vdevice.apps.simplegallery import dialogs

        return dialogs.build(ctx, dialog)

    def cancel_dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> None:
        from emukit.vdevice.apps.simplegallery import dialogs

        dialogs.back(ctx, dialog)


def _whiten(view: View) -> None:
    """The viewer's toolbar draws its title and icons white (ViewPagerActivity.kt:212-220)."""
    for v in view.walk():
        if v.style.icon_color is not None:
            v.style.icon_color = (255, 255, 255)
        if v.text:
            v.style.fg = (255, 255, 255)
