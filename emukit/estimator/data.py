"""What the learned estimator reads and writes: the text serialisation of a model-visible history, the
canonical state target, and the examples of a state-training export.

**Information access** (seed 002 Section 3.2, Appendix C.6 / D.2). The input of one example is built by
:func:`serialize` from exactly:

* the family's schema instruction (Table 10) and the prediction-time task context reduced to
  :data:`TASK_KEYS` (the tracked artifact's name and paths, the playlist), the same for both branches of a
  pair;
* the ordered model-visible observations and the actions taken on them;
* the final (boundary) observation.

Never: the shared action ``A_t``, record / pair / trajectory identifiers, the template's name, parameters,
seed, ground-truth state, probe outcomes or logical-time records. :func:`serialize` takes only the pieces
above as arguments, so nothing else can reach it; ``tests/estimator`` checks that sentinels planted in every
excluded field of a row never appear in the input.

**Observations as text** (a difference from the seed, whose estimator reads screenshots): each observation is
the visible text of its UI hierarchy (node text, else content description, in document order, at most
:data:`MAX_NODES` per screen, without the system bars' constant icons). The first observation is written in
full (``O0: text | text | ...``), each later one as the texts that appeared since the one before
(``O<i>: +appeared | +appeared``, at most :data:`MAX_ADDED`; ``(same)``; ``-gone | -gone`` when texts only
went away, ``(less)`` past :data:`MAX_ADDED` of them), except that a screen whose texts are mostly still shown
but in another order (a list reordered) or with texts inserted between two of the app's texts that stayed,
none having gone but from the end (an item added inside a list, rows pushed out of view; not a countdown's
digits replaced in the middle) is written in full again in screen order (``O<i>: = text | ...``); the final
(boundary) observation is written in full again (``F<n>: ...``).
Actions are one compact line each (``A<i>: tap "Button [Start]"``, ``swipe 540,2022 -> 540,474 600ms``,
``wait 30000ms``, ``key 4``, ``type "Gate"``, ``after 2000ms`` for a recorded delay); a tap or press also
names the text under its point on the screen it was made on (``on="Desert Bloom"``: the row whose menu was
opened, the word that was long-pressed), which a screenshot shows and the text alone would lose; such a tap's
pixel coordinates are left out. A drag names the rows at its start and its end (``from="Song A"
to="Song C"``). Screenshots are not read.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.evaluate.estimator import visible_nodes
from emukit.families import FAMILIES, unit
from emukit.jsonl import read_objects

MAX_NODES = 24
MAX_ADDED = 10
STATE_PROMPT = "STATE:"

ACTION_FIELDS = ("type", "x", "y", "x2", "y2", "key", "text", "duration_ms", "wait_ms", "element")


SYSTEM_UI = "com.android.systemui:"
#: the system bar's decoration (always the same); the status bar clock and the shade are kept
SYSTEM_DECORATION = {f"com.android.systemui:id/{n}" for n in ("battery", "wifi_signal", "mobile_signal", "back",
                                                               "home", "recent_apps")}


def screen_texts(xml: str) -> list[str]:
    """The visible texts of one observation's hierarchy in document order (node text, else ``[description]``),
    without the system bars' constant icons; at most :data:`MAX_NODES`."""
    return _screen(xml)[0]


def _screen(xml: str) -> tuple[list[str], set[str]]:
    """:func:`screen_texts`, and which of them System UI shows (the status bar's clock, the shade)."""
    parts: list[str] = []
    system: set[str] = set()
    for node in visible_nodes(xml):
        if node.resource_id in SYSTEM_DECORATION:
            continue
        label = " ".join((node.text or f"[{node.content_desc}]").split())
        parts.append(label)
        if node.resource_id.startswith(SYSTEM_UI):
            system.add(label)
        if len(parts) >= MAX_NODES:
            parts.append("...")
            break
    return parts, system


