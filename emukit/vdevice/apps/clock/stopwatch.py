"""The Stopwatch tab, stored like AOSP DeskClock's ``StopwatchDAO`` in the same preferences file.

Keys: ``sw_state`` (int: 0 reset, 1 running, 2 paused), ``sw_start_time`` (long, elapsed-realtime ms of the
last start), ``sw_wall_clock_time`` (long, wall ms then), ``sw_accum_time`` (long, ms accumulated before
the last start), ``sw_lap_num`` (int) and ``sw_lap_time_N`` (long, total time when lap N was taken).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import S, rid, round_button, text
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

RESET, RUNNING, PAUSED = 0, 1, 2
MAX_LAPS = 98


def total_ms(device: VirtualDevice) -> tuple[int, int, list[int]]:
    """(state, total elapsed ms, lap totals in lap order)."""
    prefs = T.load(device)
    state = prefs.get_int("sw_state", RESET)
    accum = prefs.get_int("sw_accum_time", 0)
    if state == RUNNING:
        now = device.elapsed_ms()
        accum += max(0, now - prefs.get_int("sw_start_time", now))
    laps = [prefs.get_int(f"sw_lap_time_{i}", 0) for i in range(1, prefs.get_int("sw_lap_num", 0) + 1)]
    return state, accum, laps


def apply(device: VirtualDevice, action: str) -> None:
    """start / pause / reset / lap, written to the file at once."""
    prefs = T.load(device)
    state, total, laps = total_ms(device)
    now, wall = T.clocks(device)
    if action == "start" and state != RUNNING:
        prefs.put_int("sw_state", RUNNING)
        prefs.put_long("sw_start_time", now)
        prefs.put_long("sw_wall_clock_time", wall)
        prefs.put_long("sw_accum_time", total)
    elif action == "pause" and state == RUNNING:
        prefs.put_int("sw_state", PAUSED)
        prefs.put_long("sw_start_time", T.UNUSED)
        prefs.put_long("sw_wall_clock_time", T.UNUSED)
        prefs.put_long("sw_accum_time", total)
    elif action == "reset":
        prefs.remove(*(f"sw_lap_time_{i}" for i in range(1, len(laps) + 1)))
        prefs.put_int("sw_state", RESET)
        prefs.put_long("sw_start_time", T.UNUSED)
        prefs.put_long("sw_wall_clock_time", T.UNUSED)
        prefs.put_long("sw_accum_time", 0)
        prefs.put_int("sw_lap_num", 0)
    elif action == "lap" and state == RUNNING and len(laps) < MAX_LAPS:
        prefs.put_int("sw_lap_num", len(laps) + 1)
        prefs.put_long(f"sw_lap_time_{len(laps) + 1}", total)
    else:
        return
    T.save(device, prefs)


def format_time(ms: int) -> tuple[str, str]:
    """``0:05`` / ``1:02:03`` and the hundredths ``21``."""
    seconds, hundredths = divmod(ms // 10, 100)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return (f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"), f"{hundredths:02d}"


def build(device: VirtualDevice, act: Activity, root: View, body: Bounds) -> None:
    left, top, right, bottom = body
    cx = (left + right) // 2
    state, total, laps = total_ms(device)
    main, hundredths = format_time(total)
    root.add(text((left + px(60), top + px(120), cx + px(220), top + px(360)), main, "stopwatch_time_text",
                  size=px(170), align="right", color=theme.PRIMARY if state == RUNNING else theme.TEXT))
    root.add(text((cx + px(230), top + px(120), right - px(60), top + px(360)), hundredths,
                  "stopwatch_hundredths_text", size=px(100), align="left",
                  color=theme.PRIMARY if state == RUNNING else theme.TEXT_SECONDARY))
    rows = []
    for number in range(len(laps), 0, -1):
        lap_ms = laps[number - 1] - (laps[number - 2] if number > 1 else 0)
        rows.append((px(110), lambda y, n=number, lap=lap_ms, acc=laps[number - 1]: _lap_row(body, y, n, lap, acc)))
    list_area = (left, top + px(420), right, bottom - px(300))
    if rows:
        root.add(w.scroll_list(list_area, rows, act.state.get("laps_scroll", 0),
                               lambda v: act.state.update(laps_scroll=v), rid=rid("laps_list")))
    y = bottom - px(260)
    if state == RUNNING:
        root.add(round_button((cx - px(150), y, cx + px(150), y + px(200)), "pause", "Pause", S.rid("stopwatch_fab"),
                              lambda: apply(device, "pause"), icon_size=px(80)))
    else:
        root.add(round_button((cx - px(150), y, cx + px(150), y + px(200)), "play", "Start", S.rid("stopwatch_fab"),
                              lambda: apply(device, "start"), icon_size=px(80)))
    if state != RESET:
        root.add(round_button((left + px(90), y + px(30), left + px(230), y + px(170)), "refresh", S.desc("stopwatch_reset"),
                              S.rid("stopwatch_reset"), lambda: apply(device, "reset"), bg=theme.SURFACE_VARIANT,
                              fg=theme.TEXT, icon_size=px(60)))
    if state == RUNNING:
        root.add(round_button((right - px(250), y + px(30), right - px(70), y + px(170)), "", "Lap",
                              rid("stopwatch_lap"), lambda: apply(device, "lap"), bg=theme.SURFACE_VARIANT,
                              fg=theme.TEXT, icon_size=px(60), label="Lap"))


def _lap_row(body: Bounds, y: int, number: int, lap_ms: int, acc_ms: int) -> View:
    left, _, right, _ = body
    row = View(cls="android.widget.LinearLayout", bounds=(left + px(60), y, right - px(60), y + px(110)),
               resource_id=rid("lap_row"))
    lap, lap_h = format_time(lap_ms)
    acc, acc_h = format_time(acc_ms)
    row.add(text((left + px(90), y, left + px(330), y + px(110)), f"# {number}", "lap_number", align="left",
                 color=theme.TEXT_SECONDARY))
    row.add(text((left + px(330), y, left + px(660), y + px(110)), f"{lap}.{lap_h}", "lap_time", align="right"))
    row.add(text((left + px(660), y, right - px(90), y + px(110)), f"{acc}.{acc_h}", "lap_total", align="right",
                 color=theme.TEXT_SECONDARY))
    return row
