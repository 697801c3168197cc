"""The framework's date and time picker dialogs, as Android 14 lays them out (``DatePickerDialog`` in its
calendar mode, ``TimePickerDialog`` in its clock mode), with the framework's ids and descriptions.

Date picker (yaap/frameworks_base a058b330, Android 14: ``core/res/res/layout/date_picker_material.xml``,
``date_picker_header_material.xml``, ``day_picker_content_material.xml``; ``SimpleMonthView``): a header with the
year (``android:id/date_picker_header_year``) and the date (``android:id/date_picker_header_date``,
``EEE, MMM d``), the month pager with ``android:id/prev`` / ``android:id/next`` (ImageButtons "Previous month" /
"Next month") and the days of the month, each a virtual view whose text is the day number and whose
content-desc is ``dd MMMM yyyy`` (``SimpleMonthView.getDayDescription``); Cancel (``android:id/button2``) and OK
(``android:id/button1``).

Time picker (``time_picker_material.xml``, ``time_picker_header_material.xml``; ``RadialTimePickerView``): the
header's ``android:id/hours`` and ``android:id/minutes`` (two digits; tapping one shows its dial), the dial
``android:id/radial_picker`` whose numbers are virtual views described by their value (hours 0-23 in the 24-hour
format, minutes every five), picking an hour moves on to the minutes as the real dial does; Cancel / OK.

The open dialog is the activity's ``state["dialog"]`` (:class:`~emukit.vdevice.kit.app.Ctx`): a date dialog
keeps ``year``, ``month``, ``day`` and the shown month (``show_year``, ``show_month``); a time dialog ``hour``,
``minute`` and which dial is shown (``dial``).
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp


def open_date(ctx: Ctx, field: str, day: dt.date) -> None:
    """Open the date picker for the app's ``field`` on ``day``."""
    ctx.open_dialog("date", field=field, year=day.year, month=day.month, day=day.day, show_year=day.year,
                    show_month=day.month)


def open_time(ctx: Ctx, field: str, hour: int, minute: int) -> None:
    """Open the time picker for ``field`` at ``hour``:``minute``, on its hour dial."""
    ctx.open_dialog("time", field=field, hour=hour, minute=minute, dial="hour")


def _card(ctx: Ctx, height: int) -> tuple[View, View, tuple[int, int, int, int]]:
    left, top, right, bottom = ctx.frame
    width = min(right - left - dp(48), dp(328))
    x0 = (left + right - width) // 2
    y0 = (top + bottom - height) // 2
    layer = w.scrim(ctx.frame, lambda: ctx.close_dialog())
    card = View(bounds=(x0, y0, x0 + width, y0 + height), resource_id="android:id/content",
                style=Style(bg=theme.SURFACE, radius=dp(28), elevation=dp(6)))
    layer.add(card)
    return layer, card, (x0, y0, x0 + width, y0 + height)


def _buttons(ctx: Ctx, card: View, box: tuple[int, int, int, int], on_ok: Callable[[], None],
             ok_id: str = "android:id/button1", cancel_id: str = "android:id/button2") -> None:
    _x0, _, x1, y1 = box
    end = x1 - dp(16)
    for rid, text, callback in ((ok_id, "OK", on_ok), (cancel_id, "Cancel", ctx.close_dialog)):
        width = w.text_button_width(text)
        card.add(w.button((end - width, y1 - dp(56), end, y1 - dp(12)), text, callback, kind="text", rid=rid))
        end -= width + dp(4)


