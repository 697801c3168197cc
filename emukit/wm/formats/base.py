"""The world-model request format interface and what every format shares.

A :class:`WorldModelFormat` turns one prediction condition into the exact request a frozen GUI world model
receives: the model's screenshot transformation (crop, resize, action overlay), its action serialization, its
prompt structure, and an OpenAI-compatible chat-completions body. Requests are pure functions of their inputs:
no timestamps, identifiers or other bookkeeping enter them, and :func:`emukit.wm.canonical.request_hash` of
the body is what a strict pair compares between branches (seed 002 Appendix C.5).

Conditions (seed 002 Section 4.1) are expressed by the arguments of :meth:`WorldModelFormat.build_request`:

* observation — neither ``history`` nor ``condition_text``;
* raw history — ``history``: the earlier ``(screenshot, action)`` steps, oldest first;
* oracle / predictive state — ``condition_text`` from :func:`emukit.wm.state_interface.render_state`.
"""

from __future__ import annotations

import hashlib
import io
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image

from emukit.actions import KEY_NAMES, Action
from emukit.errors import ConfigError
from emukit.families import unit
from emukit.lru import SizedLRU, image_bytes
from emukit.plugins import Registry
from emukit.wm.canonical import encode_png, png_data_url
from emukit.wm.contracts import check_family, contract_for

ScreenSize = tuple[int, int]
Box = tuple[int, int, int, int]
HistoryStep = tuple[bytes, Action]

#: Decoding settings sent with every request (seed 002 Table 21 / E.5.1).
DEFAULT_GENERATION: dict[str, Any] = {"max_tokens": 8192, "temperature": 0.0, "seed": 20260912,
                                      "repetition_penalty": 1.0}


class FormatError(ConfigError, ValueError):
    """An input a request cannot be built from (an action missing a field, a bad screen size or crop)."""


@dataclass(frozen=True)
class Viewport:
    """How a format's predicted HTML is rendered: CSS viewport and device scale factor."""

    width: int
    height: int
    device_scale_factor: float

    @property
    def pixel_size(self) -> ScreenSize:
        """Size of the rendered screenshot in device pixels."""
        return round(self.width * self.device_scale_factor), round(self.height * self.device_scale_factor)


def text_part(text: str) -> dict[str, Any]:
    """An OpenAI chat content part holding text."""
    return {"type": "text", "text": text}


def image_part(url: str) -> dict[str, Any]:
    """An OpenAI chat content part holding an image (a ``data:`` URL here)."""
    return {"type": "image_url", "image_url": {"url": url}}


def png_size(png: bytes) -> ScreenSize:
    """(width, height) of an encoded screenshot, read from its header; FormatError when it is no image."""
    try:
        with Image.open(io.BytesIO(png)) as image:
            return image.size
    except Exception as exc:
        raise FormatError(f"screenshot is not a readable image: {exc}") from exc


def require(action: Action, *fields: str) -> None:
    """Raise :class:`FormatError` naming the first of ``fields`` that ``action`` lacks."""
    for name in fields:
        if getattr(action, name) is None:
            raise FormatError(f"action.{name} is required for a {action.type!r} action")


def swipe_direction(action: Action) -> str:
    """The direction the finger moves in a swipe/drag: up, down, left or right (dominant axis)."""
    require(action, "x", "y", "x2", "y2")
    dx, dy = action.x2 - action.x, action.y2 - action.y  # type: ignore[operator]
    if abs(dy) >= abs(dx):
        return "down" if dy > 0 else "up"
    return "right" if dx > 0 else "left"


def wait_seconds(action: Action) -> int | float | None:
    """A wait's duration in seconds (an int when whole), or None when it has none."""
    if action.duration_ms is None:
        return None
    seconds = action.duration_ms / 1000
    return int(seconds) if seconds == int(seconds) else round(seconds, 3)


def wait_opens_shade(family: str | None) -> bool:
    """Whether ``family``'s shared wait ends by opening the notification shade (its unit says so)."""
    return family is not None and unit(family).wait_opens_shade


def key_name(action: Action) -> str:
    """Android key name of a key action (``BACK``, ``HOME``, ``ENTER``...; the key code when unnamed)."""
    require(action, "key")
    return KEY_NAMES.get(action.key, f"KEYCODE_{action.key}")  # type: ignore[arg-type]


