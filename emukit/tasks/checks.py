"""Evaluate milestone checks (:class:`~emukit.tasks.schema.Check`) on a live device or on a rendered screen.

On a device (:class:`DeviceView`) screen leaves read the UI hierarchy and the other leaves read ground truth
through the read-only probes (files with ``stat``/``cat``, the clipboard, the music databases, the Clock's
preferences, ``settings get``); every value is read at most once per view. On a rendered world-model
prediction (:class:`ScreenView`) only visible-text screen leaves can be answered, which is why every
milestone carries a visual ``screen_check``.

Action leaves and the temporal combinators (``never``, ``before``) are answered from a :class:`Trace`, the
run so far: the action performed at each step and, recorded at that step, the truth value of every operand of
a temporal combinator. A temporal check never re-reads the past from the device; the tracker
(:class:`emukit.tasks.session.MilestoneTracker`) records each step as it happens.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from emukit.actions import Action
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.probes.ordered import collection_items
from emukit.tasks.schema import (
    ActionLeaf,
    AppLeaf,
    Check,
    ClipboardLeaf,
    CollectionLeaf,
    DatabaseLeaf,
    FileLeaf,
    MessagesLeaf,
    ScreenLeaf,
    SettingLeaf,
    TimerLeaf,
)


class View(Protocol):
    """What a check reads: a screen, and (on devices) ground truth."""

    def screen(self, leaf: ScreenLeaf) -> bool: ...

    def truth(self, check: Check) -> bool: ...


def operand_key(check: Check) -> str:
    """The key a check's recorded truth values are kept under in a :class:`Trace` (equal checks share it)."""
    return check.model_dump_json(by_alias=True, exclude_none=True)


def recorded_operands(checks: Iterable[Check | None]) -> list[Check]:
    """What a trace records at every step for ``checks``: the operands of their never / before combinators
    and their action leaves, each once, in the order first met."""
    found: dict[str, Check] = {}
    for check in checks:
        if check is None:
            continue
        for c in check.walk():
            if c.never is not None:
                found.setdefault(operand_key(c.never.check), c.never.check)
            elif c.before is not None:
                found.setdefault(operand_key(c.before.first), c.before.first)
                found.setdefault(operand_key(c.before.then), c.before.then)
            elif c.action is not None:
                found.setdefault(operand_key(c), c)
    return list(found.values())


@dataclass
class StepRecord:
    """One recorded step: its number (0: the initial state, n: after the n-th action), the action that led
    to it (None at step 0) and the truth value of every recorded operand there, by :func:`operand_key`."""

    step: int
    action: Action | None
    values: dict[str, bool] = field(default_factory=dict)


@dataclass
class Trace:
    """The run so far, as the temporal checks read it: one :class:`StepRecord` per step in order (the last
    is the current state) and the step at which each milestone was reached."""

    steps: list[StepRecord] = field(default_factory=list)
    reached: dict[str, int] = field(default_factory=dict)

    @property
    def current(self) -> StepRecord | None:
        """The current step (None before step 0 is recorded)."""
        return self.steps[-1] if self.steps else None

    @property
    def action(self) -> Action | None:
        """The action that led to the current state (None in the initial state)."""
        return self.steps[-1].action if self.steps else None

    def record(self, step: int, action: Action | None, view: View, operands: Iterable[Check]) -> StepRecord:
        """Append step ``step`` (after ``action``) and evaluate every operand on ``view`` there."""
        if self.steps and step <= self.steps[-1].step:
            raise ValueError(f"step {step} recorded after step {self.steps[-1].step}: steps must increase")
        if not self.steps and step != 0:
            raise ValueError(f"the first recorded step must be the initial state (step 0), not step {step}")
        rec = StepRecord(step, action)
        self.steps.append(rec)
        try:
            for check in operands:
                rec.values[operand_key(check)] = evaluate(check, view, self)
        except BaseException:
            self.steps.pop()  # a step is recorded whole or not at all
            raise
        return rec

    def held(self, check: Check, after: int = -1) -> list[int]:
        """The recorded steps later than ``after`` at which ``check`` (a recorded operand) held."""
        key = operand_key(check)
        out: list[int] = []
        for rec in self.steps:
            if rec.step <= after:
                continue
            if key not in rec.values:
                raise ValueError(f"the trace has no value of {describe_check(check)} at step {rec.step}: temporal "
                                 "operands are recorded by the milestone tracker at every step of the run")
            if rec.values[key]:
                out.append(rec.step)
        return out


