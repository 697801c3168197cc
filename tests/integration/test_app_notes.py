"""The virtual Markor driven only through uiautomator2 and adb, as a user and a probe would on an emulator.

One ``emukit vdevice serve`` process for the module; every test starts from a force-stopped Markor with a
fresh notebook (a source page and an empty note pushed over adb). The Clipboard templates' paths are
covered: copy a word / a whole line, overwrite, a cancelled second selection, different lines of the same
page, mutating the source after the copy, pasting twice, and the blank editor's pixels not depending on
the clipboard. Text is typed with ``input text`` or ``set_text``: uiautomator2's ``send_keys`` goes through
the clipboard when its IME is not installed, so it would overwrite the payload under test.
"""

from __future__ import annotations

import pytest

PKG = "net.gsantner.markor"
MAIN = f"{PKG}/{PKG}.activity.MainActivity"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
EDITOR = f"{PKG}:id/document__fragment__edit__highlighting_editor"
LINE = f"{PKG}:id/source_line"
ROW_TITLE = f"{PKG}:id/opoc_filesystem_item__title"
NAME_FIELD = f"{PKG}:id/new_file_dialog__name"
SOURCE = ("# Source page\n\nTuesday is the deadline\nKestrel7 flies at noon\n"
          "Budget code QX-4471 approved\n")


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
    adb_device.shell(f"am force-stop {PKG}; rm -rf {NOTEBOOK}; mkdir -p {NOTEBOOK}")
    adb_device.sync.push(SOURCE.encode(), f"{NOTEBOOK}/source.md")
    adb_device.sync.push(b"", f"{NOTEBOOK}/blank.md")
    d.clipboard = "initial"
    adb_device.shell(f"am start -n {MAIN}")
    assert d(resourceId=ROW_TITLE, text="source.md").wait(timeout=5)
    return d


def note(adb_device, name: str) -> str:
    return adb_device.sync.read_text(f"{NOTEBOOK}/{name}")


def open_source_view(d) -> None:
    d(resourceId=ROW_TITLE, text="source.md").click()
    d(description="View mode").click()
    assert d(resourceId=LINE, text="Tuesday is the deadline").exists


