"""Load templates from YAML with errors that name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

from emukit.errors import ConfigError
from emukit.templates.schema import Template
from emukit.yamlmodel import load_named_model


def templates_dir() -> Path:
    """The project's ``templates/`` folder (next to the package), or ``$EMUKIT_TEMPLATES``."""
    import os

    env = os.environ.get("EMUKIT_TEMPLATES")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "templates"


def load_template(path: Path) -> Template:
    """Parse and validate one template file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, Template, "a template", source_path=str(path))


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
