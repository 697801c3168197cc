"""The template model: what a causal template declares (seed 002 Table 6 / Appendix C.1).

A template names its family and base snapshot, a parameter domain, setup steps (not model-visible),
branch A and B steps (model-visible, recorded), the convergence steps to the common boundary, the state
probe, the shared action, how the semantic outcome is read, and the expected contrast.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from emukit.errors import ConfigError
from emukit.families import Family, unit

Step = dict[str, Any]  # one-key mapping: {"files.copy_to": {...}} / {"tap": {...}} / {"wait": {...}} ...


def _checked_steps(steps: list[Step]) -> list[Step]:
    for step in steps:
        _check_step(step)
    return steps


#: a list of steps, each checked for shape (one key: a profile operation, a raw action or a setup step)
Steps = Annotated[list[Step], AfterValidator(_checked_steps)]

#: template fields that describe the template without changing what it builds (not in its content hash)
NOT_HASHED = ("source_path", "released_pairs", "min_diversity", "variant")

RAW_ACTIONS = {"tap", "long_press", "swipe", "drag", "key", "back", "home", "type", "wait", "open_app"}
SETUP_ONLY = {"shell", "launch", "push_mp3", "broadcast_media", "stop"}


class ParamSpec(BaseModel):
    """One parameter: ``choice`` (pick one), ``sample`` (k distinct from a list, in random order),
    ``int`` ([lo, hi] inclusive) or ``permutation`` (a shuffled copy of a list)."""

    model_config = ConfigDict(extra="forbid")

    choice: list[Any] | None = None
    sample: list[Any] | None = None
    k: int | None = None
    int_range: tuple[int, int] | None = Field(default=None, alias="int")
    permutation: list[Any] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> ParamSpec:
        kinds = [k for k in ("choice", "sample", "int_range", "permutation") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of choice, sample (+k), int, permutation")
        if self.sample is not None and (self.k is None or not 0 < self.k <= len(self.sample)):
            raise ValueError("sample needs k between 1 and the list length")
        if self.int_range is not None and self.int_range[0] > self.int_range[1]:
            raise ValueError("int range must be [low, high] with low <= high")
        return self


class SharedAction(BaseModel):
    """The prediction-boundary action both branches execute. ``target`` (a selector) is resolved to the
    element's centre on each branch; ``wait`` (temporal) lets ``seconds`` of logical time pass, then opens the
    notification shade."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tap", "long_press", "swipe", "type", "key", "wait"]
    target: dict[str, Any] | None = None
    x: int | None = None
    y: int | None = None
    x2: int | None = None
    y2: int | None = None
    text: str | None = None
    key: int | None = None
    duration_ms: int | None = None
    seconds: str | int | None = None  # wait: logical time to let pass, then the notification shade opens

    @field_validator("target")
    @classmethod
    def _table_ref(cls, target: dict[str, Any] | None) -> dict[str, Any] | None:
        """``sel: app:name`` (an entry of the app's selector table) must exist in the tables."""
        if target and "sel" in target:
            from emukit.apps.registry import check_ref

            try:
                check_ref(target["sel"])
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return target


class Outcome(BaseModel):
    """How the semantic outcome is read after the shared action (environment-side evidence)."""

    model_config = ConfigDict(extra="forbid")

    kind: str  # one of the family unit's ``outcome_kinds`` (checked with the family, in Template)
    target: str | None = None
    state_field: Literal["source_exists", "destination_exists"] | None = None  # persistent: what the surface shows
    folder: str | None = None
    playlist: str | None = None
    #: the app whose screen the outcome is read from, a profile name (default: the family's Table 6 app:
    #: files, notes, music, clock); a family's reading says which apps it can read
    app: str | None = None


class Variant(BaseModel):
    """A host variant: the family's causal structure in another app than the one of seed 002's Table 6. It is
    not one of the release's 25 templates, so the strict build and the suites take it only when it is named
    (``--template``) or asked for (``--variants``)."""

    model_config = ConfigDict(extra="forbid")

    #: the profile name of the app that holds the tracked state (gallery, vlc, ...)
    app: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    #: the Table 6 template whose contrast it re-hosts, when there is one
    of: str | None = None


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: dict[str, Any] = Field(default_factory=dict)
    outcome: dict[str, Any] = Field(default_factory=dict)


