"""A trained checkpoint as a :class:`~emukit.evaluate.estimator.StateEstimator`: the same serialisation as
training, greedy decoding, the generated JSON parsed into the family's canonical state.

``emukit evaluate --condition predictive-state --estimator CKPT`` uses the distilled student;
``CKPT:joint`` or ``CKPT:specialist`` choose the Joint CE network or the family specialists (each family's
example goes to its own specialist). A generation that is not a JSON object with the family's keys counts as
a wrong state (``{}``), never as a guess filled in by rules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.estimator.config import EstimatorConfig
from emukit.estimator.data import parse_state, serialize_steps
from emukit.estimator.copyhead import greedy, is_copy_head
from emukit.estimator.model import Tokenizer, encode, load_model
from emukit.estimator.train import MANIFEST, TARGET_RESERVE
from emukit.evaluate.estimator import HistoryStep, StateEstimator
from emukit.wm.contracts import FAMILIES

try:
    import torch
except ImportError as exc:  # the ml extra is not installed
    raise ConfigError(f"the learned estimator needs torch: pip install 'emukit[ml]' ({exc})") from None

VARIANTS = ("student", "joint", "specialist")


def is_checkpoint(spec: str) -> bool:
    """Whether ``spec`` (``CKPT`` or ``CKPT:variant``) names a trained estimator folder."""
    return (Path(_split(spec)[0]) / MANIFEST).is_file()


def _split(spec: str) -> tuple[str, str]:
    """``(folder, variant)`` of ``CKPT`` (the student) or ``CKPT:variant``."""
    head, sep, tail = spec.rpartition(":")
    return (head, tail) if sep and head and tail in VARIANTS else (spec, "student")


class LearnedEstimator(StateEstimator):
    """A network of a training run (``variant``: student, joint or specialist) behind the estimator
    interface."""

    def __init__(self, folder: Path, variant: str = "student", *, device: str = "cpu") -> None:
        self.folder = Path(folder)
        manifest_path = self.folder / MANIFEST
        if not manifest_path.is_file():
            raise ConfigError(f"{self.folder} is not an estimator checkpoint (no {MANIFEST}; train one with "
                              "emukit estimator train)")
        if variant not in VARIANTS:
            raise ConfigError(f"estimator variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        self.manifest = json.loads(manifest_path.read_text())
        self.cfg = EstimatorConfig.model_validate(self.manifest["config"])
        if self.cfg.model.max_length == "auto":  # the size training chose for its data
            chosen = self.manifest.get("tokens", {}).get("max_length")
            if not isinstance(chosen, int):
                raise ConfigError(f"{manifest_path}: model.max_length is auto but tokens.max_length (the size "
                                  "training chose) is missing")
            self.cfg = self.cfg.model_copy(update={"model": self.cfg.model.model_copy(
                update={"max_length": chosen})})
        self.variant = variant
        self.name = f"learned-{variant}"
        self.device = torch.device(device)
        self.tok = Tokenizer.load(self.folder)
        self._models: dict[str, torch.nn.Module] = {}

    def _model(self, family: str) -> torch.nn.Module:
        phase = f"specialist_{family}" if self.variant == "specialist" else self.variant
        if phase not in self._models:
            if self.manifest.get("phases", {}).get(phase) != "done":
                raise ConfigError(f"{self.folder}: the {phase} network is not trained (phases done: "
                                  f"{', '.join(self.manifest.get('phases', {})) or 'none'}); resume the training")
            model = load_model(self.cfg, self.folder / phase, self.tok.vocab_size).to(self.device)
            model.eval()
            self._models[phase] = model
        return self._models[phase]

    def generate(self, family: str, prompt: str) -> str:
        """The network's greedy continuation of ``prompt`` (up to ``max_new_tokens`` or eos)."""
        enc = encode(self.tok, "inference", family, prompt, None, self.cfg.model.max_length, TARGET_RESERVE)
        model = self._model(family)
        ids = torch.tensor([enc.prompt], device=self.device)
        with torch.no_grad():
            if is_copy_head(model):  # its copy attention reads every position: decoded without a cache
                out = greedy(model, ids, max_new_tokens=self.cfg.max_new_tokens, eos_id=self.tok.eos_id)
            else:
                out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                     max_new_tokens=self.cfg.max_new_tokens, eos_token_id=self.tok.eos_id,
                                     pad_token_id=self.tok.pad_id)
        return self.tok.decode(out[0, ids.shape[1]:].tolist())

    def estimate(self, family: str, history: Sequence[HistoryStep], final_observation: str, *,
                 task: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if family not in FAMILIES:
            raise ConfigError(f"unknown family {family!r}")
        state = parse_state(family, self.generate(family, serialize_steps(family, history, final_observation, task)))
        return state if state is not None else {}


def load_learned(spec: str, *, device: str = "cpu") -> LearnedEstimator:
    """``CKPT`` (the student) or ``CKPT:student|joint|specialist``."""
    path, variant = _split(spec)
    return LearnedEstimator(Path(path), variant, device=device)
