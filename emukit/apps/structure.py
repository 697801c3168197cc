"""Compare a uiautomator hierarchy dump with a structure fixture written from the real app's layout sources.

A fixture (in this project: ``tests/fixtures/real/hierarchy/<app>/<screen>.yaml``) describes only the elements a profile touches,
as a partial tree::

    screen: view_mode
    sources:
      - {repo: gsantner/markor, commit: ab2175460680eb4a914b6006b9c962756b2067d2,
         path: app/src/main/res/layout/document__fragment__view.xml}
    nodes:
      - class: android.webkit.WebView
        resource_id: net.gsantner.markor:id/document__fragment_view_webview
        children:
          - {class: android.widget.TextView, text_re: "^Kestrel43$"}

A node matches a dump element when every field it gives is equal (``class``, ``resource_id``, ``text``,
``description``, ``package``) or fully matches its regular expression (``text_re``, ``description_re``,
``resource_id_re``); its ``children`` must match *descendants* of that element (not necessarily direct
children), each a different element, in document order when the node says ``ordered: true``.
``min_count: N`` asks for at least N distinct elements matching the node (a grid's cards). Sibling nodes
match distinct elements.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

FIELDS = {"class": "class", "resource_id": "resource-id", "text": "text", "description": "content-desc",
          "package": "package"}
REGEX_FIELDS = {"text_re": "text", "description_re": "content-desc", "resource_id_re": "resource-id",
                "class_re": "class"}
NODE_KEYS = set(FIELDS) | set(REGEX_FIELDS) | {"children", "ordered", "min_count", "why"}


def load_fixture(path: Path | str) -> dict[str, Any]:
    """A fixture, checked: it names its sources and every node key is known."""
    path = Path(path)
    doc = yaml.safe_load(path.read_text())
    if not isinstance(doc, dict) or not doc.get("nodes"):
        raise ValueError(f"{path}: a fixture is a mapping with a non-empty 'nodes' list")
    sources = doc.get("sources") or []
    if not sources or not all(isinstance(s, dict) and {"repo", "commit", "path"} <= set(s) or
                              isinstance(s, dict) and "capture" in s for s in sources):
        raise ValueError(f"{path}: 'sources' must list {{repo, commit, path}} (or {{capture: ...}}) entries")

    def check(node: Any, where: str) -> None:
        if not isinstance(node, dict):
            raise TypeError(f"{path}: {where}: a node is a mapping")
        unknown = set(node) - NODE_KEYS
        if unknown:
            raise ValueError(f"{path}: {where}: unknown key(s) {', '.join(sorted(unknown))}")
        if not (set(node) & (set(FIELDS) | set(REGEX_FIELDS))):
            raise ValueError(f"{path}: {where}: a node must give at least one field to match")
        for i, child in enumerate(node.get("children") or []):
            check(child, f"{where}.children[{i}]")

    for i, node in enumerate(doc["nodes"]):
        check(node, f"nodes[{i}]")
    return doc


def _fields_match(spec: dict[str, Any], el: ET.Element) -> bool:
    for key, attr in FIELDS.items():
        if key in spec and el.get(attr, "") != str(spec[key]):
            return False
    for key, attr in REGEX_FIELDS.items():
        if key in spec and not re.fullmatch(str(spec[key]), el.get(attr, ""), re.DOTALL):
            return False
    return True


def _describe(spec: dict[str, Any]) -> str:
    parts = [f"{k}={spec[k]!r}" for k in (*FIELDS, *REGEX_FIELDS) if k in spec]
    return "{" + ", ".join(parts) + "}"


class _Matcher:
    def __init__(self, root: ET.Element) -> None:
        self.order = {id(el): i for i, el in enumerate(root.iter("node"))}
        self.problems: list[str] = []

    def candidates(self, spec: dict[str, Any], scope: list[ET.Element]) -> list[ET.Element]:
        return [el for el in scope if _fields_match(spec, el)]

    def match_all(self, specs: list[dict[str, Any]], scope: list[ET.Element], ordered: bool, path: str,
                  used: set[int]) -> bool:
        """Match each spec to distinct elements of ``scope`` (backtracking over the choices)."""
        if not specs:
            return True
        spec, rest = specs[0], specs[1:]
        need = int(spec.get("min_count", 1))
        found = [el for el in self.candidates(spec, scope) if id(el) not in used]
        good = [el for el in found if self.match_children(spec, el, f"{path} > {_describe(spec)}")]
        if len(good) < need:
            why = "no element" if not found else f"{len(found)} element(s) with these fields, but their " \
                                                 f"descendants do not match" if not good else \
                f"only {len(good)} element(s), at least {need} wanted"
            self.problems.append(f"{path} > {_describe(spec)}: {why}")
            return False
        if need > 1:
            chosen = good[:need]
            return self.match_all(rest, scope, ordered, path, used | {id(e) for e in chosen})
        for el in good:
            rest_scope = scope
            if ordered:
                rest_scope = [e for e in scope if self.order[id(e)] > self.order[id(el)]]
            if self.match_all(rest, rest_scope, ordered, path, used | {id(el)}):
                return True
        return False

    def match_children(self, spec: dict[str, Any], el: ET.Element, path: str) -> bool:
        children = spec.get("children") or []
        if not children:
            return True
        descendants = [d for d in el.iter("node") if d is not el]
        return self.match_all(children, descendants, bool(spec.get("ordered")), path, set())


def match_fixture(xml_dump: str, fixture: Path | str | dict[str, Any]) -> list[str]:
    """Problems found matching the dump against the fixture (empty: it matches)."""
    doc = fixture if isinstance(fixture, dict) else load_fixture(fixture)
    root = ET.fromstring(xml_dump)
    matcher = _Matcher(root)
    if matcher.match_all(list(doc["nodes"]), list(root.iter("node")), bool(doc.get("ordered")),
                         str(doc.get("screen", "screen")), set()):
        return []
    return matcher.problems or ["the fixture does not match"]
