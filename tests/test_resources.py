"""The data search path (:mod:`emukit.resources`): shipped causal templates, tasks and snapshot specs are
found from any working directory, folders of your own are merged with them, an id defined twice is an error
naming both files, and an installed package's shipped folder is never written. Real files, the real CLI in a
subprocess; nothing is mocked (the "installed package" case points ``emukit.resources.PACKAGED`` at a folder
laid out as a wheel lays it out)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from emukit import resources
from emukit.errors import ConfigError
from emukit.snapshots import list_specs
from emukit.tasks.files import load_task, load_tasks, save_task, tasks_dir
from emukit.templates import load_templates, templates_dir

ROOT = Path(__file__).resolve().parents[1]


def _renamed_template(folder: Path, new_name: str) -> Path:
    """A copy of a shipped clipboard template under another name, in ``folder``."""
    source = templates_dir() / "clipboard" / "original_strict.yaml"
    data = yaml.safe_load(source.read_text())
    data["name"] = new_name
    path = folder / f"{new_name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_shipped_folders_are_the_checkout_folders_here() -> None:
    for kind in ("templates", "tasks", "snapshots"):
        assert resources.shipped_dir(kind) == ROOT / kind
        assert not resources.shipped_is_read_only(kind)
    assert len(load_templates()) == 25
    assert len(load_tasks()) == len(list((ROOT / "tasks").glob("*.yaml")))
    assert list_specs() == sorted(p.stem for p in (ROOT / "snapshots").glob("*.yaml"))


def test_user_templates_are_merged_with_the_shipped_ones(tmp_path: Path, monkeypatch) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    _renamed_template(mine, "my_clipboard_check")
    merged = load_templates(family="clipboard", dirs=[mine])
    names = {t.name for t in merged}
    assert "my_clipboard_check" in names and "original_strict" in names and len(merged) == 6
    assert [t.name for t in load_templates(names=["my_clipboard_check"], dirs=[mine])] == ["my_clipboard_check"]
    monkeypatch.setenv("EMUKIT_TEMPLATES", str(mine))  # the environment variable merges the same way
    assert "my_clipboard_check" in {t.name for t in load_templates(family="clipboard")}


def test_a_template_name_defined_twice_names_both_files(tmp_path: Path) -> None:
    shutil.copy(templates_dir() / "clipboard" / "original_strict.yaml", tmp_path)
    with pytest.raises(ConfigError) as err:
        load_templates(dirs=[tmp_path])
    message = str(err.value)
    assert "template 'original_strict' is defined twice" in message
    assert str(tmp_path / "original_strict.yaml") in message
    assert str(templates_dir() / "clipboard" / "original_strict.yaml") in message


def test_a_missing_user_folder_is_named(tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ConfigError, match=r"--templates .*nope: no such folder"):
        load_templates(dirs=[tmp_path / "nope"])
    monkeypatch.setenv("EMUKIT_TASKS", str(tmp_path / "gone"))
    with pytest.raises(ConfigError, match=r"\$EMUKIT_TASKS .*gone: no such folder"):
        load_tasks()


def test_tasks_merge_clash_and_cli_listing(emukit_cli, tmp_path: Path) -> None:
    mine = tmp_path / "tasks"
    mine.mkdir()
    shipped = load_task(tasks_dir() / "note_revisit_01.yaml")
    save_task(shipped.model_copy(update={"id": "my_note_task"}), mine)
    ids = [t.id for t in load_tasks(dirs=[mine])]
    assert "my_note_task" in ids and "note_revisit_01" in ids and ids == sorted(ids)
    env = {**os.environ, "EMUKIT_TASKS": ""}
    listed = subprocess.run([*emukit_cli, "tasks", "list", "--tasks", str(mine)],
                            capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert f"{len(ids)} milestone tasks" in listed.stdout and "my_note_task" in listed.stdout
    assert str(mine) in listed.stdout and str(tasks_dir()) in listed.stdout
    shutil.copy(tasks_dir() / "note_revisit_01.yaml", mine)
    with pytest.raises(ConfigError, match="task 'note_revisit_01' is defined twice"):
        load_tasks(dirs=[mine])
    clash = subprocess.run([*emukit_cli, "tasks", "list", "--tasks-dir", str(mine)],
                           capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert clash.returncode == 1 and "defined twice" in clash.stdout + clash.stderr


def test_an_installed_package_never_writes_its_shipped_tasks(tmp_path: Path, monkeypatch) -> None:
    packaged = tmp_path / "site-packages" / "emukit" / "_shipped"
    shutil.copytree(tasks_dir(), packaged / "tasks")
    monkeypatch.setattr(resources, "PACKAGED", packaged)
    monkeypatch.delenv("EMUKIT_TASKS", raising=False)
    assert resources.shipped_dir("tasks") == packaged / "tasks" and resources.shipped_is_read_only("tasks")
    task = load_tasks(ids=["note_revisit_01"])[0]
    assert Path(task.source_path).parent == packaged / "tasks"
    before = (packaged / "tasks" / "note_revisit_01.yaml").read_bytes()
    with pytest.raises(ConfigError, match="read-only; give --tasks-dir DIR"):
        save_task(task.model_copy(update={"id": "new_task"}))
    with pytest.raises(ConfigError, match="shipped inside the installed emukit package"):
        save_task(task, packaged / "tasks")
    assert (packaged / "tasks" / "note_revisit_01.yaml").read_bytes() == before
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv("EMUKIT_TASKS", str(mine))
    assert save_task(task.model_copy(update={"id": "new_task"})) == mine / "new_task.yaml"
