"""``emukit estimator train``: four family specialists, their cached teacher distributions, a Joint CE
baseline and the distilled unified student (seed 002 Appendix D.3-D.5), with checkpoints and resume.

The run is a sequence of phases, each written under the checkpoint folder ``CKPT`` when it finishes:

1. ``specialist_<family>`` for every family with training examples: CE on that family's examples only, the
   family's epochs (Table 11);
2. ``teacher_cache``: for every training example, under teacher forcing, its own family's specialist's top-K
   token ids and temperature-scaled probabilities at each supervised position (computed once; the teachers
   are not loaded again);
3. ``joint``: one network on all families with ``w_f CE`` (the Joint CE comparison of D.5);
4. ``student``: one network on all families with ``w_f [(1 - lambda) CE + lambda KD]`` (MTD, D.4).

Within a phase, a checkpoint (network, optimiser, scheduler, step) is written every ``checkpoint_every``
steps and at its end; ``--resume`` continues a run killed midway from the last one (the batch order is a
function of the seed and the epoch, so the resumed run sees the same batches). ``manifest.json`` records the
configuration, the data (counts per family, a digest of the examples), the phases done and their wall time.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.estimator.config import EstimatorConfig
from emukit.estimator.data import Example, load_examples
from emukit.estimator.losses import (
    ce_per_example,
    kd_per_example,
    objective,
    teacher_topk,
)
from emukit.estimator.model import (
    Encoded,
    Tokenizer,
    collate,
    encode,
    length_summary,
    load_model,
    new_model,
    save_model,
    write_json,
)
from emukit.wm.contracts import FAMILIES

try:
    import torch
except ImportError as exc:  # the ml extra is not installed
    raise ConfigError(f"the learned estimator needs torch: pip install 'emukit[ml]' ({exc})") from None

MANIFEST = "manifest.json"
TARGET_RESERVE = 64  # target tokens kept free when a long input is cut


@dataclass
class TrainData:
    """The encoded training examples and what they were made from."""

    examples: list[Example]
    encoded: list[Encoded]
    counts: dict[str, int]
    digest: str


def examples_digest(examples: Sequence[Example]) -> str:
    h = hashlib.sha256()
    for e in examples:
        h.update(json.dumps([e.example_id, e.input, e.target]).encode())
    return h.hexdigest()[:16]


@dataclass
class Progress:
    """Callbacks for the CLI's progress display (phase start, optimiser step) and for a benchmark that keeps
    networks midway (``network``: the phase, its step, its total steps and the network after that step)."""

    phase: Callable[[str, int], None] = lambda name, total: None
    step: Callable[[str, int, float], None] = lambda name, step, loss: None
    network: Callable[[str, int, int, torch.nn.Module], None] = lambda name, step, total, model: None


class Trainer:
    """One training run into ``out`` (see the module docstring)."""

    def __init__(self, cfg: EstimatorConfig, out: Path, *, device: str = "cpu",
                 progress: Progress | None = None) -> None:
        self.cfg = cfg
        self.out = Path(out)
        self.device = torch.device(device)
        self.progress = progress or Progress()
        self.manifest: dict[str, Any] = {}

    # -- manifest ----------------------------------------------------------------------------------------
    def _load_manifest(self) -> dict[str, Any]:
        path = self.out / MANIFEST
        if not path.is_file():
            return {}
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: not JSON ({exc.msg}); remove the folder to start again") from None

    def _save_manifest(self) -> None:
        write_json(self.out / MANIFEST, self.manifest)

    # -- data --------------------------------------------------------------------------------------------
    def prepare(self, export: Path, *, resume: bool) -> tuple[Tokenizer, TrainData]:
        train, val = load_examples(export)
        counts = {f: sum(e.family == f for e in train) for f in FAMILIES}
        digest = examples_digest(train)
        old = self._load_manifest()
        if old and not resume:
            raise ConfigError(f"{self.out} already holds a training run; pass --resume to continue it or choose "
                              "another --out")
        if old and old.get("data", {}).get("digest") != digest:
            raise ConfigError(f"{self.out}: the run was started on other training data (digest "
                              f"{old.get('data', {}).get('digest')}, now {digest}); it cannot be resumed on this "
                              "export")
        if old and old.get("config") != json.loads(self.cfg.model_dump_json()):
            raise ConfigError(f"{self.out}: the run was started with another configuration; it cannot be resumed "
                              "with this one")
        self.out.mkdir(parents=True, exist_ok=True)
        if self.cfg.base_model is not None:
            tok = Tokenizer.pretrained_from(Path(self.cfg.base_model))
        elif (self.out / "tokenizer.json").is_file():
            tok = Tokenizer.load(self.out)
        else:
            texts = [e.input for e in train] + [e.target for e in train]
            tok = Tokenizer.train(texts, self.cfg.model.vocab_size)
        tok.save(self.out)
        config = json.loads(self.cfg.model_dump_json())  # as given (max_length may be auto)
        model = self.cfg.model
        cap = model.max_length_limit if model.max_length == "auto" else model.max_length
        encoded = [encode(tok, e.example_id, e.family, e.input, e.target, cap, TARGET_RESERVE) for e in train]
        # auto: the longest input with its target (or the reserve), which every input then fits whole, unless it
        # passes the limit: then the limit, which is what the inputs were just encoded to
        model = model.sized(max(e.length + max(TARGET_RESERVE, len(e.target)) for e in encoded))
        self.cfg = self.cfg.model_copy(update={"model": model})
        self.manifest = old or {
            "config": config,
            "data": {"export": str(export), "train": counts, "val": len(val), "digest": digest,
                     "weights": self.cfg.weights({f: n for f, n in counts.items() if n})},
            "phases": {}, "seconds": {}, "tokens": {"vocab": tok.vocab_size, "max_length": model.max_length,
                                                    "max_input": max(len(e.prompt) for e in encoded),
                                                    "inputs": length_summary(encoded)}}
        self._save_manifest()
        return tok, TrainData(train, encoded, counts, digest)

    # -- phases ------------------------------------------------------------------------------------------
    def run(self, export: Path, *, resume: bool = False) -> dict[str, Any]:
        """Every phase not done yet; returns the manifest."""
        tok, data = self.prepare(export, resume=resume)
        families = [f for f in FAMILIES if data.counts[f]]
        weights = self.manifest["data"]["weights"]
        for family in families:
            items = [e for e in data.encoded if e.family == family]
            self._phase(f"specialist_{family}", tok, items, {family: 1.0},
                        self.cfg.epochs(self.cfg.specialist_epochs[family]), lora="specialist")
        if "teacher_cache" not in self.manifest["phases"]:
            t0 = time.perf_counter()
            self._teacher_cache(tok, data.encoded, families)
            self._done("teacher_cache", time.perf_counter() - t0)
        self._phase("joint", tok, data.encoded, weights, self.cfg.epochs(self.cfg.student_epochs), lora="student")
        self._phase("student", tok, data.encoded, weights, self.cfg.epochs(self.cfg.student_epochs), lora="student",
                    kd=True)
        return self.manifest

    def _done(self, name: str, seconds: float) -> None:
        self.manifest["phases"][name] = "done"
        self.manifest["seconds"][name] = round(self.manifest["seconds"].get(name, 0.0) + seconds, 2)
        self._save_manifest()

    def _phase(self, name: str, tok: Tokenizer, items: list[Encoded], weights: dict[str, float], epochs: int, *,
               lora: str, kd: bool = False) -> None:
        if self.manifest["phases"].get(name) == "done":
            return
        cfg = self.cfg
        t0 = time.perf_counter()
        adapter = cfg.specialist_lora if lora == "specialist" else cfg.student_lora
        model = new_model(cfg, tok.vocab_size, lora=adapter).to(self.device)
        lr = cfg.lr if cfg.base_model is not None else cfg.small_model_lr
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)
        per_epoch = math.ceil(len(items) / cfg.batch_size)
        total = per_epoch * epochs
        sched = _cosine(opt, max(1, round(cfg.warmup * total)), total)
        state_path = self.out / "partial" / f"{name}.pt"
        step = 0
        if state_path.is_file():
            state = torch.load(state_path, map_location=self.device, weights_only=False)
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            sched.load_state_dict(state["scheduler"])
            step = int(state["step"])
        cache = self._load_cache() if kd else None
        self.progress.phase(name, total)
        model.train()
        batches: list[list[int]] = []
        while step < total:
            epoch, index = divmod(step, per_epoch)
            if index == 0 or not batches:
                batches = epoch_batches(items, cfg.batch_size, f"{cfg.seed}|{name}|{epoch}")
            batch = [items[i] for i in batches[index]]
            loss = self._loss(model, tok, batch, weights, cache)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip)
            opt.step()
            sched.step()
            step += 1
            self.progress.step(name, step, float(loss.detach()))
            self.progress.network(name, step, total, model)
            if step % cfg.checkpoint_every == 0 and step < total:
                self._checkpoint(state_path, model, opt, sched, step)
        save_model(model, self.out / name)
        state_path.unlink(missing_ok=True)
        self._done(name, time.perf_counter() - t0)

    def _checkpoint(self, path: Path, model: torch.nn.Module, opt: Any, sched: Any, step: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                    "step": step}, tmp)
        tmp.replace(path)

    def _loss(self, model: torch.nn.Module, tok: Tokenizer, batch: list[Encoded], weights: dict[str, float],
              cache: dict[str, tuple[torch.Tensor, torch.Tensor]] | None) -> torch.Tensor:
        b = {k: v.to(self.device) for k, v in collate(batch, tok.pad_id).items()}
        logits = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
        ce = ce_per_example(logits, b["labels"])
        w = torch.tensor([weights.get(e.family, 1.0) for e in batch], device=self.device)
        if cache is None:
            return objective(ce, w)
        ids, probs = _aligned_teacher(batch, cache, b["labels"], self.cfg.top_k)
        kd = kd_per_example(logits, b["labels"], ids.to(self.device), probs.to(self.device), self.cfg.temperature)
        return objective(ce, w, kd, self.cfg.kd_lambda)

    # -- the teacher cache -------------------------------------------------------------------------------
    def _teacher_cache(self, tok: Tokenizer, items: list[Encoded], families: list[str]) -> None:
        cache: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
        for family in families:
            teacher = load_model(self.cfg, self.out / f"specialist_{family}", tok.vocab_size).to(self.device)
            teacher.eval()
            mine = [e for e in items if e.family == family]
            with torch.no_grad():
                for i in range(0, len(mine), self.cfg.batch_size):
                    batch = mine[i:i + self.cfg.batch_size]
                    b = {k: v.to(self.device) for k, v in collate(batch, tok.pad_id).items()}
                    logits = teacher(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
                    for row, e in enumerate(batch):
                        pos = (b["labels"][row] != -100).nonzero().squeeze(-1)
                        ids, probs = teacher_topk(logits[row, pos], self.cfg.temperature, self.cfg.top_k)
                        cache[e.example_id] = (ids.to(torch.int32).cpu(), probs.to(torch.float32).cpu())
            del teacher
        path = self.out / "teacher_cache.pt"
        tmp = path.with_suffix(".tmp")
        torch.save(cache, tmp)
        tmp.replace(path)

    def _load_cache(self) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
        return torch.load(self.out / "teacher_cache.pt", weights_only=False)


def epoch_batches(items: Sequence[Encoded], size: int, key: str) -> list[list[int]]:
    """One epoch's batches (indices into ``items``), a function of ``key`` alone: a seeded shuffle, examples of
    similar length batched together within windows of 16 batches (less padding), the batches shuffled."""
    rng = random.Random(key)
    order = list(range(len(items)))
    rng.shuffle(order)
    window = size * 16
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start:start + window], key=lambda i: len(items[i].prompt) + len(items[i].target))
        batches.extend(chunk[i:i + size] for i in range(0, len(chunk), size))
    rng.shuffle(batches)
    return batches


def _aligned_teacher(batch: list[Encoded], cache: dict[str, tuple[torch.Tensor, torch.Tensor]],
                     labels: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The cached teacher targets laid out like ``labels`` (``[B, L, K]``; zeros where not supervised)."""
    width = next(iter(cache.values()))[0].shape[-1] if cache else k
    ids = torch.zeros((*labels.shape, width), dtype=torch.long)
    probs = torch.zeros((*labels.shape, width), dtype=torch.float32)
    for row, e in enumerate(batch):
        if e.example_id not in cache:
            raise ConfigError(f"the teacher cache has no entry for {e.example_id}; remove teacher_cache.pt and "
                              "resume")
        t_ids, t_probs = cache[e.example_id]
        pos = (labels[row] != -100).nonzero().squeeze(-1).cpu()
        ids[row, pos] = t_ids.long()
        probs[row, pos] = t_probs
    return ids, probs


def _cosine(opt: torch.optim.Optimizer, warmup: int, total: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Linear warm-up over ``warmup`` steps, then cosine decay to 0 at ``total``."""

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return torch.optim.lr_scheduler.LambdaLR(opt, factor)


def train(export: Path, out: Path, cfg: EstimatorConfig, *, device: str = "cpu", resume: bool = False,
          progress: Progress | None = None) -> dict[str, Any]:
    """Train every phase (see the module docstring) into ``out``; returns the manifest."""
    if device != "cpu" and device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA device is available here (use --device cpu)")
    torch.manual_seed(cfg.seed)
    return Trainer(cfg, out, device=device, progress=progress).run(export, resume=resume)
