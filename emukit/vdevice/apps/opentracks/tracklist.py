"""TrackListActivity (track_list.xml): the MaterialToolbar "OpenTracks" with Search and Markers as actions and
Settings / Help in the overflow (menu/track_list.xml), the RecyclerView of track_list_item.xml rows (newest first)
or the empty view, the BottomAppBar and the red "Record" FAB (TrackListActivity.java:144-209).

* On creation it asks for every permission it records with (PermissionRequester.ALL: location, nearby devices,
  notifications; :149, 207-209); a refusal toasts "OpenTracks requires permission ...". The deterministic device
  has them all, as after android_world's setup, so it asks nothing there.
* A tap on a row opens TrackRecordedActivity (the recording track: TrackRecordingActivity); a long press selects
  it and starts the contextual action mode (menu/list_context_menu.xml), whose Edit shows for one selection.
* The FAB starts a new track and opens TrackRecordingActivity; while recording a tap toasts "Hold to stop".
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.common import (
    DETAIL,
    EDIT,
    RECORDING,
    confirm_delete,
)
from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.apps.permissions import request_permissions
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
FINE, COARSE = "android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"
SCAN, CONNECT = "android.permission.BLUETOOTH_SCAN", "android.permission.BLUETOOTH_CONNECT"
NOTIFY = "android.permission.POST_NOTIFICATIONS"
#: PermissionRequester.ALL (PermissionRequester.java:60-110), asked one permission group at a time as the
#: permission controller does: the first of each group is asked, the rest of the group follows its answer
GROUPS = ((FINE, COARSE), (CONNECT, SCAN), (NOTIFY,))
ALL = tuple(p for group in GROUPS for p in group)
ROW_H, ROW_DESC_H = dp(64), dp(84)


class TrackListScreen(Screen):
    activity = ".TrackListActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.process_start(ctx.device)
        ctx.state["ask"] = True

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.pop("ask", False):
            self._ask_next(ctx, 0, {})

    # ------------------------------------------------------------------------------------ permissions
    def _ask_next(self, ctx: Ctx, index: int, results: dict[str, bool]) -> None:
        device, pkg = ctx.device, T.package
        while index < len(GROUPS) and all(device.permission_granted(pkg, p) for p in GROUPS[index]):
            index += 1
        if index >= len(GROUPS):
            if not all(device.permission_granted(pkg, p) for p in ALL):
                ctx.toast(T.text("toast_permission_failed"))
            return
        ctx.state["asking"] = index
        request_permissions(device, ctx.act, [GROUPS[index][0]], 100 + index)

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        index = code - 100
        if not 0 <= index < len(GROUPS):
            return
        group = GROUPS[index]
        if results.get(group[0]):  # a group is granted as a whole
            for perm in group[1:]:
                ctx.device.grant_permission(T.package, perm)
            self._ask_next(ctx, index + 1, results)
            return
        ctx.toast(T.text("toast_permission_failed"))  # the request's onRejected (TrackListActivity.java:208)

    # ------------------------------------------------------------------------------------ actions
    def _record(self, ctx: Ctx) -> None:
        from emukit.vdevice.apps.opentracks.recording import (
            is_recording,
            start_recording,
        )

        if is_recording(ctx.device):
            ctx.toast(T.text("toast_hold_to_stop"))
            return
        track_id = start_recording(ctx.device)
        ctx.start(RECORDING, {"track_id": str(track_id)})

    def _open(self, ctx: Ctx, row: dict[str, Any]) -> None:
        selected: list[int] = ctx.state.get("selected", [])
        if ctx.state.get("action_mode"):
            tid = int(row["_id"])
            ctx.state["selected"] = [i for i in selected if i != tid] if tid in selected else [*selected, tid]
            if not ctx.state["selected"]:
                self._end_action_mode(ctx)
            return
        from emukit.vdevice.apps.opentracks.recording import recording_id

        if recording_id(ctx.device) == int(row["_id"]):
            ctx.start(RECORDING, {"track_id": str(row["_id"])})
        else:
            ctx.start(DETAIL, {"track_id": str(row["_id"])})

    def _select(self, ctx: Ctx, row: dict[str, Any]) -> None:
        tid = int(row["_id"])
        selected: list[int] = list(ctx.state.get("selected", []))
        ctx.state["selected"] = [i for i in selected if i != tid] if tid in selected else [*selected, tid]
        ctx.state["action_mode"] = True
        if not ctx.state["selected"]:
            self._end_action_mode(ctx)

    def _end_action_mode(self, ctx: Ctx) -> None:
        ctx.state.pop("action_mode", None)
        ctx.state.pop("selected", None)
        ctx.state.pop("menu", None)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("action_mode"):
            self._end_action_mode(ctx)
            return True
        return False

    # ------------------------------------------------------------------------------------ build
    def _row(self, ctx: Ctx, area: tuple[int, int, int, int], top: int, row: dict[str, Any]) -> View:
        left, _, right, _ = area
        height = ROW_DESC_H if row.get("description") else ROW_H
        selected = int(row["_id"]) in ctx.state.get("selected", [])
        view = View(cls=T.cls("row"), bounds=(left, top, right, top + height), clickable=True, long_clickable=True,
                    focusable=True, selected=selected, on_click=lambda: self._open(ctx, row),
                    on_long_click=lambda: self._select(ctx, row),
                    style=Style(bg=theme.PRIMARY_CONTAINER if selected else None))
        x = left + dp(8)
        view.add(View(cls=T.cls("row_icon"), bounds=(x, top + dp(8), x + dp(24), top + dp(32)),
                      resource_id=T.rid("row_icon"), content_desc=T.desc("row_icon"),
                      style=Style(icon="opentracks.app", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
        nx = x + dp(32)
        start = D.local(int(row.get("starttime") or 0), int(row.get("starttime_offset") or 0))
        date = D.relative_date(ctx.device, start)
        view.add(w.label((right - dp(120), top + dp(8), right - dp(8), top + dp(32)), date, rid=T.rid("row_date"),
                         size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY, align="right"))
        view.add(w.label((nx, top + dp(8), right - dp(128), top + dp(32)), row.get("name") or "",
                         rid=T.rid("row_name"), size=theme.TEXT_BODY_L))
        view.add(w.label((nx, top + dp(32), right - dp(96), top + dp(54)), D.time_distance(row),
                         rid=T.rid("row_time_distance"), size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
        view.add(w.label((right - dp(88), top + dp(32), right - dp(8), top + dp(54)), start.strftime("%H:%M"),
                         rid=T.rid("row_time"), size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY, align="right"))
        if row.get("description"):
            view.add(w.label((nx, top + dp(54), right - dp(8), top + dp(78)), row["description"],
                             rid=T.rid("row_description"), size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
        view.add(w.divider(left, top + height - 1, right))
        return view

    def _menu(self, ctx: Ctx) -> list[parts.MenuItem]:
        def nothing() -> None:
            return None

        return [parts.MenuItem("menu_search", "search", nothing), parts.MenuItem("menu_markers", "location", nothing),
                parts.MenuItem("menu_settings", "settings", nothing, always=False),
                parts.MenuItem("menu_help", "info", nothing, always=False)]

    def _action_items(self, ctx: Ctx) -> list[parts.MenuItem]:
        selected: list[int] = ctx.state.get("selected", [])

        def edit() -> None:
            tid = selected[0]
            self._end_action_mode(ctx)
            ctx.start(EDIT, {"track_id": str(tid)})

        def delete() -> None:
            ctx.open_dialog("delete", ids=list(selected))

        def select_all() -> None:
            ctx.state["selected"] = [int(r["_id"]) for r in D.tracks(ctx.device)]

        def nothing() -> None:
            return None

        items = [parts.MenuItem("action_mode_show_on_map", "location", nothing),
                 parts.MenuItem("action_mode_share", "share", nothing)]
        if len(selected) == 1:
            items.append(parts.MenuItem("action_mode_edit", "edit", edit))
        items += [parts.MenuItem("action_mode_delete", "delete", delete),
                  parts.MenuItem("action_mode_aggregated", "info", nothing, always=False),
                  parts.MenuItem("action_mode_select_all", "check", select_all, always=False)]
        return items

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    style=Style(bg=theme.BACKGROUND))
        if ctx.state.get("action_mode"):
            items = self._action_items(ctx)
            count = len(ctx.state.get("selected", []))
            bar = parts.toolbar(ctx, "list_toolbar", str(count), items, on_up=lambda: self._end_action_mode(ctx),
                                up_desc="Done")
        else:
            items = self._menu(ctx)
            bar = parts.toolbar(ctx, "list_toolbar", T.text("list_title"), items)
        root.add(bar)
        body = (left, top + parts.TOOLBAR_H, right, bottom - dp(80))
        rows = D.tracks(ctx.device)
        if rows:
            area = body
            built = [(ROW_DESC_H if r.get("description") else ROW_H,
                      (lambda t, r=r: self._row(ctx, area, t, r))) for r in rows]
            root.add(parts.recycler(ctx, "track_list", area, built))
        else:
            empty = View(cls="android.widget.RelativeLayout", bounds=body, resource_id=T.rid("track_list_empty"))
            empty.add(w.label((left + dp(24), body[3] - dp(200), right - dp(24), body[3] - dp(120)),
                              T.text("track_list_empty_text"), size=theme.TEXT_TITLE, align="right", max_lines=2))
            empty.add(View(cls="android.widget.ImageView", bounds=(right - dp(120), body[3] - dp(110), right - dp(40),
                                                                   body[3] - dp(10)),
                           content_desc="Arrow", style=Style(icon="arrow_forward", icon_color=theme.TEXT_SECONDARY,
                                                             icon_size=dp(48))))
            root.add(empty)
        if not ctx.state.get("action_mode"):
            root.add(self._bottom(ctx))
        menu = parts.overflow_menu(ctx, "list_toolbar", items, T.rid("overflow_title"))
        if menu is not None:
            root.add(menu)
        return root

    def _bottom(self, ctx: Ctx) -> View:
        left, _, right, bottom = ctx.frame
        bar = View(cls="android.view.ViewGroup", bounds=(left, bottom - dp(80), right, bottom),
                   resource_id=T.rid("bottom_app_bar"), style=Style(bg=theme.SURFACE_VARIANT))
        for i, entry in enumerate(("aggregated_stats_button", "sensor_start_button")):
            x = left + dp(16) + i * dp(56)
            bar.add(View(cls=T.cls(entry), bounds=(x, bottom - dp(64), x + dp(48), bottom - dp(16)),
                         resource_id=T.rid(entry), clickable=True, focusable=True, on_click=lambda: None,
                         style=Style(icon="info" if i == 0 else "location", icon_color=theme.TEXT,
                                     icon_size=dp(24))))
        from emukit.vdevice.apps.opentracks.recording import is_recording

        size = dp(56)
        x1 = right - dp(16)
        fab = View(cls=T.cls("record_fab"), bounds=(x1 - size, bottom - dp(68), x1, bottom - dp(68) + size),
                   resource_id=T.rid("record_fab"), content_desc=T.desc("record_fab"), clickable=True,
                   long_clickable=is_recording(ctx.device), focusable=True, on_click=lambda: self._record(ctx),
                   style=Style(bg=(183, 28, 28) if not is_recording(ctx.device) else theme.PRIMARY, radius=dp(16),
                               elevation=dp(6), icon="stop" if is_recording(ctx.device) else "opentracks.record",
                               icon_color=(255, 255, 255), icon_size=dp(24)))
        if is_recording(ctx.device):
            fab.on_long_click = lambda: self._stop(ctx)
        bar.add(fab)
        return bar

    def _stop(self, ctx: Ctx) -> None:
        from emukit.vdevice.apps.opentracks.recording import stop_recording

        stop_recording(ctx.device)

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] != "delete":
            return None
        ids = [int(i) for i in dialog.get("ids", [])]

        def ok() -> None:
            from emukit.vdevice.apps.opentracks.recording import recording_id

            keep = recording_id(ctx.device)
            D.delete_tracks(ctx.device, [i for i in ids if i != keep])
            self._end_action_mode(ctx)

        return confirm_delete(ctx, len(ids), ok)
