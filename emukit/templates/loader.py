"""Load templates from YAML with errors that name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from emukit.errors import ConfigError
from emukit.templates.schema import Template


def templates_dir() -> Path:
    """The project's ``templates/`` folder (next to the package), or ``$EMUKIT_TEMPLATES``."""
    import os

    env = os.environ.get("EMUKIT_TEMPLATES")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "templates"


class _LineLoader(yaml.SafeLoader):
    """A YAML loader that remembers the line of every mapping key."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
    lines = {key_node.value: key_node.start_mark.line + 1 for key_node, _ in node.value
             if isinstance(key_node, yaml.ScalarNode)}
    mapping["__lines__"] = lines
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _strip(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k != "__lines__"}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _line_of(raw: object, loc: tuple) -> int | None:
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


def load_template(path: Path) -> Template:
    """Parse and validate one template file; ConfigError names the file, line, field and reason."""
    try:
        raw = yaml.load(path.read_text(), Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a template must be a YAML mapping")
    data = _strip(raw)
    try:
        template = Template.model_validate({**data, "source_path": str(path)})  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line = _line_of(raw, loc)
            field = ".".join(str(p) for p in loc) or "(template)"
            problems.append(f"{path}{f':{line}' if line else ''}: {field}: {err['msg']}")
        raise ConfigError("\n".join(problems)) from None
    if template.name != path.stem:
        raise ConfigError(f"{path}: name {template.name!r} must match the file name {path.stem!r}")
    return template


def load_templates(folder: Path | None = None, family: str | None = None,
                   names: list[str] | None = None) -> list[Template]:
    """Every template under ``folder`` (recursively), optionally filtered; sorted by family then name."""
    root = folder or templates_dir()
    found = [load_template(p) for p in sorted(root.rglob("*.yaml"))]
    if family and family != "all":
        found = [t for t in found if t.family == family]
    if names:
        missing = set(names) - {t.name for t in found}
        if missing:
            raise ConfigError(f"unknown template(s) {', '.join(sorted(missing))} in {root}")
        found = [t for t in found if t.name in names]
    return sorted(found, key=lambda t: (t.family, t.name))
