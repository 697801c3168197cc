"""The estimator's tokenizer and network, and the batches they are trained on.

* **Tokenizer.** Without a pretrained ``base_model``, a byte-level BPE (:mod:`tokenizers`) is trained on the
  export's serialised inputs and targets, with digits split one per token (codes, counts and seconds are
  copied or computed digit by digit). With a ``base_model`` its own tokenizer is used.
* **Network.** Without a ``base_model``: a small Llama-architecture causal LM (``transformers.LlamaConfig``)
  randomly initialised from ``seed`` and trained in full, by default with a pointer-generator copy head over
  its input tokens (:mod:`emukit.estimator.copyhead`; ``model.copy_head: false`` for the plain decoder). With
  one: the local checkpoint, frozen, with a LoRA adapter (``peft``) on its attention projections, as seed 002
  Appendix D.3 / D.4 do.
* **Batches.** ``prompt + target + eos``; only the target and eos tokens are supervised; an input longer than
  ``max_length`` loses its oldest history steps, never the instruction, the task line or the final observation,
  and a line says how many were left out (:func:`encode`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.estimator.config import EstimatorConfig, LoraConfig
from emukit.estimator.losses import IGNORE

try:
    import tokenizers
    import torch
    import transformers
except ImportError as exc:  # the ml extra is not installed
    raise ConfigError(f"the learned estimator needs torch, transformers and tokenizers: pip install "
                      f"'emukit[ml]' ({exc})") from None

transformers.utils.logging.disable_progress_bar()  # no per-file bars when saving and loading weights
SPECIAL = ["<pad>", "<eos>", "<unk>"]
TOKENIZER_FILE = "tokenizer.json"


class Tokenizer:
    """A thin wrapper over a ``tokenizers.Tokenizer`` (trained here) or a pretrained tokenizer folder."""

    def __init__(self, backend: Any, *, pretrained: bool = False) -> None:
        self.backend = backend
        self.pretrained = pretrained
        if pretrained:
            self.pad_id = backend.pad_token_id if backend.pad_token_id is not None else backend.eos_token_id
            self.eos_id = backend.eos_token_id
        else:
            self.pad_id = backend.token_to_id("<pad>")
            self.eos_id = backend.token_to_id("<eos>")

    @property
    def vocab_size(self) -> int:
        return len(self.backend) if self.pretrained else self.backend.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        if self.pretrained:
            return list(self.backend(text, add_special_tokens=False)["input_ids"])
        return list(self.backend.encode(text).ids)

    def decode(self, ids: Sequence[int]) -> str:
        ids = [i for i in ids if i not in (self.pad_id, self.eos_id)]
        return self.backend.decode(ids, skip_special_tokens=True) if self.pretrained else self.backend.decode(ids)

    def save(self, folder: Path) -> None:
        if self.pretrained:
            self.backend.save_pretrained(str(folder / "tokenizer"))
        else:
            self.backend.save(str(folder / TOKENIZER_FILE))

    @classmethod
    def load(cls, folder: Path) -> Tokenizer:
        if (folder / TOKENIZER_FILE).is_file():
            return cls(tokenizers.Tokenizer.from_file(str(folder / TOKENIZER_FILE)))
        return cls(transformers.AutoTokenizer.from_pretrained(str(folder / "tokenizer")), pretrained=True)

    @classmethod
    def train(cls, texts: Sequence[str], vocab_size: int) -> Tokenizer:
        """A byte-level BPE trained on ``texts``, digits one per token."""
        models, pre_tokenizers = tokenizers.models, tokenizers.pre_tokenizers
        decoders, trainers = tokenizers.decoders, tokenizers.trainers
        tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                     pre_tokenizers.ByteLevel(add_prefix_space=False)])
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(texts, trainer=trainer)
        return cls(tok)

    @classmethod
    def pretrained_from(cls, path: Path) -> Tokenizer:
        return cls(transformers.AutoTokenizer.from_pretrained(str(path)), pretrained=True)


def new_model(cfg: EstimatorConfig, vocab_size: int, *, lora: LoraConfig | None = None) -> torch.nn.Module:
    """A fresh network: the small randomly initialised decoder, or ``base_model`` with a new LoRA adapter."""
    if cfg.base_model is None:
        m = cfg.model
        config = transformers.LlamaConfig(
            vocab_size=vocab_size, hidden_size=m.hidden_size, num_hidden_layers=m.layers,
            num_attention_heads=m.heads, num_key_value_heads=m.heads, intermediate_size=m.intermediate_size,
            max_position_embeddings=m.max_length + cfg.max_new_tokens + 8, tie_word_embeddings=True,
            pad_token_id=0, eos_token_id=1, bos_token_id=None, copy_head=m.copy_head)
        torch.manual_seed(cfg.seed)
        if m.copy_head:
            from emukit.estimator.copyhead import CopyHeadLlama

            return CopyHeadLlama(config)
        return transformers.LlamaForCausalLM(config)
    base = Path(cfg.base_model)
    if not base.is_dir():
        raise ConfigError(f"base_model {base} is not a local checkpoint folder")
    model = transformers.AutoModelForCausalLM.from_pretrained(str(base))
    if lora is None:
        return model
    try:
        import peft
    except ImportError:
        raise ConfigError("a base_model is adapted with LoRA adapters, which need peft (pip install "
                          "'emukit[ml]')") from None
    spec = peft.LoraConfig(r=lora.rank, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                           target_modules=list(lora.target_modules), task_type="CAUSAL_LM")
    return peft.get_peft_model(model, spec)


def save_model(model: torch.nn.Module, folder: Path) -> None:
    """The network's weights (the adapter's only, for a LoRA model) under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))