def long_click_first_word(d, line_text: str) -> None:
    bounds = d(resourceId=LINE, text=line_text).info["bounds"]
    d.long_click(bounds["left"] + 30, (bounds["top"] + bounds["bottom"]) // 2)


def copy_word(d, line_text: str) -> None:
    long_click_first_word(d, line_text)
    d(text="Copy").click()


def copy_line(d, line_text: str) -> None:
    long_click_first_word(d, line_text)
    d(text="Select all").click()
    d(text="Copy").click()


def back_to_notebook(d) -> None:
    d(description="Navigate up").click()
    assert d(resourceId=ROW_TITLE, text="blank.md").exists


def paste_into(d, name: str) -> None:
    """Open the note ``name`` from the notebook and paste at the caret with the text toolbar."""
    d(resourceId=ROW_TITLE, text=name).click()
    d(resourceId=EDITOR).long_click()
    d(text="Paste").click()


def new_note(d, adb_device, name: str) -> None:
    d(description="Create a new document").click()
    d(resourceId=NAME_FIELD).set_text(name)
    d(text="OK").click()
    assert d(resourceId=EDITOR).exists


def test_launch_list_create_type_and_save(markor, adb_device):
    d = markor
    assert d.app_current()["activity"] == f"{PKG}.activity.MainActivity"
    titles = [el.get_text() for el in d(resourceId=ROW_TITLE)]
    assert titles == ["blank.md", "source.md"]
    new_note(d, adb_device, "typed")
    assert note(adb_device, "typed.md") == ""
    d(resourceId=EDITOR).click()
    adb_device.shell("input text 'hello%sworld'")
    assert note(adb_device, "typed.md") == "hello world"
    adb_device.shell("input keyevent 67")
    assert note(adb_device, "typed.md") == "hello worl"
    d(resourceId=EDITOR).set_text("set by uiautomator")
    assert note(adb_device, "typed.md") == "set by uiautomator"
    d.press("back")  # hides the keyboard
    d.press("back")  # back to the notebook
    assert [el.get_text() for el in d(resourceId=ROW_TITLE)] == ["blank.md", "source.md", "typed.md"]


def test_rename_and_delete_from_selection_mode(markor, adb_device):
    d = markor
    d(resourceId=ROW_TITLE, text="blank.md").long_click()
    assert d(text="1 selected").exists
    d(description="Rename").click()
    d(resourceId=f"{PKG}:id/new_name").set_text("renamed.md")
    d(text="OK").click()
    assert adb_device.shell(f"ls {NOTEBOOK}").split() == ["renamed.md", "source.md"]
    d(resourceId=ROW_TITLE, text="renamed.md").long_click()
    d(description="Delete").click()
    d(text="Cancel").click()
    assert "renamed.md" in adb_device.shell(f"ls {NOTEBOOK}")
    d(description="Delete").click()
    d(text="Delete").click()
    assert adb_device.shell(f"ls {NOTEBOOK}").split() == ["source.md"]


def test_copy_a_word_then_paste_into_the_blank_note(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_word(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7"
    assert not d(text="Copy").exists
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Kestrel7"
    assert d(resourceId=EDITOR).get_text() == "Kestrel7"


def test_copy_a_whole_line(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_line(d, "Budget code QX-4471 approved")
    assert d.clipboard == "Budget code QX-4471 approved"


def test_overwrite_keeps_the_last_copy(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_word(d, "Tuesday is the deadline")
    assert d.clipboard == "Tuesday"
    copy_word(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7"
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Kestrel7"


def test_cancelled_second_selection_keeps_the_first_copy(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_word(d, "Tuesday is the deadline")
    long_click_first_word(d, "Kestrel7 flies at noon")
    assert d(text="Copy").exists
    d.click(540, 2000)  # a tap elsewhere dismisses the selection without copying
    assert not d(text="Copy").exists
    long_click_first_word(d, "Budget code QX-4471 approved")
    d.press("back")  # so does BACK, which stays on the page
    assert not d(text="Copy").exists and d(resourceId=LINE, text="Tuesday is the deadline").exists
    assert d.clipboard == "Tuesday"
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Tuesday"


def test_partial_selection_of_different_lines_on_the_same_page(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_line(d, "Tuesday is the deadline")
    assert d.clipboard == "Tuesday is the deadline"
    copy_line(d, "Kestrel7 flies at noon")
    assert d.clipboard == "Kestrel7 flies at noon"
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Kestrel7 flies at noon"


def test_copy_then_mutate_the_source(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_word(d, "Budget code QX-4471 approved")
    d(description="Edit mode").click()
    d(resourceId=EDITOR).click()
    adb_device.shell("input text 'edited'")
    assert note(adb_device, "source.md") == SOURCE + "edited"
    assert d.clipboard == "Budget"
    d.press("back")
    back_to_notebook(d)
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Budget"


def test_paste_does_not_consume_the_clipboard(markor, adb_device):
    d = markor
    open_source_view(d)
    copy_word(d, "Kestrel7 flies at noon")
    back_to_notebook(d)
    new_note(d, adb_device, "scratch")
    d(resourceId=EDITOR).long_click()
    d(text="Paste").click()
    assert note(adb_device, "scratch.md") == "Kestrel7"
    d.press("back")
    d.press("back")
    d(resourceId=ROW_TITLE, text="scratch.md").long_click()
    d(description="Delete").click()
    d(text="Delete").click()
    assert "scratch" not in adb_device.shell(f"ls {NOTEBOOK}")
    paste_into(d, "blank.md")
    assert note(adb_device, "blank.md") == "Kestrel7"
    assert d.clipboard == "Kestrel7"


def test_blank_editor_screenshot_does_not_show_the_clipboard(markor, adb_device):
    d = markor
    shots = []
    for line in ("Tuesday is the deadline", "Kestrel7 flies at noon"):
        open_source_view(d)
        copy_word(d, line)
        back_to_notebook(d)
        d(resourceId=ROW_TITLE, text="blank.md").click()
        assert d(resourceId=EDITOR).get_text() == ""
        shots.append((d.clipboard, adb_device.shell("screencap -p", encoding=None)))
        d.press("back")
    (clip_a, png_a), (clip_b, png_b) = shots
    assert (clip_a, clip_b) == ("Tuesday", "Kestrel7")
    assert png_a[:8] == b"\x89PNG\r\n\x1a\n" and png_a == png_b