class Template(BaseModel):
    """A causal template, validated from YAML."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    family: Family
    description: str = Field(min_length=10)
    base_snapshot: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    derived: dict[str, str] = Field(default_factory=dict)
    setup: Steps = Field(default_factory=list)
    branches: dict[Literal["A", "B"], Steps]
    converge: Steps = Field(default_factory=list)
    state: dict[str, Any]
    shared_action: SharedAction
    outcome: Outcome
    expect: dict[Literal["A", "B"], Expectation]
    #: pairs of this template in seed 002's released strict split (Table 6, "Released support"):
    #: ``--allocation table6`` spreads a family's count over its templates in these proportions. Metadata
    #: about the paper, not about what the template does: left out of :meth:`content_hash`.
    released_pairs: int | None = Field(default=None, ge=1)
    #: the share of this template's pairs that must have distinct boundary screenshots and distinct
    #: observation-only requests (``emukit audit diversity``; default 0.8). Audit metadata: not hashed.
    min_diversity: float | None = Field(default=None, ge=0, le=1)
    #: set on a host variant (:class:`Variant`); metadata about where the template sits, not hashed
    variant: Variant | None = None
    source_path: str = ""

    @field_validator("branches")
    @classmethod
    def _branches(cls, branches: dict[str, list[Step]]) -> dict[str, list[Step]]:
        if set(branches) != {"A", "B"}:
            raise ValueError("branches must define exactly A and B")
        return branches

    @model_validator(mode="after")
    def _consistent(self) -> Template:
        if set(self.expect) != {"A", "B"}:
            raise ValueError("expect must define A and B")
        if self.state.get("family", self.family) != self.family:
            raise ValueError(f"state.family {self.state.get('family')!r} differs from family {self.family!r}")
        wanted = unit(self.family).outcome_kinds
        if self.outcome.kind not in wanted:
            raise ValueError(f"outcome.kind {self.outcome.kind!r} does not fit family {self.family} "
                             f"(expected one of {sorted(wanted)})")
        declared = unit(self.family).table6_templates
        if self.variant is not None:
            if self.name in declared:
                raise ValueError(f"{self.name} is one of Table 6's templates; a variant needs a name of its own")
            if self.variant.of is not None and self.variant.of not in declared:
                raise ValueError(f"variant.of {self.variant.of!r} is not a Table 6 template of family "
                                 f"{self.family} (one of {', '.join(declared)})")
        return self

    @property
    def is_variant(self) -> bool:
        return self.variant is not None

    def content_hash(self) -> str:
        """SHA-256 of the template's content (not its file path)."""
        data = self.model_dump(mode="json", exclude=set(NOT_HASHED), by_alias=True)
        if data["outcome"].get("app") is None:  # fields added later count only when set: old hashes still hold
            data["outcome"].pop("app", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _check_step(step: Step) -> None:
    if not isinstance(step, dict) or len(step) != 1:
        raise ValueError(f"a step is a mapping with exactly one key, got {step!r}")
    (name, args), = step.items()
    if "." in name:
        profile, _, op = name.partition(".")
        if not profile or not op:
            raise ValueError(f"bad profile operation {name!r}")
        if args is not None and not isinstance(args, dict):
            raise ValueError(f"arguments of {name} must be a mapping")
    elif name in ("tap", "long_press") and isinstance(args, dict) and "sel" in args:
        from emukit.apps.registry import check_ref

        try:
            check_ref(args["sel"])
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    elif name == "open_app":  # GUI-CC's semantic action: the app's launcher label, checked against the tables
        from emukit.apps.registry import launcher_labels

        known = launcher_labels()
        if not isinstance(args, str) or ("{" not in args and args not in known):
            raise ValueError(f"open_app names an app by its launcher label (one of {', '.join(sorted(known))}), "
                             f"got {args!r}")
    elif name not in RAW_ACTIONS | SETUP_ONLY:
        raise ValueError(f"unknown step {name!r}; use PROFILE.OPERATION, one of {sorted(RAW_ACTIONS)} or a "
                         f"setup step {sorted(SETUP_ONLY)}")
