"""A local ``transformers`` vision-language model: ``hf:LOCAL_PATH``.

The checkpoint folder must hold a processor (``AutoProcessor``: tokenizer, image processor, chat template)
and an image-text-to-text model (``AutoModelForImageTextToText``; Qwen2/3-VL, LLaVA, Idefics... — whatever
the installed ``transformers`` knows). Nothing is downloaded: loading is local-only.

The OpenAI-style request is turned into the processor's chat format (text parts as text, ``image_url`` data
URLs as images, in order), rendered with the checkpoint's chat template, and decoded greedily with
``model.generate`` on the CPU (or ``device=``): ``max_new_tokens`` = the request's ``max_tokens`` (capped by
``max_new_tokens=``), the request's ``repetition_penalty``, ``torch.manual_seed(seed)`` from the request.

Needs the ``ml`` extra (``pip install 'emukit[ml]'``: torch, transformers).
"""

from __future__ import annotations

import base64
import io
import os
import threading
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.adapters.base import ModelAdapter, Prediction, PredictionContext, prediction_from_text, register


def decode_data_url(url: str) -> bytes:
    """The bytes of a ``data:<mime>;base64,...`` URL; other URLs are refused (no network)."""
    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise ValueError(f"only base64 data: URLs are accepted offline, got {url[:40]!r}")
    return base64.b64decode(payload)


def to_hf_messages(request: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """``(messages, images)``: chat messages with ``{"type": "image"}`` placeholders in the order of the PIL
    images, from an OpenAI chat-completions body."""
    from PIL import Image

    messages: list[dict[str, Any]] = []
    images: list[Any] = []
    for msg in request.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, str):
            parts = [{"type": "text", "text": content}]
        else:
            parts = []
            for part in content or []:
                if part.get("type") == "text":
                    parts.append({"type": "text", "text": part.get("text", "")})
                elif part.get("type") == "image_url":
                    data = decode_data_url(part["image_url"]["url"])
                    images.append(Image.open(io.BytesIO(data)).convert("RGB"))
                    parts.append({"type": "image"})
        messages.append({"role": msg.get("role", "user"), "content": parts})
    return messages, images


@register("hf")
class HFAdapter(ModelAdapter):
    """A local vision-language model run with ``model.generate``."""

    deterministic = True
    concurrency = 1

    def __init__(self, spec: str, *, device: str = "cpu", max_new_tokens: int | None = None,
                 dtype: str | None = None, **_: Any) -> None:
        """``spec``: the checkpoint folder; ``device``: torch device; ``max_new_tokens``: cap on generated
        tokens; ``dtype``: e.g. ``"bfloat16"`` (default: the checkpoint's)."""
        path = Path(os.path.expanduser(spec))
        if not path.is_dir():
            raise ConfigError(f"hf model spec: {spec!r} is not a local checkpoint folder")
        try:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor
        except ImportError as exc:
            raise ConfigError(f"hf:{spec} needs torch and transformers: pip install 'emukit[ml]' ({exc})") from None
        self.name = f"hf:{path.name}"
        self.path = path
        self.device = device
        self.max_new_tokens = max_new_tokens
        self._torch = torch
        self.processor = AutoProcessor.from_pretrained(path, local_files_only=True)
        kwargs: dict[str, Any] = {"local_files_only": True}
        if dtype:
            kwargs["dtype"] = getattr(torch, dtype)
        self.model = AutoModelForImageTextToText.from_pretrained(path, **kwargs).to(device).eval()
        self._lock = threading.Lock()

    def predict(self, request: dict[str, Any], context: PredictionContext | None = None) -> Prediction:
        try:
            messages, images = to_hf_messages(request)
        except (ValueError, KeyError, OSError) as exc:
            return Prediction(error=f"request not usable by {self.name}: {exc}")
        limit = int(request.get("max_tokens") or 8192)
        if self.max_new_tokens is not None:
            limit = min(limit, self.max_new_tokens)
        gen: dict[str, Any] = {"max_new_tokens": limit, "do_sample": False}
        if request.get("repetition_penalty") is not None:
            gen["repetition_penalty"] = float(request["repetition_penalty"])
        with self._lock, self._torch.inference_mode():
            self._torch.manual_seed(int(request.get("seed") or 0))
            text = self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            inputs = self.processor(text=[text], images=images or None, return_tensors="pt").to(self.device)
            output = self.model.generate(**inputs, **gen)
            new_tokens = output[:, inputs["input_ids"].shape[1]:]
            raw = self.processor.batch_decode(new_tokens, skip_special_tokens=True)[0]
        return prediction_from_text(raw, generated_tokens=int(new_tokens.shape[1]))