def date_dialog(ctx: Ctx, dlg: dict[str, Any], on_ok: Callable[[dt.date], None]) -> View:
    """The date picker for ``dlg`` (see :func:`open_date`); OK closes it and passes the picked day."""
    picked = dt.date(dlg["year"], dlg["month"], dlg["day"])
    year, month = dlg["show_year"], dlg["show_month"]
    weeks = calendar.Calendar(firstweekday=6).monthdayscalendar(year, month)
    cell = dp(40)
    height = dp(120) + dp(56) + dp(24) + cell * 6 + dp(64)
    layer, card, box = _card(ctx, height)
    x0, y0, x1, _ = box
    header = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x1, y0 + dp(120)),
                  resource_id="android:id/date_picker_header", style=Style(bg=theme.PRIMARY, radius=dp(28)))
    header.add(View(cls="android.widget.TextView", bounds=(x0 + dp(24), y0 + dp(16), x1 - dp(24), y0 + dp(48)),
                    text=str(picked.year), resource_id="android:id/date_picker_header_year", clickable=True,
                    style=Style(fg=theme.ON_PRIMARY, font_size=theme.TEXT_BODY)))
    header.add(View(cls="android.widget.TextView", bounds=(x0 + dp(24), y0 + dp(52), x1 - dp(24), y0 + dp(108)),
                    text=picked.strftime("%a, %b ") + str(picked.day), resource_id="android:id/date_picker_header_date",
                    style=Style(fg=theme.ON_PRIMARY, font_size=theme.TEXT_TITLE_L, bold=True)))
    card.add(header)
    top = y0 + dp(120)

    def shift(delta: int) -> Callable[[], None]:
        def run() -> None:
            m = year * 12 + (month - 1) + delta
            dlg["show_year"], dlg["show_month"] = m // 12, m % 12 + 1
        return run

    pager = View(cls="android.view.ViewGroup", bounds=(x0, top, x1, top + dp(56) + dp(24) + cell * 6),
                 resource_id="android:id/animator")
    pager.add(w.icon_button((x0 + dp(8), top + dp(4), x0 + dp(56), top + dp(52)),
                            w.Action("arrow_back", "Previous month", shift(-1), "android:id/prev")))
    pager.add(w.icon_button((x1 - dp(56), top + dp(4), x1 - dp(8), top + dp(52)),
                            w.Action("arrow_forward", "Next month", shift(1), "android:id/next")))
    pager.add(w.label((x0 + dp(56), top, x1 - dp(56), top + dp(56)), dt.date(year, month, 1).strftime("%B %Y"),
                      align="center", bold=True))
    grid_left = x0 + (x1 - x0 - 7 * cell) // 2
    y = top + dp(56)
    for i, name in enumerate(("S", "M", "T", "W", "T", "F", "S")):
        pager.add(w.label((grid_left + i * cell, y, grid_left + (i + 1) * cell, y + dp(24)), name, align="center",
                          color=theme.TEXT_SECONDARY, size=theme.TEXT_SMALL))
    y += dp(24)
    month_view = View(cls="android.view.View", bounds=(grid_left, y, grid_left + 7 * cell, y + 6 * cell),
                      resource_id="android:id/month_view")

    def pick(day: int) -> Callable[[], None]:
        def run() -> None:
            dlg["year"], dlg["month"], dlg["day"] = year, month, day
        return run

    for row, week in enumerate(weeks):
        for col, day in enumerate(week):
            if not day:
                continue
            chosen = dt.date(year, month, day) == picked
            bounds = (grid_left + col * cell, y + row * cell, grid_left + (col + 1) * cell, y + (row + 1) * cell)
            month_view.add(View(cls="android.view.View", bounds=bounds, text=str(day),
                                content_desc=dt.date(year, month, day).strftime("%d %B %Y"), clickable=True,
                                checkable=True, checked=chosen, selected=chosen, on_click=pick(day),
                                style=Style(align="center", bg=theme.PRIMARY if chosen else None,
                                            fg=theme.ON_PRIMARY if chosen else theme.TEXT, radius=cell // 2,
                                            font_size=theme.TEXT_BODY)))
    pager.add(month_view)
    card.add(pager)

    def ok() -> None:
        ctx.close_dialog()
        on_ok(picked)

    _buttons(ctx, card, box, ok)
    return layer


@dataclass(frozen=True)
class TimePickerParts:
    """How a time picker names its parts and labels its clock-face numbers (``{}``: the number's text)."""

    hours: str
    minutes: str
    dial: str
    ok: str
    cancel: str
    header: str
    title: str  # "" when the picker has no title
    number_cls: str
    zero_hour: str  # the text of hour 0 on the 24-hour face
    hour_desc: str
    minute_desc: str


#: the framework TimePickerDialog (time_picker_material.xml; RadialTimePickerView's numbers are described by
#: their value)
FRAMEWORK_TIME = TimePickerParts(hours="android:id/hours", minutes="android:id/minutes", dial="android:id/radial_picker",
                                 ok="android:id/button1", cancel="android:id/button2", header="android:id/time_header",
                                 title="", number_cls="android.view.View", zero_hour="0", hour_desc="{}",
                                 minute_desc="{}")


def material_time(package: str) -> TimePickerParts:
    """Material Components' MaterialTimePicker (1.9.0) in an app's package: its ids, the title "Select time",
    the clock face's TextViews (material_clockface_textview) with hours "00", "1" ... "23" described
    "<n> hours" and minutes "00", "05" ... described "<n> minutes" (ClockFaceView.java:227-246,
    TimePickerClockPresenter.java:53-59, 172, 249; timepicker/res/values/strings.xml:27-28)."""
    rid = f"{package}:id/"
    return TimePickerParts(hours=rid + "material_hour_tv", minutes=rid + "material_minute_tv",
                           dial=rid + "material_clock_face", ok=rid + "material_timepicker_ok_button",
                           cancel=rid + "material_timepicker_cancel_button", header=rid + "material_timepicker_view",
                           title=rid + "header_title", number_cls="android.widget.TextView", zero_hour="00",
                           hour_desc="{} hours", minute_desc="{} minutes")


