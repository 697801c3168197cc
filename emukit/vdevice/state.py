"""Everything a virtual device holds besides its files, as one JSON-serialisable model.

A snapshot is this model plus a copy of the device root, so anything that must survive a snapshot load
(clocks, clipboard, settings, the activity back stack with each screen's own state, focus, the keyboard and
the notification shade) lives here and nowhere else.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

# 2026-01-15 09:00:00 UTC: the default wall clock of a freshly created virtual device.
DEFAULT_WALL_MS = 1_768_467_600_000
DEFAULT_ELAPSED_MS = 60_000


class ClockState(BaseModel):
    """Logical clock. ``wall_ms`` is System.currentTimeMillis(); ``elapsed_ms`` is elapsedRealtime()."""

    wall_ms: int = DEFAULT_WALL_MS
    elapsed_ms: int = DEFAULT_ELAPSED_MS
    timezone: str = "UTC"


class ClipState(BaseModel):
    """The primary clip: one text item with its label (ClipData with a single item)."""

    label: str = ""
    text: str = ""
    mime_type: str = "text/plain"


class Activity(BaseModel):
    """One entry of the back stack: an app's screen and its private UI state (all JSON)."""

    package: str
    activity: str
    state: dict[str, Any] = Field(default_factory=dict)


class UiState(BaseModel):
    """System UI state that is not owned by an app."""

    focused_id: str | None = None  # key of the focused editable view in the top activity
    cursor: int | None = None  # cursor position in the focused field (None = end of text)
    keyboard_shift: bool = False
    shade_open: bool = False
    toast: str | None = None
    keyboard_symbols: bool = False  # the soft keyboard shows its symbols layer
    text_menu: tuple[str, bool] | None = None  # floating text toolbar: (field key, whole text selected)
    overview: list[tuple[str, str]] | None = None  # back stack signature while Overview (recents) shows


class PackageState(BaseModel):
    """What the package manager keeps for one package (``/data/system/packages.xml`` and
    ``runtime-permissions.xml`` on a real device). A package with no entry is the app object's own default:
    installed, at its own version, with nothing granted beyond what the deterministic mode preinstalls."""

    installed: bool = True
    version_code: int | None = None  # None: the app object's own
    version_name: str | None = None
    apk_sha256: str | None = None  # digest of the APK file it was installed from (None: part of the image)
    stopped: bool = False  # the stopped state: set by force-stop and by a fresh install, cleared by a launch
    granted: list[str] = Field(default_factory=list)  # runtime permissions granted (pm grant / the prompt)
    app_ops: dict[str, str] = Field(default_factory=dict)  # e.g. MANAGE_EXTERNAL_STORAGE -> "allow"


class PendingAlarm(BaseModel):
    """One AlarmManager alarm an app has set (what ``dumpsys alarm`` lists)."""

    package: str
    tag: str  # the PendingIntent's action, e.g. com.android.deskclock.action.TIMER_EXPIRED
    type: str = "ELAPSED_REALTIME_WAKEUP"  # or RTC_WAKEUP
    when_ms: int  # on the clock that ``type`` names


class DemoModeState(BaseModel):
    """SystemUI demo mode (``com.android.systemui.demo`` broadcasts, allowed by ``sysui_demo_allowed``)."""

    active: bool = False
    clock_hhmm: str | None = None  # the fixed status-bar clock, e.g. "1200"
    battery_level: int | None = None
    battery_plugged: bool = False
    network: dict[str, str] = Field(default_factory=dict)  # e.g. wifi -> "show", level -> "4"
    notifications_visible: bool = True


class DeviceState(BaseModel):
    """The whole non-file state of a virtual device."""

    version: int = 1
    clock: ClockState = Field(default_factory=ClockState)
    clip: ClipState | None = None
    settings: dict[str, dict[str, str]] = Field(
        default_factory=lambda: {"global": {}, "system": {}, "secure": {}})
    props: dict[str, str] = Field(default_factory=dict)
    rooted: bool = False
    back_stack: list[Activity] = Field(default_factory=list)
    running: list[str] = Field(default_factory=list)  # packages with a live process
    ui: UiState = Field(default_factory=UiState)
    notifications: list[dict[str, Any]] = Field(default_factory=list)
    app_data: dict[str, dict[str, Any]] = Field(default_factory=dict)  # per-package in-memory process state
    pids: dict[str, int] = Field(default_factory=dict)
    next_pid: int = 1200
    packages: dict[str, PackageState] = Field(default_factory=dict)  # package manager records (see PackageState)
    alarms: list[PendingAlarm] = Field(default_factory=list)  # AlarmManager's pending alarms
    demo: DemoModeState = Field(default_factory=DemoModeState)
