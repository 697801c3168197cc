"""The model adapter interface, what a prediction is, and the registry of adapters by SPEC prefix.

A world model is anything that turns one request (an OpenAI-compatible chat-completions body built by
:mod:`emukit.wm`) into the next screen, as HTML (or, for image generators, as a PNG). Adapters never raise
for a failed prediction: they return a :class:`Prediction` with ``error`` set, so the evaluator keeps the
sample and scores it incorrect (seed 002 C.4, "sample preserving").

SPECs (``emukit evaluate --model SPEC``):

* ``openai:BASE_URL#MODEL`` or ``http(s)://BASE_URL#MODEL`` — an OpenAI-compatible endpoint (vLLM, hosted);
* ``hf:LOCAL_PATH`` — a local ``transformers`` vision-language model;
* ``ref:copy-current`` / ``ref:surface`` — the bundled reference models.

Adding a model kind is one module that subclasses :class:`ModelAdapter` and decorates it with
:func:`register`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.plugins import Registry

#: the kinds of sample the evaluator predicts for (one request builder, :mod:`emukit.evaluate.request`)
SampleKind = Literal["pair", "task", "trajectory"]
SAMPLE_KINDS: tuple[SampleKind, ...] = ("pair", "task", "trajectory")


@dataclass
class Prediction:
    """What a model returned for one request.

    ``html``: the predicted next screen as HTML (None when none could be extracted); ``image``: a predicted
    PNG for image-generating models; ``raw``: the model's complete text output; ``error``: why there is no
    usable prediction (request failure after retries, empty or malformed output), None on success;
    ``cached``: answered from the response cache; ``meta``: adapter details (usage, attempts, latency).
    """

    html: str | None = None
    image: bytes | None = None
    raw: str = ""
    error: str | None = None
    cached: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when there is something to render."""
        return self.error is None and (bool(self.html) or bool(self.image))


@dataclass(frozen=True)
class PredictionContext:
    """Prediction-time information that travels with a request, for adapters that do not read the chat
    body itself (the reference models). It holds only what the request already carries in model-native
    form — never the true next screen, outcome or (outside the state conditions) the state.

    ``state``: the canonical state given to the state interface (oracle or estimated; None for the
    observation and raw-history conditions); ``interface_context``: the persistent probe context;
    ``consequence``: the interface's resolved consequence ``D = g_f(Z, A, c)`` (None without state).
    """

    family: str | None  # the pair family; None for a sample without one (a task or trajectory step)
    condition: str
    format: str
    viewport: tuple[int, int, float]  # CSS width, CSS height, device scale factor
    action: Action
    screen_size: tuple[int, int]
    observation_png: bytes = b""
    observation_xml: str = ""
    state: Mapping[str, Any] | None = None
    interface_context: Mapping[str, Any] | None = None
    consequence: Mapping[str, Any] | None = None
    #: what is being predicted: a strict pair's branch, a milestone task's step, an external trajectory's step
    sample: SampleKind = "pair"


class ModelAdapter(ABC):
    """A world model behind one interface. Subclasses implement :meth:`predict`; it must not raise for a
    failed prediction but return ``Prediction(error=...)``. Adapters are used from several threads at
    once (up to ``concurrency``); :meth:`close` releases resources."""

    #: a short name for reports (``ref:surface``, ``openai:Qwen3-VL``...)
    name: str = "model"
    #: how many requests the evaluator may have in flight at once
    concurrency: int = 1
    #: True when the model is a pure function of its request (the same request always gives the same output)
    deterministic: bool = True

    @abstractmethod
    def predict(self, request: dict[str, Any], context: PredictionContext | None = None) -> Prediction:
        """The prediction for one chat-completions body."""

    def predict_many(self, items: Sequence[tuple[dict[str, Any], PredictionContext | None]]) -> list[Prediction]:
        """Predictions for several requests, in order, with at most :attr:`concurrency` in flight."""
        if self.concurrency <= 1 or len(items) <= 1:
            return [self._safe(r, c) for r, c in items]
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="emukit-model") as pool:
            return list(pool.map(lambda rc: self._safe(*rc), items))

    def _safe(self, request: dict[str, Any], context: PredictionContext | None) -> Prediction:
        try:
            return self.predict(request, context)
        except Exception as exc:  # noqa: BLE001 - sample preserving: a crash is a failed prediction
            return Prediction(error=f"adapter error: {type(exc).__name__}: {exc}")

    def close(self) -> None:
        """Release connections, models or browsers (default: nothing)."""


# -- output handling --------------------------------------------------------------------------------------

_FENCE_RE = re.compile(r"```(?:html|HTML)?\s*\n(.*?)(?:```|\Z)", re.DOTALL)
_HTML_MARK_RE = re.compile(r"#\s*HTML\s*:\s*", re.IGNORECASE)
_DOC_START_RE = re.compile(r"<!doctype html|<html[\s>]", re.IGNORECASE)
_DOCTYPE_RE = re.compile(r"<!doctype html", re.IGNORECASE)
_HTML_TAG_RE = re.compile(r"<html[\s>]", re.IGNORECASE)
_DOC_END_RE = re.compile(r"</html\s*>", re.IGNORECASE)


