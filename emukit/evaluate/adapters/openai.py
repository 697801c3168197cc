"""An OpenAI-compatible chat-completions endpoint (vLLM's server or a hosted API): ``openai:BASE_URL#MODEL``.

* The body built by :mod:`emukit.wm` is sent as it is, except ``model`` (replaced by ``#MODEL`` when the
  SPEC names one) and the decoding settings it lacks (temperature 0 and the fixed seed of the request, or
  20260912). ``repetition_penalty`` (a vLLM extension) is dropped and the request retried once when an
  endpoint refuses it with HTTP 400.
* Retries with exponential backoff (``backoff_s * 2**attempt``, honouring ``Retry-After``) on HTTP 429, 5xx,
  timeouts and connection errors; other 4xx fail at once. After the last retry the prediction is kept as a
  failure (``Prediction.error``), never dropped.
* Responses are cached on disk under ``cache_dir`` by the request hash (:func:`emukit.wm.request_hash` of the
  body as sent), so a rerun of the same evaluation makes no HTTP call. Only successful responses are cached.
* The API key comes from ``OPENAI_API_KEY`` or ``EMUKIT_API_KEY`` (or ``api_key=``) and is sent only in the
  ``Authorization`` header; it never appears in errors, cache files or reports.

Stdlib HTTP only (urllib): no client library is needed.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from emukit.atomicio import write_atomic
from emukit.errors import ConfigError
from emukit.evaluate.adapters.base import (
    ModelAdapter,
    Prediction,
    PredictionContext,
    image_from_data_url,
    prediction_from_text,
    register,
)
from emukit.wm import request_hash

DEFAULT_SEED = 20260912
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
API_KEY_VARS = ("OPENAI_API_KEY", "EMUKIT_API_KEY")


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Fatal(Exception):
    """A failure no retry can mend (a 4xx other than 408/429, a malformed reply)."""


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``BASE_URL#MODEL`` -> ``(base_url, model or None)``; the base URL is the part before
    ``/chat/completions`` (``http://127.0.0.1:8000/v1``)."""
    base, _, model = spec.partition("#")
    base = base.strip().rstrip("/")
    base = base.removesuffix("/chat/completions")
    if not base.startswith(("http://", "https://")):
        raise ConfigError(f"openai model spec {spec!r}: expected http(s)://HOST[:PORT]/PATH[#MODEL]")
    return base, (model.strip() or None)


