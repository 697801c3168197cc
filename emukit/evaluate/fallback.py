"""The C.4 text fallback: evidence read from a prediction's HTML source when rendering it failed.

Seed 002 Appendix C.4 keeps a sample whose rendering fails and scores text extracted from its source, text that
"does not have the viewport-visibility guarantees" of a rendered page. Two guarantees do not depend on
rendering, and this fallback keeps both, so that a prediction gains nothing by failing to render:

* **Hidden text never counts.** An element is hidden, with its whole subtree, when its ``hidden`` attribute,
  its inline ``style`` or *any* rule of the document's style sheets that matches it (``@media`` and
  ``@supports`` blocks included, whatever their condition; ``!important`` or a later rule showing it again
  does not undo it: the stricter reading) declares ``display:none``, ``visibility:hidden|collapse``,
  ``content-visibility:hidden``, an ``opacity`` or ``filter: opacity()`` at or below
  :data:`~emukit.evaluate.visible.MIN_OPACITY`, a zero ``font-size``, a ``scale(0)`` transform, a clip that
  leaves nothing (``clip: rect(0 0 0 0)``, ``clip-path: inset(50%)`` / ``circle(0)``), zero width or height
  with ``overflow: hidden``, or an offset of 999 px or more off the left or top edge (``left``, ``top``,
  ``margin-left``, ``margin-top``, ``text-indent``). Closed ``<details>`` (all but the summary), ``<dialog>``
  without ``open`` and ``<template>`` are hidden too. Selectors are matched with cssselect; a selector with
  dynamic pseudo-classes (``:hover``, ``:focus``, ``:checked``...) is matched without them (a superset,
  again the stricter reading); one with a pseudo-element hides only generated content, which the fallback
  never reads. Hidden text stays in the evidence as nodes whose ``hidden`` names the reason, so parsers
  skip it and reports can show it.
* **Offline self-containedness.** Every external reference of the source (style sheets, ``@import``,
  scripts, frames, objects, media, icons) is listed as the renderer lists it: ``served`` when the pinned
  CDN mirror has it, else ``unresolved`` (relative URLs resolve against ``<base href>`` or the prediction's
  own origin, which serves nothing), so a fallback sample fails the offline check exactly when its
  rendered page would have.

Text is grouped as the renderer groups it (one node per block of text, inline markup joined); ``textarea``
contents and ``input`` values are ``value`` nodes; positions are unknown (no geometry).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from emukit.evaluate.visible import (
    MIN_OPACITY,
    Evidence,
    EvidenceNode,
    ExternalRef,
    HiddenReason,
    NodeKind,
)

if TYPE_CHECKING:
    from emukit.evaluate.cdn import CdnMirror

FALLBACK_ORIGIN = "https://p0.emukit.invalid/"

BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "button", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
    "ul", "label", "option"})
SKIP_TAGS = frozenset({"script", "style", "head", "title", "template", "noscript", "svg", "math", "iframe",
                       "object", "select", "datalist"})
TEXT_INPUTS = frozenset({"", "text", "search", "email", "url", "tel", "number"})
_OFFSET_PROPS = frozenset({"left", "top", "margin-left", "margin-top", "text-indent"})
_DYNAMIC_PSEUDO = re.compile(
    r":(hover|focus|focus-within|focus-visible|active|visited|link|any-link|target|checked|indeterminate|"
    r"placeholder-shown|valid|invalid|required|optional|enabled|disabled|read-only|read-write|default|"
    r"autofill|playing|paused|open|closed|modal|popover-open|defined|user-valid|user-invalid)\b(\([^)]*\))?")
_NUMBER = re.compile(r"^([-+]?\d*\.?\d+)(%|[a-z]*)$")


# -- CSS declarations ---------------------------------------------------------------------------------------

def _length_px(value: str) -> float | None:
    m = _NUMBER.match(value.strip().lower())
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    return number * {"": 1, "px": 1, "em": 16, "rem": 16, "pt": 4 / 3, "vw": 3.6, "vh": 8}.get(unit, 1) \
        if unit != "%" else None


def _fraction(value: str) -> float | None:
    m = _NUMBER.match(value.strip().lower())
    if not m:
        return None
    number = float(m.group(1))
    return number / 100 if m.group(2) == "%" else number


def hiding_reason(declarations: dict[str, str]) -> HiddenReason | None:
    """Why a block of CSS declarations (property -> value, lower case) hides its element, or None."""
    get = declarations.get
    if get("display", "").split("!")[0].strip() == "none":
        return "display"
    if get("visibility", "").split("!")[0].strip() in ("hidden", "collapse"):
        return "visibility"
    if get("content-visibility", "").split("!")[0].strip() == "hidden":
        return "display"
    opacity = _fraction(get("opacity", "1").split("!")[0])
    if opacity is not None and opacity <= MIN_OPACITY:
        return "opacity"
    for m in re.finditer(r"opacity\(\s*([^)]*)\)", get("filter", "")):
        value = _fraction(m.group(1) or "1")
        if value is not None and value <= MIN_OPACITY:
            return "opacity"
    size = _length_px(get("font-size", "16px").split("!")[0])
    if size is not None and size <= 0:
        return "no_geometry"
    if re.search(r"scale[xy]?\(\s*0(\.0*)?\s*[,)]", get("transform", "")):
        return "no_geometry"
    clip = get("clip", "").replace(",", " ")
    if re.fullmatch(r"\s*rect\(\s*(0(px)?\s*){4}\)\s*(!important)?\s*", clip):
        return "no_geometry"
    clip_path = get("clip-path", "")
    if re.search(r"inset\(\s*(5\d|[6-9]\d|100)(\.\d+)?%", clip_path) or re.search(r"circle\(\s*0(px|%)?\s*[)a]",
                                                                                    clip_path):
        return "no_geometry"
    if get("overflow", "").split("!")[0].strip() in ("hidden", "clip"):
        for prop in ("width", "height", "max-width", "max-height"):
            px = _length_px(get(prop, "").split("!")[0]) if prop in declarations else None
            if px is not None and px <= 0:
                return "no_geometry"
    for prop in _OFFSET_PROPS & declarations.keys():
        px = _length_px(declarations[prop].split("!")[0])
        if px is not None and px <= -999:
            return "outside_viewport"
    return None


def _declarations(tokens: Any) -> dict[str, str]:
    import tinycss2

    out: dict[str, str] = {}
    for decl in tinycss2.parse_declaration_list(tokens, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out[decl.lower_name] = tinycss2.serialize(decl.value).strip().lower() + \
                (" !important" if decl.important else "")
    return out


def _rules(tokens: Any, imports: list[str]) -> Iterator[tuple[str, dict[str, str]]]:
    """(selector text, declarations) of every style rule, nested ``@media``/``@supports``/``@layer`` blocks
    included; ``@import`` URLs are appended to ``imports``."""
    import tinycss2

    for rule in tinycss2.parse_rule_list(tokens, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            yield tinycss2.serialize(rule.prelude).strip(), _declarations(rule.content)
        elif rule.type == "at-rule":
            name = rule.lower_at_keyword
            if name == "import":
                for token in rule.prelude:
                    if token.type in ("url", "string"):
                        imports.append(token.value)
                        break
                    if token.type == "function" and token.lower_name == "url":
                        strings = [a.value for a in token.arguments if a.type == "string"]
                        if strings:
                            imports.append(strings[0])
                            break
            elif name in ("media", "supports", "layer", "container", "document") and rule.content is not None:
                yield from _rules(rule.content, imports)


def _xpath_for(selector: str) -> str | None:
    from cssselect import HTMLTranslator, SelectorError
    from cssselect.xpath import ExpressionError

    if "::" in selector or re.search(r":(before|after|first-line|first-letter|marker|placeholder|selection)\b",
                                     selector):
        return None  # generated content only
    stripped = _DYNAMIC_PSEUDO.sub("", selector).strip()  # cssselect would match :hover... never
    if not stripped:
        return None
    try:
        return HTMLTranslator().css_to_xpath(stripped)
    except (SelectorError, ExpressionError, ValueError):
        return None


# -- the document ---------------------------------------------------------------------------------------------

def _hidden_elements(doc: Any, imports: list[str]) -> dict[Any, HiddenReason]:
    hidden: dict[Any, HiddenReason] = {}
    for style in doc.iter("style"):
        css = style.text_content() or ""
        for selector, decls in _rules(css, imports):
            reason = hiding_reason(decls)
            if reason is None:
                continue
            for part in _split_selectors(selector):
                xpath = _xpath_for(part)
                if xpath is None:
                    continue
                try:
                    matches = doc.xpath(xpath)
                except Exception:  # noqa: BLE001 - an XPath lxml cannot evaluate matches nothing
                    continue
                for el in matches:
                    hidden.setdefault(el, reason)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get("style"):
            reason = hiding_reason(_declarations(el.get("style")))
            if reason is not None:
                hidden.setdefault(el, reason)
        if el.get("hidden") is not None or el.tag == "template" or (el.tag == "dialog" and el.get("open") is None):
            hidden.setdefault(el, "display")
    return hidden


def _split_selectors(prelude: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(prelude):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(prelude[start:i])
            start = i + 1
    parts.append(prelude[start:])
    return [p.strip() for p in parts if p.strip()]


class _Collector:
    """Walks the parsed document in source order and groups text into block nodes."""

    def __init__(self, hidden: dict[Any, HiddenReason]) -> None:
        self.hidden = hidden
        self.chunks: list[tuple[str, NodeKind, bool, HiddenReason | None]] = []
        self._buf: list[str] = []
        self._buf_hidden: HiddenReason | None = None
        self._controls = 0

    def flush(self) -> None:
        text = "".join(self._buf)
        self._buf = []
        if text.strip():
            self.chunks.append((text, "control" if self._controls else "text", False, self._buf_hidden))

    def text(self, data: str | None, hidden: HiddenReason | None) -> None:
        if not data:
            return
        if data.strip() and hidden != self._buf_hidden:
            if "".join(self._buf).strip():
                self.flush()
            self._buf_hidden = hidden
        self._buf.append(data)

    def walk(self, el: Any, hidden: HiddenReason | None) -> None:
        """``el``'s subtree, then its tail (text after it, which belongs to the parent: ``hidden``)."""
        if isinstance(el.tag, str):
            self._element(el, hidden or self.hidden.get(el))
        self.text(el.tail, hidden)

    def _element(self, el: Any, own: HiddenReason | None) -> None:
        tag = el.tag
        if tag in SKIP_TAGS:
            self.flush()
            return
        block = tag in BLOCK_TAGS
        if block:
            self.flush()
        if tag == "input":
            kind = (el.get("type") or "text").lower()
            value = el.get("value") or ""
            if value.strip():
                self.flush()
            if kind in TEXT_INPUTS and value.strip():
                self.chunks.append((value, "value", True, own))
            elif kind in ("button", "submit", "reset") and value.strip():
                self.chunks.append((value, "control", False, own))
            return
        if tag == "textarea":
            self.flush()
            value = el.text_content() or ""
            if value.strip():
                self.chunks.append((value, "value", True, own))
            return
        if tag == "button":
            self._controls += 1
        if tag == "details" and el.get("open") is None and own is None:
            # a closed details element shows its first summary only (its other children and loose text not)
            summary = next((c for c in el if c.tag == "summary"), None)
            self.text(el.text, "display")
            for child in el:
                if child is summary:
                    self._element(child, self.hidden.get(child))
                    self.text(child.tail, "display")
                else:
                    self.walk(child, "display")
        else:
            self.text(el.text, own)
            for child in el:
                self.walk(child, own)
        if tag == "button":
            self.flush()
            self._controls -= 1
        if block:
            self.flush()


