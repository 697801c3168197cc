"""Strict pairs as the evaluator reads them: from an export folder (``docs/pair-format.md``) or a store URL.

Both sources give :class:`EvalPair` objects whose observations load their bytes lazily, so a run over
hundreds of pairs keeps only the screens it is working on in memory.

* Export folder: ``DIR/pairs.jsonl``, one pair per line; artifact paths are relative to ``DIR``.
* Store: any SQLAlchemy URL understood by :class:`emukit.store.Store` (``sqlite:///data/emukit.db``,
  ``postgresql+psycopg://...``); artifacts come from the store's data dir (for a SQLite file URL: the folder
  holding the database unless ``data_dir`` is given).

Only model-visible fields and the scoring targets are kept; the evaluator never hands ``state``/``outcome``
to a model except through the state interface of the oracle-state condition.
"""

from __future__ import annotations

import io
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from emukit.actions import Action, Element
from emukit.errors import ConfigError
from emukit.jsonl import read_objects
from emukit.provenance import BuiltOn

SHARED_STORAGE = "/storage/emulated/0"
BRANCHES = ("A", "B")


class PairLoadError(ConfigError):
    """A pairs file, line, field or artifact the evaluator cannot use; the message names it."""


Reader = Callable[[str], bytes]


@dataclass(frozen=True)
class ObsRef:
    """One observation: references to its screenshot PNG and hierarchy XML, read on demand."""

    screenshot: str
    hierarchy: str
    reader: Reader = field(repr=False, compare=False)

    def png(self) -> bytes:
        """The screenshot bytes."""
        return self.reader(self.screenshot)

    def xml(self) -> str:
        """The uiautomator hierarchy XML (empty when the reference is empty)."""
        return self.reader(self.hierarchy).decode("utf-8", errors="replace") if self.hierarchy else ""


@dataclass(frozen=True)
class EvalBranch:
    """One branch: model-visible history and boundary, ground truth and the true next observation."""

    name: str
    history: list[tuple[ObsRef, Action]]
    boundary: ObsRef
    state: dict[str, Any]
    outcome: dict[str, Any]
    next_observation: ObsRef


@dataclass(frozen=True)
class EvalPair:
    """A strict pair ready for evaluation."""

    pair_id: str
    family: str
    template: str
    params: dict[str, Any]
    shared_action: Action
    request_hashes: dict[str, str]
    branches: dict[str, EvalBranch]
    screen_size: tuple[int, int] | None = None
    #: the tracked entity the export records (``state_probe``: the state probe's arguments, ``outcome_probe``);
    #: None for pairs exported before it was recorded (:class:`OldExportWarning`)
    entity: dict[str, Any] | None = None
    #: where the pair was built (``built_on`` of the export or the store; unknown for pairs stored before it was
    #: kept): metadata for the results and the report, never part of a request
    built_on: BuiltOn = field(default_factory=BuiltOn.unknown)

    def size(self) -> tuple[int, int]:
        """The device screen size (from the pair, else read from the boundary screenshot)."""
        if self.screen_size:
            return self.screen_size
        from PIL import Image

        with Image.open(io.BytesIO(self.branches["A"].boundary.png())) as img:
            return img.size

    def sibling(self, branch: str) -> EvalBranch:
        """The other branch of the pair."""
        return self.branches["B" if branch == "A" else "A"]

    def shared_outcome(self) -> dict[str, Any]:
        """The outcome fields both branches share (same key, same value): pair-level task context, not branch
        information."""
        a, b = self.branches["A"].outcome, self.branches["B"].outcome
        return {k: v for k, v in a.items() if b.get(k) == v}


class TaskSource(Protocol):
    """What a family's prediction-time task context is read from (:meth:`emukit.evaluate.parsers.base.
    FamilyReader.estimator_task`, :func:`persistent_context`): an :class:`EvalPair`, or a single trajectory
    of a distribution-shift suite given the same fields (:mod:`emukit.estimator.suites`). ``pair_id`` names
    it in messages."""

    @property
    def pair_id(self) -> str: ...

    @property
    def family(self) -> str: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def entity(self) -> dict[str, Any] | None: ...

    def shared_outcome(self) -> dict[str, Any]: ...


# -- prediction-time task context ------------------------------------------------------------------------

