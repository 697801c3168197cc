"""The training configuration of the learned predictive-state estimator (``--config FILE``, YAML).

Every constant of seed 002 Appendix D is a field with the paper's value as its default, so a run with no
config file trains the paper's recipe at the model size this machine can afford; a config file may change
any of them (unknown keys, wrong types and out-of-range values are errors naming file, line and field).

The paper's numbers (Appendix D.1, D.3-D.5):

* objective ``L = w_f [(1 - lambda) CE + lambda KD]``, ``lambda = 0.25``, temperature ``tau = 2``, teacher
  distribution restricted to its top ``K = 64`` tokens and renormalised; family-balancing weights
  ``w_f = N / (4 N_f)`` (so every family carries the same total weight);
* AdamW, learning rate ``2e-4``, betas ``(0.9, 0.95)``, epsilon ``1e-8``, weight decay ``0.01``, cosine decay,
  ``5%`` warm-up (student), gradient clipping at ``1.0``, effective batch size ``8``;
* specialists: LoRA rank 16, alpha 32, dropout 0.05 on the attention projections; epochs persistent 4,
  clipboard 4, ordered 2, temporal 4; student: a fresh LoRA adapter of rank 32, alpha 64, dropout 0.05, four
  epochs; Joint CE: the student's recipe without the KD term.

What differs here, and why: the paper adapts a pretrained 2B multimodal model; on a CPU-only 2-core machine
that is out of reach, so by default a small decoder (``model``) is **randomly initialised** and trained in
full (LoRA on a random network would train almost nothing), and its learning rate is ``small_model_lr``
(a from-scratch model needs a larger one than an adapter does). The small decoder also has, by default, a
pointer-generator copy head over its input tokens (``model.copy_head``, :mod:`emukit.estimator.copyhead`): a
pretrained model copies a payload from its input unaided, a small one trained from scratch does not; its output
is still one distribution over the vocabulary, so the objective is the paper's. Given ``base_model`` (a local
pretrained checkpoint folder), the paper's LoRA recipe is used as written (no copy head).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from emukit.families import FAMILIES, unit
from emukit.yamlmodel import load_yaml_model


def specialist_epochs() -> dict[str, int]:
    """Seed 002 Table 11: epochs of each family specialist (each unit's ``specialist_epochs``)."""
    return {f: unit(f).specialist_epochs for f in FAMILIES}


class LoraConfig(BaseModel):
    """One LoRA adapter (used with a pretrained ``base_model`` only)."""

    model_config = ConfigDict(extra="forbid")

    rank: int = Field(ge=1)
    alpha: int = Field(ge=1)
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    target_modules: list[str] = Field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])


