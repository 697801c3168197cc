"""Load templates from YAML with errors that name the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from emukit import resources
from emukit.errors import ConfigError
from emukit.templates.schema import Template
from emukit.yamlmodel import load_named_model


def templates_dir() -> Path:
    """The causal templates shipped with emukit (:func:`emukit.resources.shipped_dir`)."""
    return resources.shipped_dir("templates")


def template_folders(dirs: Iterable[Path] | None = ()) -> list[Path]:
    """The template search path: ``dirs`` (``--templates``), ``$EMUKIT_TEMPLATES``, the shipped folder."""
    return resources.search_path("templates", dirs)


def load_template(path: Path) -> Template:
    """Parse and validate one template file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, Template, "a template", source_path=str(path))


def load_templates(folder: Path | None = None, family: str | None = None,
                   names: list[str] | None = None, *, dirs: Iterable[Path] | None = (),
                   variants: bool = False) -> list[Template]:
    """Every template under ``folder`` (recursively), or with no folder on the whole search path
    (:func:`template_folders` of ``dirs``), optionally filtered; sorted by family then name. Host variants
    (templates with a ``variant:`` block) are left out unless ``variants`` is true or they are among ``names``.
    A name defined in two files is a ConfigError naming both."""
    roots = [folder] if folder is not None else template_folders(dirs)
    loaded = [load_template(p) for root in roots for p in sorted(root.rglob("*.yaml"))]
    found = resources.unique("template", [(t.name, t.source_path, t) for t in loaded])
    root = ", ".join(str(r) for r in roots)
    if family and family != "all":
        found = [t for t in found if t.family == family]
    if names:
        missing = set(names) - {t.name for t in found}
        if missing:
            raise ConfigError(f"unknown template(s) {', '.join(sorted(missing))} in {root}")
        found = [t for t in found if t.name in names]
    elif not variants:
        found = [t for t in found if not t.is_variant]
    return sorted(found, key=lambda t: (t.family, t.name))