def load_model(cfg: EstimatorConfig, folder: Path, vocab_size: int) -> torch.nn.Module:
    """A network saved by :func:`save_model` (the small decoder with or without the copy head, as its own
    ``config.json`` says: a checkpoint trained before the head existed loads as it was trained)."""
    if cfg.base_model is None:
        if getattr(transformers.LlamaConfig.from_pretrained(str(folder)), "copy_head", False):
            from emukit.estimator.copyhead import CopyHeadLlama

            return CopyHeadLlama.from_pretrained(str(folder))
        return transformers.LlamaForCausalLM.from_pretrained(str(folder))
    try:
        import peft
    except ImportError:
        raise ConfigError("a base_model's LoRA adapters need peft (pip install 'emukit[ml]')") from None

    base = transformers.AutoModelForCausalLM.from_pretrained(str(cfg.base_model))
    return peft.PeftModel.from_pretrained(base, str(folder))


@dataclass
class Encoded:
    """One example as token ids: ``prompt`` then ``target`` (with eos); ``dropped``: history steps left out to
    fit ``max_length`` (0 when the whole input fits); ``length``: the whole input's tokens, before any cut."""

    example_id: str
    family: str
    prompt: list[int]
    target: list[int]
    dropped: int = 0
    length: int = 0


_STEP = re.compile(r"^[OA](\d+): ")
_FINAL = re.compile(r"^F\d+: ")


def dropped_line(n: int) -> str:
    """The line that stands in the input for ``n`` history steps left out."""
    return f"({n} earlier step{'s' if n != 1 else ''} left out)"