def _abs_path(value: str) -> str:
    return value if value.startswith("/") else posixpath.join(SHARED_STORAGE, value)


def _shared_outcome_fields(pair: TaskSource) -> dict[str, Any]:
    """Outcome fields that both branches share (probe kind, target, scope, folder): pair-level task
    context, not branch information. Fields whose values differ between A and B are dropped."""
    return {k: v for k, v in pair.shared_outcome().items() if k in ("probe", "target", "scope", "folder")}


def _outcome_probe(pair: TaskSource) -> dict[str, Any]:
    """The outcome probe's spec the export records for the pair (``entity.outcome_probe``; ``{}`` without)."""
    spec = (pair.entity or {}).get("outcome_probe")
    return dict(spec) if isinstance(spec, Mapping) else {}


class OldExportWarning(UserWarning):
    """Pairs recorded before the export carried their tracked entity: their probe context is derived from
    params and outcome fields only (the evaluator never reads ``templates/``)."""


def _warn_old(where: str) -> None:
    import warnings

    warnings.warn(OldExportWarning(
        f"{where}: pairs without an 'entity' field (exported by an older emukit): their probe context "
        "(tracked paths, playlist) is derived from params and outcome fields only; re-export the store with "
        "this emukit (emukit export records the entity, and fills it in for pairs stored earlier whose template "
        "is unchanged)"), stacklevel=3)


def state_probe_args(pair: TaskSource) -> dict[str, Any]:
    """The state probe's arguments the export records for the pair (``entity.state_probe``: persistent
    ``source``/``destination`` paths, ordered ``playlist``; string values only); ``{}`` for an older export.
    They say *what* is probed: task context, the same for A and B."""
    if not pair.entity:
        return {}
    args = pair.entity.get("state_probe") or {}
    return {k: v for k, v in args.items() if isinstance(v, str) and v}


def template_paths(pair: TaskSource) -> dict[str, str]:
    """The tracked ``source`` / ``destination`` paths from :func:`state_probe_args`."""
    return {k: v for k, v in state_probe_args(pair).items() if k in ("source", "destination")}


def persistent_context(pair: TaskSource) -> dict[str, Any]:
    """The Persistent Artifact probe context ``c_t`` for :func:`emukit.wm.render_state`: ``{"probe",
    "source", "destination", ["folder"], ["artifact"]}``.

    Read from ``params["context"]`` when the builder stored it; else the tracked paths come from the pair's
    recorded entity (:func:`template_paths`) or from ``params`` keys ``probe``,
    ``source``/``src``, ``destination``/``dest``, ``folder``, ``target``: paths may be absolute or relative to
    shared storage, and a folder-only value gets ``target`` appended. Missing pieces are taken from the
    branch-independent outcome fields (probe kind, target, folder), then from the recorded outcome probe's spec
    (``entity.outcome_probe``: its ``kind``, ``target``, ``folder``, which the outcome reading copies into
    those fields; a suite trajectory has no outcome, only the spec). Raises :class:`PairLoadError` naming the
    missing field.
    """
    params = pair.params
    if isinstance(params.get("context"), Mapping):
        return dict(params["context"])
    tracked = template_paths(pair)
    if tracked and not (params.get("source") and params.get("destination")):
        params = {**params, **tracked}
    shared = _shared_outcome_fields(pair)
    spec = _outcome_probe(pair)
    target = params.get("target") or params.get("artifact") or shared.get("target") or spec.get("target")
    probe = params.get("probe") or shared.get("probe") or spec.get("kind")
    folder = params.get("folder") or shared.get("folder") or spec.get("folder")

    def path_of(*keys: str) -> str | None:
        for key in keys:
            value = params.get(key)
            if isinstance(value, str) and value:
                path = _abs_path(value)
                if target and posixpath.basename(path) != target and "." not in posixpath.basename(path):
                    path = posixpath.join(path, target)  # a folder name: the file inside it
                return path
        return None

    source = path_of("source", "src", "source_path")
    destination = path_of("destination", "dest", "destination_path")
    if source is None and folder and target and probe == "folder":
        source = posixpath.join(_abs_path(folder), target)
    if destination is None:
        destination = source
    if source is None:
        source = destination
    missing = [k for k, v in (("probe", probe), ("source", source), ("target", target)) if not v]
    if missing:
        raise PairLoadError(f"pair {pair.pair_id}: persistent context needs params.{missing[0]} (or "
                            "params.context); see docs/evaluator.md")
    ctx: dict[str, Any] = {"probe": probe, "source": source, "destination": destination, "artifact": target}
    if probe == "folder":
        ctx["folder"] = _abs_path(folder) if folder else posixpath.dirname(source)  # type: ignore[arg-type]
    app = spec.get("app")
    if isinstance(app, str) and app and app != "files":  # a host variant: the folder opens in another app
        ctx["app"] = app
    return ctx


