"""The apps a template touches, as packages: what a pair's :class:`emukit.provenance.BuiltOn` records the
installed builds of (and what the release audit re-reads the pair with).

Read from the template itself, never from a list kept beside it: the app its state is produced in (the
family's Table 6 app or the host variant's), the app its outcome is read from, every ``<app>.<operation>``
step and ``launch: <app>`` of its setup, branches and convergence, every ``sel: "<app>:<entry>"`` selector
and every ``open_app`` launcher label.
"""

from __future__ import annotations

import functools
from typing import Any

from emukit.apps.base import OTHER_APPS
from emukit.apps.registry import all_profiles, launcher_labels, package_of
from emukit.templates.schema import Template

#: the app each family's state is produced in when the template is not a host variant (seed 002 Table 6)
FAMILY_APP = {"persistent": "files", "clipboard": "notes", "ordered": "music", "temporal": "clock"}


@functools.cache
def _app_names() -> frozenset[str]:
    return frozenset({cls.name for cls in all_profiles()} | set(OTHER_APPS))


def _walk(obj: Any, names: set[str], labels: set[str]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            head = str(key).split(".", 1)[0]
            if "." in str(key) and head in _app_names():
                names.add(head)
            if key == "launch" and isinstance(value, str) and value in _app_names():
                names.add(value)
            if key == "sel" and isinstance(value, str) and ":" in value:
                app = value.split(":", 1)[0]
                if app in _app_names():
                    names.add(app)
            if key == "open_app":
                label = value.get("app") if isinstance(value, dict) else value
                if isinstance(label, str):
                    labels.add(label)
            _walk(value, names, labels)
    elif isinstance(obj, list):
        for item in obj:
            _walk(item, names, labels)


def template_apps(template: Template) -> set[str]:
    """The app names (profile or table short names) ``template`` touches."""
    names = {template.variant.app if template.variant is not None else FAMILY_APP[template.family]}
    labels: set[str] = set()
    data = template.model_dump(mode="json", include={"setup", "branches", "converge", "shared_action",
                                                     "outcome"})
    if data["outcome"].get("app"):
        names.add(data["outcome"]["app"])
    _walk(data, names, labels)
    return names | {f"label:{label}" for label in labels}


#: id(template) -> (the template, its packages): worked out once per template object (the template is kept
#: so that its id is not reused)
_PACKAGES: dict[int, tuple[Template, tuple[str, ...]]] = {}


def _packages(template: Template) -> tuple[str, ...]:
    out: set[str] = set()
    known_labels = launcher_labels()
    for name in template_apps(template):
        if name.startswith("label:"):
            package = known_labels.get(name.removeprefix("label:"))
            if package is not None:
                out.add(package)
        else:
            out.add(package_of(name))
    return tuple(sorted(out))


def template_packages(template: Template) -> tuple[str, ...]:
    """The packages ``template`` touches, sorted (worked out once per template object)."""
    hit = _PACKAGES.get(id(template))
    if hit is None or hit[0] is not template:
        hit = _PACKAGES[id(template)] = (template, _packages(template))
    return hit[1]
