"""The layers of docs/architecture.md hold: import-linter checks the contracts in pyproject.toml
(``[tool.importlinter]``) against the source, and a violation fails this test and so CI. The second test
shows the check can fail: a copy of the package with one upward import breaks the contract it crosses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"


def _lint(folder: Path) -> subprocess.CompletedProcess:
    """import-linter run in ``folder`` (its ``pyproject.toml`` and the ``emukit`` package found there)."""
    return subprocess.run([sys.executable, "-c", LINT], cwd=folder, capture_output=True, text=True, timeout=300)


def test_the_source_keeps_every_layer_contract():
    proc = _lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 5 kept, 0 broken." in proc.stdout


def test_an_upward_import_breaks_the_contracts(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "emukit", tmp_path / "emukit",
                    ignore=shutil.ignore_patterns("__pycache__", "assets", "static", "_shipped"))
    store = tmp_path / "emukit" / "store" / "db.py"
    store.write_text(store.read_text() + "\n\ndef _upward() -> None:\n    from emukit.commands.output import make_console"
                                         "\n    from emukit.builder.pair import load_base\n")
    proc = _lint(tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = " ".join(proc.stdout.split())
    assert "Only the CLI imports the CLI BROKEN" in out
    assert "never reach a device (directly or through another module) BROKEN" in out  # store -> builder -> device
    assert "emukit.store is not allowed to import emukit.builder" in out
    assert "emukit.store.db -> emukit.commands.output" in out
