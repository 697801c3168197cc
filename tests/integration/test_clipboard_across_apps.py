"""The clipboard state across the new apps, over adb on one virtual device: a copy made in any of them is what
the clipboard family's probe reads (the emulator's gRPC ``getClipboard``), a copy made in one app pastes into
another, and an app's own "copy" that is not a clipboard action (Simple Gallery Pro's "Copy to", a file copy)
leaves it as it was. The baseline estimator, reading only the screens and the actions of the same run, agrees
with the probe each time (the tables' ``clipboard:`` marks tell it which controls copy)."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.gallery import MediaSeed, MediaSpec
from emukit.apps.registry import profile_for
from emukit.apps.sms import MessageSeed, MessageSpec
from emukit.device.driver import Driver
from emukit.evaluate.estimator import BaselineEstimator
from emukit.probes.clipboard import probe_clipboard
from emukit.probes.persistent import probe_persistent

S = "/storage/emulated/0"


class Recorder:
    """Keeps each action with the hierarchy it was taken on (what a recorded pair's history holds)."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.steps: list = []

    def before(self, driver: Driver, action) -> None:
        self.steps.append((driver.hierarchy(), action))

    def after(self, driver: Driver, action) -> None:
        return None


@pytest.fixture
def driver(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield d
    d.close()


def estimate(rec: Recorder) -> dict:
    return BaselineEstimator().estimate("clipboard", rec.steps, rec.driver.hierarchy())


def test_copies_in_sms_tasks_and_broccoli_are_the_clipboard_and_paste_across_apps(driver):
    rec = Recorder(driver)
    driver.recorder = rec
    assert probe_clipboard(driver).canonical == {"clipboard_type": "empty", "clipboard_text": ""}

    # SMS Messenger: a received message's "Copy to clipboard" (its own action, not the text toolbar)
    sms = profile_for(driver, "sms")
    MessageSeed.apply(driver, [MessageSpec(address="+15550142", body="Gate 14B at 7:40",
                                           at=dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC))])
    sms.open_from_all_apps()
    sms.open_conversation("+15550142")
    sms.copy_message("Gate 14B at 7:40")
    assert probe_clipboard(driver).canonical["clipboard_text"] == "Gate 14B at 7:40"
    assert estimate(rec)["clipboard_text"] == "Gate 14B at 7:40"

    # Tasks.org: paste it into a new task's title, then copy the title text again through the text toolbar
    tasks = profile_for(driver, "tasks")
    tasks.open_from_all_apps()
    tasks.new_task()
    tasks.paste_into("title_field")
    assert tasks.driver.element(**tasks.sel("title_field")).text == "Gate 14B at 7:40"
    tasks.fill(title="Board at gate 14B")
    tasks.copy_field("title_field")
    assert probe_clipboard(driver).canonical["clipboard_text"] == "Board at gate 14B"
    assert estimate(rec)["clipboard_text"] == "Board at gate 14B"
    tasks.save()

    # Broccoli: the copy pastes into a recipe's description
    broccoli = profile_for(driver, "broccoli")
    broccoli.open_from_all_apps()
    broccoli.new_recipe()
    broccoli.paste_into("description_field")
    assert broccoli.driver.element(**broccoli.sel("description_field")).text == "Board at gate 14B"
    driver.recorder = None


def test_the_gallerys_copy_to_is_a_file_copy_not_a_clipboard_copy(driver):
    rec = Recorder(driver)
    gallery = profile_for(driver, "gallery")
    driver.shell(f"rm -rf {S}/DCIM/* {S}/Download/*", check=True)
    MediaSeed.apply(driver, [MediaSpec(path=f"{S}/DCIM/receipt_4821.jpg")])
    gallery.open_from_all_apps()
    # the rename field's text is copied first (a clipboard copy), then the file is copied with "Copy to"
    gallery.open_rename(f"{S}/DCIM/receipt_4821.jpg")
    gallery.copy_field("rename_name_field")
    driver.tap(**gallery.sel("rename_cancel"))
    assert probe_clipboard(driver).canonical["clipboard_text"] == "receipt_4821"
    driver.recorder = rec
    gallery.copy_to(f"{S}/DCIM/receipt_4821.jpg", f"{S}/Download")
    driver.recorder = None
    assert probe_persistent(driver, f"{S}/DCIM/receipt_4821.jpg",
                            f"{S}/Download/receipt_4821.jpg").canonical == {"source_exists": True,
                                                                            "destination_exists": True}
    assert probe_clipboard(driver).canonical["clipboard_text"] == "receipt_4821"  # unchanged by the file copy
    assert estimate(rec) == {"clipboard_type": "empty", "clipboard_text": ""}  # no clipboard copy in those steps


def test_the_clipboard_stress_table_reads_an_sms_conversation(driver):
    """On SMS Messenger's conversation, with a copied message on the clipboard: none of the clipboard table's
    app moves (Markor's screens) passes for this screen, not even its paragraph move for a bubble holding the
    payload's text; the system-level neutral moves apply and leave the clipboard and the screen as they were."""
    from emukit.builder.steps import StepRunner
    from emukit.builder.stress import _applies
    from emukit.builder.stress_tables import STRESS_TABLES

    sms = profile_for(driver, "sms")
    MessageSeed.apply(driver, [MessageSpec(address="+15550177", body="K7mP2291",
                                           at=dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC))])
    sms.open_from_all_apps()
    sms.open_conversation("+15550177")
    sms.copy_message("K7mP2291")
    table = STRESS_TABLES["clipboard"]
    app_moves = [m for level in ("medium", "high") for m in table.levels[level]]
    assert app_moves and not [m.name for m in app_moves if _applies(driver, m, "K7mP2291" if m.pool else None)]
    for move in table.neutral:
        assert _applies(driver, move, None)
        StepRunner(driver, f"stress move {move.name}").run(list(move.steps))
        driver.wait_stable()
        assert driver.exists(**sms.sel("message_body"), text="K7mP2291"), move.name
        assert probe_clipboard(driver).canonical["clipboard_text"] == "K7mP2291", move.name
