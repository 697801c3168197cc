"""The notes profile's Clipboard operations on the virtual Markor, checked through the gRPC clipboard probe
and the notebook files: overwrite sequences, cancelled selections (BACK and tap), whole-line copies, source
edits without copying, pasting into a scratch note and discarding it (text or note), and the common boundary
(a blank editor with only "Paste" on its text toolbar, whatever the clipboard holds)."""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.builder.outcomes import read_outcome
from emukit.device.driver import Driver
from emukit.probes import probe

pytest.importorskip("emukit.device.emulator_grpc")

NOTEBOOK = "/storage/emulated/0/Documents/Markor"
LINES = ["Kestrel43 north", "Marble13", "Juniper34", "Heron21 east"]


@pytest.fixture(scope="module")
def notes(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield profile_for(d, "notes")
    d.close()


@pytest.fixture
def fresh(notes):
    notes.driver.shell(f"rm -rf {NOTEBOOK}; mkdir -p {NOTEBOOK}; printf '%s\\n' '# Codes' '' "
                       + " ".join(f"'{line}'" for line in LINES) + f" > {NOTEBOOK}/Codes.md; "
                       f": > {NOTEBOOK}/Draft.md; : > {NOTEBOOK}/Scratch.md", check=True)
    notes.launch(fresh=True)
    return notes


def clip(notes) -> str:
    return probe(notes.driver, "clipboard").canonical["clipboard_text"]


def text_of(notes, name: str) -> str:
    return notes.driver.shell(f"cat {NOTEBOOK}/{name}").text


def boundary(notes):
    notes.open_document("Draft.md")
    notes.paste_menu()
    return notes.driver.wait_stable()


def test_overwrites_and_cancelled_selections(fresh):
    n = fresh
    n.open_document("Codes.md")
    n.view_mode()
    actions = n.copy_each(["Juniper34", "Marble13", "Heron21 east"], count=2)
    assert [a.type for a in actions] == ["long_press", "tap", "long_press", "tap"]
    assert clip(n) == "Heron21"  # the first word of the last line copied
    n.copy_each(["Juniper34", "Marble13"])
    assert clip(n) == "Marble13"
    for how in ("back", "tap"):
        actions = n.select_then_cancel("Kestrel43 north", how=how)
        assert [a.type for a in actions] == ["long_press", "key" if how == "back" else "tap"]
        assert clip(n) == "Marble13" and not n.driver.exists(text="Copy")
    n.copy("Kestrel43 north", span="line")
    assert clip(n) == "Kestrel43 north"
    n.copy("Juniper34", span="line")  # a one-word line is wholly selected already: no Select all
    assert clip(n) == "Juniper34"
    with pytest.raises(ValueError):
        n.copy("Juniper34", span="page")


def test_rewrite_source_keeps_clipboard(fresh):
    n = fresh
    n.open_document("Codes.md")
    n.view_mode()
    n.copy("Marble13")
    n.edit_mode()
    n.rewrite("checked on Monday", how="append")
    assert text_of(n, "Codes.md").endswith("Heron21 east\nchecked on Monday")
    n.rewrite("draft only", how="replace")
    assert text_of(n, "Codes.md") == "draft only" and clip(n) == "Marble13"
    n.up()


@pytest.mark.parametrize("how", ["text", "note"])
def test_paste_then_discard_then_paste_again(fresh, how):
    n = fresh
    n.open_document("Codes.md")
    n.view_mode()
    n.copy("Juniper34")
    n.up()
    n.open_document("Scratch.md")
    n.paste(times=2)
    assert text_of(n, "Scratch.md") == "Juniper34Juniper34"
    n.discard("Scratch.md", how=how)
    assert n.driver.exists(resourceId=n.ROW_TITLE, text="Draft.md")
    if how == "text":
        assert text_of(n, "Scratch.md") == ""
    else:
        assert not n.driver.exists(resourceId=n.ROW_TITLE, text="Scratch.md")
        assert n.driver.shell(f"[ -e {NOTEBOOK}/Scratch.md ]").exit_code != 0
    assert clip(n) == "Juniper34"
    boundary(n)
    n.driver.tap(text="Paste")
    _, after = n.driver.wait_stable()
    outcome, evidence = read_outcome(n.driver, "clipboard", {"kind": "paste"}, after, {})
    assert outcome == {"pasted_text": "Juniper34"} and evidence["editor_found"]
    assert text_of(n, "Draft.md") == "Juniper34"


def test_boundary_does_not_show_the_clipboard(fresh):
    n = fresh
    shots = []
    for line in ("Marble13", "Heron21 east"):
        n.launch(fresh=True)
        n.open_document("Codes.md")
        n.view_mode()
        n.copy(line, span="line")
        n.up()
        shots.append(boundary(n))
        assert n.driver.exists(text="Paste") and not n.driver.exists(text="Select all")
        n.driver.back()  # hide the keyboard and the toolbar; the Draft stays blank
        n.up()
    assert clip(n) == "Heron21 east"
    assert shots[0] == shots[1]
