"""The low-level actions a driver executes, as records: what a world model sees as "the action"."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# "open_app" (the app's launcher label in ``text``) is GUI-CC's semantic action (seed 000, section 3.3): one action
# that opens an app as its launcher icon does (Driver.open_app); AndroidControl and AndroidWorld record it too.
ActionType = Literal["tap", "long_press", "swipe", "drag", "type", "key", "wait", "open_app"]

KEY_NAMES = {3: "HOME", 4: "BACK", 66: "ENTER", 67: "DEL", 187: "APP_SWITCH", 62: "SPACE", 61: "TAB"}


class Element(BaseModel):
    """The UI element an action targeted, as the hierarchy described it."""

    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    cls: str = ""
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2

    def describe(self) -> str:
        """Short human description: ``Button "Copy"`` / ``ImageButton [More options]``."""
        kind = self.cls.rsplit(".", 1)[-1] or "View"
        if self.text:
            return f'{kind} "{self.text}"'
        if self.content_desc:
            return f"{kind} [{self.content_desc}]"
        return f"{kind} #{self.resource_id.rsplit('/', 1)[-1]}" if self.resource_id else kind


class Action(BaseModel):
    """One executed low-level action with everything needed to replay or show it."""

    type: ActionType
    x: int | None = None
    y: int | None = None
    x2: int | None = None
    y2: int | None = None
    text: str | None = None
    key: int | None = None
    duration_ms: int | None = None
    wait_ms: int | None = Field(default=None, description="logical time that passed before the action")
    element: Element | None = None
    elapsed_ms: float = Field(default=0.0, description="wall time the driver spent executing it")

    def canonical(self) -> dict[str, object]:
        """The model-visible part (no timing, no element internals beyond its description)."""
        data = self.model_dump(exclude={"elapsed_ms", "element"}, exclude_none=True)
        if self.element is not None:
            data["element"] = self.element.describe()
        return data

    def describe(self) -> str:
        """One line for a person (annotator log, evaluation report): ``tap (614, 551) on Button "Copy"``,
        ``swipe (5, 9) -> (5, 90) 300 ms``, ``key BACK``, ``after 2 s: tap (1, 2)``."""
        if self.type in ("tap", "long_press"):
            text = f"{'long press' if self.type == 'long_press' else 'tap'} ({self.x}, {self.y})"
            if self.type == "long_press" and self.duration_ms:
                text += f" {self.duration_ms} ms"
        elif self.type in ("swipe", "drag"):
            text = f"{self.type} ({self.x}, {self.y}) -> ({self.x2}, {self.y2})"
            if self.duration_ms:
                text += f" {self.duration_ms} ms"
        elif self.type == "type":
            text = f"type {self.text!r}"
            if self.x is not None and self.y is not None:
                text += f" at ({self.x}, {self.y})"
        elif self.type == "open_app":
            text = f"open app {self.text!r}"
        elif self.type == "key":
            text = f"key {KEY_NAMES.get(self.key, f'keycode {self.key}') if self.key is not None else '?'}"
        elif self.duration_ms is None:
            text = "wait"
        else:
            text = f"wait {self.duration_ms / 1000:g} s"
        if self.wait_ms:
            text = f"after {self.wait_ms / 1000:g} s: {text}"
        if self.element is not None:
            text += f" on {self.element.describe()}"
        return text
