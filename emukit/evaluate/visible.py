"""Viewport-visible semantic evidence of a rendered prediction (seed 002 Appendix C.4, ``Parse_vis``).

:data:`EVIDENCE_JS` runs inside the rendered page (after the screenshot) and returns every *text region* and
every editable-control value, with geometry and the visibility verdict of C.4. A region contributes semantic
evidence only when

1. its element is connected and neither it nor an ancestor is hidden by ``display:none`` (no layout box),
   ``visibility:hidden|collapse`` or near-zero opacity (the product of the ancestors' ``opacity`` below
   :data:`MIN_OPACITY`);
2. it has positive rendered geometry (a client rect at least 1 CSS px wide and high);
3. at least :data:`MIN_IN_VIEWPORT` (98 %) of its rendered area lies inside the initial viewport (the page is
   scrolled back to the top-left corner before reading); and
4. at least :data:`MIN_UNOCCLUDED` (80 %) of the points of a :data:`GRID` x :data:`GRID` grid over its rects
   are not materially occluded: the topmost element hit there (``document.elementFromPoint``, with
   ``pointer-events`` forced on) is the region's element or a descendant, or every element stacked above it
   paints nothing there (no background colour or image, not a replaced element, not SVG). A point where the
   region is not hit at all (clipped by an ``overflow`` ancestor, ``clip-path``...) counts as occluded.

A *text region* is the text a block-level box holds directly: text nodes are grouped by their nearest
ancestor whose computed ``display`` is neither ``inline`` nor ``contents``, so ``<p>Time's <b>up</b></p>`` is
one region "Time's up" while the rows of a list are separate regions. Text nodes that are themselves hidden
(rule 1) or have no box are left out of a region's text. ``input`` / ``textarea`` / ``select`` values are
regions of kind ``value`` (an empty field's placeholder is kind ``placeholder``), contenteditable text is
flagged ``editable``, and icon-only controls (a ``button``/``role=button``/link with an ``aria-label`` and no
text) or ``img[alt]`` give ``label`` / ``icon`` regions. Pseudo-element ``content`` and text inside iframes
are not read. Text colour is recorded (``transparent_text``) but, as in C.4, does not hide a region.

:func:`fallback_evidence` is the C.4 fallback when rendering fails: text chunks extracted from the HTML source
(scripts, styles and the head dropped), in source order, without geometry and without the visibility
guarantees above; parsers that need geometry relax those rules for it (see ``docs/evaluator-rendering.md``).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, Literal

GRID = 5
MIN_IN_VIEWPORT = 0.98
MIN_UNOCCLUDED = 0.80
MIN_OPACITY = 0.05

NodeKind = Literal["text", "value", "placeholder", "control", "label", "icon"]
HiddenReason = Literal["disconnected", "display", "visibility", "opacity", "no_geometry", "outside_viewport",
                       "occluded"]

EVIDENCE_JS = r"""
(opts) => {
  const VW = opts.vw, VH = opts.vh, G = opts.grid, MIN_OP = opts.minOpacity;
  const MIN_IN = opts.minInViewport, MIN_UN = opts.minUnoccluded;
  const SKIP = new Set(['script','style','noscript','template','title','head','meta','link','option','optgroup',
                        'datalist','select','textarea','input','iframe','object','embed','canvas','video','audio']);
  const CONTROL_SEL = 'button,[role=button],a[href],[role=link],[role=menuitem],[role=tab],[role=switch],' +
                      'summary,input[type=button],input[type=submit],input[type=reset],[onclick]';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const styles = new Map(), opacities = new Map();
  const cs = (el) => { let s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; };
  const opacity = (el) => {
    if (!el || el.nodeType !== 1) return 1;
    let v = opacities.get(el);
    if (v !== undefined) return v;
    v = parseFloat(cs(el).opacity); if (isNaN(v)) v = 1;
    v *= opacity(el.parentElement);
    opacities.set(el, v); return v;
  };
  const alpha = (c) => {
    if (!c || c === 'transparent') return 0;
    const m = c.match(/rgba?\(([^)]*)\)/); if (!m) return 1;
    const parts = m[1].split(/[\s,\/]+/).filter(Boolean);
    return parts.length >= 4 ? parseFloat(parts[3]) : 1;
  };
  const blockOwner = (el) => {
    while (el && el !== document.documentElement) {
      const d = cs(el).display;
      if (d !== 'inline' && d !== 'contents') return el;
      el = el.parentElement;
    }
    return el || document.documentElement;
  };
  const hiddenByStyle = (el) => {
    if (!el.isConnected) return 'disconnected';
    if (el.checkVisibility && !el.checkVisibility()) return 'display';
    const s = cs(el);
    if (s.display === 'none') return 'display';
    if (s.visibility !== 'visible') return 'visibility';
    if (opacity(el) < MIN_OP) return 'opacity';
    return null;
  };
  const goodRects = (list) => {
    const out = [];
    for (const r of list) if (r.width >= 1 && r.height >= 1) out.push({x: r.left, y: r.top, w: r.width, h: r.height});
    return out;
  };
  const range = document.createRange();
  const regions = new Map();
  const regionFor = (owner) => {
    let r = regions.get(owner);
    if (!r) { r = {owner, parts: [], kind: 'text'}; regions.set(owner, r); }
    return r;
  };
  const root = document.body || document.documentElement;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
    acceptNode(n) {
      if (n.nodeType === 1 && SKIP.has(n.localName)) return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    }
  });
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === 1) {
      if (n.localName === 'br') regionFor(blockOwner(n.parentElement)).parts.push({text: '\n', rects: [], hidden: null, el: n.parentElement});
      continue;
    }
    const parent = n.parentElement;
    if (!parent) continue;
    if (!/\S/.test(n.data)) {  // inter-word space between inline elements of a region already started
      const r = regions.get(blockOwner(parent));
      if (r) r.parts.push({text: ' ', rects: [], hidden: null, el: parent});
      continue;
    }
    let hidden = hiddenByStyle(parent);
    let rects = [];
    if (!hidden) {
      range.selectNodeContents(n);
      rects = goodRects(range.getClientRects());
      if (!rects.length) hidden = 'no_geometry';
    }
    regionFor(blockOwner(parent)).parts.push({text: n.data, rects, hidden, el: parent});
  }
  const out = [];
  const addNode = (owner, kind, text, rects, hidden, el) => out.push({owner, kind, text, rects, hidden, el});
  for (const r of regions.values()) {
    const shown = r.parts.filter(p => !p.hidden);
    const text = shown.map(p => p.text).join('').replace(/^[ \t\n\r\f]+|[ \t\n\r\f]+$/g, '');
    if (/\S/.test(text)) {
      const first = shown.find(p => p.rects.length) || shown[0];
      addNode(r.owner, 'text', text, shown.flatMap(p => p.rects.map(rc => ({...rc, el: p.el}))), null, first.el);
    } else {
      const all = r.parts.filter(p => /\S/.test(p.text));
      if (all.length) addNode(r.owner, 'text', all.map(p => p.text).join(''), [], all[0].hidden || 'no_geometry', all[0].el);
    }
  }
  // Values of form controls.
  const VALUE_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'number', 'date', 'time',
                               'datetime-local', 'month', 'week']);
  for (const el of document.querySelectorAll('input, textarea, select')) {
    let kind = 'value', text = '';
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) { kind = 'control'; text = el.value; }
    else if (tag === 'input' && !VALUE_TYPES.has(type)) continue;
    else if (tag === 'select') { const o = el.selectedOptions && el.selectedOptions[0]; text = o ? o.text : ''; }
    else { text = el.value; if (!/\S/.test(text || '')) { kind = 'placeholder'; text = el.getAttribute('placeholder') || ''; } }
    if (!/\S/.test(text || '')) continue;
    const hidden = hiddenByStyle(el);
    const rects = hidden ? [] : goodRects(el.getClientRects()).map(rc => ({...rc, el}));
    addNode(el, kind, text, rects, hidden || (rects.length ? null : 'no_geometry'), el);
  }
  // Icon-only controls and images with alternative text.
  for (const el of document.querySelectorAll('[aria-label], img[alt], [role=img][aria-label]')) {
    const label = (el.getAttribute('aria-label') || (el.localName === 'img' ? el.getAttribute('alt') : '') || '').trim();
    if (!label) continue;
    const isControl = el.matches(CONTROL_SEL);
    const isIcon = el.localName === 'img' || el.localName === 'svg' || el.getAttribute('role') === 'img';
    if (!isControl && !isIcon) continue;
    if (isControl && /\S/.test(el.textContent || '')) continue;
    const hidden = hiddenByStyle(el);
    const rects = hidden ? [] : goodRects([el.getBoundingClientRect()]).map(rc => ({...rc, el}));
    addNode(el, isControl ? 'label' : 'icon', label, rects, hidden || (rects.length ? null : 'no_geometry'), el);
  }
  // Visibility: viewport share and occlusion sampling.
  const paints = (e) => {
    if (e.namespaceURI === SVG_NS) return true;
    if (['img','video','canvas','iframe','embed','object','input','textarea','select','svg'].includes(e.localName)) return true;
    if (opacity(e) < MIN_OP) return false;
    const s = cs(e);
    if (alpha(s.backgroundColor) > MIN_OP) return true;
    if (s.backgroundImage && s.backgroundImage !== 'none') return true;
    return false;
  };
  const ours = (hit, el, owner) => hit === el || el.contains(hit) || (hit.contains(el) && owner.contains(hit));
  const sampleOk = (x, y, el, owner) => {
    if (x < 0 || y < 0 || x >= VW || y >= VH) return false;
    const hit = document.elementFromPoint(x, y);
    if (!hit) return false;
    if (ours(hit, el, owner)) return true;
    const stack = document.elementsFromPoint(x, y);
    const idx = stack.findIndex(e => ours(e, el, owner));
    if (idx < 0) return false;
    for (let i = 0; i < idx; i++) if (paints(stack[i])) return false;
    return true;
  };
  const result = [];
  const ids = new Map();
  let nextId = 0;
  for (const n of out) {
    const rects = n.rects;
    let area = 0, inside = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const r of rects) {
      area += r.w * r.h;
      const iw = Math.max(0, Math.min(r.x + r.w, VW) - Math.max(r.x, 0));
      const ih = Math.max(0, Math.min(r.y + r.h, VH) - Math.max(r.y, 0));
      inside += iw * ih;
      x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y); x1 = Math.max(x1, r.x + r.w); y1 = Math.max(y1, r.y + r.h);
    }
    let hidden = n.hidden, inView = area > 0 ? inside / area : 0, unocc = 0;
    if (!hidden && inView < MIN_IN) hidden = 'outside_viewport';
    if (!hidden) {
      let ok = 0, total = 0;
      const rows = rects.length === 1 ? G : Math.max(1, Math.ceil(G / rects.length));
      for (const r of rects) {
        for (let i = 0; i < G; i++) for (let j = 0; j < rows; j++) {
          total++;
          if (sampleOk(r.x + (i + 0.5) * r.w / G, r.y + (j + 0.5) * r.h / rows, r.el, n.owner)) ok++;
        }
      }
      unocc = total ? ok / total : 0;
      if (unocc < MIN_UN) hidden = 'occluded';
    }
    const el = n.el || n.owner, s = cs(el);
    const ctl = el.closest ? el.closest(CONTROL_SEL) : null;
    let oid = ids.get(n.owner); if (oid === undefined) { oid = nextId++; ids.set(n.owner, oid); }
    const fill = s.webkitTextFillColor || s.color;
    result.push({
      text: n.text, kind: n.kind === 'text' && ctl ? 'control' : n.kind, tag: n.owner.localName,
      role: (ctl && ctl.getAttribute('role')) || n.owner.getAttribute('role') || (ctl ? ctl.localName : ''),
      control: !!ctl || n.kind === 'label',
      editable: !!(el.isContentEditable || ['input', 'textarea'].includes(el.localName)),
      owner: oid,
      box: rects.length ? [x0, y0, x1 - x0, y1 - y0] : null,
      rects: rects.length,
      fontSize: parseFloat(s.fontSize) || 0, fontWeight: parseInt(s.fontWeight, 10) || 400,
      inViewport: inView, unoccluded: unocc, hidden,
      transparentText: n.kind === 'text' && alpha(fill) < MIN_OP,
    });
  }
  // Offline self-containedness: every external reference the document makes.
  const refs = [];
  const add = (kind, el, attr) => {
    const v = el.getAttribute(attr); if (!v) return;
    let abs = v; try { abs = new URL(v.trim(), document.baseURI).href; } catch (e) {}
    refs.push({kind, url: v, abs});
  };
  for (const el of document.querySelectorAll('link[href]')) {
    const rel = (el.getAttribute('rel') || '').toLowerCase();
    add(rel.includes('stylesheet') ? 'stylesheet' : (rel.includes('icon') ? 'icon' : (rel.includes('preload') || rel.includes('preconnect') || rel.includes('dns-prefetch') ? 'hint' : 'link')), el, 'href');
  }
  for (const el of document.querySelectorAll('script[src]')) add('script', el, 'src');
  for (const el of document.querySelectorAll('iframe[src], frame[src], embed[src]')) add('document', el, 'src');
  for (const el of document.querySelectorAll('object[data]')) add('document', el, 'data');
  for (const el of document.querySelectorAll('img[src], source[src], video[src], audio[src], input[type=image][src]')) add('media', el, 'src');
  for (const sheet of document.styleSheets) {
    let rules; try { rules = sheet.cssRules; } catch (e) { continue; }
    for (const rule of rules || []) if (rule.type === CSSRule.IMPORT_RULE) refs.push({kind: 'stylesheet', url: rule.href, abs: rule.href});
  }
  const se = document.scrollingElement || document.documentElement;
  return {nodes: result, refs, url: location.href, docWidth: se.scrollWidth, docHeight: se.scrollHeight,
          title: document.title || '', mode: document.compatMode};
}
"""

#: Injected before the screenshot: finishes or cancels animations, hides the caret, scrolls to the top.
SETTLE_JS = r"""
async (frames) => {
  try {
    for (const a of document.getAnimations()) {
      try { const t = a.effect && a.effect.getComputedTiming(); if (t && t.iterations !== Infinity && t.endTime !== Infinity) a.finish(); else a.cancel(); } catch (e) {}
    }
  } catch (e) {}
  const st = document.createElement('style');
  st.textContent = '*,*::before,*::after{caret-color:transparent!important;transition:none!important}';
  (document.head || document.documentElement).appendChild(st);
  const scrolled = [window.scrollX, window.scrollY];
  window.scrollTo(0, 0);
  const frame = () => new Promise(r => { let done = false; const f = () => { if (!done) { done = true; r(); } };
                                          requestAnimationFrame(f); setTimeout(f, 50); });
  for (let i = 0; i < frames; i++) await frame();
  if (document.fonts && document.fonts.status !== 'loaded') {
    await Promise.race([document.fonts.ready, new Promise(r => setTimeout(r, 300))]);
  }
  return {scrolled};
}
"""

#: Injected after the screenshot, before :data:`EVIDENCE_JS`: hit testing must see every element.
POINTER_EVENTS_JS = r"""
() => { const st = document.createElement('style');
        st.textContent = '*,*::before,*::after{pointer-events:auto!important}';
        (document.head || document.documentElement).appendChild(st); }
