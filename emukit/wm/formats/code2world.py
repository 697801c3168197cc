"""Code2World request format (AMAP-ML/Code2World, Code2World-8B on Qwen3-VL).

What the upstream pipeline does, and what this module reproduces:

* The screenshot is the full 1080x2400 screen with the action drawn on it in red (disc for tap / long press,
  arrow for swipe / drag; nothing for typing, keys or waits) — :mod:`emukit.wm.overlay`. Screens of another
  size are resized to that canvas and the action coordinates scaled with them.
* A fixed system message (role, how to read the red marks, a ``#render-target`` of exactly 1080x2400 px,
  output raw HTML only) and a user message: the image, then a markdown-structured text with ``### INPUT
  CONTEXT`` (User Intent, Interaction Details: Description + Action Data) and ``### COMMAND``.
* Action Data uses lowercase AndroidWorld-style names with scalar pixel coordinates
  (``{"action_type": "click", "x": 540, "y": 1200}``); the Description is a short sentence.
* Predictions are rendered at 1080x2400 CSS px, device scale factor 1.

emukit adds, as seed 002 Appendix E does, the family transition contract as item 3 of the input context,
optional pair-shared entity context, a state block part before the text, and (raw history) earlier screens.
The prose is emukit's own; see ``docs/world-model-formats.md`` for the differences.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from emukit.actions import Action
from emukit.wm.formats.base import (
    FormatError,
    ScreenSize,
    Viewport,
    WorldModelFormat,
    image_part,
    key_name,
    register_format,
    require,
    swipe_direction,
    text_part,
    wait_opens_shade,
    wait_seconds,
)
from emukit.wm.overlay import draw_action

_KEY_ACTIONS = {"BACK": "navigate_back", "HOME": "navigate_home", "ENTER": "keyboard_enter"}

SYSTEM_PROMPT = """You simulate Android UI state transitions and write front-end code.
From a screenshot of the current screen and one user interaction, predict the NEXT screen and write it as HTML.

### 1. READING THE IMAGE
The screenshot carries a red mark that shows the interaction:
*   **Red circle**: where a **tap** or **long press** lands.
*   **Red arrow**: a **swipe** or **scroll**. The arrow points the way the finger moves; an arrow pointing up pushes the content up (the page scrolls down).
*   The marks only describe the action. **Never draw red circles or arrows in your HTML.**

### 2. REQUIRED STRUCTURE
*   Output raw HTML only, starting with `<!DOCTYPE html>` and ending with `</html>`.
*   Put every visible element inside `<div id="render-target"> ... </div>`.
*   `#render-target` is exactly `width: {width}px; height: {height}px; position: relative; overflow: hidden;` and carries the page background and shadows (not the body).
*   `<body>` has `margin: 0; padding: 0; background: transparent;`. Do not centre it: `#render-target` starts at (0,0).

### 3. CONTENT
*   Show the result of the interaction: a menu that opens, a control that toggles, the page it navigates to.
*   Images: no real URLs; use a text placeholder such as `<div style="...">[IMG: description]</div>`.
*   Icons: simple inline SVG paths or Unicode symbols.

