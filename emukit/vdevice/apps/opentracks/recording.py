"""Recording: TrackRecordingActivity (track_recording.xml) while the recording service runs, and
TrackStoppedActivity (track_stopped.xml) after its FAB is held.

The recording service's status lives in the app's process (``state.app_data``), as TrackRecordingService keeps
it: a force-stop ends it, leaving the track as far as it was written. The virtual device has no GPS receiver, so
a recording writes the track row and its manual segment start/end trackpoints only (TrackRecordingManager.java:
71-120); tracks with a route are seeded as data (the ``tracks:`` section of a base snapshot spec).

* TrackRecordingActivity: the FAB "Stop" toasts "Hold to stop" on a tap; a long press ends the track and opens
  TrackStoppedActivity (TrackRecordingActivity.java:138-148).
* TrackStoppedActivity: name, activity type and description (the edit fields' ids), the moving time, distance
  and speed, and Discard / Record (resume) / Stop (done); done stores the fields (TrackUtils.updateTrack) and
  finishes; BACK resumes the recording (TrackStoppedActivity.java:93-120).
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.common import (
    RECORDING,
    STOPPED,
    confirm_delete,
    forward,
)
from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.apps.opentracks.edit import fields_form
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
_KEY = "recording_track"


def _process(device: Any) -> dict[str, Any]:
    return device.state.app_data.setdefault(D.PACKAGE, {})


def recording_id(device: Any) -> int | None:
    value = device.state.app_data.get(D.PACKAGE, {}).get(_KEY)
    return int(value) if value else None


def is_recording(device: Any) -> bool:
    return recording_id(device) is not None


def start_recording(device: Any) -> int:
    track_id = D.start_track(device)
    _process(device)[_KEY] = track_id
    return track_id


def resume_recording(device: Any, track_id: int) -> None:
    D.STORE.execute(device, "INSERT INTO trackpoints (trackid, time, type) VALUES (?, ?, ?)",
                    (track_id, device.wall_ms(), D.SEGMENT_START_MANUAL))
    _process(device)[_KEY] = track_id


def stop_recording(device: Any) -> int | None:
    track_id = recording_id(device)
    if track_id is not None:
        D.end_track(device, track_id)
        _process(device).pop(_KEY, None)
    return track_id


class RecordingScreen(Screen):
    activity = ".TrackRecordingActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.process_start(ctx.device)
        if extras.get("track_id"):
            ctx.state["track_id"] = int(extras["track_id"])

    def _stop(self, ctx: Ctx) -> None:
        track_id = stop_recording(ctx.device) or ctx.state.get("track_id")
        forward(ctx, STOPPED, {"track_id": str(track_id)})

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    style=Style(bg=theme.BACKGROUND))
        tabs = w.tabs(left, top, right, ["Stats", "Intervals", "By time", "By distance"], 0, lambda i: None,
                      rid=T.rid("recording_tabs"))
        root.add(tabs)
        row = D.track(ctx.device, int(ctx.state.get("track_id", 0))) or {}
        root.add(w.label((left + dp(16), top + dp(72), right - dp(16), top + dp(104)), row.get("name") or "",
                         size=theme.TEXT_TITLE))
        root.add(w.label((left + dp(16), top + dp(112), right - dp(16), top + dp(140)),
                         D.elapsed(max(0, ctx.device.wall_ms() - int(row.get("starttime") or ctx.device.wall_ms()))),
                         size=theme.TEXT_TITLE_L))
        bar = View(cls="android.view.ViewGroup", bounds=(left, bottom - dp(80), right, bottom),
                   resource_id=T.rid("detail_bottom_bar"), style=Style(bg=theme.SURFACE_VARIANT))
        root.add(bar)
        size = dp(56)
        x1 = right - dp(16)
        root.add(View(cls=T.cls("recording_fab"), bounds=(x1 - size, bottom - dp(68), x1, bottom - dp(68) + size),
                      resource_id=T.rid("recording_fab"), content_desc=T.desc("recording_fab"), clickable=True,
                      long_clickable=True, focusable=True, on_click=lambda: ctx.toast(T.text("toast_hold_to_stop")),
                      on_long_click=lambda: self._stop(ctx),
                      style=Style(bg=theme.PRIMARY, radius=dp(16), elevation=dp(6), icon="stop",
                                  icon_color=(255, 255, 255), icon_size=dp(24))))
        return root


class StoppedScreen(Screen):
    activity = ".TrackStoppedActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if ctx.state.get("loaded"):
            return
        track_id = int(extras.get("track_id") or 0)
        row = D.track(ctx.device, track_id) or {}
        ctx.state.update(track_id=track_id, name=row.get("name") or "", category=row.get("category") or "",
                         description=row.get("description") or "", loaded=True)

    def _store(self, ctx: Ctx) -> None:
        D.update_track(ctx.device, int(ctx.state["track_id"]), ctx.state["name"], ctx.state["category"],
                       ctx.state["description"])

    def _finish(self, ctx: Ctx) -> None:
        self._store(ctx)
        ctx.device.finish_top()

    def _resume(self, ctx: Ctx) -> None:
        self._store(ctx)
        resume_recording(ctx.device, int(ctx.state["track_id"]))
        forward(ctx, RECORDING, {"track_id": str(ctx.state["track_id"])})

    def on_back(self, ctx: Ctx) -> bool:
        resume_recording(ctx.device, int(ctx.state["track_id"]))
        forward(ctx, RECORDING, {"track_id": str(ctx.state["track_id"])})
        return True

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="android.widget.LinearLayout", bounds=ctx.frame, style=Style(bg=theme.BACKGROUND))
        content = View(cls="android.widget.LinearLayout", bounds=(left, top, right, bottom - dp(96)),
                       resource_id=T.rid("stopped_content"))
        form_box = (left, top, right, top + dp(260))
        content.add(fields_form(ctx, form_box, ("stopped_name_field", "stopped_activity_type_field",
                                                "stopped_description_field"), scroll_rid=""))
        row = D.track(ctx.device, int(ctx.state["track_id"])) or {}
        y = top + dp(272)
        value, unit = D.distance_parts(row.get("totaldistance") or 0.0)
        content.add(w.label((left + dp(16), y, right - dp(16), y + dp(40)), D.elapsed(row.get("movingtime") or 0),
                            rid=T.rid("stopped_time"), size=theme.TEXT_TITLE_L, align="center"))
        content.add(w.label((left + dp(16), y + dp(48), (left + right) // 2, y + dp(80)), value,
                            rid=T.rid("stopped_distance"), size=theme.TEXT_TITLE, align="right"))
        content.add(w.label(((left + right) // 2 + dp(8), y + dp(48), right - dp(16), y + dp(80)), unit,
                            rid="de.dennisguse.opentracks:id/distance_unit", size=theme.TEXT_BODY))
        root.add(content)
        mid = (left + right) // 2
        by = bottom - dp(88)
        for entry, bounds, icon, action in (
                ("stopped_discard", (mid - dp(32) - dp(84), by + dp(16), mid - dp(32) - dp(52), by + dp(48)), "delete",
                 lambda: ctx.open_dialog("delete")),
                ("stopped_resume", (mid - dp(32), by, mid + dp(32), by + dp(64)), "play", lambda: self._resume(ctx)),
                ("stopped_finish", (mid + dp(68), by, mid + dp(132), by + dp(64)), "check", lambda: self._finish(ctx))):
            root.add(View(cls=T.cls(entry), bounds=bounds, resource_id=T.rid(entry), content_desc=T.desc(entry),
                          clickable=True, focusable=True, on_click=action,
                          style=Style(icon=icon, icon_color=theme.PRIMARY, icon_size=bounds[2] - bounds[0])))
        return root

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] != "delete":
            return None

        def ok() -> None:
            D.delete_tracks(ctx.device, [int(ctx.state["track_id"])])
            ctx.device.finish_top()

        return confirm_delete(ctx, 1, ok)
