"""The virtual Markor driven only through uiautomator2 and adb, as a user and a probe would on an emulator.

One ``emukit vdevice serve`` process for the module; every test starts from a force-stopped Markor with a
fresh notebook (a source page and an empty note pushed over adb). Selectors come from the pinned table. The
Clipboard templates' paths are covered: copy the first word of a paragraph, overwrite, a cancelled second
selection (a tap beside it, or BACK, which leaves the page), different paragraphs of one page, mutating the
source after the copy, pasting twice, and the blank editor's pixels not depending on the clipboard; and
Markor's save moment: a note's file changes only when the document is left. Text is typed with ``input
text`` or ``set_text``: uiautomator2's ``send_keys`` goes through the clipboard when its IME is not
installed, so it would overwrite the payload under test.
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


def test_launch_list_create_type_and_save_on_leaving(markor, adb_device):
    d = markor
    assert d.app_current()["activity"] == f"{PKG}.activity.MainActivity"
    assert [el.get_text() for el in d(**q("notebook_row_title"))] == ["..", "blank.md", "source.md"]
    new_note(d, "typed")
    assert note(adb_device, "typed.md") == ""
    d(**q("editor")).click()
    adb_device.shell("input text 'hello%sworld'")
    adb_device.shell("input keyevent 67")
    assert d(**q("editor")).get_text() == "hello worl"
    assert note(adb_device, "typed.md") == ""  # written when the document is left, not while typing
    d.press("back")  # hides the keyboard
    d.press("back")  # back to the notebook: the document pauses and saves
    assert note(adb_device, "typed.md") == "hello worl"
    assert [el.get_text() for el in d(**q("notebook_row_title"))] == ["..", "blank.md", "source.md", "typed.md"]


def test_rename_and_delete_from_selection_mode(markor, adb_device):
    d = markor
    d(**q("notebook_row_title", text="blank.md")).long_click()
    assert d(**q("selection_delete")).exists and not d(text="Markor").exists
    d(**q("selection_rename")).click()
    d(**q("rename_field")).set_text("renamed.md")
    d(**q("dialog_ok")).click()
    assert adb_device.shell(f"ls {NOTEBOOK}").split() == ["renamed.md", "source.md"]
    d(**q("notebook_row_title", text="renamed.md")).long_click()
    d(**q("selection_delete")).click()
    assert d(**q("confirm_delete_title")).exists
    d(**q("dialog_cancel")).click()
    assert "renamed.md" in adb_device.shell(f"ls {NOTEBOOK}")
    d(**q("selection_delete")).click()
    d(**q("dialog_ok")).click()
    assert adb_device.shell(f"ls {NOTEBOOK}").split() == ["source.md"]


def test_copy_a_word_then_paste_into_the_blank_note(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7"
    assert not d(**q("text_copy")).exists
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert d(**q("editor")).get_text() == "Kestrel7"
    d.press("back")
    d.press("back")
    assert note(adb_device, "blank.md") == "Kestrel7"


def test_overwrite_keeps_the_last_copy(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Tuesday is the deadline")
    assert d.clipboard == "Tuesday"
    copy_first_word(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7"
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert d(**q("editor")).get_text() == "Kestrel7"


def test_cancelled_second_selection_keeps_the_first_copy(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Tuesday is the deadline")
    press_first_word(d, "Kestrel7 flies at noon")
    bounds = d(**q("view_paragraph", text="Kestrel7 flies at noon")).info["bounds"]
    d.click(bounds["right"] - 20, bounds["top"] + 20)  # a tap on the page ends the selection without copying
    assert not d(**q("text_copy")).exists and d(**q("view_webview")).exists
    press_first_word(d, "Budget code QX-4471 approved")
    d.press("back")  # the page does not take BACK: the document closes
    assert d(**q("notebook_row_title", text="blank.md")).wait(timeout=3)
    assert d.clipboard == "Tuesday"
    paste_into(d, "blank.md")
    assert d(**q("editor")).get_text() == "Tuesday"


def test_first_words_of_different_paragraphs_on_the_same_page(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Budget code QX-4471 approved")
    assert d.clipboard == "Budget"
    copy_first_word(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7"
    press_first_word(d, "Tuesday is the deadline")
    d(**q("text_select_all")).click()  # the whole page, not one paragraph
    d(**q("text_copy")).click()
    assert d.clipboard.startswith("Source page\n\nTuesday is the deadline\n\nKestrel7")


def test_copy_then_mutate_the_source(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_first_word(d, "Budget code QX-4471 approved")
    d(**q("edit_mode")).click()
    d(**q("editor")).click()
    adb_device.shell("input text 'edited'")
    assert d.clipboard == "Budget"
    d.press("back")
    back_to_notebook(d)
    assert note(adb_device, "source.md") == SOURCE + "edited"
    paste_into(d, "blank.md")
    assert d(**q("editor")).get_text() == "Budget"


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


def test_blank_editor_screenshot_does_not_show_the_clipboard(markor, adb_device):
    d = markor
    shots = []
    for paragraph in ("Tuesday is the deadline", "Kestrel7 flies at noon"):
        d(**q("notebook_row_title", text="source.md")).click()
        if d(**q("view_mode")).exists:  # the source page opens in the mode it was left in
            d(**q("view_mode")).click()
        copy_first_word(d, paragraph)
        back_to_notebook(d)
        d(**q("notebook_row_title", text="blank.md")).click()
        assert d(**q("editor")).get_text() == ""
        shots.append((d.clipboard, adb_device.shell("screencap -p", encoding=None)))
        d.press("back")
    (clip_a, png_a), (clip_b, png_b) = shots
    assert (clip_a, clip_b) == ("Tuesday", "Kestrel7")
    assert png_a[:8] == b"\x89PNG\r\n\x1a\n" and png_a == png_b