class ResponseCache:
    """Responses on disk: ``<dir>/<hash[:2]>/<hash>.json``, written atomically."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: dict[str, Any]) -> None:
        write_atomic(self.path(key), json.dumps(value, ensure_ascii=False))


@register("openai")
class OpenAIAdapter(ModelAdapter):
    """Chat completions over HTTP with retries, bounded concurrency and a response cache."""

    deterministic = True

    def __init__(self, spec: str, *, cache_dir: Path | str | None = None, concurrency: int = 4,
                 max_retries: int = 4, backoff_s: float = 1.0, timeout_s: float = 600.0,
                 api_key: str | None = None, drop_params: tuple[str, ...] = (), **_: Any) -> None:
        """``cache_dir``: response cache (None: no cache); ``concurrency``: requests in flight; ``max_retries``:
        retries after the first attempt; ``timeout_s``: per HTTP request; ``drop_params``: body fields never
        sent (after hashing the body, e.g. ``("repetition_penalty",)`` for hosted APIs)."""
        self.base_url, self.model = parse_spec(spec)
        self.name = f"openai:{self.model}" if self.model else f"openai:{self.base_url}"
        self.cache = ResponseCache(cache_dir) if cache_dir else None
        self.concurrency = max(1, int(concurrency))
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = float(backoff_s)
        self.timeout_s = float(timeout_s)
        self._api_key = api_key or next((os.environ[v] for v in API_KEY_VARS if os.environ.get(v)), None)
        self.drop_params = set(drop_params)
        self._lock = threading.Lock()
        self.http_calls = 0  # HTTP requests actually made (tests and reports use it)

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIAdapter({self.base_url!r}, model={self.model!r})"

    # -- the request ----------------------------------------------------------------------------------------
    def body_for(self, request: dict[str, Any]) -> dict[str, Any]:
        """The body as sent: the model override and deterministic decoding settings applied."""
        body = dict(request)
        if self.model:
            body["model"] = self.model
        body.setdefault("temperature", 0.0)
        body.setdefault("seed", DEFAULT_SEED)
        return body

    def predict(self, request: dict[str, Any], context: PredictionContext | None = None) -> Prediction:
        body = self.body_for(request)
        response, key, info = self.complete(body)
        if response is None:
            return Prediction(error=f"request failed: {info['error']}", meta={"request_hash": key})
        pred = self._to_prediction(response, key)
        if info.get("cached"):
            pred.cached = True
        else:
            pred.meta["attempts"] = info["attempts"]
        return pred

    def complete(self, body: dict[str, Any]) -> tuple[dict[str, Any] | None, str, dict[str, Any]]:
        """Send ``body`` as it is (after :attr:`drop_params`), through the cache and the retries:
        ``(response or None, request hash, {"cached": bool, "attempts": n, "error": message})``. Also used
        by the judge (:mod:`emukit.evaluate.judge`), whose bodies are not world-model requests."""
        key = request_hash(body)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit, key, {"cached": True, "attempts": 0}
        body = {k: v for k, v in body.items() if k not in self.drop_params}
        try:
            response, attempts = self._post_with_retries(body)
        except (_Fatal, _Retryable) as exc:
            return None, key, {"cached": False, "attempts": self.max_retries + 1, "error": str(exc)}
        if self.cache is not None and _content(response) is not None:
            self.cache.put(key, response)
        return response, key, {"cached": False, "attempts": attempts}

    @staticmethod
    def _to_prediction(response: dict[str, Any], key: str) -> Prediction:
        content = _content(response)
        meta = {"request_hash": key, "usage": response.get("usage") or {},
                "finish_reason": _first_choice(response).get("finish_reason")}
        try:
            image = _image(response)
        except ValueError as exc:
            return Prediction(raw=content or "", error=f"malformed output: {exc}", meta=meta)
        if image is not None:  # an image-output model: the picture is the prediction (any HTML beside it too)
            pred = prediction_from_text(content, **meta) if content and content.strip() else Prediction(meta=meta)
            if pred.html is None:
                pred = Prediction(raw=content or "", meta=meta)
            pred.image = image
            return pred
        if content is None:
            return Prediction(error="malformed response: no choices[0].message.content", meta=meta)
        return prediction_from_text(content, **meta)

    # -- HTTP -------------------------------------------------------------------------------------------------
    def _post_with_retries(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        attempt = 0
        dropped_penalty = False
        while True:
            try:
                return self._post(body), attempt + 1
            except _Fatal as exc:
                if "repetition_penalty" in str(exc) and "repetition_penalty" in body and not dropped_penalty:
                    body = {k: v for k, v in body.items() if k != "repetition_penalty"}
                    dropped_penalty = True
                    continue
                raise
            except _Retryable as exc:
                if attempt >= self.max_retries:
                    raise _Retryable(f"{exc} (gave up after {attempt + 1} attempts)") from None
                delay = self.backoff_s * (2 ** attempt)
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, 60.0))
                time.sleep(delay)
                attempt += 1

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=data, headers=headers, method="POST")
        with self._lock:
            self.http_calls += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            detail = self._scrub(exc.read()[:500].decode("utf-8", errors="replace"))
            message = f"HTTP {exc.code} from {self.base_url}: {detail}"
            if exc.code in RETRY_STATUS or exc.code >= 500:
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                raise _Retryable(message, _seconds(retry_after)) from None
            raise _Fatal(message) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Retryable(f"{type(exc).__name__} contacting {self.base_url}: {self._scrub(str(reason))}") from None
        try:
            decoded = json.loads(payload)
        except ValueError:
            raise _Retryable(f"non-JSON response from {self.base_url}") from None
        if not isinstance(decoded, dict):
            raise _Fatal(f"unexpected response from {self.base_url}: not a JSON object")
        return decoded

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _first_choice(response: dict[str, Any]) -> dict[str, Any]:
    choices = response.get("choices")
    return choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}


def response_text(response: dict[str, Any]) -> str | None:
    """``choices[0].message.content`` of a chat-completions response (content parts joined), or None."""
    return _content(response)


def _content(response: dict[str, Any]) -> str | None:
    message = _first_choice(response).get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else None


def _image(response: dict[str, Any]) -> bytes | None:
    """The first generated image of a chat-completions reply: an ``image_url`` content part or an entry of
    ``message.images`` (both data URLs; the shapes image-output models behind OpenAI-compatible servers use)."""
    message = _first_choice(response).get("message")
    if not isinstance(message, dict):
        return None
    parts = message.get("content") if isinstance(message.get("content"), list) else []
    parts = [*parts, *(message.get("images") if isinstance(message.get("images"), list) else [])]
    for i, part in enumerate(parts):
        if isinstance(part, dict) and part.get("type") in ("image_url", "output_image"):
            url = part.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str):
                return image_from_data_url(url, f"choices[0].message image {i}")
    return None


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