def interface_context(pair: TaskSource) -> dict[str, Any] | None:
    """Prediction-time context the state interface needs, from the family's reader
    (:meth:`emukit.evaluate.parsers.base.FamilyReader.interface_context`: Persistent Artifact's
    :func:`persistent_context`; None for a family that needs none)."""
    from emukit.evaluate.parsers import reader

    return reader(pair.family).interface_context(pair)


def entity_context(pair: EvalPair) -> str | None:
    """Pair-shared entity context sent with every request (``params["entity_context"]`` when the builder
    stored one; None otherwise). Identical for A and B by construction."""
    value = pair.params.get("entity_context")
    return value if isinstance(value, str) and value else None


# -- export folders -----------------------------------------------------------------------------------------

def _folder_reader(root: Path) -> Reader:
    resolved_root = root.resolve()

    def read(rel: str) -> bytes:
        path = (root / rel).resolve()
        if resolved_root not in path.parents:
            raise PairLoadError(f"{root / 'pairs.jsonl'}: artifact path {rel!r} leaves the export folder")
        try:
            return path.read_bytes()
        except OSError as exc:
            raise PairLoadError(f"{root}: artifact {rel!r} cannot be read: {exc.strerror}") from None

    return read


def _obs(data: Any, where: str, reader: Reader) -> ObsRef:
    if not isinstance(data, Mapping) or not isinstance(data.get("screenshot"), str):
        raise PairLoadError(f"{where}: expected {{\"screenshot\": path, \"hierarchy\": path}}")
    return ObsRef(data["screenshot"], str(data.get("hierarchy") or ""), reader)


_ELEMENT_RE = re.compile(r'^(?P<cls>\S+)(?: "(?P<text>.*)"| \[(?P<desc>.*)\]| #(?P<rid>.*))?$', re.DOTALL)


def element_from_description(text: str) -> Element:
    """The :class:`Element` whose ``describe()`` is ``text`` (export files carry the description only)."""
    m = _ELEMENT_RE.match(text)
    if m is None:
        return Element(text=text)
    return Element(cls=m["cls"], text=m["text"] or "", content_desc=m["desc"] or "", resource_id=m["rid"] or "")


