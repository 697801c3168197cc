"""The token-level objectives of seed 002 Appendix D.2-D.5, per example, over the supervised (target) tokens.

With ``T_i`` the supervised positions of example ``i`` (its canonical-state tokens; prompt and padding are
masked):

* ``CE_i = -1/|T_i| sum_t log p_S(y_t)``;
* ``KD_i = -tau^2/|T_i| sum_t sum_{v in K_t} p~_T(v) log p_S^tau(v)``, where ``p_S^tau`` is the student's
  softmax of its logits divided by ``tau`` over the whole vocabulary and ``p~_T`` the teacher's
  temperature-scaled distribution restricted to its top-``K`` tokens ``K_t`` and renormalised there;
* ``L_i = w_f [(1 - lambda) CE_i + lambda KD_i]`` (MTD), ``L_i = w_f CE_i`` (Joint CE, or a specialist with
  ``w_f = 1``); a batch's loss is the mean of its examples'.

Shapes: ``logits [B, L, V]`` where ``logits[:, t]`` predicts token ``t + 1``; ``labels [B, L]`` with
``IGNORE`` (-100) where the token is not supervised, already shifted so ``labels[:, t]`` is the token
``logits[:, t]`` predicts.
"""

from __future__ import annotations

from emukit.errors import ConfigError

try:
    import torch
    import torch.nn.functional as F
except ImportError as exc:  # the ml extra is not installed
    raise ConfigError(f"the learned estimator needs torch: pip install 'emukit[ml]' ({exc})") from None

IGNORE = -100


def ce_per_example(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """``CE_i`` for each example ``[B]``: the mean negative log-likelihood of its supervised tokens."""
    mask = labels != IGNORE
    logp = F.log_softmax(logits.float(), dim=-1)
    picked = logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    counts = mask.sum(-1).clamp(min=1)
    return -(picked * mask).sum(-1) / counts


def teacher_topk(logits: torch.Tensor, tau: float, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The teacher's top-``k`` token ids and their temperature-``tau`` probabilities renormalised over those
    ``k`` (``[..., k]`` each)."""
    probs = F.softmax(logits.float() / tau, dim=-1)
    top, ids = probs.topk(min(k, probs.shape[-1]), dim=-1)
    return ids, top / top.sum(-1, keepdim=True)


def kd_per_example(logits: torch.Tensor, labels: torch.Tensor, teacher_ids: torch.Tensor,
                   teacher_probs: torch.Tensor, tau: float) -> torch.Tensor:
    """``KD_i`` for each example ``[B]``. ``teacher_ids`` / ``teacher_probs`` are ``[B, L, K]`` aligned with
    ``logits`` (only supervised positions are read)."""
    mask = labels != IGNORE
    logp_tau = F.log_softmax(logits.float() / tau, dim=-1)
    picked = logp_tau.gather(-1, teacher_ids.long())  # [B, L, K]
    per_token = -(teacher_probs.float() * picked).sum(-1)  # [B, L]
    counts = mask.sum(-1).clamp(min=1)
    return (tau ** 2) * (per_token * mask).sum(-1) / counts


def objective(ce: torch.Tensor, weights: torch.Tensor, kd: torch.Tensor | None = None,
              kd_lambda: float = 0.25) -> torch.Tensor:
    """The batch loss: ``mean_i w_i [(1 - lambda) CE_i + lambda KD_i]``, or ``mean_i w_i CE_i`` without
    ``kd``."""
    per = ce if kd is None else (1.0 - kd_lambda) * ce + kd_lambda * kd
    return (weights.to(per.dtype) * per).mean()
