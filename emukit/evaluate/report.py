"""Outputs of an evaluation: ``results.json``, a rich table on the terminal, and a self-contained HTML report.

``results.json``::

    {"emukit_evaluation": 1, "config": {...}, "seconds": s,
     "metrics": {"branch_exact": {"persistent": 0.5, ..., "macro": 0.5}, "pair_correct": {...},
                 "sem_correct": {...}, "surface_valid": {...}, "sem_pair_correct": {...},
                 ["state_exact": {...}], ["fidelity": {"dinov2": {...}, "siglip": {...}}], "counts": {...}},
     "built_on": [{"built_on": {"kind", "fingerprint", "api_level", "abi", "display", "apps", ...}, "pairs": n}],
     "pairs": [{"pair_id", "family", "template", "refused", "status", "pair_correct", ..., "device_kind"}],
     "branches": [{"pair_id", "family", "branch", "status", "correct", "sem_correct", "surface_valid",
                   "expected", "parsed", "error", "request_hash", ...}]}

All metrics are fractions in [0, 1] (None when a family has no scored pair).
``built_on`` says what the evaluated pairs were built on (device kind, system build, display, app builds: the
``built_on`` of each pair, ``docs/devices.md``), most pairs first; the terminal and the report show it, and warn
when the pairs come from more than one kind of device.

``report.html`` is one self-contained page (``docs/evaluator.md``, "The report"): the metrics per family with
a definition of each, filters by family and verdict, and one card per pair with the hidden-state difference
(A's and B's ground-truth state side by side), both branch histories as thumbnails with each action drawn on
its screen, the shared boundary and shared action, the predictions beside the true next screens, and each
branch's verdict with the parser's reason. Every screenshot is stored once (keyed by the SHA-256 of its
bytes) as a WebP data URL in the page's stylesheet, a full view for the click-to-enlarge overlay and a small
one for the history strips, so the file can be moved or mailed on its own. Nothing is loaded from outside.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.actions import KEY_NAMES, Action
from emukit.evaluate.run import BranchRun, EvalResult, PairRun
from emukit.families import FAMILIES

if TYPE_CHECKING:
    from emukit.evaluate.metric import Metric

FULL_W = 400  # px: the enlarged view (and the boundary, prediction and true-next figures, shown smaller)
THUMB_W = 120  # px: the history strip thumbnails
FULL_QUALITY = 55
THUMB_QUALITY = 60
CHUNK_PAIRS = 16  # pairs whose screenshots are read and encoded together (bounds memory on long runs)
FAMILY_ORDER = FAMILIES
VERDICTS = ("correct", "incorrect", "refused")

OUTPUT_KINDS_NOTE = ("Output kinds: {html} HTML, {image} image predictions. The family parsers (BranchExact, "
                     "PairCorrect, SemCorrect, SurfaceValid) read HTML only, so an image prediction is scored "
                     "incorrect there (status image_only); fidelity and the judge score both kinds.")
COMMON_NOTE = ("Each metric is given per family and as macro, the unweighted mean over the families present. "
               "Refused pairs (observation condition: the A and B requests differ, so the pair is not strict "
               "for this model) are excluded from every denominator and counted separately; failed requests, "
               "empty or malformed outputs and failed renders stay in as incorrect.")

HOW_TO_READ = ("Each card is one strict pair: branches A and B reach the same boundary screen (A = B) through "
               "different histories, so their hidden state differs (highlighted rows), and the same shared action "
               "is applied to both. A world model is right on the pair only when its predictions for both "
               "branches show each branch's own validated outcome. Click any screenshot to enlarge it.")


def result_json(result: EvalResult) -> dict[str, Any]:
    """The ``results.json`` document."""
    built_on = [{"built_on": b.model_dump(mode="json"), "pairs": n} for b, n in result.built_on()]
    return {"emukit_evaluation": 1, "config": result.config, "seconds": round(result.seconds, 3),
            "metrics": result.metrics, "built_on": built_on, "pairs": result.pair_records(),
            "branches": result.branch_records()}


def built_on_lines(result: EvalResult) -> list[str]:
    """What the pairs were built on, one line per device kind, system build and app builds (most pairs first),
    then a warning when they come from more than one kind of device."""
    groups = result.built_on()
    lines = [f"built on: {n} pair{'s' if n != 1 else ''} on {b.describe()}" for b, n in groups]
    kinds = sorted({b.kind for b, _ in groups})
    if len(kinds) > 1:
        lines.append(f"warning: the pairs come from {len(kinds)} kinds of device ({', '.join(kinds)}); compare "
                     f"figures within one kind (emukit export --device-kind)")
    return lines


def write_results(result: EvalResult, out_dir: Path) -> Path:
    """Write ``results.json`` into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    path.write_text(json.dumps(result_json(result), indent=1, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def metric_rows() -> list[tuple[str, str, str]]:
    """``(results.json key, label, one-line definition)`` of every registered metric of strict pairs (one that
    reads branches or pairs and is not keyed), in table order (:mod:`emukit.evaluate.metric`)."""
    from emukit.evaluate.metric import registered_metrics

    return [(m.name, m.label, m.definition) for m in registered_metrics()
            if not m.keyed and {"branch", "pair"} & set(m.kinds)]


@dataclass(frozen=True)
class MetricRow:
    """One row of a metrics table: a registered metric, or one key of a keyed metric (a fidelity encoder, a
    judge dimension), with its anchor, label, definition and reduced values."""

    anchor: str
    label: str
    definition: str
    values: Mapping[str, Any]
    metric: Metric
    key: str | None = None

    def show(self, group: str) -> str:
        return self.metric.show(self.values.get(group), self.key)


def table_rows(metrics: Mapping[str, Any], *, rubric_of: Mapping[str, str] | None = None,
               keyed: bool = True) -> list[MetricRow]:
    """The rows of the registered metrics present in ``metrics`` (``results.json``'s ``metrics`` or its
    ``by_template``), in table order: a row per metric, a keyed metric's a row per key (its label and
    definition naming the key; a judge dimension's definition names its rubric from ``rubric_of``)."""
    from emukit.evaluate.metric import registered_metrics

    rows: list[MetricRow] = []
    for m in registered_metrics():
        got = metrics.get(m.name)
        if got is None or (m.keyed and not keyed):
            continue
        if not m.keyed:
            rows.append(MetricRow(m.name, m.label, m.definition, got, m))
            continue
        for key, values in got.items():
            definition = m.definition.format_map(_Names(key=key, rubric=(rubric_of or {}).get(key, "-")))
            rows.append(MetricRow(f"{m.name}-{key}", m.row_label(key), definition, values, m, key))
    return rows


class _Names(dict):
    """Names a keyed metric's definition may use; any other placeholder is shown as ``-``."""

    def __missing__(self, name: str) -> str:
        return "-"


def _rows(metrics: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The plain registered metrics present in ``metrics``: ``(key, label, definition)``."""
    return [(r.anchor, r.label, r.definition) for r in table_rows(metrics, keyed=False)]


def metrics_table(result: EvalResult) -> Any:
    """A rich Table: one row per metric (a keyed metric: per key), one column per family plus macro."""
    from rich.table import Table

    m = result.metrics
    families = [k for k in m["branch_exact"] if k != "macro"]
    cfg = result.config
    table = Table(title=f"{cfg['model']} - {cfg['format']} - {cfg['condition']} (%)")
    table.add_column("metric")
    for fam in families:
        table.add_column(fam, justify="right")
    table.add_column("macro", justify="right", style="bold")
    for row in table_rows(m):
        label = row.label + (f" (n={row.values.get('n', 0)})" if row.metric.counted else "")
        table.add_row(label, *[row.show(f) for f in families], row.show("macro"))
    return table


def counts_line(result: EvalResult) -> str:
    """One line: pairs, branches, refused pairs and prediction failures by status."""
    c = result.metrics["counts"]
    status = ", ".join(f"{k} {v}" for k, v in sorted(c["status"].items()))
    line = (f"{c['pairs']} pairs scored ({c['branches']} branches), {c['refused_pairs']} refused (requests "
            f"differ), {c['failed_predictions']} failed predictions kept as incorrect; status: {status or '-'}")
    kinds = c.get("output_kinds") or {}
    if kinds.get("image"):
        line += "\n" + OUTPUT_KINDS_NOTE.format(html=kinds.get("html", 0), image=kinds["image"])
    return line


def docs_link() -> str:
    """Where the report's documentation link points: the source checkout's ``docs/evaluator.md#metrics``
    as a file URI when that file sits next to the package, else the report's own definitions."""
    import emukit

    doc = Path(emukit.__file__).resolve().parents[1] / "docs" / "evaluator.md"
    return doc.as_uri() + "#metrics" if doc.is_file() else "#metric-definitions"


def action_caption(action: Action) -> str:
    """One line for a person (:meth:`Action.describe`)."""
    return action.describe()


def _key_name(action: Action) -> str:
    return KEY_NAMES.get(action.key if action.key is not None else -1, f"keycode {action.key}")


# -- screenshots: each decoded and encoded once -------------------------------------------------------------

@dataclass
class Shot:
    """One stored screenshot: its id in the page, its original size, and its WebP encodings."""

    id: int
    size: tuple[int, int]
    full: bytes
    thumb: bytes | None = None


def _webp(img: Any, width: int, quality: int) -> bytes:
    from PIL import Image

    if img.width >= 2 * width:  # an integer box reduction first: most of the work at a fraction of the cost
        img = img.reduce(img.width // width)
    if img.width > width:
        img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, "WEBP", quality=quality, method=4)
    return buf.getvalue()


def _encode_full(png: bytes) -> tuple[tuple[int, int], bytes] | None:
    """``(original size, full-view WebP)`` of a screenshot, or None when it cannot be read."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as img:
            rgb = img.convert("RGB")
        return rgb.size, _webp(rgb, FULL_W, FULL_QUALITY)
    except Exception:  # noqa: BLE001 - an unreadable image is shown as "no image"
        return None


def _encode_thumb(full: bytes) -> bytes | None:
    """The strip thumbnail, made from the full-view encoding (small, so cheap to decode)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(full)) as img:
            return _webp(img.convert("RGB"), THUMB_W, THUMB_QUALITY)
    except Exception:  # noqa: BLE001
        return None


class ShotStore:
    """The page's screenshots, keyed by the SHA-256 of their bytes: a screen shown many times (a shared
    history step, the boundary) is decoded, encoded and stored once. ``want`` registers, ``encode_pending``
    encodes what was registered since the last call (in a few threads), ``get`` answers afterwards."""

    def __init__(self) -> None:
        self._shots: dict[str, Shot | None] = {}
        self._pending: dict[str, bytes] = {}
        self._thumbs: set[str] = set()

    def want(self, png: bytes | None, *, thumb: bool = False) -> str | None:
        """Register a screenshot; returns its key (None for no bytes)."""
        if not png:
            return None
        key = hashlib.sha256(png).hexdigest()
        if key not in self._shots and key not in self._pending:
            self._pending[key] = png
        if thumb:
            self._thumbs.add(key)
        return key

    def encode_pending(self) -> None:
        """Encode every screenshot registered and not yet encoded, then the thumbnails still missing."""
        keys = list(self._pending)
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            for key, enc in zip(keys, pool.map(_encode_full, [self._pending[k] for k in keys]), strict=True):
                self._shots[key] = None if enc is None else Shot(len(self._shots), enc[0], enc[1])
            self._pending.clear()
            need = [s for k in self._thumbs if (s := self._shots.get(k)) is not None and s.thumb is None]
            for shot, thumb in zip(need, pool.map(_encode_thumb, [s.full for s in need]), strict=True):
                shot.thumb = thumb

    def get(self, key: str | None) -> Shot | None:
        """The encoded screenshot, or None (no bytes, unreadable)."""
        return self._shots.get(key) if key else None

    def css(self) -> str:
        """One rule per encoding: ``.iN`` the full view, ``.tN`` the thumbnail."""
        rules = []
        for shot in self._shots.values():
            if shot is None:
                continue
            rules.append(f".i{shot.id}{{background-image:url(data:image/webp;base64,{_b64(shot.full)})}}")
            if shot.thumb:
                rules.append(f".t{shot.id}{{background-image:url(data:image/webp;base64,{_b64(shot.thumb)})}}")
        return "\n".join(rules)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _read(ref: Any) -> bytes | None:
    """An observation's PNG bytes, or None when there is none or it cannot be read."""
    try:
        return ref.png() or None
    except Exception:  # noqa: BLE001 - a missing artifact is shown as "no image"
        return None


def _predicted_png(branch: BranchRun) -> bytes | None:
    png = getattr(branch.render, "png", None) if branch.render is not None else None
    if png is None and branch.prediction is not None and branch.prediction.image:
        png = branch.prediction.image
    return png or None


@dataclass
class PairView:
    """The screenshot keys one card needs: histories, the boundary, predictions and true next screens."""

    run: PairRun
    history: dict[str, list[tuple[str | None, Action]]] = field(default_factory=dict)
    boundary: str | None = None
    predicted: dict[str, str | None] = field(default_factory=dict)
    true_next: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def read(cls, run: PairRun, store: ShotStore) -> PairView:
        """Read the pair's screenshots into ``store`` (registered, not yet encoded)."""
        pair = run.pair
        view = cls(run, boundary=store.want(_read(pair.branches["A"].boundary)))
        for name, branch in pair.branches.items():
            view.history[name] = [(store.want(_read(obs), thumb=True), act) for obs, act in branch.history]
            view.predicted[name] = store.want(_predicted_png(run.branches[name]))
            view.true_next[name] = store.want(_read(branch.next_observation))
        return view


# -- action marks drawn on screenshots ------------------------------------------------------------------------

def _halo(shape: str) -> str:
    """A shape drawn twice: a white halo under the coloured mark, visible on any screen."""
    return f'<g class="halo">{shape}</g><g class="mark">{shape}</g>'


def _badge(text: str, x: float, y: float, u: float, width: float) -> str:
    """A filled label box centred on ``(x, y)`` holding ``text`` (clipped to the screen width)."""
    fs = 5 * u
    shown = text if len(text) <= 28 else text[:27] + "…"
    w = min(width * 0.94, 0.62 * fs * len(shown) + 4 * u)
    x = min(max(x, w / 2 + u), width - w / 2 - u)
    return (f'<rect class="badge" x="{x - w / 2:.0f}" y="{y - fs:.0f}" width="{w:.0f}" height="{2 * fs:.0f}" '
            f'rx="{fs / 2:.0f}"/><text x="{x:.0f}" y="{y + fs * 0.36:.0f}" font-size="{fs:.0f}" '
            f'text-anchor="middle">{html.escape(shown)}</text>')


def _arrow(x1: float, y1: float, x2: float, y2: float, u: float) -> str:
    """A line from start to end with an arrowhead at the end and a dot at the start."""
    dx, dy = x2 - x1, y2 - y1
    n = max((dx * dx + dy * dy) ** 0.5, 1e-6)
    ux, uy = dx / n, dy / n
    s = 5 * u
    p1 = (x2 - s * ux + s * 0.6 * uy, y2 - s * uy - s * 0.6 * ux)
    p2 = (x2 - s * ux - s * 0.6 * uy, y2 - s * uy + s * 0.6 * ux)
    head = f'<polygon class="head" points="{x2:.0f},{y2:.0f} {p1[0]:.0f},{p1[1]:.0f} {p2[0]:.0f},{p2[1]:.0f}"/>'
    return _halo(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}"/>'
                 f'<circle cx="{x1:.0f}" cy="{y1:.0f}" r="{2 * u:.0f}"/>') + head


def action_marks(action: Action, size: tuple[int, int]) -> str:
    """SVG shapes, in screen pixels of ``size``, showing what ``action`` does: a circle at a tap, a double
    circle at a long press, an arrow for a swipe or drag, the typed text in a label box, a badge with the key
    name or the time waited."""
    w, h = size
    u = w / 100
    a = action
    if a.type in ("tap", "long_press") and a.x is not None and a.y is not None:
        rings = [6 * u] if a.type == "tap" else [4.5 * u, 8 * u]
        return _halo("".join(f'<circle cx="{a.x}" cy="{a.y}" r="{r:.0f}"/>' for r in rings))
    if a.type in ("swipe", "drag") and None not in (a.x, a.y, a.x2, a.y2):
        return _arrow(a.x, a.y, a.x2, a.y2, u)  # type: ignore[arg-type]
    if a.type == "type":
        return _badge(f"“{a.text or ''}”", a.x if a.x is not None else w / 2, a.y if a.y is not None else h * 0.45,
                      u, w)
    if a.type == "key":
        return _badge(_key_name(a), w / 2, h * 0.06, u, w)
    return _badge(f"wait {(a.duration_ms or 0) / 1000:g} s", w / 2, h * 0.06, u, w)


def _overlay(action: Action | None, size: tuple[int, int]) -> str:
    if action is None:
        return ""
    return (f'<svg class="ov" data-action="{action.type}" viewBox="0 0 {size[0]} {size[1]}" '
            f'preserveAspectRatio="none" aria-hidden="true">{action_marks(action, size)}</svg>')


def _shot(shot: Shot | None, label: str, *, thumb: bool = False, action: Action | None = None) -> str:
    """A screenshot element (the image is a CSS background of the stored encoding) or a "no image" box."""
    if shot is None:
        return f'<div class="noimg" role="img" aria-label="{html.escape(label)}: no image">no image</div>'
    cls = f"t{shot.id}" if thumb and shot.thumb else f"i{shot.id}"
    w, h = shot.size
    return (f'<div class="shot {cls}" data-img="{shot.id}" role="img" tabindex="0" aria-label="{html.escape(label)}"'
            f' style="aspect-ratio:{w}/{h}">{_overlay(action, shot.size)}</div>')


def _figure(shot: Shot | None, caption: str, role: str, action: Action | None = None, note: str = "") -> str:
    extra = f"<br><span class='act'>{html.escape(note)}</span>" if note else ""
    return (f'<figure class="main" data-role="{role}">{_shot(shot, caption, action=action)}'
            f"<figcaption>{html.escape(caption)}{extra}</figcaption></figure>")


# -- JSON shown compactly -----------------------------------------------------------------------------------

def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _value_html(value: Any, other: Any, missing: bool = False) -> str:
    """A state value as compact JSON; in lists, the items that differ from ``other``'s are marked."""
    if missing:
        return "<span class='absent'>(absent)</span>"
    if isinstance(value, list) and isinstance(other, list):
        items = [f"<span class='{'d' if i >= len(other) or other[i] != v else 's'}'>{html.escape(_compact(v))}</span>"
                 for i, v in enumerate(value)]
        return "[" + ", ".join(items) + "]"
    return html.escape(_compact(value))


def _side_by_side(title: str, a: Mapping[str, Any], b: Mapping[str, Any], cls: str) -> str:
    """A key / A / B table; rows whose values differ are highlighted."""
    keys = list(a) + [k for k in b if k not in a]
    rows = []
    for k in keys:
        differs = (k in a) != (k in b) or a.get(k) != b.get(k)
        mark = "<span class='neq' title='differs'>≠</span> " if differs else ""
        rows.append(f"<tr class='{'diff' if differs else 'same'}' data-key='{html.escape(str(k))}'>"
                    f"<th scope='row'>{mark}{html.escape(str(k))}</th>"
                    f"<td><code>{_value_html(a.get(k), b.get(k), k not in a)}</code></td>"
                    f"<td><code>{_value_html(b.get(k), a.get(k), k not in b)}</code></td></tr>")
    body = "".join(rows) or "<tr><td colspan='3'>(empty)</td></tr>"
    return (f"<table class='kv {cls}'><caption>{html.escape(title)}</caption><thead><tr><th>key</th><th>A</th>"
            f"<th>B</th></tr></thead><tbody>{body}</tbody></table>")


# -- cards ------------------------------------------------------------------------------------------------

def pair_verdict(run: PairRun) -> str:
    """``correct``, ``incorrect`` or ``refused``."""
    if run.refused:
        return "refused"
    return "correct" if run.record()["pair_correct"] else "incorrect"


VERDICT_TEXT = {"correct": "pair correct", "incorrect": "pair incorrect", "refused": "refused: requests differ"}


def _strip(view: PairView, name: str, store: ShotStore) -> str:
    """One branch's history: a thumbnail per step with its action drawn, and a caption."""
    other = [a.canonical() for _, a in view.history["B" if name == "A" else "A"]]
    items = []
    for i, (key, action) in enumerate(view.history[name]):
        caption = action_caption(action)
        diverges = i >= len(other) or other[i] != action.canonical()
        label = f"{name} step {i + 1}: {caption}"
        items.append(f"<li class='step{' diverge' if diverges else ''}'>"
                     f"{_shot(store.get(key), label, thumb=True, action=action)}"
                     f"<span class='cap'><b>{i + 1}</b> {html.escape(caption)}</span></li>")
    n = len(items)
    return (f"<div class='hist' data-branch='{name}'><h4>{name} history <small>{n} step{'s' if n != 1 else ''}"
            f"{' (orange: differs from the other branch)' if name == 'A' else ''}</small></h4>"
            f"<ol class='strip'>{''.join(items) or '<li>(no earlier steps)</li>'}</ol></div>")


def _parsed_field(parsed: Any, key: str) -> Any:
    if isinstance(parsed, Mapping):
        return parsed.get(key)
    return getattr(parsed, key, None)


def _errors(branch: BranchRun) -> list[str]:
    s = branch.score
    found = [branch.request_error, branch.prediction.error if branch.prediction else None,
             getattr(branch.render, "error", None) if branch.render is not None else None,
             _parsed_field(s.parsed, "error") if s else None, _parsed_field(s.parsed, "fidelity_error") if s else None]
    return [str(e) for e in found if e]


def _yes(flag: Any) -> str:
    return "<span class='ok'>yes</span>" if flag else "<span class='bad'>no</span>"


def _verdict_panel(run: PairRun, name: str) -> str:
    """One branch's verdict: what the parser found, what was expected, why, and the gates."""
    b = run.branches[name]
    s = b.score
    if run.refused or s is None:
        rows = [("status", html.escape(s.status if s else "not scored")),
                ("request hash", f"<code>{html.escape((b.request_hash or '-')[:16])}</code>")]
        return _panel(name, "refused" if run.refused else "incorrect", "not scored", rows)
    parsed = s.parsed
    failed_gates = [k for k, v in (_parsed_field(parsed, "surface_checks") or {}).items() if not v]
    rows = [("found", f"<code>{html.escape(_compact(_parsed_field(parsed, 'outcome')))}</code>"),
            ("expected", f"<code>{html.escape(_compact(s.expected))}</code>"),
            ("parser", html.escape(str(_parsed_field(parsed, "reason") or "-"))),
            ("verdict", html.escape(str(_parsed_field(parsed, "verdict") or "-"))),
            ("status", html.escape(s.status)),
            ("SemCorrect", _yes(s.sem_correct)),
            ("SurfaceValid", _yes(s.surface_valid) + (f" (failed: {html.escape(', '.join(failed_gates))})"
                                                     if failed_gates else ""))]
    source = _parsed_field(parsed, "source")
    if source and source != "render":
        rows.append(("evidence", html.escape(str(source))))
    if b.estimated_state is not None:
        estimate = html.escape(_compact(b.estimated_state))
        rows.append(("estimated state", f"<code>{estimate}</code> exact: {_yes(s.state_exact)}"))
    if s.fidelity:
        rows.append(("fidelity", html.escape(", ".join(f"{k} {v:.3f}" for k, v in s.fidelity.items()))))
    for j in getattr(b, "judgements", []):
        text = j.error or ", ".join(f"{k} {v * 5:.0f}/5" for k, v in j.scores.items())
        reason = j.extras.get("reason", "") if not j.error else ""
        rows.append((f"judge {j.rubric}", html.escape(text + (f" — {reason}" if reason else ""))))
    rows.extend(("error", f"<span class='bad'>{html.escape(e)}</span>") for e in _errors(b))
    mark = "correct" if s.correct else "incorrect"
    return _panel(name, mark, mark, rows)


def _panel(name: str, cls: str, word: str, rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return (f"<div class='verdict' data-branch='{name}'><h4>{name}: <span class='v-{cls}'>{html.escape(word)}"
            f"</span></h4><dl>{body}</dl></div>")


def _card(view: PairView, store: ShotStore) -> str:
    """One pair's card."""
    run, pair = view.run, view.run.pair
    verdict = pair_verdict(run)
    shared = pair.shared_action
    state = _side_by_side("ground-truth state at the boundary", pair.branches["A"].state,
                          pair.branches["B"].state, "state")
    outcome = _side_by_side("validated outcome of the shared action", pair.branches["A"].outcome,
                            pair.branches["B"].outcome, "outcome")
    figs = [_figure(store.get(view.boundary), "boundary (A = B)", "boundary", shared,
                    f"shared action: {action_caption(shared)}")]
    branches = []
    for name in ("A", "B"):
        pred = "not requested (refused)" if run.refused else "no prediction image"
        pred_fig = _figure(store.get(view.predicted[name]), f"prediction {name}", "prediction",
                           note="" if view.predicted[name] else pred)
        true_fig = _figure(store.get(view.true_next[name]), f"true next {name}", "next")
        branches.append(f"<div class='branch' data-branch='{name}'><div class='pairfigs'>{pred_fig}{true_fig}</div>"
                        f"{_verdict_panel(run, name)}</div>")
    return (f"<article class='card' id='pair-{html.escape(pair.pair_id)}' data-family='{html.escape(pair.family)}' "
            f"data-verdict='{verdict}'><header><h3>{html.escape(pair.pair_id)}</h3>"
            f"<span class='chip'>family <b>{html.escape(pair.family)}</b></span>"
            f"<span class='chip'>template <b>{html.escape(pair.template or '-')}</b></span>"
            f"<span class='vchip v-{verdict}'>{VERDICT_TEXT[verdict]}</span></header>"
            f"<div class='tables'>{state}{outcome}</div>"
            f"<div class='hists'>{_strip(view, 'A', store)}{_strip(view, 'B', store)}</div>"
            f"<div class='step-row'>{''.join(figs)}{''.join(branches)}</div></article>")


# -- the page ---------------------------------------------------------------------------------------------

def _families(result: EvalResult) -> list[str]:
    fams = {p.pair.family for p in result.pairs} | {k for k in result.metrics["branch_exact"] if k != "macro"}
    return sorted(fams, key=lambda f: (FAMILY_ORDER.index(f) if f in FAMILY_ORDER else 99, f))


def _metrics_section(result: EvalResult) -> str:
    """The metrics table (each name linked to its definition), the definitions and the docs link."""
    m = result.metrics
    fams = [k for k in m["branch_exact"] if k != "macro"]
    head = "".join(f"<th>{html.escape(f)}</th>" for f in fams) + "<th>macro</th>"
    rows, defs = [], []
    for row in table_rows(m, rubric_of=_judge_rubric_of(result.config.get("judge"))):
        cells = "".join(f"<td>{row.show(f)}</td>" for f in fams)
        rows.append(f"<tr><th scope='row'><a href='#def-{html.escape(row.anchor)}'>{html.escape(row.label)}</a></th>"
                    f"{cells}<td class='macro'>{row.show('macro')}</td></tr>")
        defs.append((row.anchor, row.label, row.definition))
    c = m["counts"]
    counts = "".join(f"<td>{c['pairs_by_family'].get(f, 0)}</td>" for f in fams)
    refused = "".join(f"<td>{c['refused_by_family'].get(f, 0)}</td>" for f in fams)
    rows.append(f"<tr class='count'><th scope='row'>scored pairs</th>{counts}<td>{c['pairs']}</td></tr>")
    rows.append(f"<tr class='count'><th scope='row'>refused pairs</th>{refused}<td>{c['refused_pairs']}</td></tr>")
    dl = "".join(f"<dt id='def-{html.escape(k)}'>{html.escape(lbl)}</dt><dd>{html.escape(d)}</dd>"
                 for k, lbl, d in defs)
    return (f"<section id='metrics'><h2>Metrics</h2><div class='scroll'><table class='metrics'><thead><tr>"
            f"<th>metric (%)</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            f"<p class='counts'>{html.escape(counts_line(result))}</p>{_by_template_table(m)}"
            f"<h3>Definitions <small>(details: <a href='{html.escape(docs_link())}'>docs/evaluator.md#metrics</a>)"
            f"</small></h3><dl id='metric-definitions'>{dl}</dl><p class='note'>{html.escape(COMMON_NOTE)}</p>"
            f"</section>")


def _by_template_table(m: Mapping[str, Any]) -> str:
    """The registered metrics per template (``metrics.by_template``, the family table's reducer over templates):
    one row per template, one column per metric, folded under the family table."""
    by = m.get("by_template") or {}
    rows_of = _rows(by)
    if not rows_of:
        return ""
    templates = list(dict.fromkeys(t for key, _, _ in rows_of for t in by[key] if t != "macro"))
    pairs = (m.get("counts") or {}).get("pairs_by_template", {})
    head = "".join(f"<th><a href='#def-{key}'>{html.escape(label)}</a></th>" for key, label, _ in rows_of)
    body = "".join(f"<tr><th scope='row'>{html.escape(t)}</th>"
                   + "".join(f"<td>{_pct(by[key].get(t))}</td>" for key, _, _ in rows_of)
                   + f"<td>{pairs.get(t, 0)}</td></tr>" for t in templates)
    macro = "".join(f"<td class='macro'>{_pct(by[key].get('macro'))}</td>" for key, _, _ in rows_of)
    return (f"<details id='by-template'><summary>Per template ({len(templates)} templates; macro: the unweighted "
            f"mean over them)</summary><div class='scroll'><table class='metrics by-template'><thead><tr>"
            f"<th>template (%)</th>{head}<th>scored pairs</th></tr></thead><tbody>{body}<tr><th scope='row'>macro"
            f"</th>{macro}<td></td></tr></tbody></table></div></details>")


def _built_on_section(result: EvalResult) -> str:
    """Where the pairs were built: one row per device kind, system build and app builds."""
    rows = []
    for b, n in result.built_on():
        display = f"{b.display.width}x{b.display.height} @{b.display.density}" if b.display else "-"
        apps = ", ".join(f"{p} {a.version_name or '-'} ({a.version_code if a.version_code is not None else 'absent'})"
                         for p, a in b.apps.items())
        cells = (b.kind, str(b.api_level) if b.api_level is not None else "-", b.fingerprint or "-", b.abi or "-",
                 display, apps or "-", b.emukit_version or "-")
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + f"<td>{n}</td></tr>")
    warning = [line for line in built_on_lines(result) if line.startswith("warning: ")]
    warn = f"<p class='note warn'>{html.escape(warning[0])}</p>" if warning else ""
    head = "".join(f"<th>{h}</th>" for h in ("device kind", "API", "fingerprint", "ABI", "display", "app builds",
                                               "emukit", "pairs"))
    return (f"<section id='built-on'><h2>Built on</h2>{warn}<div class='scroll'><table class='built-on'><thead>"
            f"<tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>")


def _filters(result: EvalResult) -> str:
    """The filter bar (shown by the script; without it every card stays visible) and the shown count."""
    verdicts = [pair_verdict(r) for r in result.pairs]
    fam_count = {f: sum(1 for r in result.pairs if r.pair.family == f) for f in _families(result)}
    fam_opts = "".join(f"<option value='{html.escape(f)}'>{html.escape(f)} ({n})</option>"
                       for f, n in fam_count.items())
    ver_opts = "".join(f"<option value='{v}'>{v} ({verdicts.count(v)})</option>" for v in VERDICTS)
    n = len(result.pairs)
    return (f"<div class='bar'><div id='filters' hidden><label>family <select id='f-family'><option value=''>all"
            f"</option>{fam_opts}</select></label><label>verdict <select id='f-verdict'><option value=''>all"
            f"</option>{ver_opts}</select></label><button type='button' id='f-reset'>show all</button></div>"
            f"<span id='shown' aria-live='polite'>{n} of {n} pairs shown</span></div>")


STYLE = """
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;padding:16px;
color:#1b1b1f;background:#f6f7f9;-webkit-print-color-adjust:exact;print-color-adjust:exact}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:20px 0 8px}h3{font-size:15px;margin:0}
h4{font-size:13px;margin:0 0 4px}small{color:#5f6368;font-weight:normal}
code{font:12px/1.35 ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere;white-space:pre-wrap}
[hidden]{display:none!important}
.config{color:#5f6368;margin:0;overflow-wrap:anywhere}
.scroll{max-width:100%;overflow-x:auto}
table.metrics{border-collapse:collapse;background:#fff}
.metrics td,.metrics th{border:1px solid #d5d8dc;padding:3px 10px;text-align:right}
.metrics th[scope=row],.metrics thead th:first-child{text-align:left;font-weight:600}.metrics .macro{font-weight:700}
.metrics tr.count td,.metrics tr.count th{color:#5f6368;font-weight:normal}
table.built-on{border-collapse:collapse;background:#fff}
.built-on td,.built-on th{border:1px solid #d5d8dc;padding:3px 10px;text-align:left}
#metric-definitions{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0;max-width:1100px}
#metric-definitions dt{font-weight:600}#metric-definitions dd{margin:0}
#metric-definitions dt:target,#metric-definitions dt:target+dd{background:#fff3bf}
.note,.counts{color:#444;max-width:1100px}.warn{color:#8a4b00}
.bar{position:sticky;top:0;z-index:5;display:flex;flex-wrap:wrap;gap:12px;align-items:center;padding:8px 0;
background:#f6f7f9;border-bottom:1px solid #d5d8dc;margin-bottom:8px}
#filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center}#shown{font-weight:600}
.card{background:#fff;border:1px solid #d5d8dc;border-radius:8px;padding:12px;margin:0 0 16px;min-width:0}
.card header{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;margin-bottom:8px}
.chip{background:#eef0f3;border-radius:10px;padding:1px 8px;font-size:12px}
.vchip{border-radius:10px;padding:1px 10px;font-weight:700;color:#fff}
.v-correct{color:#1a7f37}.v-incorrect{color:#c62828}.v-refused{color:#8a6d00}
.vchip.v-correct{background:#1a7f37;color:#fff}.vchip.v-incorrect{background:#c62828;color:#fff}
.vchip.v-refused{background:#8a6d00;color:#fff}
.tables{display:flex;flex-wrap:wrap;gap:12px}
table.kv{flex:1 1 380px;min-width:0;border-collapse:collapse;table-layout:fixed;font-size:13px}
.kv caption{text-align:left;font-weight:600;padding-bottom:2px}
.kv th,.kv td{border:1px solid #e1e4e8;padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.kv thead th:first-child{width:28%}.kv tr.diff{background:#fff3bf}.kv tr.diff th{color:#8a4b00}
.kv .neq{color:#c62828;font-weight:700}.kv span.d{background:#ffd8a8;border-radius:3px}.absent{color:#888}
.hists{display:flex;flex-direction:column;gap:8px;margin:10px 0}
.strip{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px}
.step{width:96px;font-size:11px;line-height:1.25;color:#333;border-radius:6px;padding:2px;
border:2px solid transparent}
.step.diverge{border-color:#f08c00;background:#fff4e6}.step .cap{display:block;overflow-wrap:anywhere}
.shot{position:relative;width:100%;background-size:100% 100%;background-color:#ddd;border:1px solid #c9ccd1;
border-radius:6px;cursor:zoom-in;overflow:hidden}
.shot:focus-visible{outline:3px solid #1c7ed6}
.noimg{width:100%;aspect-ratio:9/20;border:1px dashed #aaa;border-radius:6px;display:flex;align-items:center;
justify-content:center;color:#888;font-size:12px;text-align:center}
.ov{position:absolute;inset:0;width:100%;height:100%;pointer-events:none}
.ov .halo *{fill:none;stroke:#fff;stroke-width:5px;vector-effect:non-scaling-stroke}
.ov .mark *{fill:none;stroke:#e0115f;stroke-width:2.5px;vector-effect:non-scaling-stroke}
.ov .head{fill:#e0115f;stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}
.ov .badge{fill:#e0115f;stroke:#fff;stroke-width:1.5px;vector-effect:non-scaling-stroke;opacity:.92}
.ov text{fill:#fff;font-family:"DejaVu Sans",sans-serif;font-weight:700}
.step-row{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
figure.main{margin:0;width:180px;font-size:12px}figure.main figcaption{margin-top:2px;overflow-wrap:anywhere}
.act{color:#c2185b}
.branch{display:flex;flex-direction:column;gap:6px;flex:1 1 380px;min-width:0;max-width:520px}
.pairfigs{display:flex;flex-wrap:wrap;gap:10px}
.verdict{border:1px solid #e1e4e8;border-radius:6px;padding:6px 8px;font-size:13px;min-width:0}
.verdict dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:1px 8px;margin:0}
.verdict dt{color:#5f6368}.verdict dd{margin:0;overflow-wrap:anywhere;min-width:0}
.ok{color:#1a7f37;font-weight:600}.bad{color:#c62828;font-weight:600}
#lightbox{position:fixed;inset:0;z-index:10;background:rgba(20,20,24,.86);display:flex;flex-direction:column;
align-items:center;justify-content:center;gap:8px;cursor:zoom-out}
#lb-shot{height:86vh;width:auto;max-width:94vw;cursor:zoom-out}
#lb-cap{color:#fff;max-width:90vw;text-align:center;margin:0}
#lb-close{position:absolute;top:10px;right:14px;font-size:16px}
"""

SCRIPT = """
(function () {
  var cards = Array.prototype.slice.call(document.querySelectorAll('article.card'));
  var fam = document.getElementById('f-family'), ver = document.getElementById('f-verdict');
  var shown = document.getElementById('shown');
  function apply() {
    var n = 0;
    cards.forEach(function (c) {
      var ok = (!fam.value || c.dataset.family === fam.value) && (!ver.value || c.dataset.verdict === ver.value);
      c.hidden = !ok;
      if (ok) { n++; }
    });
    shown.textContent = n + ' of ' + cards.length + ' pairs shown';
  }
  fam.addEventListener('change', apply);
  ver.addEventListener('change', apply);
  document.getElementById('f-reset').addEventListener('click', function () {
    fam.value = '';
    ver.value = '';
    apply();
  });
  document.getElementById('filters').hidden = false;
  var box = document.getElementById('lightbox'), big = document.getElementById('lb-shot');
  var cap = document.getElementById('lb-cap'), back = null;
  function open(shot) {
    big.className = 'shot i' + shot.dataset.img;
    big.style.aspectRatio = shot.style.aspectRatio;
    big.innerHTML = '';
    var ov = shot.querySelector('svg');
    if (ov) { big.appendChild(ov.cloneNode(true)); }
    cap.textContent = shot.getAttribute('aria-label');
    back = shot;
    box.hidden = false;
    document.getElementById('lb-close').focus();
  }
  function close() {
    box.hidden = true;
    if (back) { back.focus(); }
  }
  document.addEventListener('click', function (e) {
    var shot = e.target.closest('.shot[data-img]');
    if (box.contains(e.target)) { close(); } else if (shot) { open(shot); }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && !box.hidden) { close(); }
    else if ((e.key === 'Enter' || e.key === ' ') && e.target.matches && e.target.matches('.shot[data-img]')) {
      e.preventDefault(); open(e.target);
    }
  });
})();
"""


def _chunks(runs: Sequence[PairRun], size: int) -> Iterator[Sequence[PairRun]]:
    for i in range(0, len(runs), size):
        yield runs[i:i + size]


def _config_line(result: EvalResult) -> str:
    """Model, format, condition, estimator, fidelity encoders and run time, one line."""
    cfg = result.config
    details = [f"model {cfg.get('model')}", f"format {cfg.get('format')}", f"condition {cfg.get('condition')}"]
    if cfg.get("estimator"):
        details.append(f"estimator {cfg['estimator']}")
    if cfg.get("fidelity"):
        details.append(f"fidelity {', '.join(cfg['fidelity'])}")
    if cfg.get("judge"):
        rubrics = ", ".join(f"{k} v{v}" for k, v in cfg["judge"].get("rubrics", {}).items())
        details.append(f"judge {cfg['judge'].get('model')} ({rubrics})")
    details.append(f"evaluated in {result.seconds:.1f} s")
    return " · ".join(details)


def _cards(result: EvalResult, store: ShotStore) -> list[str]:
    """Every pair's card; screenshots are read and encoded a chunk of pairs at a time."""
    cards: list[str] = []
    for chunk in _chunks(result.pairs, CHUNK_PAIRS):
        views = [PairView.read(run, store) for run in chunk]
        store.encode_pending()
        cards.extend(_card(view, store) for view in views)
    return cards


CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
LIGHTBOX = ("<div id='lightbox' role='dialog' aria-modal='true' aria-label='enlarged screenshot' hidden>"
            "<button type='button' id='lb-close'>close ✕</button><div id='lb-shot' class='shot'></div>"
            "<p id='lb-cap'></p></div>")


def render_html(result: EvalResult) -> str:
    """The report page as a string."""
    store = ShotStore()
    cards = _cards(result, store)
    cfg = result.config
    title = html.escape(f"emukit evaluation: {cfg['model']} / {cfg['format']} / {cfg['condition']}")
    head = (f"<meta charset='utf-8'><meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{title}</title>"
            f"<style>{STYLE}</style><style>{store.css()}</style>")
    body = (f"<h1>{title}</h1><p class='config'>{html.escape(_config_line(result))}</p>{_metrics_section(result)}"
            f"{_built_on_section(result)}"
            f"<h2 id='pairs'>Pairs</h2><p class='note'>{html.escape(HOW_TO_READ)}</p>{_filters(result)}"
            f"<main id='cards'>{''.join(cards)}</main>{LIGHTBOX}<script>{SCRIPT}</script>")
    return f"<!DOCTYPE html><html lang='en'><head>{head}</head><body>{body}</body></html>\n"


def _judge_rubric_of(judge_config: dict | None) -> dict[str, str]:
    """Which rubric (name vN) each judge dimension comes from, for the definitions."""
    from emukit.errors import ConfigError
    from emukit.evaluate.judge import get_rubric

    out: dict[str, str] = {}
    for name, version in ((judge_config or {}).get("rubrics") or {}).items():
        try:
            rubric = get_rubric(f"{name}@{version}")
        except ConfigError:
            continue
        for d in rubric.dimensions:
            out[d.key] = f"{name} v{version}"
        if name == "gui-score":
            out["GUI-Score"] = f"{name} v{version}"
    return out


def write_report(result: EvalResult, out_dir: Path) -> Path:
    """Write ``report.html`` into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.html"
    path.write_text(render_html(result), encoding="utf-8")
    return path