def _split_prompt(prompt: str) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(head, steps, tail)`` of a serialised input: the instruction and task lines, each history step's
    ``O<i>`` / ``A<i>`` lines, and the final observation with the state prompt; None when the text is not
    shaped so (a prompt written by hand)."""
    lines = prompt.split("\n")
    final = next((i for i, line in enumerate(lines) if _FINAL.match(line)), None)
    first = next((i for i, line in enumerate(lines) if _STEP.match(line)), final)
    if final is None or first is None:
        return None
    steps: dict[str, list[str]] = {}
    for line in lines[first:final]:
        m = _STEP.match(line)
        if m is None:
            return None
        steps.setdefault(m.group(1), []).append(line)
    return lines[:first], list(steps.values()), lines[final:]


def length_summary(items: Sequence[Encoded]) -> dict[str, dict[str, int]]:
    """Per family: how many inputs, their whole length in tokens (min, median, 95th percentile, max) and how
    many were cut to fit (``truncated``, ``steps_left_out``): what ``max_length`` is sized against."""
    out: dict[str, dict[str, int]] = {}
    for family in sorted({e.family for e in items}):
        lengths = sorted(e.length for e in items if e.family == family)
        cut = [e for e in items if e.family == family and (e.dropped or e.length > len(e.prompt))]
        out[family] = {"inputs": len(lengths), "min": lengths[0], "median": lengths[len(lengths) // 2],
                       "p95": lengths[min(len(lengths) - 1, (95 * len(lengths)) // 100)], "max": lengths[-1],
                       "truncated": len(cut), "steps_left_out": sum(e.dropped for e in cut)}
    return out


def encode(tok: Tokenizer, example_id: str, family: str, prompt: str, target: str | None,
           max_length: int, reserve: int) -> Encoded:
    """Token ids of an example, with ``reserve`` tokens left for the target (or the target's length, if longer).

    An input that does not fit ``max_length`` loses its oldest history steps, never the instruction, the task
    line or the final observation: the latest steps that fit are kept, and one line says how many were left out
    (:func:`dropped_line`). ConfigError when even the instruction, task and final observation do not fit. An
    input that fits is tokenised exactly as before (its first line, then the rest)."""
    head, _, rest = prompt.partition("\n")
    head_ids = tok.encode(head + "\n")
    rest_ids = tok.encode(rest)
    target_ids = (tok.encode(target) + [tok.eos_id]) if target is not None else []
    budget = max_length - max(reserve, len(target_ids))
    length = len(head_ids) + len(rest_ids)
    if length <= budget:
        return Encoded(example_id, family, head_ids + rest_ids, target_ids, 0, length)
    parts = _split_prompt(prompt)
    if parts is None:  # not a serialised history: its end is kept behind the first line
        room = budget - len(head_ids)
        if room < 16:
            raise ConfigError(f"max_length {max_length} leaves no room for the history of {example_id}")
        return Encoded(example_id, family, head_ids + rest_ids[-room:], target_ids, 0, length)
    top, steps, tail = parts
    top_ids = tok.encode("\n".join(top) + "\n")
    tail_ids = tok.encode("\n".join(tail))
    kept: list[list[int]] = []  # the latest steps first
    room = budget - len(top_ids) - len(tail_ids)
    for step in reversed(steps):
        ids = tok.encode("\n".join(step) + "\n")
        if len(ids) > room:
            break
        kept.append(ids)
        room -= len(ids)
    while True:  # the line saying how many were left out must fit too: give up the oldest kept step for it
        dropped = len(steps) - len(kept)
        marker_ids = tok.encode(dropped_line(dropped) + "\n") if dropped else []
        if room >= len(marker_ids) or not kept:
            break
        room += len(kept.pop())
    if room < len(marker_ids):
        raise ConfigError(f"max_length {max_length} leaves no room for the instruction, task and final observation "
                          f"of {example_id} ({len(top_ids) + len(tail_ids) + len(marker_ids)} tokens, "
                          f"{budget} available)")
    ids = top_ids + marker_ids + [t for step in reversed(kept) for t in step] + tail_ids
    return Encoded(example_id, family, ids, target_ids, dropped, length)


def collate(items: Sequence[Encoded], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-padded ``input_ids``, ``attention_mask`` and shifted ``labels`` (``labels[:, t]`` is the token
    ``logits[:, t]`` predicts; only target tokens supervised)."""
    seqs = [e.prompt + e.target for e in items]
    width = max(len(s) for s in seqs)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(items), width), dtype=torch.long)
    labels = torch.full((len(items), width), IGNORE, dtype=torch.long)
    for i, (e, s) in enumerate(zip(items, seqs, strict=True)):
        ids[i, : len(s)] = torch.tensor(s)
        attn[i, : len(s)] = 1
        start = len(e.prompt)
        # position t predicts token t + 1: the target tokens are predicted from positions start-1 .. end-2
        labels[i, start - 1: len(s) - 1] = torch.tensor(e.target)
    return {"input_ids": ids, "attention_mask": attn, "labels": labels}


def write_json(path: Path, data: Any) -> None:
    from emukit.atomicio import write_atomic

    write_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
