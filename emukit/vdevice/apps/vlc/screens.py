"""VLC's activities on the kit: StartActivity (the launcher's router), OnboardingActivity (first run, hardware
mode), MainActivity (toolbar, the current tab, the bottom navigation; the Video and Playlists tabs are
modelled), HeaderMediaListActivity (a playlist's items), and the sheets and dialogs over them: the ContextSheet,
SavePlaylistDialog ("Add to playlist"), ConfirmDeleteDialog and the all-files access AlertDialog. Ids, classes
and strings come from the pinned table (``tables/org.videolan.vlc/13050408.yaml``), which cites each one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.vlc import data as D
from emukit.vdevice.apps.vlc.data import T
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
MAIN = ".gui.MainActivity"
ONBOARDING = ".gui.onboarding.OnboardingActivity"
PLAYLIST = ".gui.HeaderMediaListActivity"
TOOLBAR_H, NAV_H, CARD_H, ROW_H, SHEET_ROW_H = dp(56), dp(64), dp(180), dp(64), dp(52)
TABS = (("video", "nav_video"), ("audio", "nav_audio"), ("browse", "nav_browse"), ("playlists", "nav_playlists"),
        ("more", "nav_more"))
ORANGE = (255, 136, 0)
# ContextSheet options: video card (CTX_VIDEO_FLAGS), playlist card (CTX_PLAYLIST_ALBUM_FLAGS), playlist row
# (CTX_PLAYLIST_ITEM_FLAGS | CTX_SHARE), in ContextSheet's order (ContextSheet.kt:114-147); modelled ones only
CTX_OPTIONS = {"video": ("ctx_play", "ctx_information", "ctx_add_to_playlist", "ctx_delete", "ctx_share"),
               "playlist": ("ctx_play", "ctx_add_to_playlist", "ctx_delete"),
               "track": ("ctx_information", "ctx_add_to_playlist", "ctx_delete", "ctx_share")}


def _label(bounds: Bounds, text: str, entry: str = "", **kw: Any) -> View:
    view = w.label(bounds, text, rid=T.rid(entry) if entry and T.entry(entry).resource_id else "", **kw)
    return view


def _finish_self(ctx: Ctx) -> None:
    if ctx.act in ctx.device.state.back_stack:
        ctx.device.state.back_stack.remove(ctx.act)


def open_medialibrary(ctx: Ctx) -> None:
    """``startMedialibrary``: the database at its first start, then the discovery of the main storage."""
    D.STORE.create(ctx.device)
    D.scan(ctx.device)


# ---------------------------------------------------------------------------------------------- StartActivity
class StartScreen(Screen):
    """No UI: onboarding on a first run that has not done it (hardware mode), else MainActivity
    (StartActivity.kt:139-146, 214-241); it finishes at once."""

    activity = ".StartActivity"

    def on_resume(self, ctx: Ctx) -> None:
        _finish_self(ctx)
        if ctx.device.hardware and not D.onboarding_done(ctx.device):
            ctx.start(ONBOARDING)
            return
        open_medialibrary(ctx)
        ctx.start(MAIN)

    def build(self, ctx: Ctx) -> View:
        return w.screen(ctx.frame)


# ---------------------------------------------------------------------------------------------- onboarding
class OnboardingScreen(Screen):
    """activity_onboarding.xml: the step in ``fragment_onboarding_placeholder``, Next and Skip. Modelled steps:
    WELCOME and THEME (Next reads "Done" there); Skip or Done runs onDone."""

    activity = ONBOARDING

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = w.screen(ctx.frame)
        step = ctx.state.get("step", "WELCOME")
        holder = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom - dp(72)),
                      resource_id=f"{D.PACKAGE}:id/fragment_onboarding_placeholder")
        if step == "WELCOME":
            holder.add(_label((left + dp(16), top + dp(200), right - dp(16), top + dp(240)), T.text(
                "onboarding_welcome_title"), "onboarding_welcome_title", align="center", size=theme.TEXT_TITLE_L))
            holder.add(w.label((left + dp(16), top + dp(248), right - dp(16), top + dp(280)),
                               "The free and open source multimedia player", align="center",
                               color=theme.TEXT_SECONDARY))
        else:
            holder.add(w.label((left + dp(16), top + dp(200), right - dp(16), top + dp(240)), "Theme",
                               align="center", size=theme.TEXT_TITLE_L))
        root.add(holder)

        def done() -> None:
            D.finish_onboarding(ctx.device)
            open_medialibrary(ctx)
            _finish_self(ctx)
            ctx.start(MAIN, {"extra_first_run": "true", "extra_upgrade": "true"})

        def next_() -> None:
            if step == "WELCOME":
                ctx.state["step"] = "THEME"
            else:
                done()

        by = bottom - dp(64)
        next_text = T.text("onboarding_next") if step == "WELCOME" else "Done"
        root.add(w.button((right - dp(120), by, right - dp(16), by + dp(48)), next_text, next_,
                          rid=T.rid("onboarding_next")))
        root.add(w.button((right - dp(232), by, right - dp(128), by + dp(48)), T.text("onboarding_skip"), done,
                          kind="text", rid=T.rid("onboarding_skip")))
        return root


# ---------------------------------------------------------------------------------------------- sheets
def _sheet(ctx: Ctx, height: int, children: Callable[[Bounds], list[View]]) -> View:
    """A bottom sheet (VLCBottomSheetDialogFragment) over a scrim; a tap outside closes it."""
    left, top, right, bottom = ctx.frame
    layer = w.scrim(ctx.frame, ctx.close_dialog)
    box = (left, max(top + dp(48), bottom - height), right, bottom)
    panel = View(cls="android.widget.FrameLayout", bounds=box, resource_id=f"{D.PACKAGE}:id/design_bottom_sheet",
                 style=Style(bg=theme.SURFACE, radius=dp(16)))
    panel.add(*children(box))
    layer.add(panel)
    return layer


def context_sheet(ctx: Ctx, dialog: dict[str, Any], act: Callable[[str], None]) -> View:
    options = CTX_OPTIONS[dialog["target"]]

    def rows(box: Bounds) -> list[View]:
        out = [w.label((box[0] + dp(16), box[1] + dp(8), box[2] - dp(16), box[1] + dp(56)), dialog.get("title", ""),
                       rid=f"{D.PACKAGE}:id/ctx_cover_title", bold=True)]
        for i, entry in enumerate(options):
            y = box[1] + dp(64) + i * SHEET_ROW_H
            row = View(cls="android.view.ViewGroup", bounds=(box[0], y, box[2], y + SHEET_ROW_H), clickable=True,
                       on_click=lambda entry=entry: act(entry))
            row.add(View(cls="android.widget.TextView", bounds=(box[0] + dp(72), y, box[2] - dp(16), y + SHEET_ROW_H),
                         text=T.text(entry), resource_id=T.rid(entry),
                         style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, valign="center")))
            out.append(row)
        return out

    return _sheet(ctx, dp(72) + len(options) * SHEET_ROW_H + dp(16), rows)


def save_playlist_sheet(ctx: Ctx, dialog: dict[str, Any]) -> View:
    """SavePlaylistDialog: a new playlist's name and Save, or a tap on an existing playlist."""
    device = ctx.device
    media_ids = [int(i) for i in dialog["media"]]
    lists = D.playlists(device)

    def set_name(text: str) -> None:
        dialog["name"] = text
        dialog.pop("error", None)

    def save() -> None:
        name = str(dialog.get("name", "")).strip()
        if D.playlist_by_name(device, name) is not None:
            dialog["error"] = f"Playlist {name} already exists"
            return
        ctx.close_dialog()
        ctx.device.state.ui.focused_id = None
        D.append(device, D.create_playlist(device, name), media_ids)

    def pick(playlist_id: int) -> Callable[[], None]:
        def run() -> None:
            ctx.close_dialog()
            D.append(device, playlist_id, media_ids)
        return run

    count = f"{len(media_ids)} media" if len(media_ids) != 1 else "1 media"

    def rows(box: Bounds) -> list[View]:
        left, top, right, _ = box
        out = [_label((left + dp(16), top + dp(16), right - dp(120), top + dp(48)), T.text("add_new_title"),
                      "add_new_title", bold=True),
               w.label((right - dp(112), top + dp(16), right - dp(16), top + dp(48)), count, align="right",
                       rid=f"{D.PACKAGE}:id/medias2", color=theme.TEXT_SECONDARY)]
        layout = View(cls="android.widget.LinearLayout", bounds=(left + dp(16), top + dp(56), right - dp(16),
                                                                 top + dp(120)), resource_id=T.rid("new_playlist_layout"))
        layout.add(w.text_field((left + dp(16), top + dp(56), right - dp(16), top + dp(112)), dialog.get("name", ""),
                                set_name, key="vlc.new_playlist_name", hint="Playlist name", on_submit=save))
        out.append(layout)
        y = top + dp(120)
        if dialog.get("error"):
            out.append(w.label((left + dp(16), y, right - dp(16), y + dp(24)), dialog["error"],
                               color=(179, 38, 30), size=theme.TEXT_LABEL, rid=f"{D.PACKAGE}:id/textinput_error"))
        y += dp(28)
        out.append(_label((left + dp(16), y, right - dp(120), y + dp(32)), T.text("add_existing_title"),
                          "add_existing_title", bold=True))
        y += dp(40)
        listing = View(cls="androidx.recyclerview.widget.RecyclerView",
                       bounds=(left, y, right, y + max(1, len(lists)) * dp(56)), resource_id=T.rid("existing_list"))
        for i, p in enumerate(lists):
            ry = y + i * dp(56)
            item = View(cls="android.view.ViewGroup", bounds=(left, ry, right, ry + dp(56)), clickable=True,
                        on_click=pick(int(p["id_playlist"])))
            item.add(View(cls="android.widget.TextView", bounds=(left + dp(56), ry, right - dp(120), ry + dp(56)),
                          text=str(p["name"]), resource_id=T.rid("existing_row_title"),
                          style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, valign="center")))
            item.add(w.label((right - dp(112), ry, right - dp(16), ry + dp(56)), f"{p['count']} media",
                             rid=f"{D.PACKAGE}:id/subtitle", color=theme.TEXT_SECONDARY, align="right"))
            listing.add(item)
        if not lists:
            listing.add(View(cls="android.widget.TextView", bounds=(left + dp(16), y, right - dp(16), y + dp(56)),
                             text=T.text("existing_empty"), resource_id=T.rid("existing_empty"),
                             style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_BODY, valign="center")))
        out.append(listing)
        y += max(1, len(lists)) * dp(56) + dp(8)
        out.append(w.button((right - dp(120), y, right - dp(16), y + dp(48)), T.text("playlist_save"), save,
                            rid=T.rid("playlist_save")))
        return out

    height = dp(120) + dp(28) + dp(40) + max(1, len(lists)) * dp(56) + dp(72)
    return _sheet(ctx, height, rows)