def time_dialog(ctx: Ctx, dlg: dict[str, Any], on_ok: Callable[[int, int], None],
                parts: TimePickerParts = FRAMEWORK_TIME) -> View:
    """The time picker for ``dlg`` (see :func:`open_time`); OK closes it and passes (hour, minute). ``parts``:
    :data:`FRAMEWORK_TIME` or :func:`material_time`."""
    hour, minute, dial = int(dlg["hour"]), int(dlg["minute"]), dlg.get("dial", "hour")
    size = dp(256)
    height = dp(96) + size + dp(24) + dp(64)
    layer, card, box = _card(ctx, height)
    x0, y0, x1, _ = box
    header = View(cls="android.widget.RelativeLayout", bounds=(x0, y0, x1, y0 + dp(96)), resource_id=parts.header)
    if parts.title:
        header.add(View(cls="android.widget.TextView", bounds=(x0 + dp(24), y0 + dp(4), x1 - dp(24), y0 + dp(20)),
                        text="Select time", resource_id=parts.title,
                        style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_SMALL)))
    mid = (x0 + x1) // 2

    def show(which: str) -> Callable[[], None]:
        def run() -> None:
            dlg["dial"] = which
        return run

    for rid, text, bounds, which in ((parts.hours, f"{hour:02d}", (mid - dp(96), y0 + dp(16), mid - dp(8),
                                                                          y0 + dp(80)), "hour"),
                                     (parts.minutes, f"{minute:02d}", (mid + dp(8), y0 + dp(16), mid + dp(96),
                                                                              y0 + dp(80)), "minute")):
        on = dial == which
        header.add(View(cls="android.widget.TextView", bounds=bounds, text=text, resource_id=rid, clickable=True,
                        checkable=True, checked=on, on_click=show(which),
                        style=Style(align="center", font_size=theme.TEXT_TITLE_L * 3 // 2, radius=dp(8),
                                    bg=theme.PRIMARY_CONTAINER if on else theme.SURFACE_VARIANT)))
    header.add(w.label((mid - dp(8), y0 + dp(16), mid + dp(8), y0 + dp(80)), ":", align="center",
                       size=theme.TEXT_TITLE_L * 3 // 2))
    card.add(header)
    cx, cy = mid, y0 + dp(96) + size // 2
    dial_view = View(cls="android.view.View", bounds=(cx - size // 2, cy - size // 2, cx + size // 2, cy + size // 2),
                     resource_id=parts.dial,
                     style=Style(bg=theme.SURFACE_VARIANT, radius=size // 2))
    values = list(range(24)) if dial == "hour" else list(range(0, 60, 5))
    chosen = hour if dial == "hour" else minute

    def pick(value: int) -> Callable[[], None]:
        def run() -> None:
            if dial == "hour":
                dlg["hour"], dlg["dial"] = value, "minute"
            else:
                dlg["minute"] = value
        return run

    cell = dp(32)
    for value in values:
        inner = dial == "hour" and (value == 0 or value > 12)
        slot = value % 12 if dial == "hour" else value // 5
        radius = size // 2 - (dp(64) if inner else dp(24))
        angle = math.radians(slot * 30 - 90)
        vx, vy = cx + int(radius * math.cos(angle)), cy + int(radius * math.sin(angle))
        on = value == chosen
        label = (parts.zero_hour if value == 0 else str(value)) if dial == "hour" else f"{value:02d}"
        dial_view.add(View(cls=parts.number_cls, bounds=(vx - cell // 2, vy - cell // 2, vx + cell // 2,
                                                            vy + cell // 2),
                           text=label, content_desc=(parts.hour_desc if dial == "hour" else parts.minute_desc).format(label),
                           clickable=True, selected=on, on_click=pick(value),
                           style=Style(align="center", radius=cell // 2, font_size=theme.TEXT_LABEL,
                                       bg=theme.PRIMARY if on else None, fg=theme.ON_PRIMARY if on else theme.TEXT)))
    card.add(dial_view)

    def ok() -> None:
        ctx.close_dialog()
        on_ok(int(dlg["hour"]), int(dlg["minute"]))

    _buttons(ctx, card, box, ok, parts.ok, parts.cancel)
    return layer
