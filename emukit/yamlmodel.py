"""Read a YAML file into a pydantic model with errors that name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from emukit.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A YAML loader that remembers the line of every mapping key: libyaml's parser when PyYAML has it (about six
    times faster on the 200 task files, the same documents), else PyYAML's own."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
    lines = {key_node.value: key_node.start_mark.line + 1 for key_node, _ in node.value
             if isinstance(key_node, yaml.ScalarNode)}
    mapping["__lines__"] = lines
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def strip_lines(obj: object) -> object:
    """The parsed document without the line bookkeeping."""
    if isinstance(obj, dict):
        return {k: strip_lines(v) for k, v in obj.items() if k != "__lines__"}
    if isinstance(obj, list):
        return [strip_lines(v) for v in obj]
    return obj


def line_of(raw: object, loc: tuple) -> int | None:
    """The line of the deepest key on ``loc`` that the YAML had."""
    line, node = None, raw
    for part in loc:
        if isinstance(node, dict):
            line = node.get("__lines__", {}).get(part, line)
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            break
    return line


def read_yaml(path: Path, what: str) -> dict[str, Any]:
    """The YAML mapping in ``path`` with line bookkeeping (``__lines__``); ConfigError on bad YAML."""
    try:
        raw = yaml.load(path.read_text(), Loader=_LineLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: {what} must be a YAML mapping")
    return raw


def validate_yaml(path: Path, raw: dict[str, Any], model: type[M], **extra: Any) -> M:
    """Validate a document read by :func:`read_yaml`; every problem is one line ``file:line: field: why``."""
    try:
        return model.model_validate({**strip_lines(raw), **extra})  # type: ignore[dict-item]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line = line_of(raw, loc)
            field = ".".join(str(p) for p in loc) or "(document)"
            problems.append(f"{path}{f':{line}' if line else ''}: {field}: {err['msg']}")
        raise ConfigError("\n".join(problems)) from None


def load_yaml_model(path: Path, model: type[M], what: str, **extra: Any) -> M:
    """:func:`read_yaml` then :func:`validate_yaml`."""
    return validate_yaml(path, read_yaml(path, what), model, **extra)


def load_named_model(path: Path, model: type[M], what: str, key: str = "name", **extra: Any) -> M:
    """:func:`load_yaml_model` for documents named after their file: ``key`` must equal the file's stem."""
    obj = load_yaml_model(path, model, what, **extra)
    if getattr(obj, key) != path.stem:
        raise ConfigError(f"{path}: {key} {getattr(obj, key)!r} must match the file name {path.stem!r}")
    return obj