def complete_document(text: str) -> str | None:
    """The first complete HTML document in ``text``: from its first ``<!DOCTYPE html>`` (else its first
    ``<html>`` tag) to the last ``</html>`` after it, taken whole whatever it contains (a Markdown fence or a
    ``# HTML:`` line inside its body included); None when no start is followed by an end."""
    ends = list(_DOC_END_RE.finditer(text))
    if not ends:
        return None
    for start_re in (_DOCTYPE_RE, _HTML_TAG_RE):
        start = start_re.search(text)
        if start and ends[-1].start() > start.start():
            return text[start.start():ends[-1].end()]
    return None


def extract_html(raw: str) -> str | None:
    """The HTML document inside a model's text output, or None when there is none.

    A complete document (doctype or ``<html>`` through the last ``</html>``) is taken whole, so fences and
    headings in its body are content; only outside such a document are the native output shapes looked for:
    gWorld's ``# Next State Reasoning: ... # HTML: <html>``, Code2World's raw HTML, and Markdown fences around
    either (an unfinished document runs to the end of its fence, or of the output). The HTML itself is returned
    as written, not repaired (a missing ``</html>`` stays missing; seed 002 C.4/E.6).
    """
    if not raw or not raw.strip():
        return None
    whole = complete_document(raw)
    if whole is not None:
        return whole.strip()
    text = raw
    mark = _HTML_MARK_RE.search(text)
    if mark:
        text = text[mark.end():]
    fence = _FENCE_RE.search(text)
    if fence:
        text = fence.group(1)
    start = _DOC_START_RE.search(text)
    if start:
        return text[start.start():].strip()
    stripped = text.strip()
    if stripped.startswith("<") and re.search(r"<(body|div|main|section|span|p)[\s>]", stripped, re.IGNORECASE):
        return stripped
    return None


def image_png(data: bytes, where: str) -> bytes:
    """A predicted image as PNG bytes (PNG kept as it is; JPEG, WebP or GIF converted); ``ValueError`` naming
    ``where`` when the bytes are no image."""
    import io

    from PIL import Image, UnidentifiedImageError

    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return data
    try:
        with Image.open(io.BytesIO(data)) as image:
            out = io.BytesIO()
            image.convert("RGB").save(out, format="PNG")
            return out.getvalue()
    except (UnidentifiedImageError, OSError) as exc:
        raise ValueError(f"{where} is not an image PNG, JPEG, WebP or GIF can decode ({exc})") from None


def image_from_data_url(url: str, where: str) -> bytes:
    """The PNG of a ``data:image/...;base64,`` URL (no other URL is fetched: evaluation is offline)."""
    import base64
    import binascii

    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:image/") or not head.endswith(";base64"):
        raise ValueError(f"{where}: only data:image/...;base64 URLs are read (offline), got {url[:60]!r}")
    try:
        return image_png(base64.b64decode(payload, validate=False), where)
    except binascii.Error as exc:
        raise ValueError(f"{where}: bad base64 ({exc})") from None


def prediction_from_text(raw: str, **meta: Any) -> Prediction:
    """A :class:`Prediction` from a model's text output: empty and HTML-less outputs become errors."""
    if not raw or not raw.strip():
        return Prediction(raw=raw or "", error="empty output", meta=dict(meta))
    html = extract_html(raw)
    if html is None:
        return Prediction(raw=raw, error="malformed output: no HTML document found", meta=dict(meta))
    return Prediction(html=html, raw=raw, meta=dict(meta))


# -- registry -----------------------------------------------------------------------------------------------

Factory = Callable[..., ModelAdapter]
#: SPEC prefix -> adapter factory: a module of this package, or of an outside package named by an
#: ``emukit.model_adapters`` entry point, decorated with :func:`register` (emukit/plugins.py)
ADAPTERS: Registry[Factory] = Registry("model adapter", "emukit.evaluate.adapters", "emukit.model_adapters")


def register(prefix: str) -> Callable[[Factory], Factory]:
    """Class decorator: ``@register("hf")`` makes ``hf:...`` SPECs build this adapter as
    ``cls(spec_rest, **options)``."""
    return ADAPTERS.register(prefix)


def registered_prefixes() -> list[str]:
    """The SPEC prefixes of every adapter."""
    return ADAPTERS.names()


def create_adapter(spec: str, **options: Any) -> ModelAdapter:
    """The adapter for ``spec`` (see the module docstring); ``options`` go to its constructor (unknown
    options are ignored by adapters that do not use them)."""
    if spec.startswith(("http://", "https://")):
        prefix, rest = "openai", spec
    else:
        prefix, sep, rest = spec.partition(":")
        if not sep:
            raise ConfigError(f"model spec {spec!r}: expected PREFIX:..., one of "
                              f"{', '.join(p + ':' for p in ADAPTERS.names())} or an http(s):// URL")
    if prefix not in ADAPTERS:
        raise ConfigError(f"model spec {spec!r}: unknown prefix {prefix!r}; known: {', '.join(ADAPTERS.names())}")
    return ADAPTERS[prefix](rest, **options)
