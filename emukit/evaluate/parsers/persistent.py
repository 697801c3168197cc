"""Persistent Artifact readout (seed 002 Appendix C.4): is the tracked file on the queried Files surface?

Filename-search probe (``probe="search"``):

* An explicit visible "No matches" state (``no matches`` / ``no results`` in a visible text) resolves the
  prediction as **absent**.
* Otherwise the target must occur in a visible *result* text node. The query echo is not a result: an
  occurrence in a field value (``input``/``textarea``), in a search-role element, or — when the search field is
  drawn as plain text — the topmost occurrence when it lies above the Downloads heading (or, without a
  heading, in the top 20 % of the viewport) is the echo. **present** needs another, separate occurrence.
* Surface gates: the Downloads scope is visibly identified (a visible text naming ``Download(s)``), and a
  plausible multi-row software keyboard is visible (the three QWERTY letter rows, top to bottom).

Open-folder probe (``probe="folder"``, ``folder`` = the device path opened):

* **present** iff the target occurs in a visible node of the folder listing (the nodes below the lowest
  scope heading/breadcrumb in the upper half of the viewport; scope nodes themselves are not listing rows).
* Surface gates: the primary folder scope names the queried folder (a visible title, ``Files in <folder>``
  heading or breadcrumb ending in it) and no visible ``Files in <other>`` heading or breadcrumb ending
  elsewhere contradicts it; the parent scope agrees (a visible parent label or a breadcrumb ``parent ›
  folder``; not required for the roots Downloads and shared storage, which DocumentsUI titles with the
  device name); no visible software keyboard
  (two or more QWERTY rows); no duplicated file/folder rows (a file-like name or the target shown by two
  listing nodes).

Artifact names are compared after C.4 normalisation by string containment. Offline self-containedness is a
surface gate of both probes.

The judge: SemCorrect when the parsed result is the branch's ``result`` (present or absent). The family's
:class:`PersistentReader` also gives the pair's probe context (the tracked paths, probe kind and artifact:
:func:`emukit.evaluate.pairs.persistent_context`) to the state interface and the estimator.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from emukit.evaluate.parsers.base import (
    FamilyReader,
    ParsedOutcome,
    describe,
    has_keyboard,
    keyboard_rows,
    label_nodes,
    offline_check,
    register_reader,
    require,
    text_nodes,
)
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.visible import Evidence, EvidenceNode

if TYPE_CHECKING:
    from emukit.evaluate.pairs import TaskSource

SHARED = "/storage/emulated/0"
DOWNLOAD = SHARED + "/Download"
NO_MATCHES = re.compile(r"\bno (matches|results)\b")
DOWNLOADS_SCOPE = re.compile(r"\bdownloads?\b")
SEARCH_ROLES = frozenset({"searchbox", "search", "combobox"})
CRUMB_SEP = re.compile(r"\s*(?:>|›|»|/|\\|→|\|)\s*")
FILE_LIKE = re.compile(r"\S\.[a-z0-9]{1,5}$")
#: DocumentsUI titles the shared-storage root with Settings.Global.DEVICE_NAME (ExternalStorageProvider; on the
#: pinned Pixel 6 API 34 AVD the model name ``sdk_gphone64_x86_64``, see docs/real-devices.md) and only without
#: one with "Internal storage"; a pair's context may name the root label its device showed (``root_label``).
PINNED_DEVICE_NAME = "sdk_gphone64_x86_64"
ROOT_ALIASES = {SHARED: {"internal storage", "internal shared storage", "sdcard", "phone storage",
                         PINNED_DEVICE_NAME},
                DOWNLOAD: {"download", "downloads"}}


def aliases(path: str, root_label: str | None = None) -> set[str]:
    """Normalised labels the Files app may show for a folder path (``root_label``: the device's own name for
    the shared-storage root)."""
    path = path.rstrip("/") or "/"
    if path in ROOT_ALIASES:
        extra = {normalize_text(root_label)} if root_label and path == SHARED else set()
        return set(ROOT_ALIASES[path]) | extra
    return {normalize_text(posixpath.basename(path))}


def parse_persistent(evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
    """Read present/absent for ``context = {"target", "probe": "search"|"folder", "folder" (folder probe)}``."""
    target = str(require(context, "target", "persistent"))
    probe = context.get("probe") or "search"
    if probe == "folder":
        return _folder(evidence, target, str(require(context, "folder", "persistent")),
                       context.get("root_label"))
    return _search(evidence, target)


def _outcome(result: str, probe: str, target: str) -> dict[str, Any]:
    return {"result": result, "probe": probe, "target": target}


def _search(ev: Evidence, target: str) -> ParsedOutcome:
    t = normalize_text(target)
    nodes = text_nodes(ev)
    vh = ev.viewport[1]
    heading = next((n for n in nodes if re.search(r"\bin downloads?\b", n.norm) and t not in n.norm
                    and not NO_MATCHES.search(n.norm)), None)
    occ = [n for n in nodes if t and t in n.norm]
    echo = [n for n in occ if n.kind == "value" or n.role in SEARCH_ROLES]
    if occ and not echo:
        first = occ[0]
        if ev.fallback:
            ahead = heading is None or nodes.index(first) < nodes.index(heading)
        else:
            ahead = first.y < heading.y if heading is not None else first.y < 0.2 * vh
        if ahead:
            echo = [first]
    results = [n for n in occ if n not in echo and n.kind != "value"]
    empty = [n for n in nodes if NO_MATCHES.search(n.norm)]
    scope = [n for n in label_nodes(ev) if DOWNLOADS_SCOPE.search(n.norm) and n not in echo]
    checks = {"downloads_scope": bool(scope), "keyboard": has_keyboard(ev), **offline_check(ev)}
    details = {"query_echo": describe(echo), "results": describe(results), "empty_state": describe(empty),
               "scope": describe(scope, 3), "keyboard_rows": keyboard_rows(ev)}
    if empty:
        reason = "explicit 'No matches' state" + (" (a result-like row is also visible)" if results else "")
        return ParsedOutcome("persistent", _outcome("absent", "search", target), True, checks, reason, ev.source,
                             details)
    if results:
        return ParsedOutcome("persistent", _outcome("present", "search", target), True, checks,
                             "the target is shown in a result text node separate from the query echo", ev.source,
                             details)
    reason = ("the target appears only as the query echo" if echo else "the target is not shown") + \
        "; no result row"
    return ParsedOutcome("persistent", _outcome("absent", "search", target), True, checks, reason, ev.source, details)


def _crumbs(n: EvidenceNode) -> list[str]:
    parts = [p for p in CRUMB_SEP.split(n.norm) if p]
    return parts if len(parts) >= 2 else []


def _folder(ev: Evidence, target: str, folder: str, root_label: str | None = None) -> ParsedOutcome:
    t = normalize_text(target)
    folder = folder.rstrip("/") or "/"
    mine = aliases(folder, root_label)
    is_root = folder in ROOT_ALIASES
    parent = posixpath.dirname(folder)
    theirs = aliases(parent, root_label)
    nodes = text_nodes(ev)
    scope_nodes: list[EvidenceNode] = []
    folder_ok = parent_ok = False
    contradictions: list[str] = []
    for n in nodes:
        crumbs = _crumbs(n)
        heading = re.fullmatch(r"files (?:in|on) (.+)", n.norm)
        if heading:
            scope_nodes.append(n)
            if heading.group(1) in mine:
                folder_ok = True
            else:
                contradictions.append(n.text)
        elif crumbs and (set(crumbs) & (mine | theirs)):
            scope_nodes.append(n)
            if crumbs[-1] in mine:
                folder_ok = True
                if len(crumbs) >= 2 and crumbs[-2] in theirs:
                    parent_ok = True
            else:
                contradictions.append(n.text)
        elif n.norm in mine:
            scope_nodes.append(n)
            folder_ok = True
        elif n.norm in theirs:
            scope_nodes.append(n)
            parent_ok = True
    if ev.fallback:
        last = max((nodes.index(n) for n in scope_nodes), default=-1)
        listing = [n for i, n in enumerate(nodes) if i > last and n not in scope_nodes]
    else:
        floor = max((n.y for n in scope_nodes if n.y < 0.5 * ev.viewport[1]), default=-1.0)
        listing = [n for n in nodes if n.y > floor and n not in scope_nodes]
    hits = [n for n in listing if t and t in n.norm and n.kind != "value"]
    counts = Counter(n.norm for n in listing if FILE_LIKE.search(n.norm) or n.norm == t)
    duplicates = sorted(k for k, c in counts.items() if c > 1)
    keyboard = keyboard_rows(ev)
    checks = {"folder_scope": folder_ok and not contradictions, "parent_scope": is_root or parent_ok,
              "unique_listing": not duplicates, "no_keyboard": len(keyboard) < 2, **offline_check(ev)}
    details = {"scope": describe(scope_nodes, 4), "contradicting_scope": contradictions[:4],
               "rows": describe(hits), "duplicates": duplicates[:8], "keyboard_rows": keyboard}
    result = "present" if hits else "absent"
    reason = (f"the target is listed in the folder ({len(hits)} row{'s' if len(hits) != 1 else ''})" if hits
              else "the target is not in the visible folder listing")
    return ParsedOutcome("persistent", _outcome(result, "folder", target), True, checks, reason, ev.source, details)


@register_reader
class PersistentReader(FamilyReader):
    """Persistent Artifact: the probe context from the pair, present/absent from the Files surface."""

    family = "persistent"
    invalid_outcome: ClassVar = {"result": "invalid"}
    judges_invalid = True  # an invalid reading is never the target, and the reason names it

    def interface_context(self, pair: TaskSource) -> dict[str, Any]:
        from emukit.evaluate.pairs import persistent_context

        return persistent_context(pair)

    def estimator_task(self, pair: TaskSource) -> dict[str, Any]:
        return dict(self.interface_context(pair) or {})

    def expected_context(self, outcome: Mapping[str, Any], sibling_outcome: Mapping[str, Any],
                         state: Mapping[str, Any] | None, sibling_state: Mapping[str, Any] | None,
                         known_items: list[str] | None) -> dict[str, Any]:
        return {k: outcome.get(k) for k in ("target", "probe", "folder", "scope") if outcome.get(k) is not None}

    def parse(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        return parse_persistent(evidence, context)

    def semantics(self, got: Mapping[str, Any], expected_outcome: Mapping[str, Any]) -> tuple[bool, str]:
        want = self.target(expected_outcome)
        return got.get("result") == want and want in ("present", "absent"), \
            f"read {got.get('result')}, expected {want}"
