"""Agents for the online task track (``emukit evaluate --tasks ... --track agent``).

An :class:`Agent` sees the task instruction and the current screen (the real initial screen, then the world
model's rendered predictions) and answers one :class:`~emukit.actions.Action` or a :class:`Terminate`
signal. Two are built in:

* :class:`ScriptedAgent` plays a fixed action list (e.g. the task's reference trajectory), then terminates;
* :class:`OpenAIAgent` asks an OpenAI-compatible chat-completions endpoint (``openai:BASE_URL#MODEL``) with
  the screenshot as an image for one JSON action; output that is not such an action terminates the episode
  with the reason ``invalid agent output``.

Agent SPECs (``--agent``): ``scripted`` (the task's reference) or ``openai:BASE_URL#MODEL``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from emukit.actions import KEY_NAMES, Action
from emukit.errors import ConfigError
from emukit.tasks.schema import Task
from emukit.wm import png_data_url

INVALID_OUTPUT = "invalid agent output"
KEY_CODES = {name.lower(): code for code, name in KEY_NAMES.items()}


@dataclass(frozen=True)
class Terminate:
    """The agent ends the episode (it thinks the task is done, gives up, or its output was unusable)."""

    reason: str


class Agent(ABC):
    """Chooses the next action from the instruction and the current screen."""

    name: str = "agent"

    @abstractmethod
    def act(self, instruction: str, screenshot_png: bytes, step: int,
            history: Sequence[Action]) -> Action | Terminate:
        """The action for step ``step`` (1-based) on ``screenshot_png``; ``history``: the actions taken so
        far, oldest first."""

    def close(self) -> None:
        """Release connections (default: nothing)."""


class ScriptedAgent(Agent):
    """Plays ``actions`` in order, whatever the screen shows, then terminates (``script finished``)."""

    def __init__(self, actions: Sequence[Action], name: str = "scripted") -> None:
        self.actions = list(actions)
        self.name = name

    def act(self, instruction: str, screenshot_png: bytes, step: int,
            history: Sequence[Action]) -> Action | Terminate:
        if step > len(self.actions):
            return Terminate("script finished")
        return self.actions[step - 1]


# -- an OpenAI-compatible agent -------------------------------------------------------------------------------

SYSTEM_PROMPT = """You operate an Android phone to complete a task. Each turn you see the current screen and \
answer with exactly one action as a JSON object, nothing else. Coordinates are screen pixels of the \
screenshot, origin at the top-left corner.

