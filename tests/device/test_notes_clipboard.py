"""The notes profile's Clipboard operations on the virtual Markor, checked through the gRPC clipboard probe
and the notebook files: overwrite sequences, cancelled selections (a tap beside, BACK), first words of
multi-word paragraphs, source edits without copying (saved when the page is left), pasting into a scratch
note and discarding it (text or note), and the common boundary (a blank editor with only "Paste" on its text
toolbar, whatever the clipboard holds). The source page is laid out as the Clipboard templates write it:
one payload per paragraph (a blank line between payload lines)."""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.builder.outcomes import read_outcome
from emukit.device.driver import Driver
from emukit.errors import DeviceError
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
    notes.driver.shell(f"rm -rf {NOTEBOOK} /data/data/net.gsantner.markor/shared_prefs/app.xml; mkdir -p {NOTEBOOK}; "
                       f"printf '# Codes\\n\\n' > {NOTEBOOK}/Codes.md; printf '%s\\n' "
                       + " ".join(f"'{line}'" for line in LINES)
                       + f" | while read -r l; do printf '%s\\n\\n' \"$l\"; done >> {NOTEBOOK}/Codes.md; "
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
    actions = n.copy_each(["Juniper34", "Marble13", "Heron21"], count=2)
    assert [a.type for a in actions] == ["long_press", "tap", "long_press", "tap"]
    assert clip(n) == "Heron21"  # the first word of the paragraph "Heron21 east"
    n.copy_each(["Juniper34", "Marble13"])
    assert clip(n) == "Marble13"
    actions = n.select_then_cancel("Kestrel43", how="tap")
    assert [a.type for a in actions] == ["long_press", "tap"]
    assert clip(n) == "Marble13" and not n.driver.exists(**n.sel("text_copy"))
    actions = n.select_then_cancel("Kestrel43", how="back")  # BACK leaves the page with the selection
    assert [a.type for a in actions] == ["long_press", "key"]
    assert clip(n) == "Marble13" and n.driver.exists(**n.sel("fab_new"))
    n.up()  # already on the notebook: nothing to do
    assert n.driver.exists(**n.sel("fab_new"))
    n.open_document("Codes.md")  # reopens in view mode, as it was left
    assert n.driver.exists(**n.sel("view_webview"))
    with pytest.raises(DeviceError, match="no view-mode paragraph starts with the word 'north'"):
        n.copy("north")  # the second word of a paragraph: no position the paragraph's bounds give
    with pytest.raises(ValueError):
        n.select_then_cancel("Juniper34", how="swipe")


def test_rewrite_source_keeps_clipboard_and_is_saved_on_leaving(fresh):
    n = fresh
    n.open_document("Codes.md")
    n.view_mode()
    n.copy("Marble13")
    n.edit_mode()
    n.rewrite("checked on Monday", how="append")
    assert text_of(n, "Codes.md").endswith("Heron21 east\n\n")  # not written yet
    n.rewrite("draft only", how="replace")
    assert clip(n) == "Marble13"
    n.up()
    assert text_of(n, "Codes.md") == "draft only" and clip(n) == "Marble13"


@pytest.mark.parametrize("how", ["text", "note"])
def test_paste_then_discard_then_paste_again(fresh, how):
    n = fresh
    n.open_document("Codes.md")
    n.view_mode()
    n.copy("Juniper34")
    n.up()
    n.open_document("Scratch.md")
    n.paste(times=2)
    assert n.driver.element(**n.sel("editor")).text == "Juniper34Juniper34"
    n.discard("Scratch.md", how=how)
    assert n.driver.exists(**n.sel("notebook_row_title"), text="Draft.md")
    if how == "text":
        assert text_of(n, "Scratch.md") == ""  # emptied again before leaving: nothing to save
    else:
        assert not n.driver.exists(**n.sel("notebook_row_title"), text="Scratch.md")
        assert n.driver.shell(f"[ -e {NOTEBOOK}/Scratch.md ]").exit_code != 0
    assert clip(n) == "Juniper34"
    boundary(n)
    n.driver.tap(**n.sel("text_paste"))
    _, after = n.driver.wait_stable()
    outcome, evidence = read_outcome(n.driver, "clipboard", {"kind": "paste"}, after, {})
    assert outcome == {"pasted_text": "Juniper34"} and evidence["editor_found"]
    n.up()
    assert text_of(n, "Draft.md") == "Juniper34"


def test_boundary_does_not_show_the_clipboard(fresh):
    n = fresh
    shots = []
    for word in ("Marble13", "Heron21"):
        n.launch(fresh=True)
        n.open_document("Codes.md")
        n.view_mode()
        n.copy(word)
        n.up()
        shots.append(boundary(n))
        assert n.driver.exists(**n.sel("text_paste")) and not n.driver.exists(**n.sel("text_select_all"))
        n.hide_keyboard()
        n.up()  # the Draft stays blank
    assert clip(n) == "Heron21"
    assert shots[0] == shots[1]
    assert text_of(n, "Draft.md") == ""