def _external(doc: Any, imports: list[str], cdn: CdnMirror | None) -> list[ExternalRef]:
    base = FALLBACK_ORIGIN
    for el in doc.iter("base"):
        if el.get("href"):
            base = urllib.parse.urljoin(FALLBACK_ORIGIN, el.get("href").strip())
            break
    refs: list[tuple[str, str]] = []
    for el in doc.iter("link"):
        if not el.get("href"):
            continue
        rel = (el.get("rel") or "").lower()
        kind = "stylesheet" if "stylesheet" in rel else "icon" if "icon" in rel else \
            "hint" if any(h in rel for h in ("preload", "preconnect", "dns-prefetch", "prefetch")) else "link"
        refs.append((kind, el.get("href")))
    for tag, attr, kind in (("script", "src", "script"), ("iframe", "src", "document"), ("frame", "src", "document"),
                            ("embed", "src", "document"), ("object", "data", "document"), ("img", "src", "media"),
                            ("source", "src", "media"), ("video", "src", "media"), ("audio", "src", "media")):
        refs.extend((kind, el.get(attr)) for el in doc.iter(tag) if el.get(attr))
    refs.extend(("stylesheet", url) for url in imports)
    out: list[ExternalRef] = []
    seen: set[str] = set()
    for kind, raw in refs:
        url = raw.strip()
        if not url or url.lower().startswith(("data:", "blob:", "about:", "javascript:", "#")) or kind == "hint":
            continue
        try:
            absolute = urllib.parse.urljoin(base, url)
        except ValueError:
            absolute = url
        if absolute in seen:
            continue
        seen.add(absolute)
        served = cdn is not None and cdn.resolve(absolute) is not None
        out.append(ExternalRef(url=absolute, kind=kind, status="served" if served else "unresolved"))
    return out


