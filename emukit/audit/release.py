"""Release audit of the stored strict pairs (seed 002 Appendix C.1: "all 25 declared templates are present in
the released records, all four family-specific validators return PASS").

Nothing here needs a device: every pair is re-checked from its stored artifacts. For each pair:

* ``artifacts``: every referenced screenshot/hierarchy exists and hashes to its name;
* ``stable_boundary``: the boundary capture equals its recapture (both branches);
* ``observation_match``: the boundary screenshot and hierarchy *bytes* of A and B are equal, and so are the
  shared actions (model-visible part);
* ``request_hashes``: the observation-only request hashes recomputed from each branch's stored boundary PNG
  (:func:`emukit.builder.pair.request_hashes`) equal the stored ones, for A and for B;
* ``outcome``: the semantic outcome re-read from the stored next-observation hierarchy (the builder's own
  reading, :mod:`emukit.builder.outcomes`, over the XML) equals the stored outcome;
* ``validator``: :func:`emukit.builder.validate.validate_branch` passes on the re-read outcome;
* ``state_differs`` / ``outcome_differs``: criteria 3 and 4 on the stored states and re-read outcomes;
* ``recorded``: the five stored acceptance flags are all true;
* ``template``: the template version the pair was built from is known (store, else templates folder).

Template coverage: each declared template (seed 002 Table 6) has a YAML file in the templates folder and at
least one stored pair.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from emukit.actions import Element
from emukit.apps.registry import package_of
from emukit.apps.selectors import SelectorTable, table, table_for
from emukit.builder import outcomes as outcome_reading
from emukit.builder.pair import request_hashes
from emukit.builder.validate import outcomes_differ, states_differ, validate_branch
from emukit.errors import ConfigError
from emukit.families import FAMILIES, selected, unit
from emukit.hierarchy import elements_of
from emukit.provenance import BuiltOn
from emukit.records import CRITERIA, BranchRecord, Observation, PairRecord
from emukit.store import ArtifactError, Store
from emukit.store.convert import HIERARCHY_EXT, SCREENSHOT_EXT
from emukit.templates.loader import load_template
from emukit.templates.sampler import substitute
from emukit.templates.schema import Template


def declared_templates() -> dict[str, tuple[str, ...]]:
    """Seed 002 Table 6: the 25 causal templates of the release, per family (each unit's ``table6_templates``)."""
    return {f: unit(f).table6_templates for f in FAMILIES}


CHECKS = ("artifacts", "stable_boundary", "observation_match", "request_hashes", "outcome", "validator",
          "state_differs", "outcome_differs", "recorded", "template")


# ------------------------------------------------------------------------------------------- pure readings
def elements_from_xml(xml: str) -> list[Element]:
    """Every node of a stored hierarchy as an Element (document order), as ``Driver.elements`` reads it."""
    return elements_of(xml)


def pinned_table(app: str) -> SelectorTable:
    """The pinned build's selector table of ``app`` (pairs that recorded no app builds are re-read with it)."""
    return table(package_of(app))


def recorded_tables(built_on: BuiltOn) -> Callable[[str], SelectorTable]:
    """The selector tables a pair is re-read with: for each app, the table of the build the pair recorded
    (its versionCode, else the recorded API level for an app shipped in the image); the pinned table for a pair
    that recorded nothing (stored before builds were kept) or did not record that app. ConfigError when the
    recorded build has no table (a build emukit was never taught)."""
    if not built_on.known:
        return pinned_table

    def tables(app: str) -> SelectorTable:
        package = package_of(app)
        build = built_on.apps.get(package)
        if build is None:
            return table(package)
        return table_for(package, version_code=build.version_code, sdk=built_on.api_level)

    return tables


def outcome_from_xml(family: str, spec: dict[str, Any], xml: str, stored_outcome: dict[str, Any] | None = None,
                     stored_evidence: dict[str, Any] | None = None, built_on: BuiltOn | None = None,
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(outcome, evidence) of the shared action, read from the next-observation hierarchy alone.

    The same readings as :func:`emukit.builder.outcomes.read_outcome`, with the selector tables of the app
    builds the pair recorded (:func:`recorded_tables`; the pinned builds' when ``built_on`` is None or unknown);
    the only parts that came from a device probe at build time (Ordered Collection: the collection type and the
    database order after the action) are taken from the stored outcome/evidence, so what the surface shows is
    still re-read from the XML.
    """
    tables = recorded_tables(built_on) if built_on is not None else pinned_table
    return outcome_reading.stored_outcome(family, spec, xml, tables, stored_outcome, stored_evidence)


# ------------------------------------------------------------------------------------------ templates
class TemplateResolver:
    """The template a pair was built from: the stored source for (name, hash), else the template search
    path's file (``folder``: one folder or several, merged with ``$EMUKIT_TEMPLATES`` and the shipped
    templates) when its content hash matches. Files are parsed only when needed (YAML parsing is slow)."""

    def __init__(self, store: Store, folder: Path | list[Path] | None = None) -> None:
        from emukit.templates.loader import template_folders

        self.store = store
        self.roots = template_folders([folder] if isinstance(folder, Path) else folder)
        self._cache: dict[tuple[str, str], Template | None] = {}
        self._paths: dict[str, Path] | None = None

    def paths(self) -> dict[str, Path]:
        """Template name (file stem, as the loader requires) -> file, for every YAML under the folder."""
        if self._paths is None:
            from emukit import resources

            self._paths = resources.files_by_stem("template", self.roots, recursive=True)
        return self._paths

    def get(self, name: str, content_hash: str) -> Template | None:
        key = (name, content_hash)
        if key not in self._cache:
            self._cache[key] = self._resolve(name, content_hash)
        return self._cache[key]

    def _resolve(self, name: str, content_hash: str) -> Template | None:
        source = self.store.template_source(name, content_hash)
        if source:
            try:
                data = yaml.load(source, Loader=_YAML_LOADER)
                t = Template.model_validate({**data, "source_path": f"store:{name}@{content_hash[:12]}"})
                if t.content_hash() == content_hash:
                    return t
            except Exception:  # noqa: BLE001 - an unreadable stored source: fall back to the folder
                source = None
        path = self.paths().get(name)
        if path is None:
            return None
        try:
            t = load_template(path)
        except ConfigError:
            return None
        return t if t.content_hash() == content_hash else None


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# ------------------------------------------------------------------------------------------ one pair
@dataclass
class PairCheck:
    pair_id: str
    family: str
    template: str
    problems: list[tuple[str, str]] = field(default_factory=list)  # (check, message)
    built_on: BuiltOn = field(default_factory=BuiltOn.unknown)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, check: str, message: str) -> None:
        self.problems.append((check, message))


def _refs(branch: BranchRecord) -> list[tuple[str, str, str]]:
    """(what, sha, ext) of every artifact a branch refers to."""
    out = []
    for i, step in enumerate(branch.history):
        out += [(f"history[{i}] screenshot", step.observation.screenshot, SCREENSHOT_EXT),
                (f"history[{i}] hierarchy", step.observation.hierarchy, HIERARCHY_EXT)]
    for what, obs in (("boundary", branch.boundary_observation), ("boundary recapture", branch.boundary_recaptured),
                      ("next", branch.next_observation)):
        out += [(f"{what} screenshot", obs.screenshot, SCREENSHOT_EXT),
                (f"{what} hierarchy", obs.hierarchy, HIERARCHY_EXT)]
    return out


def check_pair(store: Store, pair: PairRecord, template: Template | None,
               verified: dict[tuple[str, str], str | None] | None = None) -> PairCheck:
    """Re-check one stored pair from its artifacts (see the module docstring for the checks). ``verified``
    caches artifact verdicts across pairs (sha, ext) -> error or None."""
    result = PairCheck(pair.pair_id, pair.family, pair.template, built_on=pair.built_on)
    verified = {} if verified is None else verified
    hashed: dict[tuple[str, str], dict[str, str]] = {}  # request hashes are a pure function of (PNG, action)
    branches = pair.branches
    if set(branches) != {"A", "B"}:
        result.add("recorded", f"branches {sorted(branches)}, expected A and B")
        return result

    # artifacts: existence and content hash (each object checked once per audit)
    for name, br in sorted(branches.items()):
        for what, sha, ext in _refs(br):
            if (sha, ext) not in verified:
                try:
                    store.artifacts.verify(sha, ext)
                    verified[(sha, ext)] = None
                except ArtifactError as exc:
                    verified[(sha, ext)] = str(exc)
            if verified[(sha, ext)]:
                result.add("artifacts", f"branch {name} {what}: {verified[(sha, ext)]}")

    def read(obs: Observation, part: str) -> bytes | None:
        ext = SCREENSHOT_EXT if part == "screenshot" else HIERARCHY_EXT
        sha = getattr(obs, part)
        if verified.get((sha, ext)):
            return None
        try:
            return store.artifacts.get(sha, ext)
        except ArtifactError:
            return None

    a, b = branches["A"], branches["B"]
    # criterion 1: stable boundary
    for name, br in (("A", a), ("B", b)):
        if br.boundary_observation != br.boundary_recaptured:
            result.add("stable_boundary", f"branch {name}: boundary and its recapture differ")
    # criterion 2: matched model-visible condition (bytes, not only hashes) and shared action
    for part in ("screenshot", "hierarchy"):
        da, db = read(a.boundary_observation, part), read(b.boundary_observation, part)
        if da is None or db is None:
            result.add("observation_match", f"boundary {part} cannot be read (see artifacts)")
        elif da != db:
            result.add("observation_match", f"boundary {part} bytes of A and B differ")
    if a.shared_action.canonical() != b.shared_action.canonical():
        result.add("observation_match", f"shared actions differ: {a.shared_action.canonical()} vs "
                                        f"{b.shared_action.canonical()}")
    if a.shared_action.canonical() != pair.shared_action.canonical():
        result.add("observation_match", "branch A's shared action differs from the pair's")
    # request hashes recomputed from the stored boundary PNGs
    recomputed: dict[str, dict[str, str]] = {}
    for name, br in (("A", a), ("B", b)):
        png = read(br.boundary_observation, "screenshot")
        if png is None:
            result.add("request_hashes", f"branch {name}: boundary screenshot cannot be read")
            continue
        key = (br.boundary_observation.screenshot, br.shared_action.model_dump_json(exclude={"elapsed_ms"}))
        try:
            if key not in hashed:  # A and B share the PNG and action when they match: encode once
                hashed[key] = request_hashes(png, br.shared_action, pair.family, list(pair.request_hashes) or None)
            recomputed[name] = hashed[key]
        except Exception as exc:  # noqa: BLE001 - a request that cannot be built is a failure to report
            result.add("request_hashes", f"branch {name}: cannot build the request: {exc}")
            continue
        for fmt, digest in recomputed[name].items():
            if pair.request_hashes.get(fmt) != digest:
                result.add("request_hashes", f"branch {name} {fmt}: recomputed {digest[:12]} != stored "
                                             f"{str(pair.request_hashes.get(fmt))[:12]}")
    if len(recomputed) == 2 and recomputed["A"] != recomputed["B"]:
        result.add("request_hashes", "A and B request hashes differ")
    # recorded acceptance flags
    failed = [c for c in CRITERIA if not getattr(pair.validation, c)]
    if failed:
        result.add("recorded", f"stored validation fails {', '.join(failed)}")
    # template-dependent checks: outcome re-reading and the family validator
    if template is None:
        result.add("template", f"template {pair.template} @ {pair.template_hash[:12]} is neither in the store "
                               "nor in the templates folder")
        return result

    def sub(obj: Any) -> Any:
        return substitute(obj, pair.params, f"{pair.template} ({pair.pair_id})")

    spec = sub(template.outcome.model_dump(exclude_none=True))
    wait = float(sub(template.shared_action.seconds) or 0) if template.shared_action.type == "wait" else 0.0
    reread: dict[str, dict[str, Any]] = {}
    for name, br in (("A", a), ("B", b)):
        xml = read(br.next_observation, "hierarchy")
        if xml is None:
            result.add("outcome", f"branch {name}: next-observation hierarchy cannot be read")
            continue
        try:
            outcome, evidence = outcome_from_xml(pair.family, spec, xml.decode(), br.outcome, br.outcome_evidence,
                                                 built_on=pair.built_on)
        except (ET.ParseError, ValueError, ConfigError) as exc:
            result.add("outcome", f"branch {name}: cannot read the outcome from the hierarchy: {exc}")
            continue
        reread[name] = outcome
        if outcome != br.outcome:
            result.add("outcome", f"branch {name}: stored outcome {br.outcome} but the stored next observation "
                                  f"shows {outcome}")
        problems = validate_branch(pair.family, br.state, outcome, {**br.outcome_evidence, **evidence}, spec,
                                   sub(template.expect[pair.roles[name]].model_dump()), wait)  # type: ignore[index]
        for p in problems:
            result.add("validator", f"branch {name}: {p}")
    if not states_differ(a.state, b.state):
        result.add("state_differs", f"A and B have the same state {a.state}")
    if len(reread) == 2 and not outcomes_differ(pair.family, reread["A"], reread["B"]):
        result.add("outcome_differs", f"A and B show the same outcome {reread['A']}")
    return result


# ------------------------------------------------------------------------------------------ the audit
@dataclass
class TemplateCoverage:
    template: str
    family: str
    declared: bool
    in_folder: bool
    stored: int

    @property
    def ok(self) -> bool:
        return not self.declared or (self.in_folder and self.stored > 0)


@dataclass
class ReleaseReport:
    coverage: list[TemplateCoverage]
    pairs: list[PairCheck]
    families: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.coverage) and all(p.ok for p in self.pairs)

    def missing(self) -> list[TemplateCoverage]:
        return [c for c in self.coverage if not c.ok]

    def by_family(self) -> dict[str, dict[str, Any]]:
        """family -> {pairs, pass, fail, checks: Counter of failing checks (one per pair and check)}."""
        out: dict[str, dict[str, Any]] = {f: {"pairs": 0, "pass": 0, "fail": 0, "checks": Counter()}
                                          for f in self.families}
        for p in self.pairs:
            row = out.setdefault(p.family, {"pairs": 0, "pass": 0, "fail": 0, "checks": Counter()})
            row["pairs"] += 1
            row["pass" if p.ok else "fail"] += 1
            row["checks"].update({check for check, _ in p.problems})
        return out

    def family_ok(self, family: str) -> bool:
        row = self.by_family().get(family, {"pairs": 0, "fail": 0})
        return row["fail"] == 0 and all(c.ok for c in self.coverage if c.family == family)

    def by_built_on(self) -> list[tuple[BuiltOn, int, int]]:
        """(provenance, pairs, failing pairs) for each device kind, system build and set of app builds the
        audited pairs were built on, most pairs first: what a release mixes."""
        counts: Counter[str] = Counter()
        failing: Counter[str] = Counter()
        seen: dict[str, BuiltOn] = {}
        for p in self.pairs:
            built_on = p.built_on
            key = built_on.model_dump_json()
            seen.setdefault(key, built_on)
            counts[key] += 1
            failing[key] += 0 if p.ok else 1
        return [(seen[key], n, failing[key]) for key, n in counts.most_common()]


def audit_release(store: Store, *, templates_folder: Path | list[Path] | None = None, family: str | None = None,
                  templates: list[str] | None = None,
                  on_pair: Callable[[PairCheck], None] | None = None, kinds: tuple[str, ...] = (),
                  app_builds: tuple[tuple[str, int], ...] = ()) -> ReleaseReport:
    """Run the release audit over the stored pairs. Each pair is re-read with the selector tables of the app
    builds it recorded.

    Args:
        store: the store whose pairs are audited.
        templates_folder: where the templates are read (default: the shipped ones and ``EMUKIT_TEMPLATES``).
        family: only this family's pairs and coverage.
        templates: only these templates; then only they must be present.
        on_pair: called with each pair's check (progress).
        kinds: only the pairs built on these device kinds (:data:`emukit.provenance.DEVICE_KINDS`).
        app_builds: only the pairs built with these ``(package, versionCode)`` app builds
            (:func:`emukit.provenance.selects`).

    Returns:
        Every pair's check, each template's coverage, and what the pairs were built on.
    """
    fam = selected(family)
    declared_by = declared_templates()
    resolver = TemplateResolver(store, templates_folder)
    in_folder = resolver.paths()
    summary = store.summary()
    wanted_families = (fam,) if fam else FAMILIES
    coverage: list[TemplateCoverage] = []
    for f in wanted_families:
        for name in declared_by[f]:
            if templates and name not in templates:
                continue
            coverage.append(TemplateCoverage(name, f, True, name in in_folder,
                                             summary[name].accepted if name in summary else 0))
    declared = {n for names in declared_by.values() for n in names}
    for name, s in summary.items():  # stored templates the release does not declare: listed, not required
        if name not in declared and s.accepted and (fam is None or s.family == fam) \
                and (not templates or name in templates):
            coverage.append(TemplateCoverage(name, s.family, False, name in in_folder, s.accepted))
    if templates:
        unknown = set(templates) - {c.template for c in coverage}
        for name in sorted(unknown):
            family_of = next((f for f, names in declared_by.items() if name in names), "?")
            coverage.append(TemplateCoverage(name, family_of, True, name in in_folder, 0))
    checks: list[PairCheck] = []
    verified: dict[tuple[str, str], str | None] = {}
    for pair in store.pairs(fam, kinds=kinds, app_builds=app_builds):
        if templates and pair.template not in templates:
            continue
        result = check_pair(store, pair, resolver.get(pair.template, pair.template_hash), verified)
        checks.append(result)
        if on_pair is not None:
            on_pair(result)
    return ReleaseReport(coverage, checks, wanted_families)
