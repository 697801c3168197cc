"""The judge scorer: rubric prompts sent to an OpenAI-compatible vision-language endpoint.

``JudgeScorer("openai:http://127.0.0.1:8000/v1#Qwen2.5-VL-72B", rubrics=("gui-cc-transition", "gui-score"))``
sends each judgement as one chat-completions request (system: the rubric; user: the rubric's text and the
frames as PNG data URLs), at temperature 0 with a fixed seed, through :class:`~emukit.evaluate.adapters.openai.
OpenAIAdapter`'s transport: responses cached on disk by the request hash (the rubric's name and version are in
the request, so a changed rubric is a new request), retries with exponential backoff on 429/5xx/timeouts, at
most ``concurrency`` requests in flight. A reply that does not follow the rubric is asked again once, then
recorded as an error (no score), never guessed.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.judge.rubrics import JudgeInput, Rubric, get_rubric

JUDGE_SEED = 20260912


@dataclass
class Judgement:
    """One rubric's verdict on one input: normalised scores, extras (criteria, reason), provenance."""

    rubric: str
    version: str
    scores: dict[str, float] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    cached: bool = False
    request_hash: str = ""

    def record(self) -> dict[str, Any]:
        return {"rubric": self.rubric, "version": self.version, "scores": self.scores, "extras": self.extras,
                "error": self.error, "cached": self.cached, "request_hash": self.request_hash}


class JudgeScorer:
    """Scores judge inputs with the given rubrics (see the module docstring)."""

    def __init__(self, spec: str, *, rubrics: Sequence[str] = ("gui-cc-transition", "gui-cc-rollout", "gui-score"),
                 cache_dir: Path | str | None = None, concurrency: int = 4, max_retries: int = 4,
                 backoff_s: float = 1.0, timeout_s: float = 300.0, max_tokens: int = 512) -> None:
        from emukit.evaluate.adapters.openai import OpenAIAdapter

        spec = spec.removeprefix("openai:")
        if not spec.startswith(("http://", "https://")):
            raise ConfigError(f"--judge {spec!r}: expected [openai:]BASE_URL#MODEL, e.g. "
                              "http://127.0.0.1:8000/v1#Qwen2.5-VL-72B-Instruct")
        self.transport = OpenAIAdapter(spec, cache_dir=cache_dir, concurrency=concurrency, max_retries=max_retries,
                                       backoff_s=backoff_s, timeout_s=timeout_s)
        if not self.transport.model:
            raise ConfigError(f"--judge {spec!r}: name the judge model after '#' (it is recorded with the scores)")
        try:
            self.rubrics: tuple[Rubric, ...] = tuple(get_rubric(name) for name in rubrics)
        except ConfigError as exc:
            raise ConfigError(f"--judge-rubrics: {exc}") from None
        self.concurrency = max(1, int(concurrency))
        self.max_tokens = int(max_tokens)

    @property
    def model(self) -> str:
        return str(self.transport.model)

    def describe(self) -> dict[str, Any]:
        """What results.json records about the judge (never the key)."""
        return {"model": self.model, "endpoint": self.transport.base_url,
                "rubrics": {r.name: r.version for r in self.rubrics}, "temperature": 0.0, "seed": JUDGE_SEED}

    def body(self, rubric: Rubric, item: JudgeInput) -> dict[str, Any]:
        images = [(f"frame {i}", png) for i, png in enumerate(item.frames)]
        if rubric.needs_reference_current and item.reference_current is not None:
            images.append(("recorded screen before the action", item.reference_current))
        if rubric.needs_reference and item.reference_next is not None:
            images.append(("recorded next screen", item.reference_next))
        content: list[dict[str, Any]] = [{"type": "text", "text": rubric.user_text(item)}]
        for label, png in images:
            content.append({"type": "text", "text": label})
            content.append({"type": "image_url",
                            "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}})
        return {"model": self.model, "temperature": 0.0, "seed": JUDGE_SEED, "max_tokens": self.max_tokens,
                "messages": [{"role": "system", "content": rubric.system_prompt()},
                             {"role": "user", "content": content}],
                "metadata": {"emukit_rubric": rubric.name, "emukit_rubric_version": rubric.version}}

    def judge(self, rubric: Rubric, item: JudgeInput) -> Judgement:
        from emukit.evaluate.adapters.openai import response_text

        out = Judgement(rubric.name, rubric.version)
        if len(item.frames) < rubric.min_frames:
            out.error = f"{rubric.name} needs {rubric.min_frames} frames, got {len(item.frames)}"
            return out
        if rubric.needs_reference and item.reference_next is None:
            out.error = f"{rubric.name} needs the recorded next screen"
            return out
        if rubric.needs_reference_current and item.reference_current is None:
            out.error = f"{rubric.name} needs the recorded screen before the action"
            return out
        body = self.body(rubric, item)
        for attempt in range(2):
            if attempt:
                body = {**body, "metadata": {**body["metadata"], "emukit_reask": attempt}}  # a new request
            response, key, info = self.transport.complete(body)
            out.request_hash, out.cached = key, bool(info.get("cached"))
            if response is None:
                out.error = f"judge request failed: {info.get('error')}"
                return out
            text = response_text(response) or ""
            try:
                out.scores, out.extras = rubric.parse(text)
                out.error = None
                return out
            except ValueError as exc:
                out.error = f"judge reply does not follow {rubric.name} v{rubric.version}: {exc}"
        return out

    def judge_all(self, item: JudgeInput) -> list[Judgement]:
        return [self.judge(r, item) for r in self.rubrics]

    def judge_jobs(self, jobs: Sequence[tuple[Rubric, JudgeInput]]) -> list[Judgement]:
        """``(rubric, input)`` jobs, at most ``concurrency`` requests in flight; verdicts in order."""
        if len(jobs) <= 1 or self.concurrency == 1:
            return [self.judge(r, item) for r, item in jobs]
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="emukit-judge") as pool:
            return list(pool.map(lambda job: self.judge(*job), jobs))

    def judge_many(self, items: Sequence[JudgeInput]) -> list[list[Judgement]]:
        """Every rubric on every input; results in order."""
        verdicts = self.judge_jobs([(r, item) for item in items for r in self.rubrics])
        n = len(self.rubrics)
        return [verdicts[i * n:(i + 1) * n] for i in range(len(items))]

    @property
    def http_calls(self) -> int:
        return self.transport.http_calls


def flat_scores(judgements: Sequence[Judgement]) -> dict[str, float]:
    """Every dimension's normalised score from a list of judgements (errors contribute nothing)."""
    out: dict[str, float] = {}
    for j in judgements:
        out.update(j.scores)
    return out