class WorldModelFormat(ABC):
    """One world model's request format. Subclasses set :attr:`name`, :attr:`viewport`,
    :attr:`default_model` and implement the three format-specific pieces."""

    name: ClassVar[str]
    viewport: ClassVar[Viewport]
    default_model: ClassVar[str]
    #: whether the model sees the screenshot at its own fixed canvas size (else at screen resolution)
    fixed_canvas: ClassVar[bool] = False

    def __init__(self, *, model: str | None = None, crop: Box | None = None,
                 generation: Mapping[str, Any] | None = None) -> None:
        """``model``: the model id sent in requests; ``crop``: app region ``(left, top, right, bottom)`` in
        screen pixels cut from every screenshot (None: the whole screen); ``generation``: decoding settings
        replacing :data:`DEFAULT_GENERATION`."""
        self.model = model or self.default_model
        self.crop = crop
        self.generation = dict(DEFAULT_GENERATION if generation is None else generation)

    # -- geometry ---------------------------------------------------------------------------------------
    def region(self, screen_size: ScreenSize) -> Box:
        """The part of the screen the model sees, in screen pixels."""
        w, h = screen_size
        if not (isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0):
            raise FormatError(f"screen_size must be two positive ints, got {screen_size!r}")
        if self.crop is None:
            return 0, 0, w, h
        left, top, right, bottom = self.crop
        if not (0 <= left < right <= w and 0 <= top < bottom <= h):
            raise FormatError(f"crop {self.crop!r} does not fit the {w}x{h} screen")
        return self.crop

    def image_size(self, screen_size: ScreenSize) -> ScreenSize:
        """Pixel size of the transformed screenshot."""
        if self.fixed_canvas:
            return self.viewport.pixel_size
        left, top, right, bottom = self.region(screen_size)
        return right - left, bottom - top

    def to_image(self, screen_size: ScreenSize) -> tuple[float, float, float, float]:
        """``(sx, sy, ox, oy)``: screen point ``(x, y)`` lands at ``(x*sx + ox, y*sy + oy)`` in the image."""
        left, top, right, bottom = self.region(screen_size)
        iw, ih = self.image_size(screen_size)
        sx, sy = iw / (right - left), ih / (bottom - top)
        return sx, sy, -left * sx, -top * sy

    def load_screen(self, png: bytes, screen_size: ScreenSize) -> Image.Image:
        """Decode a screenshot, bring it to ``screen_size`` (if captured at another size), cut the region and
        resize to :meth:`image_size`; always RGB."""
        image = decoded_rgb(png).copy()  # callers draw on what this returns
        if image.size != tuple(screen_size):
            image = image.resize(screen_size, Image.Resampling.LANCZOS)
        box = self.region(screen_size)
        if box != (0, 0, *screen_size):
            image = image.crop(box)
        target = self.image_size(screen_size)
        if image.size != target:
            image = image.resize(target, Image.Resampling.LANCZOS)
        return image

    # -- format-specific pieces -------------------------------------------------------------------------
    @abstractmethod
    def transform_screenshot(self, png: bytes, action: Action, screen_size: ScreenSize) -> bytes:
        """The screenshot exactly as the model receives it, as deterministic PNG bytes."""

    @abstractmethod
    def action_payload(self, action: Action, screen_size: ScreenSize, *,
                       family: str | None = None) -> dict[str, Any] | str:
        """The model-native serialization of ``action`` (no timing or bookkeeping fields)."""

    @abstractmethod
    def messages(self, *, image_url: str, action: Action, screen_size: ScreenSize,
                 history: Sequence[tuple[str, Action]], condition_text: str | None, family: str | None,
                 contract: str, entity_context: str | None) -> list[dict[str, Any]]:
        """The chat messages; ``image_url`` and the history's URLs are already transformed images;
        ``family`` is None for a sample without a pair family."""

    # -- the request ------------------------------------------------------------------------------------
    def encode(self, image: Image.Image) -> bytes:
        """Deterministic PNG bytes of a transformed image."""
        return encode_png(image)

    def build_request(self, observation_png: bytes, action: Action, *, screen_size: ScreenSize | None = None,
                      history: Sequence[HistoryStep] | None = None, condition_text: str | None = None,
                      family: str | None, contract: str | None = None,
                      entity_context: str | None = None) -> dict[str, Any]:
        """An OpenAI-compatible chat-completions body for predicting the screen after ``action``.

        ``screen_size``: the device screen the action's coordinates are in (default: the observation's own
        size, i.e. a screenshot taken at the device's resolution). ``history``: earlier ``(png, action)`` steps,
        oldest first (raw-history condition; an empty list is the same as None). ``condition_text``: the
        rendered state block (state conditions). ``family``: the pair family, or None for a sample that has
        none (a task step, an external trajectory's step; :mod:`emukit.evaluate.request`), which must then give
        its ``contract``. ``contract`` replaces the family's default transition contract; ``entity_context`` is
        pair-shared task context (e.g. the tracked file). The same inputs always give byte-identical canonical
        JSON.
        """
        if family is not None:
            check_family(family)
            if contract is None:
                contract = contract_for(family)
        elif contract is None:
            raise FormatError("a request without a pair family needs its own transition contract")
        if screen_size is None:
            screen_size = png_size(observation_png)
        self.region(screen_size)  # validates the screen size and the crop before any image work
        current = png_data_url(self.transform_screenshot(observation_png, action, screen_size))
        past = [(png_data_url(self.transform_screenshot(png, step, screen_size)), step)
                for png, step in (history or [])]
        msgs = self.messages(image_url=current, action=action, screen_size=screen_size, history=past,
                             condition_text=condition_text or None, family=family, contract=contract,
                             entity_context=entity_context or None)
        return {"model": self.model, "messages": msgs, **self.generation}


#: the screenshots decoded last: every format of one request (and branch B's request, equal to A's) decodes
#: the same observation, 14 ms each at 1080x2400
_DECODED: SizedLRU[bytes, Image.Image] = SizedLRU(4, 4 * 1080 * 2400 * 4, image_bytes, "decoded screenshots")


def decoded_rgb(png: bytes) -> Image.Image:
    """The screenshot ``png`` decoded to RGB, shared with other callers (copy it before drawing on it);
    FormatError when it is not a readable image."""
    key = hashlib.sha256(png).digest()
    image = _DECODED.get(key)
    if image is None:
        try:
            image = Image.open(io.BytesIO(png))
            image.load()
        except Exception as exc:
            raise FormatError(f"screenshot is not a readable image: {exc}") from exc
        image = image.convert("RGB")
        _DECODED.put(key, image)
    return image


#: every world-model format, by name (the keys of ``PairRecord.request_hashes``): a module of this package, or of
#: an outside package named by an ``emukit.wm_formats`` entry point, decorated with :func:`register_format`
FORMATS: Registry[type[WorldModelFormat]] = Registry("world-model format", "emukit.wm.formats", "emukit.wm_formats")


def register_format(cls: type[WorldModelFormat]) -> type[WorldModelFormat]:
    """Class decorator: register a :class:`WorldModelFormat` subclass under its ``name``."""
    return FORMATS.register(cls.name)(cls)
