"""The milestone-task format (``tasks/*.yaml``) and the task-template format (``tasks/templates/*.yaml``).

A **task** is an app-grounded instruction that starts from a saved initial state, with 2-5 ordered milestones,
each a plain-language assertion plus a machine check (:mod:`emukit.tasks.checks`), a step budget and its
provenance (who verified it, when, and the recorded reference trajectory). A **task template** is the recipe
a family of tasks instantiates: seeded parameters (the same sampler as causal templates), the instruction,
the setup, the milestones and a scripted solution that records a reference trajectory.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emukit.actions import Action, ActionType
from emukit.provenance import BuiltOn
from emukit.templates.schema import ParamSpec, Steps

ContextKind = Literal["cross_app", "persist_after_switch", "revisit_entity"]
#: GUI-CC's six app categories of the online track (seed 000, section 3 and Figure 2): the category of the app a
#: task is about (its first app)
Category = Literal["communication", "travel_navigation", "shopping_delivery", "finance", "media_entertainment",
                   "system_utility"]
CATEGORY_TITLES: dict[str, str] = {
    "communication": "Communication", "travel_navigation": "Travel & navigation",
    "shopping_delivery": "Shopping & delivery", "finance": "Finance",
    "media_entertainment": "Media & entertainment", "system_utility": "System & utility",
}
MilestoneType = Literal["navigate", "create", "edit", "transfer", "select", "configure", "confirm"]
Status = Literal["draft", "verified", "rejected"]

# ------------------------------------------------------------------------------------------ machine checks
SCREEN_FIELDS = {"text", "text_contains", "resource_id", "content_desc", "checked", "selected", "focused",
                 "clickable"}
#: screen fields a rendered prediction can answer (visible text only)
VISUAL_FIELDS = {"text", "text_contains", "content_desc"}


class ScreenLeaf(BaseModel):
    """A node of the UI hierarchy with all the given attributes exists (``absent``: none does)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    text_contains: str | None = None
    resource_id: str | None = None
    content_desc: str | None = None
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None
    clickable: bool | None = None
    absent: bool = False

    @model_validator(mode="after")
    def _something(self) -> ScreenLeaf:
        if not any(getattr(self, f) is not None for f in SCREEN_FIELDS):
            raise ValueError(f"a screen check needs at least one of {sorted(SCREEN_FIELDS)}")
        return self

    @property
    def visual(self) -> bool:
        """True when a rendered screen (visible text only) can answer it."""
        return all(getattr(self, f) is None for f in SCREEN_FIELDS - VISUAL_FIELDS)


class AppLeaf(BaseModel):
    """The focused window belongs to ``package`` (optionally an activity whose name contains ``activity``)."""

    model_config = ConfigDict(extra="forbid")

    package: str
    activity: str | None = None