### 4. OUTPUT
*   No Markdown code fences, no explanations or chat: output the HTML directly.
"""

USER_INTENT = "Show the Android screen right after the interaction below."
COMMAND = ("From the visual cue in the image, the interaction data, the transition contract and any state block "
           "supplied above, write the **HTML for the RESULTING UI STATE** (what the screen looks like *after* "
           "this action).")


@register_format
class Code2WorldFormat(WorldModelFormat):
    """Code2World-8B: system prompt + screenshot with the red action overlay, 1080x2400 canvas."""

    name = "code2world"
    viewport = Viewport(1080, 2400, 1.0)
    default_model = "Code2World"
    fixed_canvas = True

    def transform_screenshot(self, png: bytes, action: Action, screen_size: ScreenSize) -> bytes:
        """Resize to the 1080x2400 canvas (after the optional app-region crop) and draw the action."""
        image = self.load_screen(png, screen_size)
        return self.encode(draw_action(image, action, to_image=self.to_image(screen_size)))

    def _point(self, x: int, y: int, screen_size: ScreenSize) -> tuple[int, int]:
        sx, sy, ox, oy = self.to_image(screen_size)
        return round(x * sx + ox), round(y * sy + oy)

    def action_data(self, action: Action, screen_size: ScreenSize, family: str | None = None) -> dict[str, Any]:
        """AndroidWorld-style action JSON on the canvas: lowercase names, scalar ``x``/``y`` pixels."""
        t = action.type
        if t in ("tap", "long_press"):
            require(action, "x", "y")
            x, y = self._point(action.x, action.y, screen_size)  # type: ignore[arg-type]
            return {"action_type": "click" if t == "tap" else "long_press", "x": x, "y": y}
        if t in ("swipe", "drag"):
            require(action, "x", "y", "x2", "y2")
            x, y = self._point(action.x, action.y, screen_size)  # type: ignore[arg-type]
            x2, y2 = self._point(action.x2, action.y2, screen_size)  # type: ignore[arg-type]
            return {"action_type": t, "direction": swipe_direction(action), "x": x, "y": y, "x2": x2, "y2": y2}
        if t == "type":
            require(action, "text")
            data: dict[str, Any] = {"action_type": "input_text", "text": action.text}
            if action.x is not None and action.y is not None:
                data["x"], data["y"] = self._point(action.x, action.y, screen_size)
            return data
        if t == "key":
            name = key_name(action)
            return {"action_type": _KEY_ACTIONS[name]} if name in _KEY_ACTIONS else {"action_type": "key",
                                                                                       "key": name}
        if t == "wait":
            seconds = wait_seconds(action)
            kind = "wait_then_open_notification_shade" if wait_opens_shade(family) else "wait"
            return {"action_type": kind} if seconds is None else {"action_type": kind, "duration_seconds": seconds}
        if t == "open_app":  # AndroidWorld's own action JSON for it
            require(action, "text")
            return {"action_type": "open_app", "app_name": action.text}
        raise FormatError(f"action.type {t!r} has no Code2World serialization")

    def describe(self, action: Action, screen_size: ScreenSize, family: str | None = None) -> str:
        """One sentence describing the action (element description included when the driver recorded one)."""
        target = f" on {action.element.describe()}" if action.element is not None else ""
        data = self.action_data(action, screen_size, family)
        t = action.type
        if t in ("tap", "long_press"):
            verb = "Tap" if t == "tap" else "Long press"
            return f"{verb}{target} at ({data['x']}, {data['y']})."
        if t in ("swipe", "drag"):
            verb = "Swipe" if t == "swipe" else "Drag"
            return (f"{verb} from ({data['x']}, {data['y']}) to ({data['x2']}, {data['y2']}); the finger moves "
                    f"{data['direction']}.")
        if t == "type":
            return f"Type {json.dumps(action.text, ensure_ascii=False)}{target}."
        if t == "open_app":
            return f"Open the app {json.dumps(action.text, ensure_ascii=False)}."
        if t == "key":
            return {"navigate_back": "Press Back.", "navigate_home": "Press Home.",
                    "keyboard_enter": "Press Enter."}.get(data["action_type"], f"Press the {data.get('key')} key.")
        seconds = data.get("duration_seconds")
        wait = "Wait" if seconds is None else f"Wait {seconds} seconds"
        return f"{wait}, then open the notification shade." if wait_opens_shade(family) else f"{wait}."

    def action_payload(self, action: Action, screen_size: ScreenSize, *,
                       family: str | None = None) -> dict[str, Any]:
        """``{"description": sentence, "action_data": AndroidWorld-style JSON}``."""
        return {"description": self.describe(action, screen_size, family),
                "action_data": self.action_data(action, screen_size, family)}

    def user_text(self, payload: dict[str, Any], contract: str, entity_context: str | None) -> str:
        """The user message text: ``### INPUT CONTEXT`` (intent, interaction, contract) and ``### COMMAND``."""
        lines = ["### INPUT CONTEXT", f'1.  **User Intent**: "{USER_INTENT}"', "2.  **Interaction Details**:",
                 f"    *   **Description**: {payload['description']}",
                 f"    *   **Action Data**: {json.dumps(payload['action_data'], ensure_ascii=False)}"]
        if entity_context:
            lines.append(f"    *   **Tracked entity (identity only, not its state)**: {entity_context}")
        lines += [f"3.  **State-dependent transition contract**: {contract}", "", "### COMMAND", COMMAND]
        return "\n".join(lines) + "\n"

    def messages(self, *, image_url: str, action: Action, screen_size: ScreenSize,
                 history: Sequence[tuple[str, Action]], condition_text: str | None, family: str | None,
                 contract: str, entity_context: str | None) -> list[dict[str, Any]]:
        """System message, then one user message: [history], current image, [state block], text."""
        content: list[dict[str, Any]] = []
        if history:
            content.append(text_part(f"### INTERACTION HISTORY\nThe {len(history)} earlier screens follow, oldest "
                                     "first; each carries the red mark of the action taken on it."))
            for i, (url, step) in enumerate(history, 1):
                data = self.action_payload(step, screen_size)  # history: generic action names
                content += [image_part(url), text_part(
                    f"Step {i}: {data['description']} Action Data: "
                    f"{json.dumps(data['action_data'], ensure_ascii=False)}")]
            content.append(text_part("### CURRENT SCREEN"))
        content.append(image_part(image_url))
        if condition_text:
            content.append(text_part(condition_text))
        payload = self.action_payload(action, screen_size, family=family)
        content.append(text_part(self.user_text(payload, contract, entity_context)))
        system = SYSTEM_PROMPT.format(width=self.viewport.width, height=self.viewport.height)
        return [{"role": "system", "content": [text_part(system)]}, {"role": "user", "content": content}]
