"""Every third-party module that ``emukit/`` imports is declared in ``pyproject.toml``.

The walk reads every module with :mod:`ast` (nothing is imported). An import is *declared* when the
distribution that provides it (``importlib.metadata.packages_distributions`` of this environment, with a
small table for names it cannot see) is a core dependency, or an optional one whose every import sits in a
``try`` that turns ``ImportError`` into a message naming ``pip install 'emukit[EXTRA]'``. Nothing is mocked:
the checker is run on the real tree, and on small sources written here to show that it fails when it must.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "emukit"
# import name -> distribution, for names packages_distributions() cannot map (not installed here)
KNOWN = {"PIL": "pillow", "yaml": "pyyaml", "google": "protobuf", "grpc": "grpcio", "cv2": "opencv-python"}


def norm(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str:
    return norm(re.split(r"[\s<>=!~\[;(]", spec.strip(), maxsplit=1)[0])


def declared(pyproject: Path) -> tuple[set[str], dict[str, set[str]]]:
    """(core distributions, extra -> distributions) from ``pyproject.toml``."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    core = {requirement_name(d) for d in project.get("dependencies", [])}
    extras = {name: {requirement_name(d) for d in deps}
              for name, deps in project.get("optional-dependencies", {}).items()}
    return core, extras


@dataclass(frozen=True)
class Use:
    """One import of a third-party top-level module."""

    module: str
    path: Path
    line: int
    guarded: bool  # inside a try whose handlers catch ImportError and mention pip install 'emukit[...]'


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = {n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)} if handler.type else {"*"}
    return bool(names & {"ImportError", "ModuleNotFoundError", "*"})


def _guard_message(handler: ast.ExceptHandler) -> bool:
    text = " ".join(n.value for n in ast.walk(handler) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return "emukit[" in text


def third_party_uses(source: str, path: Path) -> list[Use]:
    """Imports of modules that are neither the standard library nor emukit, with their guard status."""
    tree = ast.parse(source, filename=str(path))
    guarded_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) and _guard_message(h) for h in node.handlers):
            for inner in node.body:
                guarded_lines.update(n.lineno for n in ast.walk(inner) if hasattr(n, "lineno"))
    uses: list[Use] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "emukit" or top == "__future__":
                continue
            uses.append(Use(top, path, node.lineno, node.lineno in guarded_lines))
    return uses


@functools.cache
def _installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def distributions_of(module: str) -> set[str]:
    found = {norm(d) for d in _installed().get(module, [])}
    return found or ({norm(KNOWN[module])} if module in KNOWN else set())


def problems(uses: list[Use], core: set[str], extras: dict[str, set[str]]) -> list[str]:
    """One line per undeclared import, or per unguarded import of an optional dependency."""
    out: list[str] = []
    runtime_extras = {k: v for k, v in extras.items() if k not in ("test", "dev")}
    for use in uses:
        dists = distributions_of(use.module)
        where = f"{use.path.relative_to(ROOT) if use.path.is_relative_to(ROOT) else use.path}:{use.line}"
        if not dists:
            out.append(f"{where}: import {use.module}: no installed distribution provides it and it is not "
                       "declared in pyproject.toml")
        elif dists & core:
            continue
        elif any(dists & deps for deps in runtime_extras.values()):
            if not use.guarded:
                extra = next(k for k, v in runtime_extras.items() if dists & v)
                out.append(f"{where}: import {use.module} (extra {extra!r}) is not inside a try that says "
                           f"pip install 'emukit[{extra}]'")
        else:
            out.append(f"{where}: import {use.module} ({', '.join(sorted(dists))}) is not declared in "
                       "pyproject.toml")
    return out


def test_every_import_of_the_package_is_declared() -> None:
    core, extras = declared(ROOT / "pyproject.toml")
    uses = [u for p in sorted(PACKAGE.rglob("*.py")) for u in third_party_uses(p.read_text(encoding="utf-8"), p)]
    assert len({u.module for u in uses}) >= 10  # the walk really saw the package's imports
    assert problems(uses, core, extras) == []


def test_numpy_is_a_core_dependency() -> None:
    core, _ = declared(ROOT / "pyproject.toml")
    assert "numpy" in core  # emukit/images.py and the virtual device's renderer import it


def test_checker_reports_undeclared_and_unguarded_imports(tmp_path: Path) -> None:
    source = ("import numpy as np\nimport sqlite3\nfrom emukit import errors\n\n"
              "def load():\n    import torch\n    return torch\n\n"
              "def guarded():\n    try:\n        import transformers\n    except ImportError:\n"
              "        raise SystemExit(\"pip install 'emukit[ml]'\")\n")
    path = tmp_path / "emukit" / "mod.py"
    uses = third_party_uses(source, path)
    assert [(u.module, u.guarded) for u in uses] == [("numpy", False), ("torch", False), ("transformers", True)]
    core = {"pillow"}
    found = problems(uses, core, {"ml": {"torch", "transformers"}})
    assert len(found) == 2
    assert "import numpy" in found[0] and "not declared" in found[0]
    assert "import torch (extra 'ml')" in found[1]
    assert problems(uses, {"numpy"}, {"ml": {"torch", "transformers"}}) == [found[1]]
    only_test = problems(third_party_uses("import pytest\n", path), {"numpy"}, {"test": {"pytest"}})
    assert only_test and "not declared" in only_test[0]  # a test-only dependency does not count at run time