def screen_change(before: list[str], after: list[str], system: Collection[str] = ()) -> str:
    """What changed between two screens' texts: ``(same)``; when most of the screen is still shown and those
    texts changed their order (a list reordered: a queue after a drag, a playlist sorted) or texts were
    inserted between two of them (a song added inside the queue: :func:`_inserted_among`), the whole screen
    again in screen order after ``=``, so the order a screenshot shows is never lost; else the texts that
    appeared (``+t | +u``, in order, at most :data:`MAX_ADDED`); when none did, the texts that went away (``-t``,
    at most :data:`MAX_ADDED`; ``(less)`` past that), so a removed list item is named. ``system``: the texts
    System UI shows (the status bar's clock), which do not count as the texts an inserted one lies between
    (a menu's items appended to the app's texts come before the clock in document order)."""
    if before == after:
        return "(same)"
    left = list(before)
    added, kept = [], []
    added_at: list[int] = []  # where in ``after`` each added text is
    for i, t in enumerate(after):
        if t in left:
            left.remove(t)
            kept.append(t)
        else:
            added.append(t)
            added_at.append(i)
    if 2 * len(kept) >= len(before) and (not _is_subsequence(kept, before)  # the same screen, reordered
                                         or _inserted_among(before, after, added_at, system)):
        return "= " + " | ".join(after)
    if not added:
        return " | ".join(f"-{t}" for t in left) if len(left) <= MAX_ADDED else "(less)"
    shown = [f"+{t}" for t in added[:MAX_ADDED]]
    return " | ".join(shown + (["..."] if len(added) > MAX_ADDED else []))


def _inserted_among(before: list[str], after: list[str], added_at: list[int],
                    system: Collection[str] = ()) -> bool:
    """Whether texts were inserted into the app's screen: some appeared between two of the app's texts that
    stayed (an item added inside a list), and none went away but from the end (rows pushed out of view), so
    a ``+item`` line would lose where it went. A text that replaced one in the middle (a countdown's digits,
    a button swapped for another) makes it a change of the layout, written as a diff."""
    added = set(added_at)
    anchors = [i for i in range(len(after)) if i not in added and after[i] not in system]
    if not anchors:
        return False
    still = [after[i] for i in anchors]
    last_kept = -1  # where in ``before`` the last app text that stayed is
    gone: list[int] = []
    for i, t in enumerate(before):
        if still and t == still[0]:
            still.pop(0)
            last_kept = i
        elif t not in system:
            gone.append(i)
    if any(i < last_kept for i in gone):
        return False
    return any(anchors[0] < i < anchors[-1] for i in added_at)


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(t == w for w in it) for t in part)


def text_under(xml: str, x: int, y: int) -> str | None:
    """What a tap at (x, y) lands on as the screen shows it: the smallest text node containing the point,
    else the first text of the list row at that height (a row's menu button, a word in a text view)."""
    nodes = [n for n in visible_nodes(xml) if n.text and n.resource_id not in SYSTEM_DECORATION]
    inside = [n for n in nodes if n.bounds[0] <= x < n.bounds[2] and n.bounds[1] <= y < n.bounds[3]]
    if inside:
        best = min(inside, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1]))
        if (best.bounds[3] - best.bounds[1]) < 400:
            return best.text
    row = [n for n in nodes if n.bounds[1] <= y < n.bounds[3] and (n.bounds[3] - n.bounds[1]) < 400]
    if not row:
        return None
    return min(row, key=lambda n: (n.bounds[1], n.bounds[0])).text


def action_text(action: Mapping[str, Any], xml: str | None = None) -> str:
    """One action's model-visible fields as one short line; with the observation it was taken on, a tap's
    or press's point is also named by the text under it (``on="Desert Bloom"``), which a screenshot shows
    and the text serialisation would otherwise lose."""
    a = {k: action[k] for k in ACTION_FIELDS if action.get(k) is not None}
    kind = str(a.get("type", "?"))
    bits = [kind]
    under = None
    if xml and kind in ("tap", "long_press") and "x" in a and "y" in a:
        under = text_under(xml, int(a["x"]), int(a["y"]))
    if "x" in a and "y" in a and not (kind in ("tap", "long_press") and ("element" in a or under)):
        bits.append(f"{a['x']},{a['y']}")  # a tap named by its element or the text under it needs no pixels
    if "x2" in a and "y2" in a:
        bits.append(f"-> {a['x2']},{a['y2']}")
    if "key" in a:
        bits.append(str(a["key"]))
    if "text" in a:
        bits.append(json.dumps(a["text"], ensure_ascii=False))
    if "duration_ms" in a:
        bits.append(f"{a['duration_ms']}ms")
    if "element" in a:
        bits.append(json.dumps(str(a["element"]), ensure_ascii=False))
    if a.get("wait_ms"):
        bits.append(f"after {a['wait_ms']}ms")
    if under:
        if json.dumps(under, ensure_ascii=False) not in str(a.get("element", "")):
            bits.append("on=" + json.dumps(" ".join(under.split()), ensure_ascii=False))
    if xml and kind == "drag" and all(k in a for k in ("x", "y", "x2", "y2")):
        for name, x, y in (("from", a["x"], a["y"]), ("to", a["x2"], a["y2"])):  # the rows at both ends
            row = text_under(xml, int(x), int(y))
            if row:
                bits.append(f"{name}=" + json.dumps(" ".join(row.split()), ensure_ascii=False))
    return " ".join(bits)


