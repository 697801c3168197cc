"""GUI-CC's semantic ``open_app`` action (seed 000, section 3.3) on a device: the launcher label resolved through
the selector tables (each label cited at the app's pinned manifest), one recorded action that starts the app as
its icon does, replayed the same way, and refused with the known labels when the label is unknown. On the
virtual device behind the real adb server; nothing is mocked."""

from __future__ import annotations

import pytest

from emukit.actions import Action
from emukit.apps.registry import all_profiles, launcher_labels, package_for_label
from emukit.apps.selectors import tables_of
from emukit.errors import ConfigError
from emukit.templates.schema import Step, _check_step

SHIPPED_LABELS = {"Broccoli", "Calendar", "Chrome", "Clock", "Files", "Gallery", "Joplin", "Markor", "OpenTracks",
                  "Pro Expense", "Retro Music", "SMS Messenger", "Settings", "Tasks", "VLC"}


def test_every_app_in_all_apps_has_a_cited_launcher_label() -> None:
    labels = launcher_labels()
    assert set(labels) == SHIPPED_LABELS
    for cls in all_profiles():
        if cls.label_entry is None:
            continue
        for table in tables_of(cls.package):
            entry = table.selectors[cls.label_entry]
            assert entry.text and entry.source, (table.path, cls.label_entry)  # the manifest's label, cited
            assert labels[entry.text] == cls.package


def test_a_template_step_names_a_known_label() -> None:
    _check_step({"open_app": "Markor"})
    _check_step({"open_app": "{app}"})  # a parameter, checked once substituted
    with pytest.raises(ValueError, match="one of Broccoli, Calendar"):
        _check_step({"open_app": "Notepad"})
    bad: Step = {"open_app": {"label": "Markor"}}
    with pytest.raises(ValueError, match="launcher label"):
        _check_step(bad)


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    from emukit.device.driver import Driver

    d = Driver(vdevice.serial, adb_server.port)
    yield d
    d.close()


def test_open_app_is_one_recorded_action_that_resumes_like_the_icon(driver, tmp_path) -> None:
    from emukit.builder.steps import StepRunner
    from emukit.tasks.session import perform

    class Keep:
        def __init__(self) -> None:
            self.actions: list[Action] = []

        def before(self, drv, action) -> None:
            """Only what was performed is kept."""

        def after(self, drv, action) -> None:
            self.actions.append(action)

    assert package_for_label(driver, "Retro Music") == "code.name.monkey.retromusic"
    with pytest.raises(ConfigError, match="no app has the launcher label 'Notepad'.*Markor"):
        package_for_label(driver, "Notepad")
    driver.shell("mkdir -p /storage/emulated/0/Documents/Markor; echo hi > /storage/emulated/0/Documents/Markor/Codes.md; "
                 "am force-stop net.gsantner.markor", check=True)
    runner = StepRunner(driver, "open_app test")
    keep = Keep()
    driver.recorder = keep
    try:
        runner.run([{"home": {}}, {"open_app": "Markor"}])
    finally:
        driver.recorder = None
    assert [a.type for a in keep.actions] == ["key", "open_app"]
    assert keep.actions[1].text == "Markor" and keep.actions[1].element is None
    assert driver.current_app()[0] == "net.gsantner.markor"
    # a document opened in Markor is a task of its own (DocumentActivity's taskAffinity): the icon, and so
    # open_app, brings the notebook back, never the document
    driver.tap(resourceId="net.gsantner.markor:id/opoc_filesystem_item__title", text="Codes.md")
    driver.wait_until(lambda: driver.exists(
        resourceId="net.gsantner.markor:id/document__fragment__edit__highlighting_editor"), "the document")
    perform(driver, runner, Action(type="open_app", text="Clock"))
    assert driver.current_app()[0] == "com.google.android.deskclock"
    done = perform(driver, runner, Action(type="open_app", text="Markor"))
    assert done.type == "open_app" and done.text == "Markor"
    assert driver.exists(resourceId="net.gsantner.markor:id/opoc_filesystem_item__title", text="Codes.md")
    with pytest.raises(ConfigError, match="launcher label in text"):
        perform(driver, runner, Action(type="open_app"))


def test_the_annotator_api_accepts_known_labels_only() -> None:
    from emukit.annotate import ApiError, parse_action

    assert parse_action({"type": "open_app", "text": "Tasks"}).text == "Tasks"
    with pytest.raises(ApiError, match="launcher label .*'Tasks2'.*Broccoli"):
        parse_action({"type": "open_app", "text": "Tasks2"})
