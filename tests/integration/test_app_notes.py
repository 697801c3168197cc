"""The virtual Markor's over-adb smoke test: driven only through uiautomator2 and adb, as a user and a probe
would on an emulator.

One ``emukit vdevice serve`` process for the module; the test starts from a force-stopped Markor with a fresh
notebook (a source page and an empty note pushed over adb). Selectors come from the pinned table. It walks one
Clipboard template path end to end: a word copied from the page in view mode (a long press at display
coordinates, the text toolbar), the clipboard read back through uiautomator2, a note created with ``set_text``
and pasted into, its file read over adb once the document is left, the note deleted in selection mode (checked
with ``ls`` over adb), and a second paste into another note. Text is typed with ``set_text``: uiautomator2's
``send_keys`` goes through the clipboard when its IME is not installed, so it would overwrite the payload under
test.

The other scenarios (launch and save on leaving, rename and delete, overwrite, a cancelled second selection,
different paragraphs, mutating the source after the copy, the blank editor's pixels not depending on the
clipboard) are checked in-process in tests/vdevice/test_app_notes.py.
"""

from __future__ import annotations

import pytest

from emukit.apps.selectors import table

T = table("net.gsantner.markor")
PKG = T.package
MAIN = f"{PKG}/{PKG}.activity.MainActivity"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
SOURCE = ("# Source page\n\nTuesday is the deadline\n\nKestrel7 flies at noon\n\n"
          "Budget code QX-4471 approved\n")


def q(name: str, **extra: str) -> dict:
    """uiautomator2 selector fields of a table entry (plus dynamic data such as ``text``)."""
    return {**T.query(name), **extra}


@pytest.fixture(scope="module")
def d(vdevice):
    import uiautomator2

    dev = uiautomator2.connect(vdevice.serial)
    dev.settings["operation_delay"] = (0, 0)
    yield dev
    dev.stop_uiautomator()


@pytest.fixture
def markor(d, adb_device):
    """Markor freshly started on its notebook: ``source.md`` (the page to copy from) and ``blank.md``."""
    adb_device.shell(f"am force-stop {PKG}; rm -rf {NOTEBOOK} /data/data/{PKG}/shared_prefs/app.xml; mkdir -p {NOTEBOOK}")
    adb_device.sync.push(SOURCE.encode(), f"{NOTEBOOK}/source.md")
    adb_device.sync.push(b"", f"{NOTEBOOK}/blank.md")
    d.clipboard = "initial"
    adb_device.shell(f"am start -n {MAIN}")
    assert d(**q("notebook_row_title", text="source.md")).wait(timeout=5)
    return d


def note(adb_device, name: str) -> str:
    return adb_device.sync.read_text(f"{NOTEBOOK}/{name}")


def open_source_view(d) -> None:
    d(**q("notebook_row_title", text="source.md")).click()
    d(**q("view_mode")).click()
    assert d(**q("view_paragraph", text="Tuesday is the deadline")).exists


def press_first_word(d, paragraph: str) -> None:
    bounds = d(**q("view_paragraph", text=paragraph)).info["bounds"]
    dp = d.info["displayWidth"] / d.info["displaySizeDpX"]  # px per dp of this display
    d.long_click(bounds["left"] + int(8 * dp), bounds["top"] + int(9 * dp))
    assert d(**q("text_copy")).wait(timeout=3)


def copy_first_word(d, paragraph: str) -> None:
    press_first_word(d, paragraph)
    d(**q("text_copy")).click()


def back_to_notebook(d) -> None:
    d.press("back")
    assert d(**q("notebook_row_title", text="blank.md")).wait(timeout=3)


def paste_into(d, name: str) -> None:
    """Open the note ``name`` from the notebook and paste at the caret with the text toolbar."""
    d(**q("notebook_row_title", text=name)).click()
    d(**q("editor")).long_click()
    d(**q("text_paste")).click()


def new_note(d, name: str) -> None:
    d(**q("fab_new")).click()
    d(**q("new_file_name")).set_text(name)
    d(**q("dialog_ok")).click()
    assert d(**q("editor")).exists


def test_paste_does_not_consume_the_clipboard(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Kestrel7 flies at noon")
    back_to_notebook(d)
    new_note(d, "scratch")
    d(**q("editor")).long_click()
    d(**q("text_paste")).click()
    assert d(**q("editor")).get_text() == "Kestrel7"
    d.press("back")
    d.press("back")
    assert note(adb_device, "scratch.md") == "Kestrel7"
    d(**q("notebook_row_title", text="scratch.md")).long_click()
    d(**q("selection_delete")).click()
    d(**q("dialog_ok")).click()
    assert "scratch" not in adb_device.shell(f"ls {NOTEBOOK}")
    paste_into(d, "blank.md")
    assert d(**q("editor")).get_text() == "Kestrel7"
    assert d.clipboard == "Kestrel7"
