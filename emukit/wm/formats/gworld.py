"""gWorld request format (trillion-labs/gWorld, gWorld-8B on Qwen3-VL).

What the upstream pipeline does, and what this module reproduces:

* The screenshot is passed as it is (RGB, native resolution; the Qwen3-VL processor resizes within
  ``max_pixels`` itself) — no action overlay.
* A single user message: the image, then one text that states the task (reason about the next state, then
  write HTML), a numbered list of requirements, ``Action:`` followed by the action JSON, and the output format
  ``# Next State Reasoning: ...`` / ``# HTML: ...``. No system message.
* The action is a JSON object with an uppercase name under ``"action"`` and points as ``[x, y]`` arrays
  normalised to 0-1000 of the screen (``round(1000 * x / width)``, clamped), serialized with ``json.dumps``.
* Predictions are rendered in a 360x800 CSS viewport at device scale factor 3 (1080x2400 pixels).

emukit adds the family transition contract and optional entity context as extra requirements, a state block
part before the text (state conditions) and earlier screens (raw history). The prose is emukit's own; see
``docs/world-model-formats.md`` for the differences.
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

_KEY_ACTIONS = {"BACK": "NAVIGATE_BACK", "HOME": "NAVIGATE_HOME", "ENTER": "KEYBOARD_ENTER"}

INTRO = """You are a mobile UI world model that predicts the next screen of a phone after an action.
From a screenshot of a mobile interface and one action, write clean HTML for the interface as it looks AFTER the action.
First reason about what the next state should look like given the action.
Then write the HTML of the screen that logically follows.
The HTML is rendered in a mobile viewport and compared with the real next screenshot."""

REQUIREMENTS = [
    "Start with your reasoning about what the next state should look like",
    "Write complete, valid HTML5",
    ("Keep the page self-contained: CSS in a local `<style>` block or inline styles; no CDN scripts, linked "
     "stylesheets, remote images or web fonts (use a system sans-serif font)"),
    ("Lay the page out for a {width}px by {height}px CSS viewport and fill the whole viewport; the renderer "
     "captures it at device pixel ratio {dpr} ({px_w}x{px_h} pixels)"),
    ("For images, use inline SVG placeholders with explicit width and height close to the screenshot's, in a "
     "similar colour"),
    "Follow current web standards",
    "Return only the reasoning and the HTML, without Markdown fences",
    "The page must render correctly without any network access",
    "The HTML should look like the screen that logically follows the current screen and the action",
]

OUTPUT_FORMAT = """Output format:
# Next State Reasoning: <your reasoning about what the next state should look like>
# HTML: <valid_html_code>

Now write the next state reasoning and the next state in HTML:"""


def normalise(value: float, extent: int) -> int:
    """A pixel coordinate as 0-1000 of ``extent`` (Python ``round``, clamped), as gWorld's tooling does."""
    return max(0, min(1000, round(1000 * value / extent)))


@register_format
class GWorldFormat(WorldModelFormat):
    """gWorld-8B: user-only prompt, plain screenshot, action JSON with 0-1000 coordinates."""

    name = "gworld"
    viewport = Viewport(360, 800, 3.0)
    default_model = "gWorld-8B"
    fixed_canvas = False

    def transform_screenshot(self, png: bytes, action: Action, screen_size: ScreenSize) -> bytes:
        """The (optionally cropped) screenshot at screen resolution, RGB, without any overlay."""
        return self.encode(self.load_screen(png, screen_size))

    def point(self, x: int, y: int, screen_size: ScreenSize) -> list[int]:
        """A screen point as ``[x, y]`` in 0-1000 of the model-visible region."""
        left, top, right, bottom = self.region(screen_size)
        return [normalise(x - left, right - left), normalise(y - top, bottom - top)]

    def action_payload(self, action: Action, screen_size: ScreenSize, *,
                       family: str | None = None) -> dict[str, Any]:
        """gWorld action JSON: ``{"action": "TAP", "coordinates": [500, 500]}`` and friends."""
        t = action.type
        if t in ("tap", "long_press"):
            require(action, "x", "y")
            return {"action": "TAP" if t == "tap" else "LONG_PRESS",
                    "coordinates": self.point(action.x, action.y, screen_size)}  # type: ignore[arg-type]
        if t in ("swipe", "drag"):
            require(action, "x", "y", "x2", "y2")
            start = self.point(action.x, action.y, screen_size)  # type: ignore[arg-type]
            end = self.point(action.x2, action.y2, screen_size)  # type: ignore[arg-type]
            return {"action": t.upper(), "coordinates": start, "end_coordinates": end,
                    "direction": swipe_direction(action)}
        if t == "type":
            require(action, "text")
            data: dict[str, Any] = {"action": "SET_TEXT"}
            if action.x is not None and action.y is not None:
                data["coordinates"] = self.point(action.x, action.y, screen_size)
            data["text"] = action.text
            return data
        if t == "key":
            name = key_name(action)
            return {"action": _KEY_ACTIONS[name]} if name in _KEY_ACTIONS else {"action": "KEY", "key": name}
        if t == "wait":
            seconds = wait_seconds(action)
            kind = "WAIT_THEN_OPEN_NOTIFICATION_SHADE" if wait_opens_shade(family) else "WAIT"
            return {"action": kind} if seconds is None else {"action": kind, "duration_seconds": seconds}
        if t == "open_app":
            require(action, "text")
            return {"action": "OPEN_APP", "app_name": action.text}
        raise FormatError(f"action.type {t!r} has no gWorld serialization")

    def user_text(self, action_json: str, contract: str, entity_context: str | None, stateful: bool) -> str:
        """Intro, numbered requirements (+ contract, entity context, state rule), action, output format."""
        vp = self.viewport
        px_w, px_h = vp.pixel_size
        dpr = int(vp.device_scale_factor) if vp.device_scale_factor == int(vp.device_scale_factor) \
            else vp.device_scale_factor
        items = [r.format(width=vp.width, height=vp.height, dpr=dpr, px_w=px_w, px_h=px_h) for r in REQUIREMENTS]
        items.append(f"State-dependent transition contract: {contract}")
        if entity_context:
            items.append(f"Tracked entity (identity only, not its state): {entity_context}")
        if stateful:
            items.append("Treat the supplied state block as authoritative: apply it to the action and never show "
                         "the block or its field names in the page")
        numbered = "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))
        return f"{INTRO}\n\nRequirements:\n{numbered}\n\nAction:\n{action_json}\n\n{OUTPUT_FORMAT}"

    def messages(self, *, image_url: str, action: Action, screen_size: ScreenSize,
                 history: Sequence[tuple[str, Action]], condition_text: str | None, family: str | None,
                 contract: str, entity_context: str | None) -> list[dict[str, Any]]:
        """One user message: [history], current image, [state block], text."""
        content: list[dict[str, Any]] = []
        if history:
            content.append(text_part(f"Interaction history: the {len(history)} earlier screens follow, oldest "
                                     "first, each followed by the action taken on it."))
            for i, (url, step) in enumerate(history, 1):
                content += [image_part(url),
                            text_part(f"Step {i} action: {json.dumps(self.action_payload(step, screen_size))}")]
            content.append(text_part("Current screen:"))
        content.append(image_part(image_url))
        if condition_text:
            content.append(text_part(condition_text))
        action_json = json.dumps(self.action_payload(action, screen_size, family=family))
        content.append(text_part(self.user_text(action_json, contract, entity_context, bool(condition_text))))
        return [{"role": "user", "content": content}]
