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

:func:`emukit.evaluate.fallback.fallback_evidence` is the C.4 fallback when rendering fails: text read from the
HTML source, without geometry; statically hidden text is kept out and external references are checked there
too; parsers that need geometry relax those rules for it (see ``docs/evaluator-rendering.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

GRID = 5
DENSE_STEP_PX = 4  # the dense occlusion grid: one sample column (row) per 4 CSS px of a text rect
DENSE_MAX_COLS = 48
DENSE_MAX_ROWS = 8
MAX_HIDDEN_NODES = 2000  # hidden regions returned per page (more are counted, not listed: 5 MB pages)
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
  const STEP = opts.denseStep, MAXC = opts.denseMaxCols, MAXR = opts.denseMaxRows, MAX_HIDDEN = opts.maxHidden;
  const SKIP = new Set(['script','style','noscript','template','title','head','meta','link','option','optgroup',
                        'datalist','select','textarea','input','iframe','object','embed','canvas','video','audio']);
  const CONTROL_SEL = 'button,[role=button],a[href],[role=link],[role=menuitem],[role=tab],[role=switch],' +
                      'summary,input[type=button],input[type=submit],input[type=reset],[onclick]';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const styles = new Map(), opacities = new Map();
  const cs = (el) => { let s = styles.get(el); if (!s) { s = el.ownerDocument.defaultView.getComputedStyle(el); styles.set(el, s); } return s; };
  // Flat-tree parent: the slot an element is assigned to, its parent, or the host of the shadow root it is in.
  const up = (el) => el.assignedSlot || el.parentElement ||
                     (el.parentNode && el.parentNode.host) || null;
  // A document's frame element (for a same-origin iframe) and what the frame contributes.
  const frameOf = new Map();  // document -> {el, x, y, clip: [x0, y0, x1, y1], parentDoc}
  const filterOpacity = (f) => {
    let v = 1; if (!f || f === 'none') return v;
    for (const m of f.matchAll(/opacity\(\s*([^)]*)\)/g)) {
      let x = m[1].trim(); if (!x) continue;
      x = x.endsWith('%') ? parseFloat(x) / 100 : parseFloat(x); if (!isNaN(x)) v *= Math.max(0, Math.min(1, x));
    }
    return v;
  };
  const opacity = (el) => {
    if (!el || el.nodeType !== 1) return 1;
    let v = opacities.get(el);
    if (v !== undefined) return v;
    const s = cs(el);
    v = parseFloat(s.opacity); if (isNaN(v)) v = 1;
    v *= filterOpacity(s.filter);
    const parent = up(el);
    if (parent) v *= opacity(parent);
    else { const fr = frameOf.get(el.ownerDocument); if (fr) v *= opacity(fr.el); }
    opacities.set(el, v); return v;
  };
  const alpha = (c) => {
    if (!c || c === 'transparent') return 0;
    const m = c.match(/rgba?\(([^)]*)\)/); if (!m) return 1;
    const parts = m[1].split(/[\s,\/]+/).filter(Boolean);
    return parts.length >= 4 ? (parts[3].endsWith('%') ? parseFloat(parts[3]) / 100 : parseFloat(parts[3])) : 1;
  };
  const blockOwner = (el) => {
    while (el && el !== el.ownerDocument.documentElement) {
      const d = cs(el).display;
      if (d !== 'inline' && d !== 'contents') return el;
      const p = up(el); if (!p) return el;
      el = p;
    }
    return el || document.documentElement;
  };
  const hiddenByStyle = (el) => {
    if (!el.isConnected) return 'disconnected';
    const fr = frameOf.get(el.ownerDocument);
    if (fr && fr.hidden) return fr.hidden;
    if (el.checkVisibility && !el.checkVisibility()) return 'display';
    const s = cs(el);
    if (s.display === 'none') return 'display';
    if (s.visibility !== 'visible') return 'visibility';
    if (opacity(el) < MIN_OP) return 'opacity';
    return null;
  };
  const goodRects = (list, doc) => {
    const fr = frameOf.get(doc), dx = fr ? fr.x : 0, dy = fr ? fr.y : 0;
    const out = [];
    for (const r of list) if (r.width >= 1 && r.height >= 1) out.push({x: r.left + dx, y: r.top + dy, w: r.width, h: r.height});
    return out;
  };
  // Every tree to read: the document, open (and declarative) shadow roots, same-origin srcdoc/about:blank frames.
  const roots = [], sheets = new Map();
  const addRoot = (root) => {  // hit testing must see every element of every tree (pointer-events forced on)
    roots.push(root);
    if (root === document) return;
    const d = root.ownerDocument || root;
    try {
      let sheet = sheets.get(d);
      if (!sheet) { sheet = new d.defaultView.CSSStyleSheet(); sheet.replaceSync('*,*::before,*::after{pointer-events:auto!important}'); sheets.set(d, sheet); }
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    } catch (e) {}
  };
  const regions = new Map();
  const regionFor = (owner) => {
    let r = regions.get(owner);
    if (!r) { r = {owner, parts: [], kind: 'text'}; regions.set(owner, r); }
    return r;
  };
  const range = document.createRange();
  const walkTree = (root) => {
    addRoot(root);
    const doc = root.ownerDocument || root;
    const start = root.nodeType === 9 ? (root.body || root.documentElement) : root;
    if (!start) return;
    // Document order without a TreeWalker filter (a page with scripts disabled cannot run callbacks).
    const next = (n, into) => {
      if (into && n.firstChild) return n.firstChild;
      for (; n && n !== start; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
      return null;
    };
    for (let n = start, into = true; n; n = next(n, into)) {
      into = !(n.nodeType === 1 && SKIP.has(n.localName));
      if (n.nodeType !== 1 && n.nodeType !== 3) { into = n.nodeType === 11; continue; }
      if (n.nodeType === 1) {
        if (n.shadowRoot) walkTree(n.shadowRoot);
        if (n.localName === 'iframe') { readFrame(n); continue; }
        if (n.localName === 'br') { const p = up(n); if (p) regionFor(blockOwner(p)).parts.push({text: '\n', rects: [], hidden: null, el: p}); }
        continue;
      }
      const parent = n.parentElement || (n.parentNode && n.parentNode.host);
      if (!parent) continue;
      if (!/\S/.test(n.data)) {  // inter-word space between inline elements of a region already started
        const r = regions.get(blockOwner(parent));
        if (r) r.parts.push({text: ' ', rects: [], hidden: null, el: parent});
        continue;
      }
      let hidden = hiddenByStyle(parent);
      let rects = [];
      if (!hidden) {
        const rg = doc === document ? range : doc.createRange();
        rg.selectNodeContents(n);
        rects = goodRects(rg.getClientRects(), doc);
        if (!rects.length) hidden = 'no_geometry';
      }
      regionFor(blockOwner(parent)).parts.push({text: n.data, rects, hidden, el: parent});
    }
  };
  const readFrame = (iframe) => {
    let fdoc = null;
    try { fdoc = iframe.contentDocument; } catch (e) { fdoc = null; }
    if (!fdoc || !fdoc.documentElement) return;
    const url = (fdoc.location && fdoc.location.href) || '';
    if (url !== 'about:srcdoc' && url !== 'about:blank') return;
    const pdoc = iframe.ownerDocument, pf = frameOf.get(pdoc);
    const b = iframe.getBoundingClientRect(), s = cs(iframe);
    const x = b.left + iframe.clientLeft + (parseFloat(s.paddingLeft) || 0) + (pf ? pf.x : 0);
    const y = b.top + iframe.clientTop + (parseFloat(s.paddingTop) || 0) + (pf ? pf.y : 0);
    let clip = [x, y, x + iframe.clientWidth - (parseFloat(s.paddingLeft) || 0) - (parseFloat(s.paddingRight) || 0),
                y + iframe.clientHeight - (parseFloat(s.paddingTop) || 0) - (parseFloat(s.paddingBottom) || 0)];
    if (pf) clip = [Math.max(clip[0], pf.clip[0]), Math.max(clip[1], pf.clip[1]), Math.min(clip[2], pf.clip[2]), Math.min(clip[3], pf.clip[3])];
    frameOf.set(fdoc, {el: iframe, x, y, clip, parentDoc: pdoc, hidden: hiddenByStyle(iframe)});
    walkTree(fdoc);
  };
  walkTree(document);
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
  const queryAll = (sel) => roots.flatMap(root => Array.from(root.querySelectorAll(sel)));
  // Values of form controls.
  const VALUE_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'number', 'date', 'time',
                               'datetime-local', 'month', 'week']);
  for (const el of queryAll('input, textarea, select')) {
    let kind = 'value', text = '';
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) { kind = 'control'; text = el.value; }
    else if (tag === 'input' && !VALUE_TYPES.has(type)) continue;
    else if (tag === 'select') { const o = el.selectedOptions && el.selectedOptions[0]; text = o ? o.text : ''; }
    else { text = el.value; if (!/\S/.test(text || '')) { kind = 'placeholder'; text = el.getAttribute('placeholder') || ''; } }
    if (!/\S/.test(text || '')) continue;
    const hidden = hiddenByStyle(el);
    const rects = hidden ? [] : goodRects(el.getClientRects(), el.ownerDocument).map(rc => ({...rc, el}));
    addNode(el, kind, text, rects, hidden || (rects.length ? null : 'no_geometry'), el);
  }
  // Icon-only controls and images with alternative text.
  for (const el of queryAll('[aria-label], img[alt], [role=img][aria-label]')) {
    const label = (el.getAttribute('aria-label') || (el.localName === 'img' ? el.getAttribute('alt') : '') || '').trim();
    if (!label) continue;
    const isControl = el.matches(CONTROL_SEL);
    const isIcon = el.localName === 'img' || el.localName === 'svg' || el.getAttribute('role') === 'img';
    if (!isControl && !isIcon) continue;
    if (isControl && /\S/.test(el.textContent || '')) continue;
    const hidden = hiddenByStyle(el);
    const rects = hidden ? [] : goodRects([el.getBoundingClientRect()], el.ownerDocument).map(rc => ({...rc, el}));
    addNode(el, isControl ? 'label' : 'icon', label, rects, hidden || (rects.length ? null : 'no_geometry'), el);
  }
  // Visibility: viewport share and occlusion sampling.
  const paints = (e) => {
    if (e.namespaceURI === SVG_NS) return opacity(e) >= MIN_OP;
    if (['img','video','canvas','iframe','embed','object','input','textarea','select','svg'].includes(e.localName)) return opacity(e) >= MIN_OP;
    if (opacity(e) < MIN_OP) return false;
    const s = cs(e);
    if (alpha(s.backgroundColor) > MIN_OP) return true;
    if (s.backgroundImage && s.backgroundImage !== 'none') return true;
    return false;
  };
  // A modal dialog's backdrop covers everything outside the dialog (decision: any backdrop that paints).
  let modal = null;
  try { modal = document.querySelector('dialog:modal'); } catch (e) { modal = null; }
  if (modal && alpha(getComputedStyle(modal, '::backdrop').backgroundColor) <= MIN_OP &&
      getComputedStyle(modal, '::backdrop').backgroundImage === 'none') modal = null;
  const insideModal = (el) => { for (let e = el; e; e = up(e) || (frameOf.get(e.ownerDocument) || {}).el) if (e === modal) return true; return false; };
  // Is the point (x, y) of el's text, in the viewport's coordinates, unoccluded: el (or, when the hit test
  // does not list el itself, its nearest listed ancestor within the region) is hit there and nothing that
  // paints is stacked above it, descendants and ancestors included; inside a frame the frame element must
  // pass the same test in its parent document.
  const pointOk = (x, y, el, owner, whole) => {
    const doc = el.ownerDocument, fr = frameOf.get(doc);
    if (fr) {
      if (x < fr.clip[0] || y < fr.clip[1] || x >= fr.clip[2] || y >= fr.clip[3]) return false;
      if (!pointOk(x, y, fr.el, fr.el, true)) return false;
    } else if (x < 0 || y < 0 || x >= VW || y >= VH) return false;
    const lx = x - (fr ? fr.x : 0), ly = y - (fr ? fr.y : 0);
    const root = el.getRootNode();
    const stack = (root.elementsFromPoint ? root : doc).elementsFromPoint(lx, ly);
    // ``whole``: el's descendants are its own rendering (the SVG of an icon button, a frame's document)
    let idx = whole ? stack.findIndex(e => el.contains(e)) : stack.indexOf(el);
    if (idx < 0) idx = stack.findIndex(e => e.contains(el) && owner.contains(e));
    if (idx < 0) return false;
    for (let i = 0; i < idx; i++) if (paints(stack[i])) return false;
    return true;
  };
  // Painting elements other than a region's ancestors that overlap a rect: a reason to sample it densely.
  let painters = null;
  const painterBoxes = () => {
    if (painters) return painters;
    painters = [];
    for (const e of queryAll('*')) {
      const b = e.getBoundingClientRect(); if (b.width < 1 || b.height < 1) continue;
      const fr = frameOf.get(e.ownerDocument), dx = fr ? fr.x : 0, dy = fr ? fr.y : 0;
      if (b.right + dx <= 0 || b.bottom + dy <= 0 || b.left + dx >= VW || b.top + dy >= VH) continue;
      if (paints(e)) painters.push({e, x0: b.left + dx, y0: b.top + dy, x1: b.right + dx, y1: b.bottom + dy});
    }
    return painters;
  };
  const overlapped = (r, el, whole) => painterBoxes().some(p => !p.e.contains(el) && p.e !== el && !(whole && el.contains(p.e)) &&
      p.x0 < r.x + r.w && p.x1 > r.x && p.y0 < r.y + r.h && p.y1 > r.y);
  // Provably unoccluded without hit testing: nothing that paints overlaps the rect except the text's own
  // ancestors, no ancestor takes part in z-ordering (a z-index, 3D), clips (clip-path, mask, clip) or cuts
  // the rect off (an overflow box that does not contain it), and the text is not inside a frame. Anything
  // else is decided by hit testing (on a 5 MB page one hit test walks every paragraph: ~4 ms).
  const provablyClear = (r, el, whole) => {
    if (frameOf.get(el.ownerDocument) || overlapped(r, el, whole)) return false;
    for (let e = el; e; e = up(e)) {
      const s = cs(e);
      if (s.zIndex !== 'auto' || s.transformStyle === 'preserve-3d') return false;
      if (s.clipPath !== 'none' || (s.maskImage && s.maskImage !== 'none') || (s.clip && s.clip !== 'auto')) return false;
      if (e !== e.ownerDocument.documentElement && (s.overflowX !== 'visible' || s.overflowY !== 'visible')) {
        const b = e.getBoundingClientRect();
        const x0 = b.left + e.clientLeft, y0 = b.top + e.clientTop;
        if (r.x < x0 - 0.5 || r.y < y0 - 0.5 || r.x + r.w > x0 + e.clientWidth + 0.5 || r.y + r.h > y0 + e.clientHeight + 0.5) return false;
      }
    }
    return true;
  };
  const share = (r, el, owner, cols, rows, whole) => {
    let ok = 0;
    for (let i = 0; i < cols; i++) for (let j = 0; j < rows; j++)
      if (pointOk(r.x + (i + 0.5) * r.w / cols, r.y + (j + 0.5) * r.h / rows, el, owner, whole)) ok++;
    return ok / (cols * rows);
  };
  const clipOf = (el) => { const fr = frameOf.get(el.ownerDocument); return fr ? fr.clip : [0, 0, VW, VH]; };
  const result = [];
  const ids = new Map();
  let nextId = 0, omitted = 0, hiddenCount = 0;
  for (const n of out) {
    const rects = n.rects;
    let area = 0, inside = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const r of rects) {
      const c = clipOf(r.el);
      area += r.w * r.h;
      const iw = Math.max(0, Math.min(r.x + r.w, VW, c[2]) - Math.max(r.x, 0, c[0]));
      const ih = Math.max(0, Math.min(r.y + r.h, VH, c[3]) - Math.max(r.y, 0, c[1]));
      inside += iw * ih;
      x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y); x1 = Math.max(x1, r.x + r.w); y1 = Math.max(y1, r.y + r.h);
    }
    let hidden = n.hidden, inView = area > 0 ? inside / area : 0, unocc = 0;
    if (!hidden && inView < MIN_IN) hidden = 'outside_viewport';
    if (!hidden && modal && !insideModal(n.owner)) { hidden = 'occluded'; unocc = 0; }
    else if (!hidden) {
      let covered = 0;
      const rows0 = rects.length === 1 ? G : Math.max(1, Math.ceil(G / rects.length));
      const whole = n.kind === 'label' || n.kind === 'icon';
      for (const r of rects) {
        if (provablyClear(r, r.el, whole)) { covered += r.w * r.h; continue; }
        let f = share(r, r.el, n.owner, G, rows0, whole);
        if (f < 1 || overlapped(r, r.el, whole)) {
          const cols = Math.max(G, Math.min(MAXC, Math.ceil(r.w / STEP)));
          const rows = Math.max(3, Math.min(MAXR, Math.ceil(r.h / STEP)));
          f = share(r, r.el, n.owner, cols, rows, whole);
        }
        covered += f * r.w * r.h;
      }
      unocc = area > 0 ? covered / area : 0;
      if (unocc < MIN_UN) hidden = 'occluded';
    }
    if (hidden) { hiddenCount++; if (hiddenCount > MAX_HIDDEN) { omitted++; continue; } }
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
  // Offline self-containedness: every external reference the document (and its frames) makes.
  const refs = [];
  const add = (kind, el, attr) => {
    const v = el.getAttribute(attr); if (!v) return;
    let abs = v; try { abs = new URL(v.trim(), el.ownerDocument.baseURI).href; } catch (e) {}
    refs.push({kind, url: v, abs});
  };
  for (const el of queryAll('link[href]')) {
    const rel = (el.getAttribute('rel') || '').toLowerCase();
    add(rel.includes('stylesheet') ? 'stylesheet' : (rel.includes('icon') ? 'icon' : (rel.includes('preload') || rel.includes('preconnect') || rel.includes('dns-prefetch') ? 'hint' : 'link')), el, 'href');
  }
  for (const el of queryAll('script[src]')) add('script', el, 'src');
  for (const el of queryAll('iframe[src], frame[src], embed[src]')) add('document', el, 'src');
  for (const el of queryAll('object[data]')) add('document', el, 'data');
  for (const el of queryAll('img[src], source[src], video[src], audio[src], input[type=image][src]')) add('media', el, 'src');
  for (const root of roots) {
    const sheets = root.nodeType === 9 ? root.styleSheets : (root.styleSheets || []);
    for (const sh of sheets) {
      let rules; try { rules = sh.cssRules; } catch (e) { continue; }
      for (const rule of rules || []) if (rule.type === CSSRule.IMPORT_RULE) refs.push({kind: 'stylesheet', url: rule.href, abs: rule.href});
    }
  }
  const se = document.scrollingElement || document.documentElement;
  return {nodes: result, refs, url: location.href, docWidth: se.scrollWidth, docHeight: se.scrollHeight,
          title: document.title || '', mode: document.compatMode, omittedHidden: omitted,
          shadowRoots: roots.filter(r => r.nodeType === 11).length, frames: frameOf.size};
}
"""

#: Injected before the screenshot: finishes or cancels animations, hides the caret, forces pointer-events on
#: (for hit testing; invisible), scrolls to the top.
SETTLE_JS = r"""
async (frames, timers) => {
  try {
    for (const a of document.getAnimations()) {
      try { const t = a.effect && a.effect.getComputedTiming(); if (t && t.iterations !== Infinity && t.endTime !== Infinity) a.finish(); else a.cancel(); } catch (e) {}
    }
  } catch (e) {}
  const st = document.createElement('style');
  // pointer-events: hit testing must see every element (invisible, so one style change serves both)
  st.textContent = '*,*::before,*::after{caret-color:transparent!important;transition:none!important;' +
                   'pointer-events:auto!important}';
  (document.head || document.documentElement).appendChild(st);
  const scrolled = [window.scrollX, window.scrollY];
  window.scrollTo(0, 0);
  const frame = () => new Promise(r => { let done = false; const f = () => { if (!done) { done = true; r(); } };
                                          requestAnimationFrame(f); setTimeout(f, 50); });
  for (let i = 0; i < frames; i++) await frame();
  if (timers && document.fonts && document.fonts.status !== 'loaded') {  // no timers run with scripts off
    await Promise.race([document.fonts.ready, new Promise(r => setTimeout(r, 300))]);
  }
  return {scrolled};
}
"""

#: One round trip: settle the page (two frames when it has scripts, for rAF-driven content), then read the
#: evidence (no visual change in between, so the screenshot can follow). It runs in a JavaScript world of its
#: own (see :func:`emukit.evaluate.render._read_isolated`). The answer is one JSON string: serialising the
#: returned object property by property costs ~0.5 ms per evidence node (a 5 MB page returns ~2000 hidden
#: regions: ~1 s), ``JSON.stringify`` and ``json.loads`` a few ms.
READ_JS = (
    "async (opts) => {\n"
    "  let scripts = document.scripts.length + document.querySelectorAll('meta[http-equiv=refresh i]').length;\n"
    "  for (const el of document.getElementsByTagName('*')) {\n"
    "    for (const a of el.attributes) if (a.name.startsWith('on')) { scripts++; break; }\n"
    "  }\n"
    "  const settle = await (" + SETTLE_JS.strip() + ")(scripts ? opts.frames : 0, opts.timers !== false);\n"
    "  const evidence = (" + EVIDENCE_JS.strip() + ")(opts);\n"
    "  evidence.scripts = scripts;\n  return JSON.stringify({settle, evidence});\n}"
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