def evaluate(check: Check, view: View, trace: Trace | None = None) -> bool:
    """The check's truth value on ``view``, the current state. Action leaves and never / before read
    ``trace`` (the run so far, its last step being ``view``'s); without one they raise ValueError."""
    kind = check.kind
    if kind == "all":
        return all(evaluate(c, view, trace) for c in check.all or ())
    if kind == "any":
        return any(evaluate(c, view, trace) for c in check.any or ())
    if kind == "not_":
        return not evaluate(check.not_, view, trace)  # type: ignore[arg-type]
    if kind == "screen":
        return view.screen(check.screen)  # type: ignore[arg-type]
    if kind in ("action", "never", "before"):
        if trace is None or trace.current is None:
            raise ValueError(f"a{'n' if kind == 'action' else ''} {kind} check reads the run's recorded steps; "
                             "evaluate it with a trace (emukit.tasks.session.MilestoneTracker keeps one)")
        return _temporal(check, trace)
    return view.truth(check)


def _temporal(check: Check, trace: Trace) -> bool:
    if check.action is not None:
        now = trace.current
        value = now.values.get(operand_key(check)) if now is not None else None
        return value if value is not None else action_matches(check.action, trace.action)
    if check.never is not None:
        since = check.never.since
        if since is None:
            return not trace.held(check.never.check)
        if since not in trace.reached:
            return False  # not reached yet: nothing can be said to have been avoided since
        return not trace.held(check.never.check, after=trace.reached[since])
    before = check.before
    assert before is not None
    first, then = trace.held(before.first), trace.held(before.then)
    return bool(first) and bool(then) and first[0] < then[0]


def action_matches(leaf: ActionLeaf, action: Action | None) -> bool:
    """Whether ``action`` (the one that led to the current state; None in the initial state) matches the
    leaf. ``text`` / ``text_contains`` read the action's own text (typed text, an app label) when it has
    one, else its element's; the other element fields need a recorded element."""
    if action is None:
        return False
    if leaf.type is not None and action.type != leaf.type:
        return False
    if leaf.key is not None and action.key != leaf.key:
        return False
    element = action.element
    if leaf.text is not None or leaf.text_contains is not None:
        text = action.text if action.text is not None else (element.text if element is not None else None)
        if text is None:
            return False
        if leaf.text is not None and text.strip() != leaf.text:
            return False
        if leaf.text_contains is not None and leaf.text_contains not in text:
            return False
    if leaf.resource_id is not None:
        rid = element.resource_id if element is not None else ""
        if not rid or (rid != leaf.resource_id and not rid.endswith(f":id/{leaf.resource_id}")):
            return False
    if leaf.content_desc is not None and (element is None or element.content_desc != leaf.content_desc):
        return False
    return True


#: the field a leaf is named by in :func:`describe_check` (shown first, without its name)
_LEAD_FIELD = {"app": "package", "file": "path", "timer": "state", "collection": "playlist", "setting": "key",
               "database": "app", "messages": "box"}


def describe_check(check: Check) -> str:
    """A one-line rendering of a check for people: ``app com.google.android.deskclock``, ``timer none``,
    ``file /sdcard/x.pdf exists=false``, ``all(screen text='OK', not(app com.x))``."""
    kind = check.kind
    if kind in ("all", "any"):
        return f"{kind}({', '.join(describe_check(c) for c in check.children)})"
    if kind == "not_":
        return f"not({describe_check(check.children[0])})"
    if kind == "never":
        since = f" since {check.never.since}" if check.never.since else ""  # type: ignore[union-attr]
        return f"never({describe_check(check.children[0])}{since})"
    if kind == "before":
        return f"before({describe_check(check.children[0])}, then {describe_check(check.children[1])})"
    leaf = getattr(check, kind)
    lead = _LEAD_FIELD.get(kind)
    words = [kind]
    if lead is not None and getattr(leaf, lead) is not None:
        words.append(str(getattr(leaf, lead)))
    for name, value in leaf.model_dump(exclude_defaults=True, exclude_none=True).items():
        if name != lead:
            words.append(f"{name}={str(value).lower() if isinstance(value, bool) else repr(value)}")
    return " ".join(words)


