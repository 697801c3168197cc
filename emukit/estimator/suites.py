"""The distribution-shift suites (seed 002 Appendix F) as estimator examples, for the robustness columns of
``emukit estimator eval`` (Table 5 / Table 22).

A suite is the folder ``DATA_DIR/suites/<suite>/`` of ``emukit build-pairs --suite NAME``: one
``<family>.jsonl`` per family, a row per trajectory (``family``, ``template``, ``params``, ``history`` of
``{observation: {screenshot, hierarchy}, action}``, ``final_observation``, ``target``: the canonical state at
the boundary; ``route`` for cross-app), artifact paths relative to the suite folder.

:func:`suite_example` turns one row into the :class:`~emukit.estimator.evaluate.HeldOutExample` a held-out
pair's branch becomes, so every estimator is scored the same way on both. The task context is the one
pair evaluation gives (:func:`emukit.evaluate.run.estimator_task`, the family reader's): a trajectory has no
A/B outcomes and no recorded entity, so :class:`SuiteTaskSource` gives the reader what the pair export would
have recorded for the same template and parameters: the entity (the state probe's arguments and the
outcome probe's spec: the template's ``state:`` and ``outcome:`` blocks, parameters substituted, exactly as
the pair builder records them) and, as the pair-shared outcome fields, the fields of the template's expected
A and B outcomes that are the same for both (Ordered Collection's ``collection_type``). Nothing of the row's
route, target or validation reaches the task context.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.errors import ConfigError
from emukit.families import FAMILIES, SUITES, SUITES_DIRNAME, suite_dir
from emukit.jsonl import read_objects

if TYPE_CHECKING:
    from emukit.estimator.evaluate import HeldOutExample
    from emukit.templates.schema import Template

class SuiteTemplateChangedWarning(UserWarning):
    """A suite row was built from another version of its template than the one found now: its task context
    is read from the current template, which may have changed since."""


@dataclass(frozen=True)
class SuiteTaskSource:
    """A suite trajectory as a :class:`emukit.evaluate.pairs.TaskSource`: what the family reader reads a
    pair's task context from, for the trajectory's template and parameters."""

    pair_id: str
    family: str
    params: dict[str, Any]
    entity: dict[str, Any] | None
    expected_shared: dict[str, Any] = field(default_factory=dict)

    def shared_outcome(self) -> dict[str, Any]:
        return dict(self.expected_shared)


def task_source(row: Mapping[str, Any], template: Template, where: str) -> SuiteTaskSource:
    """The :class:`SuiteTaskSource` of one suite row built from ``template``; ConfigError naming ``where``
    when the template's blocks cannot be filled from the row's ``params``."""
    from emukit.builder.pair import PairContext, pair_entity
    from emukit.templates.sampler import substitute

    params = row.get("params")
    if not isinstance(params, Mapping):
        raise ConfigError(f"{where}: params: expected an object, got {type(params).__name__}")
    params = dict(params)
    label = f"{where}: template {template.name}"
    ctx = PairContext(template, params, *(row[k] if isinstance(row.get(k), int) else 0
                                          for k in ("seed", "slot", "attempt")))
    try:
        entity = pair_entity(ctx)
        a, b = template.expect["A"].outcome, template.expect["B"].outcome
        shared = {k: substitute(v, params, label) for k, v in a.items() if k in b and b[k] == v}
    except ConfigError as exc:
        raise ConfigError(f"{label}: its state / outcome blocks cannot be filled from the row's params ({exc})") \
            from None
    return SuiteTaskSource(str(row.get("trajectory_id") or where), template.family, params, entity, shared)


def _hierarchy(root: Path, obs: Any, where: str) -> str:
    """The hierarchy XML an observation of a row names (relative to the suite folder ``root``)."""
    if not isinstance(obs, Mapping) or not isinstance(obs.get("hierarchy"), str):
        raise ConfigError(f"{where}: expected {{\"screenshot\": path, \"hierarchy\": path}}")
    rel = obs["hierarchy"]
    path = (root / rel).resolve()
    if root.resolve() not in path.parents:
        raise ConfigError(f"{where}: artifact path {rel!r} leaves the suite folder {root}")
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {rel}: {exc.strerror}") from None


def suite_example(row: Mapping[str, Any], root: Path, templates: Mapping[str, Template], where: str,
                  *, suite: str = "") -> HeldOutExample:
    """One suite row (``where``: its file and line; artifacts under the suite folder ``root``) as the
    example a held-out branch is (:func:`emukit.estimator.evaluate.held_out`): the model-visible history
    ``(hierarchy XML, action)``, the final observation's hierarchy, the task context pair evaluation gives
    for the same family (:func:`task_source`) and the canonical ``target``. ConfigError names the file, line
    and field at fault (an unknown family or template, a missing field, an action that does not parse)."""
    from emukit.estimator.evaluate import HeldOutExample
    from emukit.evaluate.pairs import parse_action
    from emukit.evaluate.run import estimator_task

    for key in ("family", "template", "history", "final_observation", "target"):
        if key not in row:
            raise ConfigError(f"{where}: missing field {key!r}")
    family, name = row["family"], row["template"]
    if family not in FAMILIES:
        raise ConfigError(f"{where}: family: unknown family {family!r} (families: {', '.join(FAMILIES)})")
    template = templates.get(name) if isinstance(name, str) else None
    if template is None:
        raise ConfigError(f"{where}: template: unknown template {name!r} (not in the template search path; a "
                          "template folder of your own is given with --templates DIR)")
    if template.family != family:
        raise ConfigError(f"{where}: template {name!r} belongs to family {template.family!r}, the row says "
                          f"{family!r}")
    if row.get("template_hash") and row["template_hash"] != template.content_hash():
        warnings.warn(SuiteTemplateChangedWarning(
            f"{where}: template {name} changed since the row was built; its task context is read from the "
            "current template"), stacklevel=2)
    if not isinstance(row["history"], list):
        raise ConfigError(f"{where}: history: expected a list of steps")
    if not isinstance(row["target"], Mapping):
        raise ConfigError(f"{where}: target: expected the canonical state object")
    source = task_source(row, template, where)
    history = []
    for i, step in enumerate(row["history"]):
        at = f"{where}: history[{i}]"
        if not isinstance(step, Mapping):
            raise ConfigError(f"{at}: expected {{\"observation\", \"action\"}}")
        history.append((_hierarchy(root, step.get("observation"), f"{at}.observation"),
                        parse_action(step.get("action"), f"{at}.action")))
    final = _hierarchy(root, row["final_observation"], f"{where}: final_observation")
    ident = str(row.get("trajectory_id") or where)
    return HeldOutExample(f"{suite}/{ident}" if suite else ident, family, history, final,
                          dict(estimator_task(source)), dict(row["target"]), unit=ident, stratum=row_stratum(row),
                          template=name)


def row_stratum(row: Mapping[str, Any]) -> str:
    """The stratum a suite row was built for, as the suite's summary names it
    (:meth:`emukit.builder.stress.SuiteRunner.stratum`): a cross-app clipboard route (``route=A->B``), a
    cross-app sink (``sink=B``), an interference level, or a depth (``d=N``); "" when the row says none."""
    route = row.get("route")
    if isinstance(route, Mapping) and route.get("sink"):
        if row.get("family") == "clipboard":
            return f"route={route.get('producer')}->{route['sink']}"
        return f"sink={route['sink']}"
    if row.get("level"):
        return str(row["level"])
    return f"d={row['d']}" if row.get("d") is not None else ""


def stratum_key(stratum: str) -> tuple[int, int, str]:
    """The order strata are listed in: depths by number, interference levels low to high, then sinks and
    routes by name."""
    if stratum.startswith("d=") and stratum[2:].isdigit():
        return 0, int(stratum[2:]), ""
    levels = ("low", "medium", "high")
    if stratum in levels:
        return 1, levels.index(stratum), ""
    return 2, 0, stratum


def suite_files(data_dir: Path) -> dict[str, dict[str, Path]]:
    """``{suite: {family: path}}`` of the suite files under ``data_dir`` (the folder holding ``suites/``);
    ConfigError when there is none."""
    top = Path(data_dir) / SUITES_DIRNAME
    if not top.is_dir():
        raise ConfigError(f"{data_dir}: no {SUITES_DIRNAME}/ folder (build a suite into it with emukit build-pairs "
                          f"--suite NAME --data-dir {data_dir})")
    found = {suite: {f: suite_dir(data_dir, suite) / f"{f}.jsonl" for f in FAMILIES
                     if (suite_dir(data_dir, suite) / f"{f}.jsonl").is_file()}
             for suite in SUITES}
    found = {s: files for s, files in found.items() if files}
    if not found:
        raise ConfigError(f"{top}: no suite rows (expected <suite>/<family>.jsonl for a suite among "
                          f"{', '.join(SUITES)})")
    return found


def load_suites(data_dir: Path, *, limit: int | None = None, dirs: Iterable[Path] | None = (),
                templates: Sequence[Template] | None = None) -> dict[str, list[HeldOutExample]]:
    """Every suite row under ``data_dir`` as an example, by suite (only the suites present); ``limit``: at
    most that many trajectories per suite and family (the first rows); templates from the search path (with
    ``dirs``, host variants included) unless given."""
    from emukit.templates import load_templates

    by_name = {t.name: t for t in (templates if templates is not None else load_templates(dirs=dirs,
                                                                                           variants=True))}
    out: dict[str, list[HeldOutExample]] = {}
    for suite, files in suite_files(data_dir).items():
        root = suite_dir(data_dir, suite)
        examples: list[HeldOutExample] = []
        for family, path in files.items():
            for taken, (where, row) in enumerate(read_objects(path)):
                if limit is not None and taken >= limit:
                    break
                if "family" in row and row["family"] != family:
                    raise ConfigError(f"{where}: family: {row.get('family')!r} in the {family} file")
                examples.append(suite_example(row, root, by_name, where, suite=suite))
        out[suite] = examples
    return out