def _load_error(exc: ValidationError, where: str) -> PairLoadError:
    """The first validation error of a field, named by its path under ``where``."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    return PairLoadError(f"{where}{'.' + loc if loc else ''}: {first['msg']}")


def parse_action(data: Any, where: str) -> Action:
    """One exported action (an ``element`` given as its short description is parsed back into an Element);
    PairLoadError names the field at fault."""
    if isinstance(data, Mapping) and isinstance(data.get("element"), str):
        data = {**data, "element": element_from_description(data["element"])}
    try:
        return Action.model_validate(data)
    except ValidationError as exc:
        raise _load_error(exc, where) from None


def pair_from_json(data: Mapping[str, Any], reader: Reader, where: str = "pair") -> EvalPair:
    """One exported pair line (already parsed) as an :class:`EvalPair`; ``reader`` loads artifacts."""
    for key in ("pair_id", "family", "shared_action", "branches"):
        if key not in data:
            raise PairLoadError(f"{where}: missing field {key!r}")
    where = f"{where} ({data['pair_id']})"
    from emukit.families import FAMILIES

    if data["family"] not in FAMILIES:
        raise PairLoadError(f"{where}.family: {data['family']!r} is not one of {', '.join(FAMILIES)}")
    shared = parse_action(data["shared_action"], f"{where}.shared_action")
    branches: dict[str, EvalBranch] = {}
    for name in BRANCHES:
        raw = data["branches"].get(name) if isinstance(data["branches"], Mapping) else None
        if not isinstance(raw, Mapping):
            raise PairLoadError(f"{where}.branches.{name}: missing")
        bw = f"{where}.branches.{name}"
        history = []
        for i, step in enumerate(raw.get("history") or []):
            history.append((_obs(step.get("observation"), f"{bw}.history[{i}].observation", reader),
                            parse_action(step.get("action"), f"{bw}.history[{i}].action")))
        for key in ("boundary_observation", "state", "outcome", "next_observation"):
            if key not in raw:
                raise PairLoadError(f"{bw}: missing field {key!r}")
        branches[name] = EvalBranch(name, history, _obs(raw["boundary_observation"], f"{bw}.boundary_observation",
                                                        reader), dict(raw["state"]), dict(raw["outcome"]),
                                    _obs(raw["next_observation"], f"{bw}.next_observation", reader))
    size = data.get("screen_size")
    entity = data.get("entity")
    if entity is not None and not isinstance(entity, Mapping):
        raise PairLoadError(f"{where}.entity: expected an object, got {type(entity).__name__}")
    return EvalPair(pair_id=str(data["pair_id"]), family=data["family"], template=str(data.get("template", "")),
                    params=dict(data.get("params") or {}), shared_action=shared,
                    request_hashes=dict(data.get("request_hashes") or {}), branches=branches,
                    screen_size=(int(size[0]), int(size[1])) if size else None,
                    entity=dict(entity) if entity is not None else None,
                    built_on=_built_on(data.get("built_on"), f"{where}.built_on"))


def _built_on(raw: Any, where: str) -> BuiltOn:
    """An exported pair's ``built_on`` (absent in exports from before it was kept: unknown)."""
    if raw is None:
        return BuiltOn.unknown()
    try:
        return BuiltOn.model_validate(raw)
    except ValidationError as exc:
        raise _load_error(exc, where) from None


def load_export(folder: Path | str) -> Iterator[EvalPair]:
    """Every pair of an export folder, in file order."""
    root = Path(folder)
    path = root / "pairs.jsonl"
    if not path.is_file():
        raise PairLoadError(f"{root}: no pairs.jsonl (expected an export folder, see docs/pair-format.md)")
    reader = _folder_reader(root)
    warned = False
    for where, data in read_objects(path, PairLoadError):
        pair = pair_from_json(data, reader, where)
        if pair.entity is None and not warned:
            _warn_old(str(path))
            warned = True
        yield pair


# -- stores -----------------------------------------------------------------------------------------------

def _store_pairs(url: str, data_dir: Path | None) -> Iterator[EvalPair]:
    from sqlalchemy.engine import make_url

    from emukit.store import Store

    if data_dir is None:
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
            raise PairLoadError(f"{url}: a non-SQLite store needs --data-dir (where its artifacts live)")
        data_dir = Path(parsed.database).parent
    store = Store(url, data_dir=data_dir)
    warned = False
    try:
        for record in store.pairs():
            def reader(ref: str) -> bytes:
                sha, _, ext = ref.partition(".")
                return store.artifacts.get(sha, ext)

            def obs(o: Any) -> ObsRef:
                return ObsRef(f"{o.screenshot}.png", f"{o.hierarchy}.xml", reader)

            branches = {name: EvalBranch(name, [(obs(s.observation), s.action) for s in b.history],
                                         obs(b.boundary_observation), dict(b.state), dict(b.outcome),
                                         obs(b.next_observation))
                        for name, b in record.branches.items()}
            if not record.entity and not warned:
                _warn_old(f"store {store.url}")
                warned = True
            yield EvalPair(record.pair_id, record.family, record.template, dict(record.params),
                           record.shared_action, dict(record.request_hashes), branches,
                           entity=dict(record.entity) if record.entity else None, built_on=record.built_on)
    finally:
        store.close()


def is_store_url(spec: str) -> bool:
    """True for ``dialect[+driver]://...`` strings (as opposed to a folder path)."""
    head, sep, _ = spec.partition("://")
    return bool(sep) and head.replace("+", "").replace("_", "").isalnum()


def load_pairs(spec: str | Path, *, data_dir: Path | str | None = None) -> Iterator[EvalPair]:
    """Pairs from an export folder or a store URL (``data_dir``: the store's artifact root)."""
    text = str(spec)
    if is_store_url(text):
        return _store_pairs(text, Path(data_dir) if data_dir else None)
    return load_export(Path(text))
