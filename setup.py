"""Packaging hook: ship the project's YAML data with the package.

The causal templates (``templates/``), milestone tasks (``tasks/``) and base snapshot specs
(``snapshots/``) live at the top of the source tree, where authors edit them. A wheel copies them into
``emukit/_shipped/<folder>`` so that an installed emukit finds them from any working directory
(:mod:`emukit.resources`). Editable installs skip the copy and read the checkout's folders directly.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("templates", "tasks", "snapshots")
DATA_SUFFIXES = {".yaml", ".yml", ".md", ".png"}


class BuildPyWithData(build_py):
    """``build_py`` that also copies the shipped data folders into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "emukit" / "_shipped"
        for name in SHIPPED:
            source = root / name
            if not source.is_dir():
                raise SystemExit(f"setup.py: the shipped folder {source} is missing")
            dest = target / name
            if dest.exists():
                shutil.rmtree(dest)
            for path in sorted(source.rglob("*")):
                if path.is_file() and path.suffix in DATA_SUFFIXES:
                    out = dest / path.relative_to(source)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, out)


setup(cmdclass={"build_py": BuildPyWithData})