def serialize(family: str, history: Sequence[tuple[str, Mapping[str, Any]]], final_xml: str,
              task: Mapping[str, Any] | None) -> str:
    """The estimator's input text: instruction, task context, ``O<i>``/``A<i>`` lines, the final observation,
    then :data:`STATE_PROMPT`. ``history`` is ``(hierarchy XML, canonical action dict)`` oldest first;
    ``task`` is reduced to :data:`TASK_KEYS`."""
    if family not in FAMILIES:
        raise ConfigError(f"unknown family {family!r} (families: {', '.join(FAMILIES)})")
    lines = [f"FAMILY {family}: {unit(family).instruction}"]
    task = normalize_task(task)
    if task:
        lines.append("TASK " + json.dumps(task, sort_keys=True, ensure_ascii=False))
    previous: list[str] | None = None
    steps = [*history, (final_xml, None)]
    for i, (xml, action) in enumerate(steps):
        texts, system = _screen(xml)
        last = i == len(steps) - 1
        shown = " | ".join(texts) if previous is None or last else screen_change(previous, texts, system)
        lines.append(f"{'F' if last else 'O'}{i}: {shown}")
        previous = texts
        if action is not None:
            lines.append(f"A{i}: {action_text(action, xml)}")
    lines.append(STATE_PROMPT)
    return "\n".join(lines)


def serialize_steps(family: str, history: Sequence[tuple[str, Any]], final_xml: str,
                    task: Mapping[str, Any] | None) -> str:
    """:func:`serialize` of a history whose actions are :class:`~emukit.actions.Action` objects or canonical
    action dicts (what an estimator is given at prediction time)."""
    steps = [(xml, a.canonical() if isinstance(a, Action) else dict(a)) for xml, a in history]
    return serialize(family, steps, final_xml, task)