def _node_matches(node: ET.Element, leaf: ScreenLeaf) -> bool:
    text = node.get("text", "")
    if leaf.text is not None and text.strip() != leaf.text:
        return False
    if leaf.text_contains is not None and leaf.text_contains not in text:
        return False
    if leaf.content_desc is not None and node.get("content-desc", "") != leaf.content_desc:
        return False
    if leaf.resource_id is not None:
        rid = node.get("resource-id", "")
        if rid != leaf.resource_id and not rid.endswith(f":id/{leaf.resource_id}"):
            return False
    for flag in ("checked", "selected", "focused", "clickable"):
        want = getattr(leaf, flag)
        if want is not None and (node.get(flag, "false") == "true") != want:
            return False
    return node.get("bounds", "[0,0][0,0]") != "[0,0][0,0]"


def hierarchy_has(xml: str, leaf: ScreenLeaf) -> bool:
    """Whether the hierarchy satisfies a screen leaf (``absent`` inverts it)."""
    found = any(_node_matches(n, leaf) for n in ET.fromstring(xml).iter("node"))
    return found != leaf.absent


class DeviceView:
    """One moment of a device: its hierarchy (given or read once) and ground truth read on demand, once."""

    def __init__(self, driver: Driver, xml: str | None = None) -> None:
        self.driver = driver
        self._xml = xml
        self._cache: dict[tuple[str, ...], Any] = {}

    @property
    def xml(self) -> str:
        if self._xml is None:
            self._xml = self.driver.hierarchy()
        return self._xml

    def screen(self, leaf: ScreenLeaf) -> bool:
        return hierarchy_has(self.xml, leaf)

    def _once(self, key: tuple[str, ...], read: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = read()
        return self._cache[key]

    def truth(self, check: Check) -> bool:
        kind = check.kind
        leaf = getattr(check, kind)
        return getattr(self, f"_{kind}")(leaf)

    # -- leaves ------------------------------------------------------------------------------------------
    def _app(self, leaf: AppLeaf) -> bool:
        package, activity = self._once(("app",), lambda: self.driver.focused_app() or ("", ""))
        return package == leaf.package and (leaf.activity is None or leaf.activity in activity)

    def _file(self, leaf: FileLeaf) -> bool:
        def read() -> str | None:
            q = shlex.quote(leaf.path)
            res = self.driver.shell(f"if [ -f {q} ]; then echo F; cat {q}; else echo N; fi")
            out = res.text
            return out[2:] if out.startswith("F\n") else None

        content = self._once(("file", leaf.path), read)
        if content is None:
            return not leaf.exists
        if not leaf.exists:
            return False
        if leaf.equals is not None and content.rstrip("\n") != leaf.equals.rstrip("\n"):
            return False
        if leaf.contains is not None and leaf.contains not in content:
            return False
        return leaf.not_contains is None or leaf.not_contains not in content

    def _clipboard(self, leaf: ClipboardLeaf) -> bool:
        from emukit.probes.clipboard import probe_clipboard

        text = self._once(("clipboard",), lambda: probe_clipboard(self.driver).canonical["clipboard_text"])
        if leaf.empty is not None and (not text) != leaf.empty:
            return False
        if leaf.equals is not None and text != leaf.equals:
            return False
        return leaf.contains is None or leaf.contains in (text or "")

    def _collection(self, leaf: CollectionLeaf) -> bool:
        items = self._once(("collection", leaf.playlist or ""), lambda: collection_items(self.driver, leaf.playlist))
        if items is None:
            return not leaf.exists
        if not leaf.exists:
            return False
        if leaf.equals is not None and items != leaf.equals:
            return False
        if leaf.ends_with is not None and items[len(items) - len(leaf.ends_with):] != leaf.ends_with:
            return False
        if leaf.includes is not None and not set(leaf.includes) <= set(items):
            return False
        return leaf.length is None or len(items) == leaf.length

    def _timer(self, leaf: TimerLeaf) -> bool:
        from emukit.probes.temporal import read_clock, timers_from_prefs

        def newest() -> tuple[str, int]:
            prefs, elapsed = read_clock(self.driver)
            timers = timers_from_prefs(prefs, elapsed)
            if not timers:
                return "none", 0
            t = timers[-1]
            state = {"reset": "none", "missed": "expired"}.get(str(t["state"]), str(t["state"]))
            return state, max(0, int(t["remaining_ms"])) // 1000  # type: ignore[arg-type]

        state, remaining = self._once(("timer",), newest)
        if state != leaf.state:
            return False
        if leaf.remaining_min is not None and remaining < leaf.remaining_min:
            return False
        return leaf.remaining_max is None or remaining <= leaf.remaining_max

    def _setting(self, leaf: SettingLeaf) -> bool:
        value = self._once(("setting", leaf.namespace, leaf.key), lambda: self.driver.shell(
            f"settings get {leaf.namespace} {shlex.quote(leaf.key)}").text.strip())
        return value == leaf.equals

    def _database(self, leaf: DatabaseLeaf) -> bool:
        from emukit.apps.registry import profile_class

        def read() -> list[str]:
            try:
                cls = profile_class(leaf.app)
            except KeyError as exc:
                raise ConfigError(f"database check: {exc.args[0]}") from None
            reading = cls.query_rows(self.driver, leaf.query)
            firsts = (next(iter(row.values())) for row in reading.rows if row)
            return ["" if value is None else str(value) for value in firsts]

        values = self._once(("database", leaf.app, leaf.query), read)
        if leaf.equals is not None and values != leaf.equals:
            return False
        if leaf.includes is not None and not set(leaf.includes) <= set(values):
            return False
        if leaf.excludes is not None and set(leaf.excludes) & set(values):
            return False
        return leaf.count is None or len(values) == leaf.count

    def _messages(self, leaf: MessagesLeaf) -> bool:
        from emukit.apps.sms import read_messages

        rows = self._once(("messages", leaf.box or ""), lambda: read_messages(self.driver, leaf.box).rows)

        def matches(row: dict[str, Any]) -> bool:
            body = str(row.get("body") or "")
            if leaf.address is not None and _digits(str(row.get("address") or "")) != _digits(leaf.address):
                return False
            if leaf.body is not None and body != leaf.body:
                return False
            return leaf.contains is None or leaf.contains in body

        return any(matches(r) for r in rows) == leaf.exists


def _digits(number: str) -> str:
    """A phone number as the provider may store it (``+1 555-0101`` and ``+15550101`` are one address)."""
    return "".join(c for c in number if c.isdigit() or c == "+")


class ScreenView:
    """A rendered screen known only by its visible text regions (world-model predictions)."""

    def __init__(self, texts: Iterable[str], labels: Iterable[str] = ()) -> None:
        self.texts = [t.strip() for t in texts if t and t.strip()]
        self.labels = [t.strip() for t in labels if t and t.strip()]

    @cached_property
    def lines(self) -> set[str]:
        return {line.strip() for t in self.texts for line in t.splitlines() if line.strip()} | set(self.texts)

    def screen(self, leaf: ScreenLeaf) -> bool:
        if not leaf.visual:
            raise ValueError("a rendered screen can only answer text / text_contains / content_desc")
        ok = True
        if leaf.text is not None:
            ok = ok and leaf.text in self.lines
        if leaf.text_contains is not None:
            ok = ok and any(leaf.text_contains in t for t in self.texts)
        if leaf.content_desc is not None:
            ok = ok and (leaf.content_desc in self.labels or leaf.content_desc in self.lines)
        return ok != leaf.absent

    def truth(self, check: Check) -> bool:
        raise ValueError(f"a rendered screen cannot answer a {check.kind} check")
