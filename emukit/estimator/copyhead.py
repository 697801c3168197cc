"""A pointer-generator (copy) head for the small randomly initialised decoder (a CPU-scale difference from seed 002).

Seed 002 adapts a pretrained 2B model, which can already copy a payload from its input; a small decoder trained
from scratch in a few hundred steps does not learn to (a ~550-token clipboard input stayed at 0% after ~550
steps, where the same network with a copy head reached ~96% in ~350). The copy head lets it point at an input
token instead of generating it, in the manner of See et al. (2017): at position ``t`` with final hidden state
``h_t``,

* the generator's distribution ``P_vocab = softmax(W_lm h_t)`` (the language-model head, as without the head);
* a copy attention over the positions ``j <= t`` of the sequence (prompt and tokens generated so far; padding
  masked): ``a_tj = softmax_j((W_q h_t) . (W_k h_j) / sqrt(d))``, and the copy distribution
  ``P_copy(v) = sum_{j: x_j = v} a_tj``;
* a gate ``g_t = sigmoid(w_g . h_t + b_g)``;
* ``P(v) = g_t P_vocab(v) + (1 - g_t) P_copy(v)``.

The network's ``logits`` are ``log P`` (floored at ``1e-12``): still one distribution over the vocabulary, so
the objectives of seed 002 Appendix D are unchanged (``log_softmax(log P) = log P`` for CE; the teacher's top-64
tokens and the temperature-``tau`` KD term are taken from ``softmax(log P / tau)``, the mixed distribution at
temperature ``tau``). The head adds ``2 d^2 + d + 1`` parameters.

Greedy decoding (:func:`greedy`) keeps the decoder's key/value cache and every position's final hidden state,
so each new token costs one position of the decoder and one row of copy attention over the sequence so far.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from emukit.errors import ConfigError

try:
    import torch
    import transformers
    from transformers.modeling_outputs import CausalLMOutputWithPast
except ImportError as exc:  # the ml extra is not installed
    raise ConfigError(f"the learned estimator needs torch and transformers: pip install 'emukit[ml]' ({exc})") from None

#: probabilities are floored here before the log (a token neither generated nor in the input)
FLOOR = 1e-12


class CopyHeadLlama(transformers.LlamaForCausalLM):
    """A Llama-architecture causal LM whose output distribution mixes the generator's with a copy distribution
    over the sequence's own tokens (see the module docstring); ``config.copy_head`` is true for it."""

    def __init__(self, config: transformers.LlamaConfig) -> None:
        super().__init__(config)
        d = config.hidden_size
        self.copy_query = torch.nn.Linear(d, d, bias=False)
        self.copy_key = torch.nn.Linear(d, d, bias=False)
        self.copy_gate = torch.nn.Linear(d, 1)
        self.post_init()

    def forward(self, input_ids: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None,
                **kwargs: Any) -> CausalLMOutputWithPast:
        """``logits``: ``log P`` of the mixed distribution ``[B, L, V]`` (no cache is kept or read)."""
        if input_ids is None:
            raise ValueError("the copy head reads the input tokens: give input_ids")
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
        return CausalLMOutputWithPast(logits=mixed_log_probs(self, hidden, input_ids, attention_mask))

    def copy_parts(self, hidden: torch.Tensor, input_ids: torch.Tensor, attention_mask: torch.Tensor, *,
                   last: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(P_vocab [B, T, V], copy attention [B, T, L], gate [B, T, 1])`` from the final hidden states
        ``[B, L, d]``: at every position (``T = L``), or with ``last`` at the last one only (``T = 1``)."""
        queries = hidden[:, -1:] if last else hidden
        p_vocab = torch.softmax(self.lm_head(queries).float(), dim=-1)
        q = self.copy_query(queries).float()
        k = self.copy_key(hidden).float()
        scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])  # [B, T, L]
        length = input_ids.shape[1]
        causal = torch.ones(length, length, dtype=torch.bool, device=hidden.device).tril()
        if last:
            causal = causal[-1:]
        allowed = causal.unsqueeze(0) & attention_mask.bool().unsqueeze(1)
        attn = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        attn = torch.nan_to_num(attn)  # a position that allows nothing gets no copy mass
        gate = torch.sigmoid(self.copy_gate(queries).float())
        return p_vocab, attn, gate


def mixed_log_probs(model: CopyHeadLlama, hidden: torch.Tensor, input_ids: torch.Tensor,
                    attention_mask: torch.Tensor, *, last: bool = False) -> torch.Tensor:
    """``log(g P_vocab + (1 - g) P_copy)`` ``[B, T, V]`` (see the module docstring; ``last``: the last position
    only)."""
    p_vocab, attn, gate = model.copy_parts(hidden, input_ids, attention_mask, last=last)
    index = input_ids.unsqueeze(1).expand(-1, attn.shape[1], -1)  # [B, T, L]: the token at each position j
    p_copy = torch.zeros_like(p_vocab).scatter_add(-1, index, attn)
    return torch.log((gate * p_vocab + (1.0 - gate) * p_copy).clamp_min(FLOOR))


def is_copy_head(model: torch.nn.Module) -> bool:
    return isinstance(model, CopyHeadLlama)


def greedy(model: CopyHeadLlama, ids: torch.Tensor, *, max_new_tokens: int, eos_id: int) -> torch.Tensor:
    """Greedy decoding of one sequence ``[1, L]`` to ``[1, L + generated]`` (stops at eos): the decoder runs
    with its key/value cache, and the copy attention of each new position reads the final hidden states of
    every position so far."""
    out = model.model(input_ids=ids, use_cache=True)
    hidden, seq = out.last_hidden_state, ids
    for _ in range(max_new_tokens):
        logp = mixed_log_probs(model, hidden, seq, torch.ones_like(seq), last=True)[:, -1]
        nxt = logp.argmax(-1, keepdim=True)
        seq = torch.cat([seq, nxt], dim=1)
        if int(nxt[0, 0]) == eos_id:
            break
        out = model.model(input_ids=nxt, use_cache=True, **{CACHE_ARG: _cache(out)})
        hidden = torch.cat([hidden, out.last_hidden_state], dim=1)
    return seq


#: the decoder's name for its key/value cache, in and out: ``cache`` in recent transformers, ``past_key_values``
#: before (the ml extra allows either)
CACHE_ARG = "cache" if "cache" in inspect.signature(transformers.LlamaModel.forward).parameters else "past_key_values"


def _cache(out: Any) -> Any:
    return out.get("cache", out.get("past_key_values"))
