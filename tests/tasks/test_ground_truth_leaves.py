"""The milestone checks that read an app's own records: ``database`` (one SELECT on a host copy of the app's
SQLite database, as android_world reads its apps) and ``messages`` (the Telephony provider through ``content
query``). Rows are written with the apps' own seed sections on the virtual device behind the real adb server;
nothing is mocked."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from emukit.errors import ConfigError
from emukit.tasks.checks import DeviceView, describe_check, evaluate
from emukit.tasks.schema import Check


def test_the_leaves_refuse_what_they_cannot_answer() -> None:
    with pytest.raises(ValidationError, match="select"):
        Check.model_validate({"database": {"app": "tasks", "query": "DELETE FROM tasks", "count": 0}})
    with pytest.raises(ValidationError, match="one SELECT"):
        Check.model_validate({"database": {"app": "tasks", "query": "SELECT 1; DROP TABLE tasks", "count": 0}})
    with pytest.raises(ValidationError, match="at least one of includes"):
        Check.model_validate({"database": {"app": "tasks", "query": "SELECT title FROM tasks"}})
    with pytest.raises(ValidationError, match="box"):
        Check.model_validate({"messages": {"box": "spam", "contains": "x"}})
    leaf = Check.model_validate({"database": {"app": "tasks", "query": "SELECT title FROM tasks", "includes": ["A"]}})
    assert describe_check(leaf).startswith("database tasks query='SELECT title FROM tasks'")
    assert not leaf.visual  # a rendered screen cannot answer it: a milestone using it needs a screen_check


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    from emukit.device.driver import Driver

    d = Driver(vdevice.serial, adb_server.port)
    yield d
    d.close()


def test_database_and_messages_read_the_apps_records(driver) -> None:
    from emukit.apps.registry import profile_for

    profile_for(driver, "tasks").seed_items(items=[{"title": "Water the fern", "notes": "Twice a week"},
                                                  {"title": "Call the bank"}])
    profile_for(driver, "sms").seed_items(items=[{"address": "+15550111", "body": "Gate code 4471",
                                                  "at": "2026-01-15T08:00:00Z"}])

    def check(data: dict) -> bool:
        return evaluate(Check.model_validate(data), DeviceView(driver))

    titles = "SELECT title FROM tasks WHERE deleted = 0 ORDER BY title"
    assert check({"database": {"app": "tasks", "query": titles, "includes": ["Water the fern"]}})
    assert check({"database": {"app": "tasks", "query": titles, "equals": ["Call the bank", "Water the fern"]}})
    assert check({"database": {"app": "tasks", "query": titles, "count": 2}})
    assert not check({"database": {"app": "tasks", "query": titles, "excludes": ["Call the bank"]}})
    assert check({"database": {"app": "tasks", "query": "SELECT notes FROM tasks WHERE title = 'Water the fern'",
                               "equals": ["Twice a week"]}})
    # an app that has not created its database yet has no rows, never an error
    assert check({"database": {"app": "broccoli", "query": "SELECT title FROM recipes", "count": 0}})
    with pytest.raises(ConfigError, match="no app profile named 'nope'"):
        check({"database": {"app": "nope", "query": "SELECT 1", "count": 1}})
    with pytest.raises(ConfigError, match="'clock' has no database"):
        check({"database": {"app": "clock", "query": "SELECT 1", "count": 1}})

    assert check({"messages": {"box": "inbox", "address": "+1 555-0111", "contains": "4471"}})
    assert check({"messages": {"body": "Gate code 4471"}})
    assert not check({"messages": {"box": "sent", "contains": "4471"}})
    assert check({"messages": {"box": "sent", "contains": "4471", "exists": False}})