def fallback_evidence(source: str, viewport: tuple[int, int], cdn: CdnMirror | None = None) -> Evidence:
    """C.4 fallback evidence for ``source`` (see the module docstring): one node per block of text in source
    order, hidden text marked hidden, and the document's external references for the offline check."""
    import lxml.html
    from lxml import etree

    try:
        doc = lxml.html.document_fromstring(source or "<html></html>")
    except (etree.ParserError, ValueError):
        try:
            doc = lxml.html.document_fromstring(source.encode("utf-8", errors="replace"))
        except (etree.ParserError, ValueError):
            return Evidence(nodes=(), viewport=viewport, source="fallback")
    imports: list[str] = []
    hidden = _hidden_elements(doc, imports)
    collector = _Collector(hidden)
    body = doc.find("body")
    collector.walk(body if body is not None else doc, None)
    collector.flush()
    nodes = tuple(EvidenceNode(text=re.sub(r"\s+", " ", text).strip(), kind=kind, editable=editable,
                               control=kind == "control", owner=i, in_viewport=1.0, unoccluded=1.0, hidden=reason)
                  for i, (text, kind, editable, reason) in enumerate(collector.chunks))
    return Evidence(nodes=nodes, viewport=viewport, source="fallback", external=tuple(_external(doc, imports, cdn)))
