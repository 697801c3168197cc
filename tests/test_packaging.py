"""A real wheel of the project carries the shipped data: every file under ``templates/``, ``tasks/`` and
``snapshots/`` lands in ``emukit/_shipped/`` with identical bytes, next to the virtual device's assets and
the annotator's static files. Built with the machine's pip and setuptools (``--no-build-isolation``: no
download); nothing is mocked. CI also installs the wheel into a fresh venv and runs the quick start from
another directory (``.ci/run``)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_templates_tasks_and_snapshot_specs(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("emukit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for kind in ("templates", "tasks", "snapshots"):
            shipped = [p for p in sorted((ROOT / kind).rglob("*")) if p.is_file() and p.suffix in (".yaml", ".md")]
            assert shipped, kind
            for path in shipped:
                member = f"emukit/_shipped/{kind}/{path.relative_to(ROOT / kind).as_posix()}"
                assert member in names, member
                assert zf.read(member) == path.read_bytes(), member
        assert "emukit/resources.py" in names
        assert any(n.startswith("emukit/annotate/static/") for n in names)
        assert any(n.startswith("emukit/vdevice/assets/") for n in names)
        assert not any(n.startswith(("tests/", "templates/", "tasks/", "snapshots/")) for n in names)
