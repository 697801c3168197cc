"""Temporal Deadline: the Clock app's timers from its shared-prefs XML and the device's elapsed-realtime.

A running timer's remaining time is ``time_left - (elapsedRealtime - start_time)`` (AOSP DeskClock keeps
``timer_start_time_<id>`` in elapsed-realtime ms); a paused one keeps ``time_left``.

Where the file is: DeskClock opens its default preferences in device-protected storage,
``/data/user_de/0/<pkg>/shared_prefs/<pkg>_preferences.xml`` (``DeskClockApplication.getDefaultSharedPreferences``:
``createDeviceProtectedStorageContext()`` + ``moveSharedPreferencesFrom``, LineageOS/android_packages_apps_DeskClock
lineage-17.1 eac5d7688f48 ``src/com/android/deskclock/DeskClockApplication.java`` 50-63, lineage-21.0
501626741b61 47-58). That copy is read first; the credential-encrypted ``/data/data/...`` one only when the
device-protected one is missing (a build that keeps it there; Google Clock's own storage is not public).
"""

from __future__ import annotations

import math
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.base import CliOption, FamilyProbe, ProbeResult, register_probe

CLOCK_PACKAGE = "com.google.android.deskclock"
PREFS_USER_DE = f"/data/user_de/0/{CLOCK_PACKAGE}/shared_prefs/{CLOCK_PACKAGE}_preferences.xml"
PREFS_CE = f"/data/data/{CLOCK_PACKAGE}/shared_prefs/{CLOCK_PACKAGE}_preferences.xml"
PREFS_PATHS = (PREFS_USER_DE, PREFS_CE)  # the order the files are looked for
PREFS = PREFS_USER_DE  # the file the app reads
STATES = {1: "running", 2: "paused", 3: "expired", 4: "reset", 5: "missed"}


def parse_prefs(xml_text: str) -> dict[str, object]:
    """Android SharedPreferences XML -> {key: value} (sets as sorted lists)."""
    if not xml_text.strip():
        return {}
    root = ET.fromstring(xml_text)
    out: dict[str, object] = {}
    for node in root:
        name = node.get("name", "")
        if node.tag in ("int", "long"):
            out[name] = int(node.get("value", "0"))
        elif node.tag == "boolean":
            out[name] = node.get("value") == "true"
        elif node.tag == "float":
            out[name] = float(node.get("value", "0"))
        elif node.tag == "string":
            out[name] = node.text or ""
        elif node.tag == "set":
            out[name] = sorted((child.text or "") for child in node)
    return out


def timers_from_prefs(prefs: dict[str, object], elapsed_ms: int) -> list[dict[str, object]]:
    """Every timer with its state name and effective remaining ms at ``elapsed_ms``."""
    timers = []
    for tid in sorted(prefs.get("timers_list", []), key=lambda s: int(s)):  # type: ignore[arg-type]
        state = int(prefs.get(f"timer_state_{tid}", 4))  # type: ignore[arg-type]
        left = int(prefs.get(f"timer_time_left_{tid}", 0))  # type: ignore[arg-type]
        start = int(prefs.get(f"timer_start_time_{tid}", 0))  # type: ignore[arg-type]
        remaining = left - (elapsed_ms - start) if state == 1 else left if state == 2 else 0
        timers.append({"id": int(tid), "state": STATES.get(state, str(state)), "remaining_ms": remaining,
                       "setup_ms": prefs.get(f"timer_setup_timet_{tid}"), "start_time": start, "time_left": left,
                       "label": prefs.get(f"timer_label_{tid}", "")})
    return timers


def read_clock_file(driver: Driver) -> tuple[str, int, str]:
    """(prefs XML text, elapsed-realtime ms, the path it was read from: "" when neither file exists), in one
    shell call: the device-protected file, else the credential-encrypted one."""
    de, ce = (shlex.quote(p) for p in PREFS_PATHS)
    result = driver.shell(f"cat /proc/uptime; if [ -f {de} ]; then echo '--prefs-- {PREFS_USER_DE}'; cat {de}; "
                          f"elif [ -f {ce} ]; then echo '--prefs-- {PREFS_CE}'; cat {ce}; else echo '--prefs-- '; fi")
    if not result.ok or "--prefs--" not in result.text:
        raise DeviceError(f"{driver.serial}: cannot read the clock state: {result.stderr.decode(errors='replace')}")
    uptime, _, rest = result.text.partition("--prefs--")
    marker, _, xml_text = rest.partition("\n")
    return xml_text, round(float(uptime.split()[0]) * 1000), marker.strip()


def read_clock_raw(driver: Driver) -> tuple[str, int]:
    """(prefs XML text, elapsed-realtime ms) in one shell call (:func:`read_clock_file`)."""
    xml_text, elapsed_ms, _path = read_clock_file(driver)
    return xml_text, elapsed_ms


def read_clock(driver: Driver) -> tuple[dict[str, object], int]:
    """(prefs, elapsed-realtime ms)."""
    xml_text, elapsed_ms = read_clock_raw(driver)
    return parse_prefs(xml_text), elapsed_ms


def probe_temporal(driver: Driver, timer_id: int | None = None) -> ProbeResult:
    """``{"timer_active": bool, "remaining_seconds": int}`` for ``timer_id`` (default: the newest timer).

    Running: active, remaining = ceil(ms / 1000) as the Clock shows it. Paused: not active, the retained
    remainder. Expired, reset, missed or no timer: not active, 0.
    """
    xml_text, elapsed_ms, path = read_clock_file(driver)
    timers = timers_from_prefs(parse_prefs(xml_text), elapsed_ms)
    chosen = next((t for t in timers if t["id"] == timer_id), None) if timer_id is not None else \
        (timers[-1] if timers else None)
    if chosen is None:
        canonical = {"timer_active": False, "remaining_seconds": 0}
    else:
        remaining_ms = max(0, int(chosen["remaining_ms"]))  # type: ignore[arg-type]
        active = chosen["state"] == "running" and remaining_ms > 0
        canonical = {"timer_active": active,
                     "remaining_seconds": math.ceil(remaining_ms / 1000) if chosen["state"] in ("running", "paused")
                     else 0}
    return ProbeResult(family="temporal", canonical=canonical,
                       evidence={"elapsed_realtime_ms": elapsed_ms, "timers": timers, "timer_id": timer_id,
                                 "prefs_path": path})


@register_probe
class TemporalProbe(FamilyProbe):
    """:func:`probe_temporal` of ``timer_id`` (None: the newest timer); ``emukit probe --timer-id``."""

    family = "temporal"
    cli_options = (CliOption("--timer-id", type=int, help="temporal: timer id (default: the newest timer)"),)

    def read(self, driver: Driver, **params: Any) -> ProbeResult:
        return probe_temporal(driver, params.get("timer_id"))

    def params_from_cli(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"timer_id": options.get("timer_id")}