class ModelConfig(BaseModel):
    """The randomly initialised decoder trained on this machine (a Llama-architecture causal LM)."""

    model_config = ConfigDict(extra="forbid")

    hidden_size: int = Field(default=128, ge=16)
    layers: int = Field(default=2, ge=1)
    heads: int = Field(default=4, ge=1)
    intermediate_size: int = Field(default=384, ge=16)
    vocab_size: int = Field(default=2000, ge=128, description="tokenizer vocabulary trained on the export")
    max_length: int | Literal["auto"] = Field(default="auto", description=(
        "input + target tokens; an input longer than that loses its oldest history steps. auto: sized to the "
        "training data when training starts (its longest input and target, rounded up to 64, at most "
        "max_length_limit), so no training input is cut; the size chosen is in the checkpoint's manifest"))
    max_length_limit: int = Field(default=4096, ge=64, description="the largest size max_length: auto may choose")
    copy_head: bool = Field(default=True, description=(
        "a pointer-generator head over the input tokens (emukit/estimator/copyhead.py): the small decoder can copy "
        "a payload from its input; a CPU-scale difference from seed 002, whose pretrained model copies unaided"))

    @model_validator(mode="after")
    def _heads(self) -> ModelConfig:
        if self.hidden_size % self.heads:
            raise ValueError(f"hidden_size {self.hidden_size} must be a multiple of heads {self.heads}")
        if isinstance(self.max_length, int) and self.max_length < 64:
            raise ValueError(f"max_length {self.max_length} is below 64")
        return self

    def sized(self, tokens: int) -> ModelConfig:
        """This configuration with ``max_length`` fixed to the size ``auto`` takes for data whose longest input
        and target take ``tokens`` (a fixed ``max_length`` stays)."""
        if self.max_length != "auto":
            return self
        return self.model_copy(update={"max_length": min(self.max_length_limit, max(64, -(-tokens // 64) * 64))})


class EstimatorConfig(BaseModel):
    """Everything ``emukit estimator train`` does; the defaults are seed 002 Appendix D's values."""

    model_config = ConfigDict(extra="forbid")

    # -- objective (Appendix D.4)
    kd_lambda: float = Field(default=0.25, ge=0.0, le=1.0)
    temperature: float = Field(default=2.0, gt=0.0)
    top_k: int = Field(default=64, ge=1)
    family_weights: dict[str, float] | Literal["balanced"] = "balanced"  # balanced: w_f = N / (4 N_f)
    # -- optimisation (Appendix D.3 / D.4)
    lr: float = Field(default=2e-4, gt=0.0)
    small_model_lr: float = Field(default=2e-3, gt=0.0)
    betas: tuple[float, float] = (0.9, 0.95)
    eps: float = Field(default=1e-8, gt=0.0)
    weight_decay: float = Field(default=0.01, ge=0.0)
    warmup: float = Field(default=0.05, ge=0.0, lt=1.0)
    grad_clip: float = Field(default=1.0, gt=0.0)
    batch_size: int = Field(default=8, ge=1)
    specialist_epochs: dict[str, int] = Field(default_factory=specialist_epochs)
    student_epochs: int = Field(default=4, ge=1)
    epoch_scale: float = Field(default=1.0, gt=0.0, description="multiplies every epoch count (small data)")
    specialist_lora: LoraConfig = Field(default_factory=lambda: LoraConfig(rank=16, alpha=32))
    student_lora: LoraConfig = Field(default_factory=lambda: LoraConfig(rank=32, alpha=64))
    # -- model
    base_model: Path | None = None  # a local pretrained checkpoint folder: LoRA adapters on it
    model: ModelConfig = Field(default_factory=ModelConfig)
    max_new_tokens: int = Field(default=96, ge=8)
    seed: int = 0
    checkpoint_every: int = Field(default=50, ge=1, description="optimiser steps between checkpoints")

    @model_validator(mode="after")
    def _families(self) -> EstimatorConfig:
        for what, mapping in (("specialist_epochs", self.specialist_epochs),
                              ("family_weights", self.family_weights if isinstance(self.family_weights, dict)
                               else {})):
            unknown = sorted(set(mapping) - set(FAMILIES))
            if unknown:
                raise ValueError(f"{what}: unknown family {unknown[0]!r} (families: {', '.join(FAMILIES)})")
        missing = sorted(set(FAMILIES) - set(self.specialist_epochs))
        if missing:
            raise ValueError(f"specialist_epochs: no epochs for {', '.join(missing)}")
        if any(v < 1 for v in self.specialist_epochs.values()):
            raise ValueError("specialist_epochs: every family needs at least 1 epoch")
        return self

    def epochs(self, n: int) -> int:
        """An epoch count scaled by ``epoch_scale`` (at least 1)."""
        return max(1, round(n * self.epoch_scale))

    def weights(self, counts: dict[str, int]) -> dict[str, float]:
        """The family weights for training counts ``counts``: the configured ones, or balanced
        ``w_f = N / (F N_f)`` over the F families present (Appendix D.1)."""
        if isinstance(self.family_weights, dict):
            return {f: float(self.family_weights.get(f, 1.0)) for f in counts}
        present = {f: n for f, n in counts.items() if n}
        total = sum(present.values())
        return {f: total / (len(present) * n) for f, n in present.items()}


def load_config(path: Path | None) -> EstimatorConfig:
    """The configuration in ``path`` (YAML), or the defaults; ConfigError names file, line and field."""
    if path is None:
        return EstimatorConfig()
    return load_yaml_model(Path(path), EstimatorConfig, "an estimator config")