"""


#: One round trip: settle the page (two frames when it has scripts, for rAF-driven content), then read the
#: evidence (no visual change in between, so the screenshot can follow).
READ_JS = (
    "async (opts) => {\n"
    "  let scripts = document.scripts.length + document.querySelectorAll('meta[http-equiv=refresh i]').length;\n"
    "  for (const el of document.getElementsByTagName('*')) {\n"
    "    for (const a of el.attributes) if (a.name.startsWith('on')) { scripts++; break; }\n"
    "  }\n"
    "  const settle = await (" + SETTLE_JS.strip() + ")(scripts ? opts.frames : 0);\n  ("
    + POINTER_EVENTS_JS.strip() + ")();\n  const evidence = (" + EVIDENCE_JS.strip() + ")(opts);\n"
    "  evidence.scripts = scripts;\n  return {settle, evidence};\n}"
)


@dataclass(frozen=True)
class EvidenceNode:
    """One text region, control value or icon/control label, with its C.4 visibility verdict.

    ``box`` is ``(x, y, width, height)`` in CSS px relative to the viewport (``None`` without geometry, e.g.
    fallback text). ``hidden`` is ``None`` for a node that contributes evidence, else the first rule it fails.
    ``owner`` identifies the element the region belongs to (equal owners = same element).
    """

    text: str
    kind: NodeKind = "text"
    tag: str = ""
    role: str = ""
    control: bool = False
    editable: bool = False
    owner: int = -1
    box: tuple[float, float, float, float] | None = None
    rects: int = 0
    font_size: float = 0.0
    font_weight: int = 400
    in_viewport: float = 0.0
    unoccluded: float = 0.0
    hidden: HiddenReason | None = None
    transparent_text: bool = False
    norm: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.norm:
            from emukit.evaluate.parsers.normalize import normalize_text

            object.__setattr__(self, "norm", normalize_text(self.text))

    @property
    def visible(self) -> bool:
        """True when the node contributes semantic evidence (passes every C.4 visibility rule)."""
        return self.hidden is None

    @property
    def x(self) -> float:
        return self.box[0] if self.box else 0.0

    @property
    def y(self) -> float:
        return self.box[1] if self.box else 0.0

    @property
    def bottom(self) -> float:
        return self.box[1] + self.box[3] if self.box else 0.0

    @property
    def center_y(self) -> float:
        return self.box[1] + self.box[3] / 2 if self.box else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for results files and reports)."""
        return {"text": self.text, "kind": self.kind, "tag": self.tag, "role": self.role, "control": self.control,
                "editable": self.editable, "owner": self.owner,
                "box": [round(v, 2) for v in self.box] if self.box else None, "font_size": self.font_size,
                "font_weight": self.font_weight, "in_viewport": round(self.in_viewport, 4),
                "unoccluded": round(self.unoccluded, 4), "hidden": self.hidden,
                "transparent_text": self.transparent_text}


