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