def target_text(family: str, state: Mapping[str, Any]) -> str:
    """The canonical state as the compact JSON the estimator generates (sorted keys)."""
    keys = unit(family).state_keys
    missing = [k for k in keys if k not in state]
    if missing:
        raise ConfigError(f"a {family} state needs {', '.join(missing)}; got {sorted(state)}")
    return json.dumps({k: state[k] for k in keys}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_state(family: str, text: str) -> dict[str, Any] | None:
    """The state a generated text holds (None when it is not a JSON object with the family's keys)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or set(data) != set(unit(family).state_keys):
        return None
    return data


#: the task-context keys the estimator reads: what is tracked, never how it ends
TASK_KEYS = ("source", "destination", "artifact", "playlist")


def normalize_task(task: Mapping[str, Any] | None) -> dict[str, Any]:
    """The part of a prediction-time task context the estimator reads (:data:`TASK_KEYS`), the same whether
    it comes from :func:`emukit.evaluate.run.estimator_task` at evaluation or :func:`task_context` in
    training."""
    return {k: task[k] for k in TASK_KEYS if task and isinstance(task.get(k), str) and task[k]}


class OldStateTrainingWarning(UserWarning):
    """State-training rows without ``entity`` (exported by an older emukit): their task context is read from
    the causal templates in the search path, which may have changed since."""


@functools.lru_cache(maxsize=None)
def _template_context(family: str, template: str, params_json: str) -> dict[str, Any]:
    from emukit.templates.sampler import substitute

    params = json.loads(params_json)
    state = _template_state(family, template)
    if state is None:
        return {}
    try:
        context = dict(substitute(state, params, f"template {template}"))
    except (ConfigError, KeyError, ValueError) as exc:  # the template changed since the row was exported
        context, why = {}, f"its state block cannot be filled from the row's params ({exc}): no task context"
    else:
        why = "its task context is read from the template, which may have changed since"
    warnings.warn(OldStateTrainingWarning(f"state-training rows of template {template} have no 'entity' (an older "
                                          f"export): {why}; re-export with this emukit"), stacklevel=4)
    return context


@functools.lru_cache(maxsize=None)
def _template_state(family: str, template: str) -> dict[str, Any] | None:
    """The ``state:`` block of a shipped or configured causal template (read once per process)."""
    from emukit.templates.loader import load_templates

    found = [t for t in load_templates(family=family, variants=True) if t.name == template]
    return dict(found[0].state) if found else None


def task_context(family: str, template: str, params: Mapping[str, Any],
                 entity: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The task context of a training row (one branch, no outcomes): the tracked paths or playlist the row's
    ``entity.state_probe`` records (the state probe's arguments, as the export records them for evaluation),
    and the tracked artifact's name (``params["target"]``), as :func:`emukit.evaluate.pairs.persistent_context`
    names them at evaluation. A row exported before rows carried their entity falls back to the pair's causal
    template's ``state:`` block with its parameters substituted (:class:`OldStateTrainingWarning`)."""
    ctx: dict[str, Any] = {}
    if entity is not None:
        ctx.update({k: v for k, v in (entity.get("state_probe") or {}).items() if isinstance(v, str)})
    else:
        ctx.update(_template_context(family, template, json.dumps(dict(params), sort_keys=True)))
    for key, value in unit(family).training_context(params).items():
        ctx.setdefault(key, value)
    return normalize_task(ctx)


@dataclass(frozen=True)
class Example:
    """One training or evaluation example: the serialised input and the canonical target."""

    example_id: str
    family: str
    template: str
    input: str
    target: str


def _read_text(root: Path, rel: str, where: str) -> str:
    path = (root / rel).resolve()
    if root.resolve() not in path.parents:
        raise ConfigError(f"{where}: artifact path {rel!r} leaves the export folder")
    try:
        return path.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {rel}: {exc.strerror}") from None


def row_example(row: Mapping[str, Any], root: Path, where: str) -> Example:
    """An :class:`Example` of one ``state_train.jsonl`` / ``state_val.jsonl`` row (artifacts under
    ``root``); ConfigError names the file, line and field at fault."""
    try:
        family = str(row["family"])
        if family not in FAMILIES:
            raise ConfigError(f"{where}: family: unknown family {family!r} (families: {', '.join(FAMILIES)})")
        history = [(_read_text(root, step["observation"]["hierarchy"], where), step["action"])
                   for step in row["history"]]
        final = _read_text(root, row["final_observation"]["hierarchy"], where)
        entity = row.get("entity")
        task = task_context(family, str(row["template"]), row.get("params") or {},
                            entity if isinstance(entity, Mapping) else None)
        text, state = serialize(family, history, final, task), row["target"]
        mapping = row.get("rename")
        if mapping:  # a renamed row (emukit/estimator/rename.py): all but the instruction line, the state's values
            text, state = _renamed(text, state, mapping, where)
        return Example(str(row["example_id"]), family, str(row["template"]), text, target_text(family, state))
    except KeyError as exc:
        raise ConfigError(f"{where}: missing field {exc.args[0]!r}") from None
    except (TypeError, AttributeError) as exc:
        raise ConfigError(f"{where}: malformed row: {exc}") from None


def _renamed(text: str, state: Any, mapping: Any, where: str) -> tuple[str, Any]:
    """A row's serialised input (all but its instruction line) and its state's string values renamed."""
    from emukit.estimator.rename import apply, apply_values

    if not isinstance(mapping, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and k and v
                                                   for k, v in mapping.items()):
        raise ConfigError(f"{where}: rename: expected an object of old word -> new word")
    head, _, rest = text.partition("\n")
    return head + "\n" + apply(rest, mapping), apply_values(state, mapping)


def read_split(export: Path, split: str) -> Iterator[Example]:
    """The examples of ``<export>/state_<split>.jsonl`` (``train`` or ``val``)."""
    path = Path(export) / f"state_{split}.jsonl"
    if not path.is_file():
        raise ConfigError(f"{export}: no state_{split}.jsonl (write one with emukit export --format state-training "
                          "--eval-seed N)")
    for where, row in read_objects(path):
        yield row_example(row, Path(export), where)


def load_examples(export: Path, families: Sequence[str] | None = None) -> tuple[list[Example], list[Example]]:
    """(train, val) examples of a state-training export, optionally only ``families``; ConfigError for a
    missing folder, an unknown family or an empty training split."""
    export = Path(export)
    if not export.is_dir():
        raise ConfigError(f"state-training export {export} does not exist")
    for f in families or ():
        if f not in FAMILIES:
            raise ConfigError(f"unknown family {f!r} (families: {', '.join(FAMILIES)})")
    keep = set(families or FAMILIES)
    train = [e for e in read_split(export, "train") if e.family in keep]
    val_path = export / "state_val.jsonl"
    val = [e for e in read_split(export, "val") if e.family in keep] if val_path.is_file() else []
    if not train:
        raise ConfigError(f"{export / 'state_train.jsonl'}: no training examples"
                          + (f" for {', '.join(sorted(keep))}" if families else ""))
    return train, val