def confirm_delete(ctx: Ctx, name: str, on_delete: Callable[[], None]) -> View:
    """ConfirmDeleteDialog (dialog_confirm_delete.xml) as a bottom sheet: title, message, the two buttons."""
    def accept() -> None:
        ctx.close_dialog()
        on_delete()

    def rows(box: Bounds) -> list[View]:
        left, top, right, _ = box
        return [w.label((left + dp(16), top + dp(16), right - dp(16), top + dp(56)), T.text("delete_title", playlist=name),
                        rid=T.rid("delete_title"), bold=True, size=theme.TEXT_TITLE),
                w.label((left + dp(16), top + dp(60), right - dp(16), top + dp(92)),
                        "This is permanent and cannot be undone.", rid=f"{D.PACKAGE}:id/message",
                        color=theme.TEXT_SECONDARY),
                w.button((right - dp(336), top + dp(104), right - dp(184), top + dp(152)), T.text("delete_cancel"),
                         ctx.close_dialog, kind="text", rid=T.rid("delete_cancel")),
                w.button((right - dp(176), top + dp(104), right - dp(16), top + dp(152)), T.text("delete_forever"),
                         accept, rid=T.rid("delete_forever"))]

    return _sheet(ctx, dp(168), rows)


# ---------------------------------------------------------------------------------------------- MainActivity
class MainScreen(Screen):
    activity = MAIN

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state.setdefault("tab", "video")  # a first run with the scan on opens on Video (OnboardingActivity.kt:83)

    def on_resume(self, ctx: Ctx) -> None:
        open_medialibrary(ctx)  # onStart: reloadLibrary when storage can be read (MainActivity.kt:127-133)

    def on_back(self, ctx: Ctx) -> bool:
        return False

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    resource_id=f"{D.PACKAGE}:id/coordinator", style=Style(bg=theme.BACKGROUND))
        bar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + TOOLBAR_H),
                   resource_id=f"{D.PACKAGE}:id/appbar")
        toolbar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + TOOLBAR_H),
                       resource_id=T.rid("main_toolbar"))
        toolbar.add(View(cls="android.widget.TextView", bounds=(left + dp(56), top, right - dp(16), top + TOOLBAR_H),
                         text=T.text("toolbar_title"), resource_id=T.rid("toolbar_title"),
                         style=Style(fg=ORANGE, font_size=theme.TEXT_TITLE, bold=True, valign="center")))
        bar.add(toolbar)
        root.add(bar)
        body = (left, top + TOOLBAR_H, right, bottom - NAV_H)
        holder = View(cls="android.widget.FrameLayout", bounds=body, resource_id=T.rid("fragment_placeholder"))
        tab = ctx.state.get("tab", "video")
        if tab == "video":
            holder.add(self._media_tab(ctx, body, D.TYPE_VIDEO))
        elif tab == "audio":
            holder.add(self._media_tab(ctx, body, D.TYPE_AUDIO))
        elif tab == "playlists":
            holder.add(self._playlists_tab(ctx, body))
        root.add(holder)
        root.add(self._nav(ctx, (left, bottom - NAV_H, right, bottom), tab))
        return root

    def _nav(self, ctx: Ctx, box: Bounds, current: str) -> View:
        nav = View(cls="android.widget.FrameLayout", bounds=box, resource_id=T.rid("bottom_nav"),
                   style=Style(bg=theme.SURFACE))
        width = (box[2] - box[0]) // len(TABS)
        for i, (name, entry) in enumerate(TABS):
            x0 = box[0] + i * width

            def select(name: str = name) -> None:
                ctx.state["tab"] = name
                ctx.state.pop("scroll", None)

            item = View(cls="android.widget.FrameLayout", bounds=(x0, box[1], x0 + width, box[3]),
                        resource_id=T.rid(entry), content_desc=T.entry(entry).description or "", clickable=True,
                        selected=name == current, on_click=select)
            item.add(View(cls="android.widget.TextView", bounds=(x0, box[1] + dp(36), x0 + width, box[3] - dp(4)),
                          text=T.entry(entry).description or "", resource_id=f"{D.PACKAGE}:id/navigation_bar_item_"
                          "large_label_view" if name == current else f"{D.PACKAGE}:id/navigation_bar_item_small_label_view",
                          style=Style(fg=ORANGE if name == current else theme.TEXT_SECONDARY,
                                      font_size=theme.TEXT_LABEL, align="center")))
            nav.add(item)
        return nav

    def _empty(self, ctx: Ctx, body: Bounds, text: str, missing_permission: bool) -> View:
        box = View(cls="android.view.ViewGroup", bounds=body, resource_id=T.rid("empty_loading"))
        left, top, right, _ = body
        if missing_permission:
            box.add(_label((left + dp(16), top + dp(160), right - dp(16), top + dp(196)), T.text("permission_title"),
                           "permission_title", align="center", bold=True))
            box.add(w.label((left + dp(16), top + dp(200), right - dp(16), top + dp(260)),
                            "VLC needs your permission to access media on your device",
                            rid=f"{D.PACKAGE}:id/permissionTextView", align="center", max_lines=2,
                            color=theme.TEXT_SECONDARY))
            box.add(w.button((left + dp(64), top + dp(280), right - dp(64), top + dp(328)),
                             T.text("grant_permission"), lambda: ctx.open_dialog("all_access"),
                             rid=T.rid("grant_permission")))
        else:
            box.add(w.label((left + dp(16), top + dp(160), right - dp(16), top + dp(240)), text,
                            rid=T.rid("empty_text"), align="center", max_lines=3, color=theme.TEXT_SECONDARY))
        return box

    def _media_tab(self, ctx: Ctx, body: Bounds, kind: int) -> View:
        device = ctx.device
        if not D.can_read_storage(device):
            return self._empty(ctx, body, "", True)
        items = D.media(device, kind)
        if not items:
            return self._empty(ctx, body, "No media files found, please transfer some files to your device or "
                                          "adjust your preferences.", False)
        if kind == D.TYPE_AUDIO:
            rows = [(ROW_H, lambda top, m=m: track_row(ctx, body, top, m, None)) for m in items]
            return w.scroll_list(body, rows, int(ctx.state.get("scroll", 0)),
                                 lambda v: ctx.state.__setitem__("scroll", v), rid=f"{D.PACKAGE}:id/audio_list",
                                 cls="androidx.recyclerview.widget.RecyclerView")
        return self._grid(ctx, body, T.rid("video_grid"), [
            (D.display_title(m), lambda m=m: self._open_ctx(ctx, "video", m), None) for m in items],
            title_rid=T.rid("video_title"), card_rid=T.rid("video_card"))

    def _grid(self, ctx: Ctx, body: Bounds, rid: str, cards: list[tuple[str, Callable[[], None],
                                                                         Callable[[], None] | None]],
              *, title_rid: str, card_rid: str) -> View:
        """Two columns of cards: cover, title, "More Actions"."""
        half = (body[2] - body[0]) // 2

        def row(i: int) -> tuple[int, Callable[[int], View]]:
            def build(top: int) -> View:
                line = View(cls="android.widget.LinearLayout", bounds=(body[0], top, body[2], top + CARD_H))
                for j in (0, 1):
                    if 2 * i + j >= len(cards):
                        break
                    title, on_more, on_click = cards[2 * i + j]
                    x0 = body[0] + j * half
                    card = View(cls="android.widget.FrameLayout", bounds=(x0 + dp(8), top + dp(8), x0 + half - dp(8),
                                                                          top + CARD_H - dp(8)),
                                resource_id=card_rid, clickable=True, long_clickable=True, on_click=on_click,
                                style=Style(bg=theme.SURFACE_VARIANT, radius=dp(8)))
                    card.add(View(cls="android.widget.ImageView", bounds=(x0 + dp(8), top + dp(8), x0 + half - dp(8),
                                                                          top + dp(112)),
                                  style=Style(bg=(40, 40, 40), radius=dp(8))))
                    card.add(View(cls="android.widget.TextView", bounds=(x0 + dp(16), top + dp(120), x0 + half - dp(48),
                                                                         top + dp(160)),
                                  text=title, resource_id=title_rid,
                                  style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY, valign="center")))
                    card.add(View(cls="android.widget.ImageView", bounds=(x0 + half - dp(52), top + dp(116),
                                                                          x0 + half - dp(8), top + dp(160)),
                                  resource_id=T.rid("video_more"), content_desc=T.entry("video_more").description or "",
                                  clickable=True, on_click=on_more,
                                  style=Style(icon="more_vert", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
                    line.add(card)
                return line
            return CARD_H, build

        return w.scroll_list(body, [row(i) for i in range((len(cards) + 1) // 2)], int(ctx.state.get("scroll", 0)),
                             lambda v: ctx.state.__setitem__("scroll", v), rid=rid,
                             cls="androidx.recyclerview.widget.RecyclerView")

    def _playlists_tab(self, ctx: Ctx, body: Bounds) -> View:
        lists = D.playlists(ctx.device)
        if not lists:
            return self._empty(ctx, body, T.text("existing_empty"), False)

        def opener(p: dict[str, Any]) -> Callable[[], None]:
            return lambda: ctx.start(PLAYLIST, {"playlist_id": str(p["id_playlist"])})

        return self._grid(ctx, body, T.rid("playlists_list"), [
            (str(p["name"]), lambda p=p: self._open_ctx(ctx, "playlist", p), opener(p)) for p in lists],
            title_rid=T.rid("playlist_card_title"), card_rid=f"{D.PACKAGE}:id/container")

    def _open_ctx(self, ctx: Ctx, target: str, item: dict[str, Any]) -> None:
        if target == "video":
            ctx.open_dialog("ctx", target=target, id=int(item["id_media"]), title=D.display_title(item))
        else:
            ctx.open_dialog("ctx", target=target, id=int(item["id_playlist"]), title=str(item["name"]))

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        if kind == "ctx":
            return context_sheet(ctx, dialog, lambda entry: self._ctx_action(ctx, dialog, entry))
        if kind == "save_playlist":
            return save_playlist_sheet(ctx, dialog)
        if kind == "confirm_delete":
            pid = int(dialog["id"])
            return confirm_delete(ctx, dialog["name"], lambda: D.delete_playlist(ctx.device, pid))
        if kind == "all_access":
            def ok() -> None:
                ctx.close_dialog()
                settings = ctx.device.apps.get("com.android.settings")
                opener = getattr(settings, "open_special_access", None)
                if callable(opener):
                    opener(ctx.device, "MANAGE_EXTERNAL_STORAGE", D.PACKAGE)

            def cancel() -> None:
                ctx.close_dialog()
                _finish_self(ctx)

            return w.dialog(ctx.frame, T.text("all_access_title"),
                            "To get all the capabilities of VLC and the support of all types of media files, we "
                            "strongly suggest you to grant this permission.\n\nGrant permission?",
                            buttons=[(T.text("all_access_cancel"), cancel), (T.text("all_access_ok"), ok)])
        return None

    def cancel_dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> None:
        if dialog["kind"] != "all_access":  # setCancelable(false)
            ctx.close_dialog()

    def _ctx_action(self, ctx: Ctx, dialog: dict[str, Any], entry: str) -> None:
        target, item_id = dialog["target"], int(dialog["id"])
        ctx.close_dialog()
        if entry == "ctx_add_to_playlist":
            media = [item_id] if target == "video" else [int(t["id_media"]) for t in D.tracks(ctx.device, item_id)]
            ctx.open_dialog("save_playlist", media=media, name="")
        elif entry == "ctx_delete" and target == "playlist":
            p = D.playlist(ctx.device, item_id)
            if p is not None:
                ctx.open_dialog("confirm_delete", id=item_id, name=str(p["name"]))
        elif entry == "ctx_share":
            ctx.toast("Share")


# ---------------------------------------------------------------------------------------------- playlist detail
def track_row(ctx: Ctx, area: Bounds, top: int, media: dict[str, Any], on_more: Callable[[], None] | None,
              on_drag: Callable[[int, int, int, int], object] | None = None) -> View:
    """audio_browser_item.xml: the drag handle (playlists only), title, subtitle and "More Actions"."""
    left, _, right, _ = area
    row = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + ROW_H), clickable=True)
    x = left + dp(16)
    if on_drag is not None:
        row.add(View(cls="android.widget.ImageView", bounds=(left + dp(8), top + dp(8), left + dp(48), top + ROW_H - dp(8)),
                     resource_id=T.rid("track_move"), content_desc=T.entry("track_move").description or "",
                     on_drag=on_drag, style=Style(icon="drag_handle", icon_color=theme.TEXT_SECONDARY,
                                                  icon_size=dp(24))))
        x = left + dp(56)
    row.add(View(cls="android.widget.TextView", bounds=(x, top + dp(8), right - dp(56), top + dp(36)),
                 text=D.display_title(media), resource_id=T.rid("track_row_title"),
                 style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, valign="center")))
    row.add(w.label((x, top + dp(36), right - dp(56), top + dp(58)), str(media["filename"]),
                    rid=f"{D.PACKAGE}:id/subtitle", size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY))
    row.add(View(cls="android.widget.ImageView", bounds=(right - dp(52), top + dp(8), right - dp(4), top + ROW_H - dp(8)),
                 resource_id=T.rid("track_more"), content_desc=T.entry("track_more").description or "",
                 clickable=on_more is not None, on_click=on_more,
                 style=Style(icon="more_vert", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
    return row


class PlaylistScreen(Screen):
    """HeaderMediaListActivity for a playlist: header (name, Play), its items in position order, each with the
    drag handle and "More Actions"."""

    activity = PLAYLIST

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state["playlist_id"] = int(extras.get("playlist_id", "0"))

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        pid = int(ctx.state.get("playlist_id", 0))
        p = D.playlist(ctx.device, pid)
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    resource_id=f"{D.PACKAGE}:id/coordinator", style=Style(bg=theme.BACKGROUND))
        if p is None:  # deleted meanwhile
            return root
        header_h = dp(200)
        header = View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + header_h),
                      resource_id=f"{D.PACKAGE}:id/appbar", style=Style(bg=theme.SURFACE_VARIANT))
        header.add(w.icon_button((left + dp(4), top + dp(4), left + dp(52), top + dp(52)),
                                 w.Action("arrow_back", "Navigate up", lambda: _finish_self(ctx)), color=theme.TEXT))
        header.add(View(cls="android.widget.TextView", bounds=(left + dp(16), top + dp(72), right - dp(16), top + dp(112)),
                        text=str(p["name"]), resource_id=T.rid("playlist_header_title"),
                        style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE_L, bold=True, valign="center")))
        header.add(w.button((left + dp(16), top + dp(136), left + dp(136), top + dp(184)), T.text("playlist_play"),
                            lambda: None, rid=T.rid("playlist_play")))
        root.add(header)
        area = (left, top + header_h, right, bottom)
        items = D.tracks(ctx.device, pid)
        base = area[1] - int(ctx.state.get("scroll", 0))

        def dragger(position: int) -> Callable[[int, int, int, int], None]:
            def drag(x1: int, y1: int, x2: int, y2: int) -> None:
                target = max(0, min(len(items) - 1, (y2 - base) // ROW_H))
                D.move(ctx.device, pid, position, int(target))
            return drag

        def more(position: int, media: dict[str, Any]) -> Callable[[], None]:
            return lambda: ctx.open_dialog("ctx", target="track", id=position, title=D.display_title(media))

        rows = [(ROW_H, lambda t, i=i, m=m: track_row(ctx, area, t, m, more(i, m), dragger(i)))
                for i, m in enumerate(items)]
        root.add(w.scroll_list(area, rows, int(ctx.state.get("scroll", 0)),
                               lambda v: ctx.state.__setitem__("scroll", v), rid=T.rid("playlist_tracks"),
                               cls="androidx.recyclerview.widget.RecyclerView"))
        return root

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] == "ctx":
            return context_sheet(ctx, dialog, lambda entry: self._action(ctx, dialog, entry))
        if dialog["kind"] == "save_playlist":
            return save_playlist_sheet(ctx, dialog)
        return None

    def _action(self, ctx: Ctx, dialog: dict[str, Any], entry: str) -> None:
        pid, position = int(ctx.state["playlist_id"]), int(dialog["id"])
        ctx.close_dialog()
        if entry == "ctx_delete":  # removeFromPlaylist: at once, with an undo snackbar
            items = D.tracks(ctx.device, pid)
            if 0 <= position < len(items):
                D.remove(ctx.device, pid, position)
                ctx.toast(f"{D.display_title(items[position])} has been dismissed from playlist")
        elif entry == "ctx_add_to_playlist":
            items = D.tracks(ctx.device, pid)
            if 0 <= position < len(items):
                ctx.open_dialog("save_playlist", media=[int(items[position]["id_media"])], name="")
