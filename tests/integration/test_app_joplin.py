"""Joplin over adb (the virtual app, driven as an emulator would be): a cleared Joplin has no database (the probe
says so), its first start builds the welcome notebook; make a notebook, write notes, copy a word from one note's
rendered body and paste it into another note's body and title, delete a note into the trash; the probes read
joplin.sqlite as android_world does; the ``joplin:`` seed writes folders and notes as android_world's setup does."""

from __future__ import annotations

import pytest

from emukit.apps.joplin import JoplinSeed, NoteSpec, read_folders, read_notes
from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.probes.clipboard import probe_clipboard

PACKAGE = "net.cozic.joplin"


@pytest.fixture
def joplin(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "joplin")
    d.close()


def live(rows: list[dict]) -> dict[str, dict]:
    return {r["title"]: r for r in rows if not r["deleted_time"]}


def test_copy_paste_round_trip_through_the_real_ui(joplin):
    d = joplin.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_notes(d)
    assert empty.rows == [] and empty.reason is not None  # cleared, not opened since: no database
    joplin.open_from_all_apps()
    assert joplin.first_run_screen() == "notes"
    assert [f["title"] for f in read_folders(d).rows] == ["Welcome!"]
    assert len(read_notes(d).rows) == 5  # the welcome notes of a first start

    joplin.create_notebook("Recipes")
    joplin.create_note("Pancakes", "Whisk until smooth")
    joplin.create_note("Soup")
    notes = live(read_notes(d).rows)
    recipes = next(f for f in read_folders(d).rows if f["title"] == "Recipes")
    assert notes["Pancakes"]["body"] == "Whisk until smooth" and notes["Soup"]["body"] == ""
    assert notes["Pancakes"]["parent_id"] == notes["Soup"]["parent_id"] == recipes["id"]

    joplin.open_note("Pancakes")
    joplin.copy_word("Whisk")  # long press in the WebView, the floating toolbar's Copy
    assert probe_clipboard(d).canonical["clipboard_text"] == "Whisk"
    joplin.open_note("Soup")
    joplin.paste_into("body_editor")
    joplin.save()
    assert live(read_notes(d).rows)["Soup"]["body"] == "Whisk"
    soup_id = live(read_notes(d).rows)["Soup"]["id"]
    joplin.paste_into("title_field")  # a long press on the title's word selects it: Paste replaces or inserts
    title = next(r["title"] for r in read_notes(d).rows if r["id"] == soup_id)
    assert title in ("Whisk", "SoupWhisk", "WhiskSoup"), title

    joplin.delete_note("Pancakes")
    trashed = [r for r in read_notes(d).rows if r["title"] == "Pancakes"]
    assert len(trashed) == 1 and trashed[0]["deleted_time"] > 0  # in the trash: the row stays
    assert "Pancakes" not in live(read_notes(d).rows)


def test_seed_writes_notebooks_and_notes_as_android_world_does(joplin):
    d = joplin.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    JoplinSeed.apply(d, [NoteSpec(title="Quarterly review", folder="Work", body="Budget approved."),
                         NoteSpec(title="Renew passport", folder="Work", is_todo=True),
                         NoteSpec(title="Pancakes", folder="Recipes", body="Whisk until smooth")])
    folders = {f["title"]: f for f in read_folders(d).rows}
    assert set(folders) == {"Work", "Recipes"}  # clear_dbs removed the welcome notebook first
    notes = {n["title"]: n for n in read_notes(d).rows}
    assert set(notes) == {"Quarterly review", "Renew passport", "Pancakes"}
    assert notes["Renew passport"]["is_todo"] == 1 and notes["Pancakes"]["parent_id"] == folders["Recipes"]["id"]
    assert all(n["deleted_time"] == 0 and n["markup_language"] == 1 for n in notes.values())
    joplin.open_from_all_apps()
    joplin.open_note("Pancakes")
    joplin.copy_word("Whisk")
    assert probe_clipboard(d).canonical["clipboard_text"] == "Whisk"
