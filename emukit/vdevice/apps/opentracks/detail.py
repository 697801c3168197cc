"""TrackRecordedActivity (track_recorded.xml): the tabs Stats / Intervals / By time / By distance over a pager,
and the BottomAppBar as the action bar with menu/track_detail.xml (Show on map, Share and Markers as actions;
Edit, Delete, Resume track and Settings in the overflow; TrackRecordedActivity.java:84-223).

The Stats tab is StatisticsRecordedFragment (statistics_recorded.xml): name, description, start date-time,
distance, moving and total time, speeds or paces by the activity type, altitude gain and loss (StatisticsRecorded
Fragment.java:169-248). Its texts are plain TextViews: nothing on this screen is selectable, so no copy toolbar
shows here (text is copied in the edit screen's fields). Delete asks "Delete track?" (Cancel / OK); OK deletes the
track with its trackpoints and markers and finishes (:198-201, 231-238). Share and Show on map send intents."""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.common import (
    BAR_H,
    EDIT,
    bottom_bar,
    bottom_overflow,
    confirm_delete,
)
from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
TABS = ("tab_stats", "tab_intervals", "tab_by_time", "tab_by_distance")


class DetailScreen(Screen):
    activity = ".TrackRecordedActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if "track_id" not in ctx.state:
            ctx.state["track_id"] = int(extras.get("track_id") or 0)
            ctx.state["tab"] = 0

    def on_resume(self, ctx: Ctx) -> None:
        if D.track(ctx.device, int(ctx.state["track_id"])) is None:  # "track cannot be null": finish
            ctx.device.finish_top()

    def _items(self, ctx: Ctx) -> list[parts.MenuItem]:
        def nothing() -> None:
            return None

        def edit() -> None:
            ctx.start(EDIT, {"track_id": str(ctx.state["track_id"])})

        def delete() -> None:
            ctx.open_dialog("delete")

        from emukit.vdevice.apps.opentracks.recording import is_recording

        items = [parts.MenuItem("detail_show_on_map", "location", nothing),
                 parts.MenuItem("detail_share", "share", nothing),
                 parts.MenuItem("detail_markers", "location", nothing),
                 parts.MenuItem("detail_edit", "edit", edit, always=False),
                 parts.MenuItem("detail_delete", "delete", delete, always=False)]
        if not is_recording(ctx.device):
            items.append(parts.MenuItem("detail_resume", "play", nothing, always=False))
        items.append(parts.MenuItem("detail_settings", "settings", nothing, always=False))
        return items

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    style=Style(bg=theme.BACKGROUND))
        tab = int(ctx.state.get("tab", 0))

        def select(i: int) -> None:
            ctx.state["tab"] = i

        root.add(w.tabs(left, top, right, [T.desc(t) for t in TABS], tab, select, rid=T.rid("detail_tabs")))
        pager = View(cls="androidx.recyclerview.widget.RecyclerView",
                     bounds=(left, top + dp(48), right, bottom - BAR_H), resource_id=T.rid("detail_pager"))
        row = D.track(ctx.device, int(ctx.state["track_id"]))
        if tab == 0 and row is not None:
            pager.add(self._stats(ctx, (left, top + dp(48), right, bottom - BAR_H), row))
        root.add(pager)
        items = self._items(ctx)
        root.add(bottom_bar(ctx, items))
        menu = bottom_overflow(ctx, items)
        if menu is not None:
            root.add(menu)
        return root

    def _stats(self, ctx: Ctx, box: tuple[int, int, int, int], row: dict[str, Any]) -> View:
        left, top, right, _ = box
        scroll = View(cls="android.widget.ScrollView", bounds=box, scrollable=True)
        x0, mid, x1 = left + dp(8), (left + right) // 2, right - dp(8)
        y = top + dp(16)
        scroll.add(View(cls="android.widget.ImageView", bounds=(x0, y, x0 + dp(48), y + dp(48)),
                        resource_id="de.dennisguse.opentracks:id/stats_activity_type_icon",
                        style=Style(icon="opentracks.app", icon_color=theme.TEXT_SECONDARY, icon_size=dp(40))))
        scroll.add(w.label((x0 + dp(64), y, x1, y + dp(32)), row.get("name") or "", rid=T.rid("stats_name"),
                           size=theme.TEXT_TITLE))
        scroll.add(w.label((x0 + dp(64), y + dp(32), x1, y + dp(56)), row.get("description") or "",
                           rid=T.rid("stats_description"), size=theme.TEXT_BODY))
        start = D.local(int(row.get("starttime") or 0), int(row.get("starttime_offset") or 0))
        y += dp(72)
        scroll.add(w.label((x0, y, x1, y + dp(24)), D.medium_datetime(start), rid=T.rid("stats_start"),
                           size=theme.TEXT_SMALL, align="right"))
        y += dp(40)
        dist, unit = D.distance_parts(row.get("totaldistance") or 0.0)
        speed = D.SPEED_PREFERRED.get(D.activity_type_id(row.get("category") or ""), True)

        def cell(x: int, x_end: int, y0: int, label_entry: str, label: str, value_entry: str, value: str,
                 unit_text: str = "", unit_rid: str = "") -> None:
            scroll.add(w.label((x, y0, x_end, y0 + dp(20)), label, rid=T.rid(label_entry), size=theme.TEXT_SMALL,
                               color=theme.TEXT_SECONDARY))
            value_end = x_end - (dp(56) if unit_text else 0)
            scroll.add(w.label((x, y0 + dp(20), value_end, y0 + dp(52)), value, rid=T.rid(value_entry),
                               size=theme.TEXT_TITLE_L, bold=True))
            if unit_text:
                scroll.add(w.label((value_end, y0 + dp(28), x_end, y0 + dp(52)), unit_text, rid=unit_rid,
                                   size=theme.TEXT_SMALL))

        cell(x0, mid, y, "stats_distance_label", T.text("stats_distance_label"), "stats_distance", dist, unit,
             T.rid("stats_distance_unit"))
        cell(mid, x1, y, "stats_moving_time_label", T.text("stats_moving_time_label"), "stats_moving_time",
             D.elapsed(row.get("movingtime") or 0))
        y += dp(60)
        cell(mid, x1, y, "stats_total_time_label", T.text("stats_total_time_label"), "stats_total_time",
             D.elapsed(row.get("totaltime") or 0))
        y += dp(68)
        max_v, max_u = D.speed_parts(row.get("maxspeed"), speed)
        cell(x0, mid, y, "stats_max_speed_label", "Max speed" if speed else "Fastest pace", "stats_max_speed", max_v,
             max_u, "de.dennisguse.opentracks:id/stats_max_speed_unit")
        mov_v, mov_u = D.speed_parts(row.get("avgmovingspeed"), speed)
        cell(mid, x1, y, "stats_moving_speed_label", "Avg moving speed" if speed else "Avg moving pace",
             "stats_moving_speed", mov_v, mov_u, "de.dennisguse.opentracks:id/stats_moving_speed_unit")
        y += dp(60)
        avg_v, avg_u = D.speed_parts(row.get("avgspeed"), speed)
        cell(mid, x1, y, "stats_average_speed_label", "Avg speed" if speed else "Avg pace", "stats_average_speed",
             avg_v, avg_u, T.rid("stats_speed_unit"))
        gain, loss = row.get("elevationgain"), row.get("elevationloss")
        if gain is not None and loss is not None:  # the altitude group shows when both are known (:245-246)
            y += dp(68)
            g_v, g_u = D.distance_parts(float(gain), 0, threshold_mi=float("inf"))
            l_v, l_u = D.distance_parts(float(loss), 0, threshold_mi=float("inf"))
            cell(x0, mid, y, "stats_gain_label", T.text("stats_gain_label"), "stats_gain", g_v, g_u,
                 "de.dennisguse.opentracks:id/stats_altitude_gain_unit")
            cell(mid, x1, y, "stats_loss_label", T.text("stats_loss_label"), "stats_loss", l_v, l_u,
                 "de.dennisguse.opentracks:id/stats_altitude_loss_unit")
        return scroll

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] != "delete":
            return None

        def ok() -> None:
            from emukit.vdevice.apps.opentracks.recording import recording_id

            track_id = int(ctx.state["track_id"])
            if recording_id(ctx.device) == track_id:
                ctx.toast("This track cannot be deleted as it is currently recorded.")
            else:
                D.delete_tracks(ctx.device, [track_id])
            ctx.device.finish_top()

        return confirm_delete(ctx, 1, ok)