class FileLeaf(BaseModel):
    """Ground truth of one file on the device (read with ``stat``/``cat``, never through the UI)."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(pattern=r"^/")
    exists: bool = True
    contains: str | None = None
    not_contains: str | None = None
    equals: str | None = None


class ClipboardLeaf(BaseModel):
    """The clipboard probe: its text equals / contains a value (``empty``: nothing is on it)."""

    model_config = ConfigDict(extra="forbid")

    equals: str | None = None
    contains: str | None = None
    empty: bool | None = None


class CollectionLeaf(BaseModel):
    """The ordered-collection probe: a playlist by name (None: the playing queue)."""

    model_config = ConfigDict(extra="forbid")

    playlist: str | None = None
    exists: bool = True
    equals: list[str] | None = None
    ends_with: list[str] | None = None
    includes: list[str] | None = None
    length: int | None = None


class TimerLeaf(BaseModel):
    """The Clock's newest timer, read from its preferences: its state (``none`` when there is no timer) and
    optionally bounds on its remaining seconds."""

    model_config = ConfigDict(extra="forbid")

    state: Literal["running", "paused", "expired", "none"] = "running"
    remaining_min: int | None = None
    remaining_max: int | None = None


class SettingLeaf(BaseModel):
    """``settings get NAMESPACE KEY`` equals ``equals``."""

    model_config = ConfigDict(extra="forbid")

    namespace: Literal["global", "system", "secure"]
    key: str
    equals: str


class DatabaseLeaf(BaseModel):
    """Rows of an app's own SQLite database, read from a host copy of it (never through the UI; android_world
    checks its apps' state the same way, google-research/android_world d9c569f764b3
    android_world/utils/sqlite_utils.py): ``query`` is one SELECT on the database the app's profile names
    (``AppProfile.database``) and the values of its first column, as text, are compared. A database the app has
    not created yet has no rows."""

    model_config = ConfigDict(extra="forbid")

    app: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    query: str = Field(pattern=r"(?is)^\s*select\s")
    includes: list[str] | None = None
    excludes: list[str] | None = None
    equals: list[str] | None = None
    count: int | None = Field(default=None, ge=0)

    @field_validator("query")
    @classmethod
    def _one_statement(cls, value: str) -> str:
        if ";" in value.strip().rstrip(";"):
            raise ValueError(f"a database check runs one SELECT, got several statements: {value!r}")
        return value

    @model_validator(mode="after")
    def _something(self) -> DatabaseLeaf:
        if all(getattr(self, f) is None for f in ("includes", "excludes", "equals", "count")):
            raise ValueError("a database check needs at least one of includes, excludes, equals, count")
        return self


class MessagesLeaf(BaseModel):
    """SMS of the Telephony provider (``content query --uri content://sms[/BOX]``, as android_world's SMS
    validators read them): some message of ``box`` (any box when None) to or from ``address`` has a body that
    equals ``body`` / contains ``contains`` (``exists: false``: no such message)."""

    model_config = ConfigDict(extra="forbid")

    box: Literal["inbox", "sent", "draft", "outbox"] | None = None
    address: str | None = None
    body: str | None = None
    contains: str | None = None
    exists: bool = True


#: the fields of an action leaf (``text`` / ``text_contains`` read the action's own text first, what a ``type``
#: action typed or the label an ``open_app`` action named; the others its type, key code and target element)
ACTION_FIELDS = ("type", "key", "text", "text_contains", "resource_id", "content_desc")


class ActionLeaf(BaseModel):
    """The action that led to the current state matches: its type and key code, and its text or target
    element (``text`` exact, ``text_contains`` a substring, ``resource_id`` exact or the bare ``:id/<name>``
    suffix, ``content_desc`` exact). False in the initial state, which no action led to."""

    model_config = ConfigDict(extra="forbid")

    type: ActionType | None = None
    key: int | None = None
    text: str | None = None
    text_contains: str | None = None
    resource_id: str | None = None
    content_desc: str | None = None

    @model_validator(mode="after")
    def _something(self) -> ActionLeaf:
        if all(getattr(self, f) is None for f in ACTION_FIELDS):
            raise ValueError(f"an action check needs at least one of {', '.join(ACTION_FIELDS)}")
        return self


class NeverCheck(BaseModel):
    """``check`` held at no recorded step strictly after the step at which milestone ``since`` was reached
    (up to and including the current step); without ``since``, at no step of the run, the initial state
    (step 0) included. False while milestone ``since`` is not reached yet."""

    model_config = ConfigDict(extra="forbid")

    check: Check
    since: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")

    @model_validator(mode="after")
    def _flat(self) -> NeverCheck:
        if self.check.temporal:
            raise ValueError("the check of never must not itself contain never or before (temporal checks do not "
                             "nest)")
        return self


class BeforeCheck(BaseModel):
    """``first`` first held at a step strictly earlier than the step at which ``then`` first held (both have
    held by now)."""

    model_config = ConfigDict(extra="forbid")

    first: Check
    then: Check

    @model_validator(mode="after")
    def _flat(self) -> BeforeCheck:
        for name in ("first", "then"):
            if getattr(self, name).temporal:
                raise ValueError(f"the {name} check of before must not itself contain never or before (temporal "
                                 "checks do not nest)")
        return self


class Check(BaseModel):
    """A predicate: exactly one leaf (screen, app, file, clipboard, collection, timer, setting, database,
    messages, action), one
    combinator (all / any / not) or one temporal combinator (never / before), which reads the run's history
    (:class:`emukit.tasks.checks.Trace`) rather than the current state alone."""

    model_config = ConfigDict(extra="forbid")

    screen: ScreenLeaf | None = None
    app: AppLeaf | None = None
    file: FileLeaf | None = None
    clipboard: ClipboardLeaf | None = None
    collection: CollectionLeaf | None = None
    timer: TimerLeaf | None = None
    setting: SettingLeaf | None = None
    database: DatabaseLeaf | None = None
    messages: MessagesLeaf | None = None
    action: ActionLeaf | None = None
    all: list[Check] | None = None
    any: list[Check] | None = None
    not_: Check | None = Field(default=None, alias="not")
    never: NeverCheck | None = None
    before: BeforeCheck | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Check:
        given = [k for k in KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a check has exactly one of {', '.join(k.rstrip('_') for k in KINDS)}; "
                             f"got {', '.join(given) or 'none'}")
        if given[0] in ("all", "any") and not getattr(self, given[0]):
            raise ValueError(f"{given[0]} needs at least one check")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None)

    @property
    def children(self) -> list[Check]:
        """The checks this one is made of: a combinator's operands (never: its check; before: first, then)."""
        kind = self.kind
        if kind in ("all", "any"):
            return list(getattr(self, kind))
        if kind == "not_":
            return [self.not_]  # type: ignore[list-item]
        if kind == "never":
            return [self.never.check]  # type: ignore[union-attr]
        if kind == "before":
            return [self.before.first, self.before.then]  # type: ignore[union-attr]
        return []

    def walk(self) -> Iterator[Check]:
        """This check and every check inside it, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    @property
    def temporal(self) -> bool:
        """True when the check contains never or before (it reads the run's history)."""
        return any(c.kind in TEMPORAL_KINDS for c in self.walk())

    @property
    def visual(self) -> bool:
        """True when the check can be evaluated on a rendered screen alone: visible-text screen leaves and
        action leaves (the action is known on either side); never / before are as visual as their operands."""
        kind = self.kind
        if kind == "screen":
            return self.screen.visual  # type: ignore[union-attr]
        if kind == "action":
            return True
        if kind in ("all", "any", "not_", "never", "before"):
            return all(c.visual for c in self.children)
        return False


KINDS = ("screen", "app", "file", "clipboard", "collection", "timer", "setting", "database", "messages", "action",
         "all", "any", "not_", "never", "before")
TEMPORAL_KINDS = ("never", "before")
NeverCheck.model_rebuild()
BeforeCheck.model_rebuild()
Check.model_rebuild()


def since_problems(milestones: list[tuple[str, list[Any]]]) -> list[str]:
    """Why ``never.since`` references are wrong: each must name a milestone earlier in the task than the one
    whose check (or screen_check) holds it. ``milestones``: ``(id, [check, ...])`` in order, the checks as
    :class:`Check` models or as their raw mappings (a template's, before substitution)."""
    order = {mid: i for i, (mid, _) in enumerate(milestones)}
    problems: list[str] = []
    for i, (mid, checks) in enumerate(milestones):
        for since in (s for c in checks for s in _since_refs(c)):
            if since not in order:
                problems.append(f"milestone {mid}: never.since names {since!r}, which is not a milestone of the task "
                                f"(milestones: {', '.join(order)})")
            elif order[since] >= i:
                problems.append(f"milestone {mid}: never.since names {since!r}, which is "
                                f"{'the milestone itself' if since == mid else 'a later milestone'}; it must name "
                                "an earlier one")
    return list(dict.fromkeys(problems))  # a screen_check defaulting to the check names it once


def _since_refs(check: Any) -> Iterator[str]:
    if isinstance(check, Check):
        for c in check.walk():
            if c.never is not None and c.never.since is not None:
                yield c.never.since
    elif isinstance(check, dict):
        never = check.get("never")
        if isinstance(never, dict) and isinstance(never.get("since"), str):
            yield never["since"]
        for value in check.values():
            yield from _since_refs(value)
    elif isinstance(check, list):
        for value in check:
            yield from _since_refs(value)


class Milestone(BaseModel):
    """One ordered milestone: a plain-language assertion and its machine check. ``screen_check`` is what a
    rendered world-model prediction is scored on; it defaults to ``check`` when that is visual."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    type: MilestoneType
    assertion: str = Field(min_length=5)
    check: Check
    screen_check: Check | None = None

    @model_validator(mode="after")
    def _screen(self) -> Milestone:
        if self.screen_check is None:
            if not self.check.visual:
                raise ValueError("the check reads device state a rendered screen cannot show; add a screen_check "
                                 "over visible text (screen leaves with text / text_contains / content_desc)")
            self.screen_check = self.check
        elif not self.screen_check.visual:
            raise ValueError("screen_check may only use screen leaves with text / text_contains / content_desc and "
                             "action leaves (also inside never / before)")
        return self


# ------------------------------------------------------------------------------------------ tasks
class Provenance(BaseModel):
    """Who verified the task and how: the reference trajectory is the verified action sequence from the
    initial state; ``milestone_steps[i]`` is the number of reference actions after which milestone i was
    first reached."""

    model_config = ConfigDict(extra="forbid")

    status: Status = "draft"
    verified_by: str | None = None
    verified_at: dt.datetime | None = None
    method: Literal["annotator", "scripted"] | None = None
    human_steps: int | None = None
    reference: list[Action] = Field(default_factory=list)
    milestone_steps: list[int] = Field(default_factory=list)
    initial_screenshot: str | None = None  # path relative to tasks/, a PNG of the clean initial screen
    initial_snapshot: str | None = None  # the device snapshot name holding the initial state
    note: str = ""
    annotation: int | None = None  # the annotation (annotations/<id>/<NNNN>.yaml) accepted as canonical
    #: the device the reference was recorded or annotated on and the builds of the task's apps (read on the
    #: device); None in tasks verified before it was kept
    built_on: BuiltOn | None = None


class Task(BaseModel):
    """One online milestone task (``tasks/<id>.yaml``)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    template: str
    context: ContextKind
    category: Category
    apps: list[str] = Field(min_length=1)
    instruction: str = Field(min_length=10)
    base_snapshot: str
    setup: Steps = Field(default_factory=list)
    milestones: list[Milestone] = Field(min_length=2, max_length=5)
    step_budget: int = Field(ge=1)
    params: dict[str, Any] = Field(default_factory=dict)
    provenance: Provenance = Field(default_factory=Provenance)
    source_path: str = Field(default="", exclude=True)

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        ids = [m.id for m in self.milestones]
        if len(set(ids)) != len(ids):
            raise ValueError(f"milestone ids must be unique: {ids}")
        problems = since_problems([(m.id, [m.check, m.screen_check]) for m in self.milestones])
        if problems:
            raise ValueError("; ".join(problems))
        p = self.provenance
        if p.milestone_steps:
            if len(p.milestone_steps) != len(self.milestones):
                raise ValueError(f"provenance.milestone_steps has {len(p.milestone_steps)} entries for "
                                 f"{len(self.milestones)} milestones")
            if any(b < a for a, b in zip(p.milestone_steps, p.milestone_steps[1:], strict=False)):
                raise ValueError(f"provenance.milestone_steps must not decrease: {p.milestone_steps}")
            if p.milestone_steps[0] < 1 or p.milestone_steps[-1] > len(p.reference):
                raise ValueError(f"provenance.milestone_steps {p.milestone_steps} must lie in 1..{len(p.reference)} "
                                 "(the reference length)")
        if p.status == "verified":
            missing = [f for f in ("verified_by", "verified_at", "method", "human_steps") if getattr(p, f) is None]
            if missing or not p.reference or not p.milestone_steps:
                raise ValueError("a verified task needs provenance.verified_by, verified_at, method, human_steps, "
                                 "a reference trajectory and milestone_steps")
            if len(p.reference) > self.step_budget:
                raise ValueError(f"the reference trajectory ({len(p.reference)} actions) exceeds step_budget "
                                 f"{self.step_budget}")
        return self


# ------------------------------------------------------------------------------------------ task templates
class TaskTemplate(BaseModel):
    """A recipe for tasks (``tasks/templates/<name>.yaml``); ``{param}`` fields are substituted per task."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    context: ContextKind
    category: Category
    description: str = Field(min_length=10)
    apps: list[str] = Field(min_length=1)
    base_snapshot: str
    #: how many tasks the shipped set instantiates from it (``emukit tasks record`` without ``--count``)
    count: int = Field(default=3, ge=1)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    derived: dict[str, str] = Field(default_factory=dict)
    instruction: str = Field(min_length=10)
    setup: Steps = Field(default_factory=list)
    milestones: list[dict[str, Any]] = Field(min_length=2, max_length=5)
    solution: Steps = Field(min_length=1)
    budget_factor: float = Field(default=2.0, ge=1.0)
    source_path: str = ""

    @field_validator("milestones")
    @classmethod
    def _milestones(cls, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:  # shape only: fields holding {params} are validated once substituted
            if not isinstance(item, dict) or not {"id", "type", "assertion", "check"} <= set(item):
                raise ValueError("each milestone needs id, type, assertion and check")
        problems = since_problems([(str(m["id"]), [m["check"], m.get("screen_check")]) for m in items])
        if problems:
            raise ValueError("; ".join(problems))
        return items
