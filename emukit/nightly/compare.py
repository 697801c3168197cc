"""What a night measured (from its store and its steps) and how it compares with the previous good night.

Per template: accepted pairs, attempts, acceptance rate, rejections by reason, template hashes, and a
boundary fingerprint per work key (seed, slot): sha256 of both branches' boundary screenshot and hierarchy
hashes. Night-wide: stable-branch share from the stability audit, build seconds per pair.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from emukit.nightly.config import Thresholds


class TemplateMetrics(BaseModel):
    family: str
    accepted: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    template_hashes: list[str] = Field(default_factory=list)
    boundaries: dict[str, str] = Field(default_factory=dict)  # "seed:slot" -> boundary fingerprint

    @property
    def acceptance(self) -> float | None:
        attempts = self.accepted + self.rejected
        return self.accepted / attempts if attempts else None


class NightMetrics(BaseModel):
    templates: dict[str, TemplateMetrics] = Field(default_factory=dict)
    stable_branches: int | None = None
    stability_branches: int | None = None
    build_seconds: float = 0.0
    snapshot_specs: dict[str, str] = Field(default_factory=dict)  # spec name -> sha256 of its file

    @property
    def pairs(self) -> int:
        return sum(t.accepted for t in self.templates.values())

    @property
    def seconds_per_pair(self) -> float | None:
        return self.build_seconds / self.pairs if self.pairs else None

    @property
    def stability(self) -> float | None:
        if not self.stability_branches:
            return None
        return (self.stable_branches or 0) / self.stability_branches


def store_metrics(db_url: str | None, data_dir: Path) -> dict[str, TemplateMetrics]:
    """Per-template figures of the night's store."""
    from emukit.store import Store
    from emukit.store.models import BranchRow, PairRow

    out: dict[str, TemplateMetrics] = {}
    with Store(db_url, data_dir=data_dir) as store:
        for name, summary in store.summary().items():
            out[name] = TemplateMetrics(family=summary.family, accepted=summary.accepted,
                                        rejected=summary.rejected,
                                        rejected_by_reason=dict(sorted(summary.rejected_by_reason.items())))
        query = (select(PairRow.template, PairRow.template_hash, PairRow.seed, PairRow.slot, BranchRow.name,
                        BranchRow.boundary_screenshot, BranchRow.boundary_hierarchy)
                 .join(BranchRow, BranchRow.pair_pk == PairRow.id).order_by(PairRow.id, BranchRow.name))
        parts: dict[tuple[str, str], list[str]] = {}
        with Session(store.engine) as s:
            for template, thash, seed, slot, branch, shot, xml in s.execute(query):
                tm = out[template]
                if thash not in tm.template_hashes:
                    tm.template_hashes.append(thash)
                parts.setdefault((template, f"{seed}:{slot}"), []).append(f"{branch}:{shot}:{xml}")
        for (template, key), items in parts.items():
            out[template].boundaries[key] = hashlib.sha256("|".join(items).encode()).hexdigest()
    return dict(sorted(out.items()))


class Finding(BaseModel):
    """One difference from the previous night; ``regression`` when it passes a threshold."""

    kind: str
    template: str = ""
    detail: str
    regression: bool = False


def compare(now: NightMetrics, before: NightMetrics, limits: Thresholds) -> list[Finding]:
    """Differences of ``now`` from ``before``, regressions flagged by ``limits``."""
    found: list[Finding] = []
    for name in sorted(set(now.templates) | set(before.templates)):
        a, b = before.templates.get(name), now.templates.get(name)
        if b is None:
            found.append(Finding(kind="template gone", template=name, detail=f"{a.accepted} pairs before, none now",
                                 regression=True))
            continue
        if a is None:
            found.append(Finding(kind="template new", template=name, detail=f"{b.accepted} pairs"))
            continue
        drop = a.accepted - b.accepted
        if drop:
            found.append(Finding(kind="count", template=name, detail=f"{a.accepted} -> {b.accepted} pairs",
                                 regression=drop > limits.max_count_drop))
        if a.acceptance is not None and b.acceptance is not None and a.acceptance != b.acceptance:
            fall = a.acceptance - b.acceptance
            found.append(Finding(kind="acceptance", template=name,
                                 detail=f"{a.acceptance:.0%} -> {b.acceptance:.0%} of attempts accepted",
                                 regression=fall > limits.max_acceptance_drop))
        if a.rejected_by_reason != b.rejected_by_reason:
            reasons = sorted(set(a.rejected_by_reason) | set(b.rejected_by_reason))
            change = ", ".join(f"{r} {a.rejected_by_reason.get(r, 0)} -> {b.rejected_by_reason.get(r, 0)}"
                               for r in reasons if a.rejected_by_reason.get(r, 0) != b.rejected_by_reason.get(r, 0))
            found.append(Finding(kind="rejections", template=name, detail=change))
        changed = set(a.template_hashes) != set(b.template_hashes)
        if changed:
            found.append(Finding(kind="template hash", template=name,
                                 detail=f"{','.join(h[:12] for h in a.template_hashes)} -> "
                                        f"{','.join(h[:12] for h in b.template_hashes)}",
                                 regression=limits.fail_on_template_change))
        common = sorted(set(a.boundaries) & set(b.boundaries))
        drifted = [k for k in common if a.boundaries[k] != b.boundaries[k]]
        if drifted:
            share = len(drifted) / len(common)
            why = "expected: the template changed" if changed else "the template did not change"
            found.append(Finding(kind="boundary drift", template=name,
                                 detail=f"{len(drifted)} of {len(common)} work keys show another boundary ({why}); "
                                        f"first: {drifted[0]}",
                                 regression=not changed and share > limits.max_boundary_drift))
    if before.stability is not None and now.stability is not None and now.stability != before.stability:
        fall = before.stability - now.stability
        found.append(Finding(kind="stability", detail=f"{before.stability:.0%} -> {now.stability:.0%} of replayed "
                                                      "branches stable", regression=fall > limits.max_stability_drop))
    if before.seconds_per_pair and now.seconds_per_pair:
        rise = now.seconds_per_pair / before.seconds_per_pair - 1
        if abs(rise) >= 0.05:
            found.append(Finding(kind="time per pair",
                                 detail=f"{before.seconds_per_pair:.2f} -> {now.seconds_per_pair:.2f} s per pair "
                                        f"({rise:+.0%})", regression=rise > limits.max_time_per_pair_increase))
    changed_specs = sorted(k for k in set(now.snapshot_specs) | set(before.snapshot_specs)
                           if now.snapshot_specs.get(k) != before.snapshot_specs.get(k))
    if changed_specs:
        found.append(Finding(kind="snapshot specs", detail=f"changed: {', '.join(changed_specs)}"))
    return found
