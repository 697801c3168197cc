"""EventActivity: a new event ("New Event") or an existing one ("Edit Event"), activity_event.xml's fields,
the Save / Delete actions and their dialogs (cal: EventActivity.kt; the table's entries cite each line).

* Save (``saveCurrentEvent``/``saveEvent``, EventActivity.kt:1184-1330): an empty title toasts "Title cannot be
  empty"; an end before the start toasts "The event cannot end earlier than it starts"; the first save of an
  event with a reminder shows the "Disclaimer" (ReminderWarningDialog, ``was_alarm_warning_shown``); an event with
  a reminder needs POST_NOTIFICATIONS (the permission dialog when it is not granted; denied: "Permission
  Required", nothing written); then the row is written and the editor finishes.
* BACK with changes asks "You have unsaved changes. Save before exit?" (Save / Discard, EventActivity.kt:130-143);
  the toolbar's arrow finishes without asking or saving.
* Delete (existing events): "Are you sure you want to proceed with the deletion?" Yes / No, then finish.
* Dates open the framework DatePickerDialog, times Material Components' MaterialTimePicker (the default with the
  system theme on API 31+, EventActivity.kt:1461-1492).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from emukit.vdevice.apps.calendar import data as D
from emukit.vdevice.apps.calendar.data import T
from emukit.vdevice.apps.permissions import request_permissions
from emukit.vdevice.kit import parts, pickers
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"
SETTINGS = "com.android.settings"
SAVE_REQUEST = 1
FIELDS = ("title", "location", "description")
TEXT_ROW = Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, padding=dp(16))

# activity_event.xml's nesting (cal:app/src/main/res/layout/activity_event.xml), the rows emukit draws
FORM = N(entry="editor_scroll", cls="androidx.core.widget.NestedScrollView", children=(
    N(cls="android.widget.RelativeLayout", pad=8, children=(
        N(entry="title_field", h=56),
        N(entry="location_field", h=56),
        N(entry="description_field", h=72),
        N(entry="all_day_row", cls="android.widget.RelativeLayout", h=52, children=(N(entry="all_day_toggle"),)),
        N(row=True, h=52, children=(N(entry="start_date", style=TEXT_ROW), N(entry="start_time", w=96,
                                                                            style=TEXT_ROW))),
        N(row=True, h=52, children=(N(entry="end_date", style=TEXT_ROW), N(entry="end_time", w=96, style=TEXT_ROW))),
        N(entry="time_zone", h=48, style=TEXT_ROW),
        N(entry="reminder_1", h=48, style=TEXT_ROW),
        N(entry="reminder_2", h=48, style=TEXT_ROW),
        N(entry="repetition", h=48, style=TEXT_ROW),
    )),
))


def _parse(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


class EventScreen(Screen):
    activity = ".activities.EventActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if ctx.state.get("loaded"):
            return
        event_id = int(extras["event_id"]) if extras.get("event_id") else None
        event = D.event(ctx.device, event_id) if event_id is not None else None
        if event is not None:
            start, end = D.local(ctx.device, event["start_ts"]), D.local(ctx.device, event["end_ts"])
            values = {f: event[f] for f in FIELDS}
            values.update(all_day=bool(event["flags"] & D.FLAG_ALL_DAY), reminder=event["reminder_1_minutes"])
        else:  # getNewEventTimestampFromCode: the day at the next full hour; end = start (duration 0)
            now = D.local(ctx.device, ctx.device.wall_ms() // 1000)
            day = dt.date.fromisoformat(extras["day"]) if extras.get("day") else now.date()
            start = dt.datetime.combine(day, dt.time(now.hour), dt.UTC) + dt.timedelta(hours=1)
            end = start
            values = {"title": "", "location": "", "description": "", "all_day": False, "reminder": 10}
        values.update(start=start.strftime("%Y-%m-%dT%H:%M"), end=end.strftime("%Y-%m-%dT%H:%M"))
        ctx.state.update(values, event_id=event_id, original=dict(values), loaded=True)
        if event is None:
            ctx.state["focus_title"] = True  # the title is focused with the keyboard up (EventActivity.kt:513-514)

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.pop("focus_title", False):
            ctx.device.state.ui.focused_id = T.rid("title_field")

    def _values(self, ctx: Ctx) -> dict[str, Any]:
        return {k: ctx.state[k] for k in (*FIELDS, "all_day", "reminder", "start", "end")}

    def _changed(self, ctx: Ctx) -> bool:
        return self._values(ctx) != ctx.state.get("original")

    def on_back(self, ctx: Ctx) -> bool:
        if self._changed(ctx):
            ctx.open_dialog("unsaved")
            return True
        return False

    # ------------------------------------------------------------------------------------ saving
    def save(self, ctx: Ctx, *, warned: bool = False) -> None:
        start, end = _parse(ctx.state["start"]), _parse(ctx.state["end"])
        if not str(ctx.state["title"]).strip():
            ctx.toast(T.text("toast_title_empty"))
            return
        if end < start:
            ctx.toast(T.text("toast_end_before_start"))
            return
        has_reminder = int(ctx.state["reminder"]) != -1
        prefs = D.prefs(ctx.device)
        if has_reminder and not warned and not prefs.get_bool("was_alarm_warning_shown"):
            ctx.open_dialog("disclaimer")
            return
        if has_reminder and not ctx.device.permission_granted(T.package, NOTIFICATIONS):
            request_permissions(ctx.device, ctx.act, [NOTIFICATIONS], SAVE_REQUEST)
            return
        self._store(ctx)

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        if code != SAVE_REQUEST:
            return
        if results.get(NOTIFICATIONS):
            self._store(ctx)
        else:
            ctx.open_dialog("permission_required")

    def _store(self, ctx: Ctx) -> None:
        start, end = _parse(ctx.state["start"]), _parse(ctx.state["end"])
        all_day = bool(ctx.state["all_day"])
        if all_day:  # the start of the first day, noon of the last (EventActivity.kt:383-386)
            start = dt.datetime.combine(start.date(), dt.time(), dt.UTC)
            end = dt.datetime.combine(end.date(), dt.time(12), dt.UTC)
        values = {f: ctx.state[f] for f in FIELDS}
        values.update(start_ts=int(start.replace(tzinfo=dt.UTC).timestamp()),
                      end_ts=int(end.replace(tzinfo=dt.UTC).timestamp()),
                      reminder_1_minutes=int(ctx.state["reminder"]), flags=D.FLAG_ALL_DAY if all_day else 0)
        event_id = ctx.state.get("event_id")
        if event_id is not None:
            old = D.event(ctx.device, event_id) or {}
            values = {**{k: old[k] for k in D.EVENT_COLUMNS if k in old}, **values}
        D.save_event(ctx.device, values, event_id)
        ctx.toast(T.text("toast_saving"))
        ctx.device.finish_top()

    def _delete(self, ctx: Ctx) -> None:
        D.delete_event(ctx.device, int(ctx.state["event_id"]))
        ctx.device.finish_top()

    # ------------------------------------------------------------------------------------ build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("editor_root"), style=Style(bg=theme.BACKGROUND))
        existing = ctx.state.get("event_id") is not None
        items = [parts.MenuItem("save", "check", lambda: self.save(ctx))]
        if existing:
            items += [parts.MenuItem("delete", "delete", lambda: ctx.open_dialog("delete")),
                      parts.MenuItem("duplicate", "copy", lambda: None, always=False),
                      parts.MenuItem("share", "share", lambda: None, always=False)]
        title = T.text("editor_title_edit" if existing else "editor_title_new")
        root.add(parts.toolbar(ctx, "editor_toolbar", title, items, on_up=ctx.device.finish_top))
        start, end = _parse(ctx.state["start"]), _parse(ctx.state["end"])

        def setter(key: str) -> Any:
            def put(text: str) -> None:
                ctx.state[key] = text
            return put

        def toggle_all_day() -> None:
            ctx.state["all_day"] = not ctx.state["all_day"]

        hidden = {"visible": not ctx.state["all_day"]}
        reminder = int(ctx.state["reminder"])
        bind: dict[str, dict[str, Any]] = {
            "title_field": {"text": ctx.state["title"], "hint": "Title", "on_text": setter("title")},
            "location_field": {"text": ctx.state["location"], "hint": "Location", "on_text": setter("location")},
            "description_field": {"text": ctx.state["description"], "hint": "Description",
                                  "on_text": setter("description"), "style": {"max_lines": 2, "valign": "top"}},
            "all_day_row": {"on_click": toggle_all_day},
            "all_day_toggle": {"checkable": True, "checked": bool(ctx.state["all_day"]), "on_click": toggle_all_day},
            "start_date": {"text": D.day_title(ctx.device, start.date()),
                           "on_click": lambda: pickers.open_date(ctx, "start", start.date())},
            "start_time": {"text": D.time_text(start.hour, start.minute), **hidden,
                           "on_click": lambda: pickers.open_time(ctx, "start", start.hour, start.minute)},
            "end_date": {"text": D.day_title(ctx.device, end.date()),
                         "on_click": lambda: pickers.open_date(ctx, "end", end.date())},
            "end_time": {"text": D.time_text(end.hour, end.minute), **hidden,
                         "on_click": lambda: pickers.open_time(ctx, "end", end.hour, end.minute)},
            "time_zone": {"text": "UTC"},
            "reminder_1": {"text": "No reminder" if reminder == -1 else f"{reminder} minutes before"},
            "repetition": {"text": "No repetition"},
        }
        body = (frame[0], frame[1] + parts.TOOLBAR_H, frame[2], frame[3])
        root.add(inflate(FORM, body, T, bind))
        menu = parts.overflow_menu(ctx, "editor_toolbar", items, f"{T.package}:id/title")
        if menu is not None:
            root.add(menu)
        return root

    # ------------------------------------------------------------------------------------ dialogs
    def _disclaimer(self, ctx: Ctx) -> View:
        """ReminderWarningDialog: OK (positive) accepts and goes on saving; Settings (neutral) opens the app's
        details page in Settings and the dialog stays; an outside tap does nothing (cancelOnTouchOutside false,
        cal ReminderWarningDialog.kt:20-29)."""
        def accept() -> None:
            ctx.close_dialog()
            prefs = D.prefs(ctx.device)
            prefs.put_bool("was_alarm_warning_shown", True)
            shared_prefs.save(ctx.device, D.PREFS, prefs)
            self.save(ctx, warned=True)

        def settings() -> None:
            ctx.device.app(SETTINGS).open_page(ctx.device, "app_info", pkg=T.package)

        return w.dialog(ctx.frame, T.text("reminder_warning_title"), T.text("reminder_warning_text"),
                        buttons=[("Settings", settings), ("OK", accept)],
                        button_ids=[T.rid("reminder_warning_settings"), T.rid("reminder_warning_ok")],
                        title_rid=T.rid("dialog_title"), message_rid=T.rid("reminder_warning_text"))

    def _set(self, ctx: Ctx, field: str, when: dt.datetime) -> None:
        """A new start keeps the duration (EventActivity.kt:1550-1584); a new end is taken as it is."""
        start, end = _parse(ctx.state["start"]), _parse(ctx.state["end"])
        if field == "start":
            ctx.state["start"] = when.strftime("%Y-%m-%dT%H:%M")
            ctx.state["end"] = (when + (end - start)).strftime("%Y-%m-%dT%H:%M")
        else:
            ctx.state["end"] = when.strftime("%Y-%m-%dT%H:%M")

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        field = dialog.get("field", "start")
        current = _parse(ctx.state.get(field, ctx.state["start"]))
        if kind == "date":
            return pickers.date_dialog(ctx, dialog, lambda day: self._set(
                ctx, field, dt.datetime.combine(day, current.time())))
        if kind == "time":
            return pickers.time_dialog(ctx, dialog, lambda h, m: self._set(
                ctx, field, current.replace(hour=h, minute=m)), pickers.material_time(T.package))
        dialog_ids = {"title_rid": T.rid("dialog_title"), "message_rid": T.rid("dialog_message")}
        if kind == "unsaved":
            return parts.confirm(ctx, T.text("save_changes_message"), lambda: self.save(ctx), yes="Save",
                                 no="Discard", on_no=ctx.device.finish_top, **dialog_ids)
        if kind == "delete":
            return parts.confirm(ctx, T.text("delete_message"), lambda: self._delete(ctx), yes="Yes", no="No",
                                 title_rid=T.rid("dialog_title"), message_rid=T.rid("delete_message"))
        if kind == "disclaimer":
            return self._disclaimer(ctx)
        if kind == "permission_required":
            return w.dialog(ctx.frame, T.text("permission_required_title"), T.text("permission_required_message"),
                            buttons=[("Cancel", ctx.close_dialog), ("Grant Permission", ctx.close_dialog)],
                            on_dismiss=ctx.close_dialog, **dialog_ids)
        return None