Actions:
{"action": "tap", "x": X, "y": Y}
{"action": "long_press", "x": X, "y": Y}
{"action": "swipe", "x": X, "y": Y, "x2": X2, "y2": Y2}
{"action": "type", "text": "TEXT"}            (types into the focused field)
{"action": "key", "key": "back" | "home" | "enter"}
{"action": "open_app", "app_name": "NAME"}    (opens the app whose icon is labelled NAME, from any screen)
{"action": "wait", "seconds": S}
{"action": "answer", "text": "TEXT"}          (answers the task's question; ends the episode)
{"action": "terminate", "reason": "done" | "impossible"}   (when the task is complete or cannot be done)
"""


class AgentReply(BaseModel):
    """One action as the agent writes it (the JSON schema of :data:`SYSTEM_PROMPT`)."""

    model_config = ConfigDict(extra="ignore")

    action: Literal["tap", "click", "long_press", "swipe", "type", "key", "back", "home", "enter", "wait",
                    "terminate", "done", "open_app", "answer", "navigate_home", "navigate_back"]
    x: int | None = None
    y: int | None = None
    x2: int | None = None
    y2: int | None = None
    text: str | None = None
    key: str | int | None = None
    seconds: float | None = None
    reason: str | None = None
    app_name: str | None = None

    def to_action(self) -> Action | Terminate:
        """The driver action (ValueError when a field it needs is missing)."""
        a = self.action
        if a in ("terminate", "done"):
            return Terminate(self.reason or "done")
        if a == "answer":  # GUI-CC's answer: the episode ends with the agent's answer
            return Terminate(f"answered: {self.text or ''}")
        if a == "open_app":  # GUI-CC's open_app (AndroidWorld's app_name field)
            name = self.app_name or self.text
            if not name:
                raise ValueError("open_app needs app_name")
            return Action(type="open_app", text=name)
        if a in ("tap", "click", "long_press"):
            if self.x is None or self.y is None:
                raise ValueError(f"{a} needs x and y")
            return Action(type="long_press" if a == "long_press" else "tap", x=self.x, y=self.y,
                          duration_ms=800 if a == "long_press" else None)
        if a == "swipe":
            if None in (self.x, self.y, self.x2, self.y2):
                raise ValueError("swipe needs x, y, x2 and y2")
            return Action(type="swipe", x=self.x, y=self.y, x2=self.x2, y2=self.y2, duration_ms=300)
        if a == "type":
            if not self.text:
                raise ValueError("type needs text")
            return Action(type="type", text=self.text)
        if a == "wait":
            return Action(type="wait", duration_ms=round(1000 * (self.seconds if self.seconds is not None else 1)))
        key = a if a in ("back", "home", "enter") else {"navigate_home": "home", "navigate_back": "back"}.get(a, self.key)
        if isinstance(key, str):
            code = KEY_CODES.get(key.strip().lower().removeprefix("keycode_"))
            if code is None:
                raise ValueError(f"unknown key {key!r}")
            return Action(type="key", key=code)
        if isinstance(key, int):
            return Action(type="key", key=key)
        raise ValueError("key needs a key")


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_agent_output(text: str) -> Action | Terminate:
    """The action in a model's reply: the first JSON object in it (Markdown fences allowed) that is a valid
    action; anything else is ``Terminate("invalid agent output")``."""
    if not text or not text.strip():
        return Terminate(INVALID_OUTPUT)
    fence = _FENCE.search(text)
    body = fence.group(1) if fence else text
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", body)]:
        try:
            value, _ = decoder.raw_decode(body, start)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        try:
            return AgentReply.model_validate(value).to_action()
        except (ValidationError, ValueError):
            return Terminate(INVALID_OUTPUT)
    return Terminate(INVALID_OUTPUT)


def describe(action: Action) -> str:
    """One line for the agent's history."""
    data = action.canonical()
    return json.dumps(data, ensure_ascii=False)


class OpenAIAgent(Agent):
    """An agent behind an OpenAI-compatible chat-completions endpoint (``BASE_URL#MODEL``). Stdlib HTTP; the
    API key comes from ``OPENAI_API_KEY`` or ``EMUKIT_API_KEY`` and is sent only in the header. A failed
    request terminates the episode (``agent request failed: ...``)."""

    def __init__(self, spec: str, *, timeout_s: float = 120.0, max_tokens: int = 512,
                 api_key: str | None = None) -> None:
        from emukit.evaluate.adapters.openai import API_KEY_VARS, parse_spec

        self.base_url, self.model = parse_spec(spec)
        self.name = f"openai:{self.model}" if self.model else f"openai:{self.base_url}"
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self._api_key = api_key or next((os.environ[v] for v in API_KEY_VARS if os.environ.get(v)), None)

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIAgent({self.base_url!r}, model={self.model!r})"

    def body(self, instruction: str, screenshot_png: bytes, step: int, history: Sequence[Action]) -> dict[str, Any]:
        """The chat-completions body for one turn."""
        past = "\n".join(f"{i}. {describe(a)}" for i, a in enumerate(history, 1)) or "(none)"
        text = (f"Task: {instruction}\nStep {step}. Actions so far:\n{past}\n"
                "Answer with one JSON action for the current screen.")
        body: dict[str, Any] = {
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": [{"type": "image_url",
                                                       "image_url": {"url": png_data_url(screenshot_png)}},
                                                      {"type": "text", "text": text}]}],
            "temperature": 0.0, "max_tokens": self.max_tokens}
        if self.model:
            body["model"] = self.model
        return body

    def act(self, instruction: str, screenshot_png: bytes, step: int,
            history: Sequence[Action]) -> Action | Terminate:
        data = json.dumps(self.body(instruction, screenshot_png, step, history)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=data, headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                reply = json.loads(resp.read())
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
            reason = str(getattr(exc, "reason", exc))
            if self._api_key:
                reason = reason.replace(self._api_key, "***")
            return Terminate(f"agent request failed: {type(exc).__name__}: {reason}")
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return Terminate(INVALID_OUTPUT)
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return parse_agent_output(content if isinstance(content, str) else "")


class ReferenceAgents:
    """``--agent scripted``: for each task, a :class:`ScriptedAgent` playing that task's reference
    trajectory."""

    name = "scripted"

    def __call__(self, task: Task) -> ScriptedAgent:
        return ScriptedAgent(task.provenance.reference, name=self.name)


def create_agent(spec: str, **options: Any) -> Agent | ReferenceAgents:
    """``scripted`` (per task, its reference trajectory) or ``openai:BASE_URL#MODEL`` /
    ``http(s)://BASE_URL#MODEL`` (``options`` go to :class:`OpenAIAgent`)."""
    if spec == "scripted":
        return ReferenceAgents()
    if spec.startswith("openai:"):
        return OpenAIAgent(spec.removeprefix("openai:"), **options)
    if spec.startswith(("http://", "https://")):
        return OpenAIAgent(spec, **options)
    raise ConfigError(f"agent spec {spec!r}: expected 'scripted' or openai:BASE_URL#MODEL")
