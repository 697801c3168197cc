"""A night's report: ``report.json`` (for scripts and the next night) and ``report.html`` (for people)."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from emukit.atomicio import write_atomic

if TYPE_CHECKING:
    from emukit.nightly.config import NightlyConfig
    from emukit.nightly.run import NightResult


def report_data(result: NightResult, state: dict[str, Any], cfg: NightlyConfig) -> dict[str, Any]:
    m = result.metrics
    return {
        "night": result.night, "ok": result.ok, "previous": result.previous, "resumed": result.resumed,
        "started": state.get("started"), "resumed_at": state.get("resumed_at", []),
        "failed_steps": result.failed_steps, "skipped_steps": result.skipped_steps,
        "steps": state["steps"],
        "pairs": m.pairs, "build_seconds": m.build_seconds, "seconds_per_pair": m.seconds_per_pair,
        "stability": None if m.stability is None else {"stable": m.stable_branches, "branches": m.stability_branches},
        "templates": {name: {"family": t.family, "accepted": t.accepted, "rejected": t.rejected,
                             "acceptance": t.acceptance, "rejected_by_reason": t.rejected_by_reason,
                             "template_hashes": t.template_hashes} for name, t in m.templates.items()},
        "findings": [f.model_dump() for f in result.findings],
        "regressions": len(result.regressions),
        "thresholds": cfg.thresholds.model_dump(),
    }


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def render_html(data: dict[str, Any]) -> str:
    e = html.escape
    verdict = "PASS" if data["ok"] else "FAIL"
    against = f"Compared with {e(data['previous'])}" if data["previous"] else "No previous good night to compare with"
    steps = _table(["step", "status", "exit", "seconds", "runs"],
                   [[e(name), e(s["status"] + (" (rebuilt: the fingerprint did not match)" if s.get("rebuilt") else "")),
                     str(s["exit"]), f"{s['seconds']:.1f}", str(s.get("runs", 1))]
                    for name, s in data["steps"].items()])
    templates = _table(["template", "family", "pairs", "rejected", "acceptance", "rejections by reason", "hash"],
                       [[e(name), e(t["family"]), str(t["accepted"]), str(t["rejected"]),
                         "" if t["acceptance"] is None else f"{t['acceptance']:.0%}",
                         e(", ".join(f"{r} {n}" for r, n in t["rejected_by_reason"].items())),
                         e(",".join(h[:12] for h in t["template_hashes"]))]
                        for name, t in data["templates"].items()])
    findings = _table(["", "kind", "template", "detail"],
                      [["REGRESSION" if f["regression"] else "", e(f["kind"]), e(f["template"]), e(f["detail"])]
                       for f in data["findings"]]) if data["findings"] else "<p>No differences.</p>"
    stab = data["stability"]
    spp = data["seconds_per_pair"]
    per_pair = "" if spp is None else f" ({spp:.2f} s per pair)"
    stability = "not run" if stab is None else f"{stab['stable']}/{stab['branches']} branches stable"
    summary = f"{data['pairs']} pairs; build {data['build_seconds']:.0f} s{per_pair}; stability {stability}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>emukit night {e(data['night'])}: {verdict}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #bbb;padding:.25em .6em;text-align:left}}.FAIL{{color:#b00}}.PASS{{color:#070}}</style>
</head><body>
<h1>emukit night {e(data['night'])}: <span class="{verdict}">{verdict}</span></h1>
<p>{e(summary)}. {against}; {data['regressions']} regression(s); failed steps:
{e(', '.join(data['failed_steps']) or 'none')}{'; resumed' if data['resumed'] else ''}.</p>
<h2>Compared with the previous good night</h2>{findings}
<h2>Templates</h2>{templates}
<h2>Steps</h2>{steps}
</body></html>
"""


def write_report(result: NightResult, state: dict[str, Any], cfg: NightlyConfig) -> dict[str, Any]:
    data = report_data(result, state, cfg)
    write_atomic(result.folder / "report.html", render_html(data))
    write_atomic(result.folder / "report.json", json.dumps(data, indent=2) + "\n")
    return data