@dataclass(frozen=True)
class ExternalRef:
    """One external resource the document refers to, and what the offline renderer did with it."""

    url: str
    kind: str  # stylesheet, script, document, fetch, font, media, icon, hint, link, other
    status: Literal["served", "blocked", "unresolved", "inline"]

    @property
    def structural(self) -> bool:
        """Resources the layout or content depends on (C.4 offline self-containedness); fonts, images and
        hints are cosmetic."""
        return self.kind in STRUCTURAL_KINDS


STRUCTURAL_KINDS = frozenset({"stylesheet", "script", "document", "fetch"})


@dataclass(frozen=True)
class Evidence:
    """Everything the family parsers read from one prediction.

    ``source`` is ``"render"`` (Chromium, C.4 visibility rules apply) or ``"fallback"`` (text extracted from
    the HTML source after a rendering failure; no geometry, every node counts as visible).
    """

    nodes: tuple[EvidenceNode, ...]
    viewport: tuple[int, int]
    source: Literal["render", "fallback"] = "render"
    external: tuple[ExternalRef, ...] = ()

    @property
    def fallback(self) -> bool:
        return self.source == "fallback"

    @property
    def visible_nodes(self) -> list[EvidenceNode]:
        """Nodes that contribute semantic evidence, top to bottom then left to right."""
        return sorted((n for n in self.nodes if n.visible), key=lambda n: (round(n.y, 1), n.x)) \
            if not self.fallback else [n for n in self.nodes if n.visible]

    @property
    def unavailable(self) -> list[ExternalRef]:
        """Structural external resources that were not available offline."""
        return [r for r in self.external if r.structural and r.status in ("blocked", "unresolved")]

    @property
    def offline_ok(self) -> bool:
        """C.4 offline self-containedness: no structural dependence on an unavailable external resource."""
        return not self.unavailable

    def texts(self) -> list[str]:
        """Normalised texts of the visible nodes (reading order)."""
        return [n.norm for n in self.visible_nodes]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "viewport": list(self.viewport), "offline_ok": self.offline_ok,
                "external": [{"url": r.url, "kind": r.kind, "status": r.status} for r in self.external],
                "nodes": [n.to_dict() for n in self.nodes]}


