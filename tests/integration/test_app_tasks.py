"""Tasks.org over adb (the virtual app, driven as an emulator would be): open it from All Apps, create a task with a
description, find and edit it, copy the title and paste it into the description, delete it; the tasks probe reads
what the app wrote (as android_world reads ``tasks``) and reports an app that has no database yet; the ``tasks:``
seed section writes android_world-style rows that the list then shows."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.registry import profile_for
from emukit.apps.tasks import TaskSeed, TaskSpec, read_tasks
from emukit.device.driver import Driver

PACKAGE = "org.tasks"


@pytest.fixture
def tasks(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "tasks")
    d.close()


def test_tasks_round_trip_through_the_real_ui(tasks):
    d = tasks.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_tasks(d)
    assert empty.rows == [] and empty.reason is not None  # never opened since the clear: no database
    tasks.open_from_all_apps()
    assert tasks.first_run_screen() == "list"
    first = read_tasks(d)
    assert first.rows == [] and first.reason is None  # the first start created it
    assert "database" in first.files

    tasks.create_task("Dentist", description="Bring forms")
    rows = read_tasks(d).rows
    assert [(r["title"], r["notes"], r["importance"], r["deleted"]) for r in rows] == [
        ("Dentist", "Bring forms", 2, 0)]
    assert rows[0]["created"] == rows[0]["modified"] > 0

    tasks.open_task("Dentist")
    tasks.copy_field("title_field")
    tasks.fill(description="")
    tasks.paste_into("description_field")
    tasks.save()
    assert read_tasks(d).rows[0]["notes"] == "Dentist"

    tasks.edit_task("Dentist", new_title="Dentist (moved)")
    assert [r["title"] for r in read_tasks(d).rows] == ["Dentist (moved)"]
    tasks.delete_task("Dentist (moved)")
    assert read_tasks(d).rows == []  # made in the app: in the local list, purged once deleted


def test_back_discards_and_the_doctor_row_reads_the_schema(tasks):
    d = tasks.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    [(name, check)] = tasks.doctor_checks(rooted=True)
    ok, detail, _ = check()
    assert name == "tasks database" and ok and detail.startswith("no database yet")
    tasks.complete_first_run()
    tasks.new_task()
    tasks.fill(title="Never saved")
    tasks._leave_editor()  # BACK, then "Discard"
    assert read_tasks(d).rows == []
    ok, detail, _ = check()
    assert ok and detail == "tasks has 23 columns"


def test_seeded_tasks_are_android_world_rows_and_my_tasks_lists_the_active_ones(tasks):
    d = tasks.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    due = dt.datetime(2026, 1, 16, 10, 0, tzinfo=dt.UTC)
    items = [TaskSpec(title="Water Plants", notes="Check moisture", due=due, importance=1),
             TaskSpec(title="Old chore", due=due, completed=due - dt.timedelta(days=3)),
             TaskSpec(title="Later", due=due + dt.timedelta(days=30), hide_until=due + dt.timedelta(days=20))]
    TaskSeed.apply(d, items)  # creates the database through the first start, then writes with the app stopped
    rows = read_tasks(d).rows
    assert [r["title"] for r in rows] == ["Water Plants", "Old chore", "Later"]
    assert rows[0]["dueDate"] == int(due.timestamp()) * 1000 and rows[0]["notes"] == "Check moisture"
    tasks.launch(fresh=True)
    d.wait_until(lambda: tasks.first_run_screen() == "list", "the task list")
    titles = [e.text for e in d.elements() if e.resource_id == tasks.rid("task_row_title")]
    assert titles == ["Water Plants"]  # completed and not-yet-started tasks are not in "My Tasks"
    tasks.delete_task("Water Plants")
    kept = {r["title"]: r["deleted"] for r in read_tasks(d).rows}
    assert kept["Water Plants"] > 0 and kept["Old chore"] == 0  # no list: marked deleted, not purged
