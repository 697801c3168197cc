"""Metrics of an evaluation (seed 002 Section 4.1, Appendices C.4, E.4.1, F.5).

* **BranchExact** — fraction of branches whose rendered prediction realizes the expected family outcome
  (``BC = 1[Y_hat = Y]``, semantic outcome and surface validity together, as the official scorer).
* **PairCorrect** — fraction of pairs whose two branches are both correct (``BC_A * BC_B``).
* **SemCorrect / SurfaceValid** — the E.4.1 decomposition: semantic outcome alone, and the non-outcome
  surface gates alone; ``correct = sem_correct and surface_valid`` holds for every branch.
* **State-recovery Exact** — predictive condition: the estimated canonical state equals the ground truth.
* **Fidelity** — DINOv2 and SigLIP cosine similarity between the rendered prediction and the recorded next
  screenshot (:class:`FidelityScorer`, local checkpoints only).

The fraction metrics are registered functions of one scored branch or pair (:mod:`emukit.evaluate.metric`;
the shipped ones in :mod:`emukit.evaluate.metric_defs`), reduced by one generic grouping: a fraction in [0, 1]
per family plus ``macro`` (mean over the families present). Scoring is
sample preserving: failed requests, empty or malformed outputs and render failures stay in the denominators
as incorrect; only pairs refused under the observation condition (A/B requests differ, so the pair is not a
strict pair for this model) are left out, and counted.
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError

@dataclass
class BranchScore:
    """The score of one branch (one prediction)."""

    pair_id: str
    family: str
    branch: str
    correct: bool = False
    sem_correct: bool = False
    surface_valid: bool = False
    status: str = "ok"  # ok | request_failed | empty | malformed | render_failed | render_fallback | image_only | ...
    parsed: Any = None
    expected: Any = None
    state_exact: bool | None = None
    fidelity: dict[str, float] = field(default_factory=dict)
    judge: dict[str, float] = field(default_factory=dict)  # judge dimension -> normalised score in [0, 1]
    output_kind: str | None = None  # "html" or "image": what the prediction was (None: no prediction)
    template: str = ""  # the pair's causal template ("" when the pair does not name one)


def compute_metrics(scores: Iterable[BranchScore], *, refused: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
    """All metrics from branch scores (``refused``: ``(pair_id, family)`` of refused pairs, excluded).

    Returns ``{<each registered metric reported>: {fam: f, "macro": f}, ...}`` in table order
    (:mod:`emukit.evaluate.metric`: ``branch_exact``, ``pair_correct``, ``sem_correct``, ``surface_valid``,
    ``sem_pair_correct``, ``state_exact`` when estimated, any other registered metric, then the keyed ones:
    ``"fidelity": {"dinov2": {...}, "siglip": {...}}`` when computed and ``"judge": {<dimension>: {..., "n":
    judged}}`` when judged), ``"by_template": {<each registered metric reported>: {template: f, "macro": f}}``
    (the same reducer over templates) and ``"counts": {...}``.
    """
    from emukit.evaluate.metric import ScoredPair, compute, group_name, registered_metrics

    refused = list(refused)
    refused_ids = {pid for pid, _ in refused}
    by_pair: dict[str, dict[str, BranchScore]] = defaultdict(dict)
    fam_of: dict[str, str] = {}
    template_of: dict[str, str] = {}
    for s in scores:
        if s.pair_id in refused_ids:
            continue
        by_pair[s.pair_id][s.branch] = s
        fam_of[s.pair_id] = s.family
        template_of[s.pair_id] = s.template
    statuses: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for branches in by_pair.values():
        for s in branches.values():
            statuses[s.status] += 1
            if s.output_kind:
                kinds[s.output_kind] += 1
    samples = {"branch": [s for branches in by_pair.values() for s in branches.values()],
               "pair": [ScoredPair(pid, fam_of[pid], branches, template_of[pid]) for pid, branches in by_pair.items()]}
    metrics: dict[str, Any] = dict(compute(registered_metrics(), samples))  # type: ignore[arg-type]
    by_template = compute(registered_metrics(), samples, by="template")  # type: ignore[arg-type]
    if by_template:
        metrics["by_template"] = by_template
    refused_by_family = Counter(f for _, f in refused)
    metrics["counts"] = {
        "pairs": len(by_pair), "branches": sum(len(b) for b in by_pair.values()),
        "pairs_by_family": dict(Counter(fam_of.values())),
        "pairs_by_template": dict(sorted(Counter(group_name(t, "template") for t in template_of.values()).items())),
        "refused_pairs": len(refused), "refused_by_family": dict(refused_by_family),
        "status": dict(statuses),
        "output_kinds": dict(kinds),
        "failed_predictions": sum(n for st, n in statuses.items() if st not in ("ok", "render_fallback")),
    }
    return metrics


# -- next-observation fidelity ----------------------------------------------------------------------------

class _Encoder:
    """One local image encoder: processor + model, L2-normalised image embeddings."""

    def __init__(self, kind: str, path: Path | str) -> None:
        try:
            import torch
            from transformers import AutoImageProcessor, AutoModel
        except ImportError as exc:
            raise ConfigError(f"fidelity needs torch and transformers: pip install 'emukit[ml]' ({exc})") from None
        p = Path(path)
        if not p.is_dir():
            raise ConfigError(f"--fidelity-{kind}: {path} is not a local checkpoint folder")
        self.kind = kind
        self.torch = torch
        try:
            self.processor = AutoImageProcessor.from_pretrained(p, local_files_only=True, backend="pil")
        except TypeError:  # older transformers: no backend choice
            self.processor = AutoImageProcessor.from_pretrained(p, local_files_only=True)
        self.model = AutoModel.from_pretrained(p, local_files_only=True).eval()

    def embed(self, png: bytes) -> Any:
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB")
        inputs = self.processor(images=[image], return_tensors="pt")
        with self.torch.inference_mode():
            if self.kind == "siglip" and hasattr(self.model, "get_image_features"):
                feats = self.model.get_image_features(pixel_values=inputs["pixel_values"])
                if not isinstance(feats, self.torch.Tensor):  # newer transformers return a model output
                    feats = feats.pooler_output
            else:
                out = self.model(pixel_values=inputs["pixel_values"])
                if self.kind == "dinov2":
                    feats = out.last_hidden_state[:, 0]  # final-layer CLS (layer-normed by Dinov2Model)
                else:
                    feats = out.pooler_output if getattr(out, "pooler_output", None) is not None \
                        else out.last_hidden_state[:, 0]
        vec = feats[0].float()
        return vec / vec.norm().clamp_min(1e-12)


class FidelityScorer:
    """DINOv2 / SigLIP cosine similarity from local checkpoint folders (seed 002 F.5).

    DINOv2: the final-layer CLS token (``last_hidden_state[:, 0]``) after the checkpoint's image processor
    (shortest edge 256, centre crop 224 for facebook/dinov2-*); SigLIP: the model's projected image
    representation (``get_image_features`` for a full SigLIP checkpoint, ``pooler_output`` for a vision-only
    one) after its processor (384x384 for siglip-so400m-patch14-384). Both L2-normalised; the score is their
    dot product.
    """

    def __init__(self, *, dinov2: Path | str | None = None, siglip: Path | str | None = None) -> None:
        self.encoders = {}
        if dinov2:
            self.encoders["dinov2"] = _Encoder("dinov2", dinov2)
        if siglip:
            self.encoders["siglip"] = _Encoder("siglip", siglip)

    def __bool__(self) -> bool:
        return bool(self.encoders)

    def score(self, predicted_png: bytes, target_png: bytes) -> dict[str, float]:
        """``{"dinov2": cos, "siglip": cos}`` for the encoders configured."""
        out = {}
        for name, enc in self.encoders.items():
            out[name] = float((enc.embed(predicted_png) * enc.embed(target_png)).sum())
        return out