def nodes_from_js(payload: dict[str, Any]) -> list[EvidenceNode]:
    """Turn the ``nodes`` list returned by :data:`EVIDENCE_JS` into :class:`EvidenceNode` objects."""
    out = []
    for n in payload.get("nodes", []):
        box = n.get("box")
        out.append(EvidenceNode(
            text=str(n.get("text", "")), kind=n.get("kind", "text"), tag=n.get("tag", ""), role=n.get("role") or "",
            control=bool(n.get("control")), editable=bool(n.get("editable")), owner=int(n.get("owner", -1)),
            box=tuple(float(v) for v in box) if box else None, rects=int(n.get("rects", 0)),  # type: ignore[arg-type]
            font_size=float(n.get("fontSize", 0.0)), font_weight=int(n.get("fontWeight", 400)),
            in_viewport=float(n.get("inViewport", 0.0)), unoccluded=float(n.get("unoccluded", 0.0)),
            hidden=n.get("hidden"), transparent_text=bool(n.get("transparentText"))))
    return out


# -- fallback text extraction ---------------------------------------------------------------------------------

_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "button", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
    "ul", "label", "option"})
_SKIP_TAGS = frozenset({"script", "style", "head", "title", "template", "noscript", "svg", "math", "iframe",
                        "object"})
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                        "track", "wbr"})


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[tuple[str, NodeKind, bool]] = []
        self._buf: list[str] = []
        self._skip: list[str] = []
        self._controls = 0
        self._textarea = False

    def _flush(self) -> None:
        text = "".join(self._buf)
        self._buf = []
        if text.strip():
            self.chunks.append((text, "control" if self._controls else "text", False))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip:
            if tag not in _VOID_TAGS:
                self._skip.append(tag)
            return
        if tag in _SKIP_TAGS:
            self._flush()
            self._skip.append(tag)
            return
        if tag in _BLOCK_TAGS:
            self._flush()
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("type", "text").lower() in ("", "text", "search", "email", "url", "tel",
                                                                 "number"):
            if a.get("value", "").strip():
                self.chunks.append((a["value"], "value", True))
        elif tag == "input" and a.get("type", "").lower() in ("button", "submit", "reset") and a.get("value"):
            self.chunks.append((a["value"], "control", False))
        if tag == "button":
            self._controls += 1
        if tag == "textarea":
            self._flush()
            self._textarea = True

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            if tag == self._skip[-1]:
                self._skip.pop()
            return
        if tag in _BLOCK_TAGS:
            self._flush()
        if tag == "button" and self._controls:
            self._controls -= 1
        if tag == "textarea" and self._textarea:
            text, self._buf, self._textarea = "".join(self._buf), [], False
            if text.strip():
                self.chunks.append((text, "value", True))

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._buf.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def fallback_evidence(source: str, viewport: tuple[int, int]) -> Evidence:
    """C.4 fallback: the text of ``source`` without tags, scripts, styles and the head, one node per block of
    text in source order (``textarea`` contents and ``input`` values included as ``value`` nodes)."""
    parser = _TextExtractor()
    with contextlib.suppress(Exception):  # a pathological document still yields what was read so far
        parser.feed(source)
        parser.close()
    nodes = tuple(EvidenceNode(text=re.sub(r"\s+", " ", text).strip(), kind=kind,
                               editable=editable, control=kind == "control", owner=i, in_viewport=1.0,
                               unoccluded=1.0)
                  for i, (text, kind, editable) in enumerate(parser.chunks))
    return Evidence(nodes=nodes, viewport=viewport, source="fallback")
