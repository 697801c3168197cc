"""What a state family is: a :class:`FamilyUnit` (its layer-free semantics) plus one piece per layer, each
found by the family's name.

A unit holds everything about a family that needs no device, no renderer and no store: its canonical state
schema (seed 002 Table 10), the Appendix E rules (the consequence ``D = g_f(Z, A, c)`` and the text lines that
state and consequence are rendered into), the transition contract ``Q_f``, the builder's family validator
(criterion 5 of Appendix C.1.2, a pure check of probed state against read outcome), the estimator's
instruction and task context, the outcome kinds its templates may read, and the Table 6 templates a release
must cover. Units live in this package, one module per family, registered with :func:`register_family`.

The pieces that belong to a higher layer live in that layer, in a module named after the family, and
register with that layer's :class:`FamilyPieces` registry:

* the probe: ``emukit/probes/<family>.py`` (``PROBES``), with the ``emukit probe`` options it takes;
* the outcome reading: ``emukit/builder/readings/<family>.py`` (``OUTCOME_READINGS``);
* the stress table: ``emukit/builder/stress_tables/<family>.py`` (``STRESS_TABLES``);
* the parser and judge, and the prediction-time context of a pair: ``emukit/evaluate/parsers/<family>.py``
  (``READERS``);
* the baseline estimator's rules: ``emukit/evaluate/baseline/<family>.py`` (``BASELINE_RULES``);
* the reference adapter's surface: ``emukit/evaluate/surfaces/<family>.py`` (``SURFACES``).

Every piece registry is checked against :data:`FAMILY_UNITS` (:meth:`FamilyPieces.missing`), so a family
that lacks a piece is named, not discovered by a ``KeyError`` in the middle of a build.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.plugins import Registry

T = TypeVar("T")

#: a state field's check and the words naming what it must be
FieldCheck = tuple[Callable[[Any], bool], str]


class StateValidationError(ConfigError, ValueError):
    """A canonical state, action or context the interface cannot use; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_items(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(i, str) for i in v)


def subset(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    return all(actual.get(k) == v for k, v in expected.items())


class FamilyUnit(ABC):
    """One state family's layer-free semantics. Subclass it in ``emukit/families/<name>.py`` (or in a
    package of your own named by an ``emukit.state_families`` entry point) and decorate the class with
    :func:`register_family`."""

    #: the family's name (``--family`` choice, the ``family`` field of every record)
    name: ClassVar[str]
    #: position in every table and report (the seed's order: 10, 20, 30, 40)
    order: ClassVar[int]
    #: the seed's name of the family
    title: ClassVar[str]
    #: the canonical state's fields and their checks (seed 002 Table 10)
    schema: ClassVar[dict[str, FieldCheck]]
    #: the transition contract ``Q_f`` of every request (Appendix E.5): the rule, never a branch's state
    contract: ClassVar[str]
    #: the estimator's family instruction (Appendix D)
    instruction: ClassVar[str]
    #: the ``outcome.kind`` values a template of this family may read (the surfaces of emukit/builder/outcomes.py)
    outcome_kinds: ClassVar[frozenset[str]]
    #: the outcome fields whose difference makes two branches' outcomes differ (criterion: outcome differs)
    outcome_keys: ClassVar[tuple[str, ...]]
    #: the outcome field whose value is the branch's semantic target ``Y`` (what the parser must read)
    target_key: ClassVar[str]
    #: seed 002 Table 6: the release's causal templates of this family
    table6_templates: ClassVar[tuple[str, ...]] = ()
    #: the outcome field whose mix the shortcut audit reports (None: not reported)
    outcome_mix_key: ClassVar[str | None] = None
    #: the shared action waits and then opens the notification shade (world-model formats phrase it so)
    wait_opens_shade: ClassVar[bool] = False
    #: epochs of this family's specialist in the estimator's default configuration
    specialist_epochs: ClassVar[int] = 4

    # -- canonical state -------------------------------------------------------------------------------------
    @property
    def state_keys(self) -> tuple[str, ...]:
        """The state's fields, sorted (the estimator's target key order)."""
        return tuple(sorted(self.schema))

    def validate_state(self, state: Any) -> dict[str, Any]:
        """Check ``state`` against the schema; return a plain copy. :class:`StateValidationError` names the
        field."""
        if not isinstance(state, Mapping):
            raise StateValidationError(self.name, f"state must be a JSON object, got {type(state).__name__}")
        for key in state:
            if key not in self.schema:
                raise StateValidationError(f"{self.name}.{key}", f"unexpected field; expected {', '.join(self.schema)}")
        for key, (check, expected) in self.schema.items():
            if key not in state:
                raise StateValidationError(f"{self.name}.{key}", "missing")
            if not check(state[key]):
                raise StateValidationError(f"{self.name}.{key}", f"must be {expected}, got {state[key]!r}")
        out = {k: (list(v) if isinstance(v, list) else v) for k, v in state.items()}
        self.cross_check(out)
        return out

    def cross_check(self, z: dict[str, Any]) -> None:
        """Constraints between fields (raise :class:`StateValidationError`); none by default."""

    # -- Appendix E ------------------------------------------------------------------------------------------
    @abstractmethod
    def consequence(self, z: dict[str, Any], action: Action, context: Mapping[str, Any] | None) -> dict[str, Any]:
        """``D_t^f``: the deterministic result of ``action`` on the validated state ``z`` (Table 20)."""

    @abstractmethod
    def state_lines(self, z: dict[str, Any], *, with_action: bool) -> list[str]:
        """The state's conditioning lines; ``with_action``: a payload the result lines repeat is left to them."""

    def action_state_lines(self, z: dict[str, Any], d: dict[str, Any]) -> list[str]:
        """The state lines rendered next to a consequence ``d`` (default: :meth:`state_lines` with_action)."""
        return self.state_lines(z, with_action=True)

    @abstractmethod
    def result_lines(self, d: dict[str, Any]) -> list[str]:
        """The lines stating the consequence ``d`` and the surface it must appear on."""

    # -- builder ---------------------------------------------------------------------------------------------
    @abstractmethod
    def check_branch(self, state: dict[str, Any], outcome: dict[str, Any], evidence: dict[str, Any],
                     spec: dict[str, Any], wait_seconds: float) -> list[str]:
        """The family validator: problems where the read outcome disagrees with the probed state."""

    # -- estimator -------------------------------------------------------------------------------------------
    def training_context(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Task context a training row adds from its template parameters (none by default)."""
        return {}


FAMILY_UNITS: Registry[FamilyUnit] = Registry("state family", "emukit.families", "emukit.state_families")


def register_family(cls: type[FamilyUnit]) -> type[FamilyUnit]:
    """Class decorator: register one instance of ``cls`` under ``cls.name``."""
    FAMILY_UNITS.register(cls.name)(cls())
    return cls


class FamilyPieces(Registry[T], Generic[T]):
    """A layer's pieces of every family, keyed by the family's name: ``@PIECES.register("clipboard")``.

    ``get`` says which family lacks the piece and which families have one; :meth:`missing` lists the
    registered families without one (a test asserts it is empty for every piece registry)."""

    def get(self, name: str) -> T:
        self.load()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries))
            if name in FAMILY_UNITS:
                raise ConfigError(f"family {name!r} has no {self.kind} (add a module to {self.package} that "
                                  f"registers one); families with one: {known}") from None
            raise ConfigError(f"unknown family {name!r}; expected one of {', '.join(FAMILY_UNITS.names())}") \
                from None

    def missing(self) -> list[str]:
        """Registered families that have no piece here."""
        self.load()
        return [f for f in FAMILY_UNITS.names() if f not in self._entries]
