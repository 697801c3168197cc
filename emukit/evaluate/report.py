"""Outputs of an evaluation: ``results.json``, a rich table on the terminal, and a self-contained HTML report.

``results.json``::

    {"emukit_evaluation": 1, "config": {...}, "seconds": s,
     "metrics": {"branch_exact": {"persistent": 0.5, ..., "macro": 0.5}, "pair_correct": {...},
                 "sem_correct": {...}, "surface_valid": {...}, "sem_pair_correct": {...},
                 ["state_exact": {...}], ["fidelity": {"dinov2": {...}, "siglip": {...}}], "counts": {...}},
     "pairs": [{"pair_id", "family", "template", "refused", "status", "pair_correct", ...}],
     "branches": [{"pair_id", "family", "branch", "status", "correct", "sem_correct", "surface_valid",
                   "expected", "parsed", "error", "request_hash", ...}]}

All metrics are fractions in [0, 1] (None when a family has no scored pair).

``report.html`` shows, per pair, the boundary screenshot, the shared action, the rendered predictions for A
and B, the true next screens, and the verdicts; every image is inlined as a downscaled PNG data URL, so the
file can be moved or mailed on its own.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

from emukit.evaluate.run import EvalResult, PairRun

THUMB_W = 270


def result_json(result: EvalResult) -> dict[str, Any]:
    """The ``results.json`` document."""
    return {"emukit_evaluation": 1, "config": result.config, "seconds": round(result.seconds, 3),
            "metrics": result.metrics, "pairs": result.pair_records(), "branches": result.branch_records()}


def write_results(result: EvalResult, out_dir: Path) -> Path:
    """Write ``results.json`` into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    path.write_text(json.dumps(result_json(result), indent=1, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def metrics_table(result: EvalResult) -> Any:
    """A rich Table: one row per metric, one column per family plus macro."""
    from rich.table import Table

    m = result.metrics
    families = [k for k in m["branch_exact"] if k != "macro"]
    cfg = result.config
    table = Table(title=f"{cfg['model']} - {cfg['format']} - {cfg['condition']} (%)")
    table.add_column("metric")
    for fam in families:
        table.add_column(fam, justify="right")
    table.add_column("macro", justify="right", style="bold")
    rows = [("BranchExact", "branch_exact"), ("PairCorrect", "pair_correct"), ("SemCorrect (branch)", "sem_correct"),
            ("SurfaceValid (branch)", "surface_valid"), ("SemCorrect (pair)", "sem_pair_correct")]
    if "state_exact" in m:
        rows.append(("State Exact", "state_exact"))
    for label, key in rows:
        vals = m[key]
        table.add_row(label, *[_pct(vals.get(f)) for f in families], _pct(vals.get("macro")))
    for enc, vals in (m.get("fidelity") or {}).items():
        table.add_row(f"{enc} cosine", *[("-" if vals.get(f) is None else f"{vals[f]:.4f}") for f in families],
                      "-" if vals.get("macro") is None else f"{vals['macro']:.4f}")
    return table


def counts_line(result: EvalResult) -> str:
    """One line: pairs, branches, refused pairs and prediction failures by status."""
    c = result.metrics["counts"]
    status = ", ".join(f"{k} {v}" for k, v in sorted(c["status"].items()))
    return (f"{c['pairs']} pairs scored ({c['branches']} branches), {c['refused_pairs']} refused (requests "
            f"differ), {c['failed_predictions']} failed predictions kept as incorrect; status: {status or '-'}")


def _thumb(png: bytes | None, width: int = THUMB_W) -> str:
    if not png:
        return ""
    from PIL import Image

    try:
        img = Image.open(io.BytesIO(png)).convert("RGB")
    except Exception:  # noqa: BLE001 - an unreadable image is shown as missing
        return ""
    h = max(1, round(img.height * width / img.width))
    img = img.resize((width, h), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _img(src: str, caption: str) -> str:
    body = f'<img src="{src}" alt="{html.escape(caption)}">' if src else '<div class="none">no image</div>'
    return f"<figure>{body}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _verdict(run: PairRun, name: str) -> str:
    b = run.branches[name]
    s = b.score
    if s is None:
        return "not scored"
    mark = "correct" if s.correct else "incorrect"
    parsed = s.parsed
    outcome = parsed.get("outcome") if isinstance(parsed, dict) else getattr(parsed, "outcome", parsed)
    reason = parsed.get("reason") if isinstance(parsed, dict) else getattr(parsed, "reason", "")
    err = b.request_error or (b.prediction.error if b.prediction else None)
    parts = [f"<b class='{mark}'>{mark}</b> ({html.escape(s.status)})",
             f"expected: <code>{html.escape(json.dumps(s.expected, ensure_ascii=False))}</code>",
             f"read: <code>{html.escape(json.dumps(outcome, ensure_ascii=False, default=str))}</code>",
             f"SemCorrect {'yes' if s.sem_correct else 'no'}, SurfaceValid {'yes' if s.surface_valid else 'no'}"]
    if reason:
        parts.append(html.escape(str(reason)))
    if err:
        parts.append(f"<span class='err'>{html.escape(err)}</span>")
    if s.state_exact is not None:
        parts.append(f"state recovered exactly: {'yes' if s.state_exact else 'no'}")
    if s.fidelity:
        parts.append(", ".join(f"{k} {v:.3f}" for k, v in s.fidelity.items()))
    return "<br>".join(parts)


def render_html(result: EvalResult) -> str:
    """The report page as a string."""
    cfg = result.config
    m = result.metrics
    fams = [k for k in m["branch_exact"] if k != "macro"]
    head = "".join(f"<th>{html.escape(f)}</th>" for f in fams) + "<th>macro</th>"
    rows = ""
    for label, key in (("BranchExact", "branch_exact"), ("PairCorrect", "pair_correct"),
                       ("SemCorrect", "sem_correct"), ("SurfaceValid", "surface_valid")) + (
                           (("State Exact", "state_exact"),) if "state_exact" in m else ()):
        rows += f"<tr><td>{label}</td>" + "".join(f"<td>{_pct(m[key].get(f))}</td>" for f in fams) + \
                f"<td><b>{_pct(m[key].get('macro'))}</b></td></tr>"
    cards = []
    for run in result.pairs:
        pair = run.pair
        status = "refused: requests differ" if run.refused else (
            "pair correct" if run.record()["pair_correct"] else "pair incorrect")
        cls = "correct" if status == "pair correct" else "incorrect"
        boundary = _thumb(pair.branches["A"].boundary.png())
        figs = [_img(boundary, "boundary (A = B)")]
        for name in ("A", "B"):
            b = run.branches[name]
            png = getattr(b.render, "png", None) if b.render is not None else None
            if png is None and b.prediction is not None and b.prediction.image:
                png = b.prediction.image
            figs.append(_img(_thumb(png), f"prediction {name}"))
            figs.append(_img(_thumb(pair.branches[name].next_observation.png()), f"true next {name}"))
        action = json.dumps(pair.shared_action.canonical(), ensure_ascii=False)
        cards.append(
            f"<section><h2>{html.escape(pair.pair_id)} <small>{html.escape(pair.family)} / "
            f"{html.escape(pair.template)}</small> <span class='{cls}'>"
            f"{html.escape(status)}</span></h2><p>shared action: <code>{html.escape(action)}</code></p>"
            f"<div class='figs'>{''.join(figs)}</div><div class='verdicts'><div><h3>A</h3>{_verdict(run, 'A')}</div>"
            f"<div><h3>B</h3>{_verdict(run, 'B')}</div></div></section>")
    title = f"emukit evaluation: {cfg['model']} / {cfg['format']} / {cfg['condition']}"
    style = ("body{font-family:sans-serif;margin:24px;color:#1b1b1f}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child{text-align:left}"
             "section{border-top:1px solid #ddd;margin-top:24px;padding-top:8px}.figs{display:flex;flex-wrap:nowrap;overflow-x:auto}"
             f"figure{{margin:6px;width:{THUMB_W}px}}figure img{{width:{THUMB_W}px;border:1px solid #ccc;"
             "border-radius:8px}figcaption{font-size:13px}.none{height:200px;border:1px dashed #aaa;"
             "display:flex;align-items:center;justify-content:center;color:#888}.verdicts{display:flex;gap:32px}"
             ".correct{color:#1a7f37}.incorrect{color:#c62828}.err{color:#c62828}code{font-size:12px}")
    counts = html.escape(counts_line(result))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1><p>{counts}</p>"
            f"<table><tr><th>% </th>{head}</tr>{rows}</table>{''.join(cards)}</body></html>\n")


def write_report(result: EvalResult, out_dir: Path) -> Path:
    """Write ``report.html`` into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.html"
    path.write_text(render_html(result), encoding="utf-8")
    return path
