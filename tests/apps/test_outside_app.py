"""An app installed from an outside package by entry points only: its profile (``emukit.app_profiles``),
selector table (``emukit.app_tables``), virtual app (``emukit.virtual_apps``) and base snapshot section (the
profile's ``seed``), with no edit to emukit. The app is ``tests/apps/outside_app/memo_plugin``, a list/editor
app made of the kit; a device process and a pipeline process both get it from a ``PYTHONPATH`` entry holding
the package and its ``dist-info``.

Driven end to end over adb: the device lists it as installed with its table's build, the profile opens it
and adds a memo through its editor, the kit's database reading sees the row the app wrote, a base snapshot
spec's ``memos:`` section seeds rows (the first launch creates the database) and the app shows them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = Path(__file__).with_name("outside_app") / "memo_plugin"

DRIVE = textwrap.dedent("""
    import json, sys
    from emukit.apps.registry import all_profiles, profile_for
    from emukit.apps.selectors import table_for
    from emukit.device.driver import Driver
    from emukit.snapshots import SnapshotSpec, build_snapshot, save_clean

    serial, port = sys.argv[1], int(sys.argv[2])
    d = Driver(serial, port, default_timeout=10)
    out = {"profiles": sorted(c.name for c in all_profiles())}
    out["table"] = table_for("org.example.memo", version_code=7, sdk=34).path.name
    out["pm"] = d.shell("pm list packages org.example.memo").text.strip()
    out["dumpsys"] = d.shell("dumpsys package org.example.memo | grep versionCode").text.strip()
    memo = profile_for(d, "memo")
    memo.launch(fresh=True)
    out["before"] = memo.stored().rows
    out["actions"] = len(memo.add("Buy milk"))
    out["shown"] = memo.shown()
    out["stored"] = memo.stored().rows
    save_clean(d, force=True)
    d.shell("pm clear org.example.memo", check=True)
    save_clean(d, force=True)
    out["cleared"] = memo.stored().reason
    spec = SnapshotSpec.model_validate({"name": "memo_base", "time_anchor": "2026-01-15T09:00:00Z",
                                        "memos": [{"title": "Seeded one"}, {"title": "It's two"}], "start": "memo"})
    build_snapshot(d, spec)
    out["seeded"] = memo.stored().rows
    out["seeded_shown"] = memo.shown()
    print(json.dumps(out))
""")


@pytest.fixture
def outside(tmp_path: Path) -> dict[str, str]:
    """A PYTHONPATH entry holding the memo package and a dist-info naming it in the three groups."""
    root = tmp_path / "site"
    shutil.copytree(PLUGIN, root / "memo_plugin")
    info = root / "memo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [emukit.app_profiles]
        memo = memo_plugin.profile
        [emukit.app_tables]
        memo = memo_plugin.tables
        [emukit.virtual_apps]
        memo = memo_plugin.vapp
    """))
    return {"PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}


def test_an_app_from_an_outside_package_is_driven_end_to_end(outside, vdevice_factory, adb_server, tmp_path):
    device = vdevice_factory(template=False, env=outside)
    script = tmp_path / "drive.py"
    script.write_text(DRIVE)
    run = subprocess.run([sys.executable, str(script), device.serial, str(adb_server.port)],
                         env={**os.environ, **adb_server.env, **outside}, capture_output=True, text=True,
                         timeout=240, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert "memo" in out["profiles"] and "notes" in out["profiles"]
    assert out["table"] == "7.yaml"
    assert out["pm"] == "package:org.example.memo"
    assert "versionCode=7" in out["dumpsys"]
    assert out["before"] == []
    assert out["actions"] >= 4
    assert out["shown"] == ["Buy milk"]
    assert out["stored"] == [{"title": "Buy milk"}]
    assert out["cleared"] is not None and "memos.db" in out["cleared"] or "not been opened" in out["cleared"]
    assert out["seeded"] == [{"title": "Seeded one"}, {"title": "It's two"}]
    assert out["seeded_shown"] == ["Seeded one", "It's two"]


def test_without_the_entry_points_the_app_is_unknown(emukit_cli):
    """The same checkout without the outside package: no memo profile, and a spec listing ``memos:`` is
    refused with the sections there are."""
    code = ("from emukit.apps.registry import all_profiles\n"
            "from emukit.snapshots import SnapshotSpec\n"
            "print(sorted(c.name for c in all_profiles()))\n"
            "try:\n"
            "    SnapshotSpec.model_validate({'name': 'x', 'time_anchor': '2026-01-15T09:00:00Z', 'memos': []})\n"
            "except Exception as exc:\n"
            "    print(exc)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "memo'" not in run.stdout.splitlines()[0]
    assert "unknown key 'memos'" in run.stdout and "songs" in run.stdout
