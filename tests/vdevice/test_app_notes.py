"""The virtual Markor, driven in-process through the window manager like a user would.

Ids, strings and classes come from the pinned table (Markor 2.10.9, versionCode 146), as the app's do.
"""

from __future__ import annotations

import json
import re

import pytest

from emukit.apps.selectors import table
from emukit.vdevice.apps.notes import NotesApp, notebook, storage, viewer
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.kit import webview
from tests.vdevice.views import exists, find, tap

T = table("net.gsantner.markor")
PKG = T.package
MAIN = f"{PKG}.activity.MainActivity"
DOC = f"{PKG}.activity.DocumentActivity"
NOTEBOOK = storage.NOTEBOOK
BACK = 4
SOURCE = "# Source page\n\nalpha bravo, charlie\nSecond line: QX-4471\n\n- list item here\n"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    dev.fs.makedirs(NOTEBOOK)
    return dev


def read(dev: VirtualDevice, name: str) -> str:
    return dev.fs.read_bytes(f"{NOTEBOOK}/{name}").decode()


def write(dev: VirtualDevice, name: str, text: str) -> None:
    storage.write_text(dev, f"{NOTEBOOK}/{name}", text)  # stamped with the device's logical clock


def titles(dev: VirtualDevice) -> list[str]:
    return [v.text for v in dev.wm.windows()[0].walk() if v.resource_id == T.rid("notebook_row_title")]


def new_note(dev: VirtualDevice, name: str) -> None:
    tap(dev, resource_id=T.rid("fab_new"))
    dev.wm.input_text(name)  # the name field has the focus when the dialog opens
    tap(dev, resource_id=T.rid("dialog_ok"))


def open_view_mode(dev: VirtualDevice, name: str, text: str = SOURCE) -> None:
    write(dev, name, text)
    dev.start_activity(PKG, DOC, {"EXTRA_PATH": f"{NOTEBOOK}/{name}", "EXTRA_DO_PREVIEW": "true"})


def paragraphs(dev: VirtualDevice) -> list[str]:
    page = find(dev, resource_id=T.rid("view_webview"))
    return [v.text for v in page.walk() if v.cls == T.cls("view_paragraph") and v.text]


def press_word(dev: VirtualDevice, text: str, chars_in: int) -> None:
    """Long press ``chars_in`` characters into the paragraph's text (font metrics of its own style)."""
    from emukit.vdevice.ui.render import font

    para = find(dev, cls=T.cls("view_paragraph"), text=text)
    f = font(para.style.font_size, para.style.bold)
    dev.wm.long_press(para.bounds[0] + int(f.getlength(text[:chars_in])) + 2, para.bounds[1] + 8)


def up(dev: VirtualDevice) -> None:
    if dev.state.ui.focused_id is not None:
        dev.wm.key(BACK)  # hides the keyboard
    dev.wm.key(BACK)


# ---------------------------------------------------------------------------------------------- identity, notebook
def test_identity_comes_from_the_table_and_no_folder_is_made(tmp_path) -> None:
    dev = VirtualDevice(tmp_path / "fresh", wipe=True)
    app = dev.apps[PKG]
    assert isinstance(app, NotesApp)
    assert app.version_code == 146 and app.version_name == "2.10.9-emukit-virtual"
    dev.start_activity(PKG, MAIN)
    assert dev.current_focus() == (PKG, MAIN)
    assert not dev.fs.host(NOTEBOOK).exists()  # Markor never creates its notebook folder
    assert exists(dev, resource_id=T.rid("notebook_empty_hint"), text=T.text("notebook_empty_hint"))
    tap(dev, resource_id=T.rid("fab_new"))  # no folder to write to: the FAB does nothing
    assert not exists(dev, resource_id=T.rid("new_file_name"))
    fab = find(dev, resource_id=T.rid("fab_new"))
    assert (fab.content_desc, fab.cls) == ("Create a new file or folder", "android.widget.ImageButton")


def test_list_has_a_parent_row_then_folders_then_files_by_name(device: VirtualDevice) -> None:
    for name in ("beta.md", "Alpha.txt", "gamma.md", ".hidden.md"):
        write(device, name, f"text of {name}")
    device.fs.makedirs(f"{NOTEBOOK}/zfolder")
    device.start_activity(PKG)
    assert titles(device) == ["..", "zfolder", "Alpha.txt", "beta.md", "gamma.md"]
    parent = find(device, resource_id=T.rid("notebook_row"), content_desc="Folder .. /storage/emulated/0/Documents")
    assert parent.clickable and parent.long_clickable
    when = notebook._describe(device, device.wall_ms())  # numeric date, then the time: "1/15/2026, 09:00"
    assert re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}, \d{2}:\d{2}", when)
    row = find(device, resource_id=T.rid("notebook_row"), content_desc=f"File beta.md {when}")
    assert row.find(lambda v: v.resource_id == T.rid("notebook_row_description")).text == when
    assert find(device, resource_id=T.rid("notebook_toolbar")).find(lambda v: v.text == "Markor") is not None
    tap(device, text="beta.md")
    assert device.current_focus() == (PKG, DOC)
    assert find(device, resource_id=T.rid("editor")).text == "text of beta.md"
    assert find(device, resource_id=T.rid("document_title")).text == "beta"
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    tap(device, text="zfolder")
    assert titles(device) == [".."] and exists(device, resource_id=T.rid("notebook_empty_hint"))
    assert find(device, resource_id=T.rid("notebook_toolbar")).find(lambda v: v.text == "> zfolder") is not None
    device.wm.key(BACK)  # up a folder
    assert titles(device)[1:] == ["zfolder", "Alpha.txt", "beta.md", "gamma.md"]


def test_new_file_dialog_appends_the_extension_and_opens_the_file(device: VirtualDevice) -> None:
    write(device, "taken.md", "already here")
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_new"))
    assert device.state.ui.focused_id == T.rid("new_file_name")
    assert find(device, resource_id=T.rid("new_file_ext")).text == ".md"
    assert [find(device, resource_id=T.rid(n)).text for n in ("dialog_folder", "dialog_cancel", "dialog_ok")] == \
        ["FOLDER", "CANCEL", "OK"]
    tap(device, resource_id=T.rid("dialog_ok"))  # no name: the dialog just closes
    assert not exists(device, resource_id=T.rid("new_file_name")) and titles(device) == ["..", "taken.md"]
    new_note(device, "taken")  # an existing file is opened, not overwritten
    assert find(device, resource_id=T.rid("editor")).text == "already here" and read(device, "taken.md") == "already here"
    device.wm.key(BACK)
    device.wm.key(BACK)
    new_note(device, "readme.md")  # the extension field is always appended
    assert device.current_focus() == (PKG, DOC) and read(device, "readme.md.md") == ""
    device.wm.key(BACK)
    device.wm.key(BACK)
    tap(device, resource_id=T.rid("fab_new"))
    device.wm.set_text(T.rid("new_file_ext"), ".txt")
    device.wm.set_text(T.rid("new_file_name"), "plain")
    tap(device, resource_id=T.rid("dialog_ok"))
    assert read(device, "plain.txt") == ""
    device.wm.key(BACK)
    device.wm.key(BACK)
    tap(device, resource_id=T.rid("fab_new"))
    assert find(device, resource_id=T.rid("new_file_ext")).text == ".txt"  # the last used extension
    device.wm.input_text("Drafts")
    tap(device, resource_id=T.rid("dialog_folder"))
    assert device.fs.host(f"{NOTEBOOK}/Drafts").is_dir() and device.current_focus() == (PKG, MAIN)


def test_selection_mode_rename_and_confirmed_delete(device: VirtualDevice) -> None:
    for name in ("a.md", "b.md", "c.md"):
        write(device, name, name)
    device.start_activity(PKG)
    device.wm.long_press(*find(device, text="a.md").center)
    bar = find(device, resource_id=T.rid("notebook_toolbar"))
    assert bar.find(lambda v: v.text == "Markor") is None  # the title is "" while something is selected
    assert exists(device, content_desc=f"Selected a.md {notebook._describe(device, device.wall_ms())}")
    tap(device, content_desc="Rename")
    assert find(device, resource_id=T.rid("rename_field")).text == "a.md"
    device.wm.set_text(T.rid("rename_field"), "renamed.md")
    tap(device, resource_id=T.rid("dialog_ok"))
    assert titles(device) == ["..", "b.md", "c.md", "renamed.md"] and read(device, "renamed.md") == "a.md"
    device.wm.long_press(*find(device, text="b.md").center)
    tap(device, text="c.md")  # a tap adds to the selection
    assert not exists(device, content_desc="Rename")
    tap(device, content_desc="Delete")
    assert find(device, resource_id=T.rid("dialog_title")).text == "Confirm Delete"
    message = find(device, resource_id=T.rid("dialog_message")).text
    assert message.startswith("Do you really want to delete this Documents?") and f"{NOTEBOOK}/c.md" in message
    tap(device, resource_id=T.rid("dialog_cancel"))
    assert titles(device) == ["..", "b.md", "c.md", "renamed.md"] and exists(device, content_desc="Delete")
    tap(device, content_desc="Delete")
    tap(device, resource_id=T.rid("dialog_ok"))
    assert titles(device) == ["..", "renamed.md"]
    assert sorted(device.fs.listdir(NOTEBOOK)) == ["renamed.md"]


def test_back_at_the_notebook_asks_twice_and_keeps_the_selection(device: VirtualDevice) -> None:
    write(device, "a.md", "")
    device.start_activity(PKG)
    device.wm.long_press(*find(device, text="a.md").center)
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN) and exists(device, content_desc="Delete")
    assert device.state.ui.toast == "Press 'Back' again to exit"
    device.wm.key(BACK)  # within 2 s (the logical clock has not moved)
    assert device.top.package == device.launcher_package


# ---------------------------------------------------------------------------------------------- editor and saving
def test_the_editor_saves_when_the_document_is_left(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_note(device, "draft")
    editor = find(device, resource_id=T.rid("editor"))
    assert editor.editable and editor.cls == "android.widget.EditText" and editor.style.max_lines > 10
    device.wm.tap(*editor.center)
    device.wm.input_text("hello")
    device.wm.key(66)  # ENTER: a new line in the multi-line editor
    device.wm.input_text("world")
    assert find(device, resource_id=T.rid("editor")).text == "hello\nworld"
    assert read(device, "draft.md") == ""  # not written while the document is open
    tap(device, resource_id=T.rid("view_mode"))  # view mode renders the editor's text, still unsaved
    assert paragraphs(device) == ["hello world"] and read(device, "draft.md") == ""
    tap(device, resource_id=T.rid("edit_mode"))
    up(device)
    assert read(device, "draft.md") == "hello\nworld" and device.current_focus() == (PKG, MAIN)


def test_save_action_short_texts_and_reload_on_resume(device: VirtualDevice) -> None:
    write(device, "n.md", "some text")
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "x")
    up(device)  # fewer than 2 characters: not saved, and a toast says so
    assert read(device, "n.md") == "some text" and "not saved automatically" in (device.state.ui.toast or "")
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), " x")  # trimmed length 1: the save fails and the text is put on the clipboard
    up(device)
    assert read(device, "n.md") == "some text" and device.get_clip().text == " x"
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "y")
    tap(device, resource_id=T.rid("save"))  # Save writes short texts too
    assert read(device, "n.md") == "y"
    app, act = device.apps[PKG], device.top
    write(device, "n.md", "changed by adb")
    app.on_pause(device, act)
    app.on_resume(device, act)  # the file changed since it was saved: reloaded
    assert find(device, resource_id=T.rid("editor")).text == "changed by adb"


def test_force_stop_loses_the_text_of_the_document_in_front_only(device: VirtualDevice) -> None:
    write(device, "n.md", "old")
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "typed, never left")
    device.force_stop(PKG)  # the process dies in front: no lifecycle callback, nothing saved
    assert read(device, "n.md") == "old"
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "typed, then another app")
    device.start_activity("com.android.settings")  # Settings covers the document, which pauses
    device.force_stop(PKG)
    assert read(device, "n.md") == "typed, then another app"


def test_the_pause_hook_saves_and_remembers_the_mode(device: VirtualDevice) -> None:
    write(device, "n.md", "old")
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "covered by another screen")
    tap(device, resource_id=T.rid("view_mode"))
    app, act = device.apps[PKG], device.top
    app.on_pause(device, act)  # what the device calls when another screen covers the activity
    assert read(device, "n.md") == "covered by another screen"
    assert storage.preview_state(device, f"{NOTEBOOK}/n.md")


def test_paste_inserts_at_the_caret_and_keeps_the_clipboard(device: VirtualDevice) -> None:
    device.set_clip("PAYLOAD-1", label="x")
    device.start_activity(PKG)
    new_note(device, "scratch")
    for expected in ("PAYLOAD-1", "PAYLOAD-1PAYLOAD-1"):
        device.wm.long_press(*find(device, resource_id=T.rid("editor")).center)
        tap(device, text=T.text("text_paste"))
        assert find(device, resource_id=T.rid("editor")).text == expected
        assert device.get_clip().text == "PAYLOAD-1"
    up(device)
    assert read(device, "scratch.md") == "PAYLOAD-1PAYLOAD-1"


def test_blank_editor_pixels_do_not_depend_on_the_clipboard(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_note(device, "blank")
    device.set_clip("first payload")
    first = device.screenshot_png()
    device.set_clip("a different, longer payload")
    assert device.screenshot_png() == first
    device.state.clip = None
    assert device.screenshot_png() == first
    assert "payload" not in device.hierarchy_xml()


# ---------------------------------------------------------------------------------------------- view mode
def test_view_mode_is_a_webview_of_paragraphs(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    host = find(device, resource_id=T.rid("view_webview"))
    assert host.cls == "android.webkit.WebView" and host.children[0].cls == "android.webkit.WebView"
    assert paragraphs(device) == ["Source page", "alpha bravo, charlie Second line: QX-4471", "list item here"]
    heading = host.children[0].children[0]
    assert heading.cls == "android.view.View" and heading.children[0].clickable  # the heading's anchor link
    assert find(device, resource_id=T.rid("edit_mode")).content_desc == "Edit mode"
    assert not exists(device, resource_id=T.rid("view_mode"))
    tap(device, resource_id=T.rid("edit_mode"))
    assert find(device, resource_id=T.rid("view_mode")).content_desc == "View mode"
    assert find(device, resource_id=T.rid("editor")).text == SOURCE
    up(device)  # left in edit mode: opens in edit mode next time
    device.start_activity(PKG)
    tap(device, text="src.md")
    assert exists(device, resource_id=T.rid("editor"))
    tap(device, resource_id=T.rid("view_mode"))
    up(device)  # left in view mode: remembered in shared_prefs/app.xml
    assert f"PREF_PREFIX_PREVIEW_STATE{NOTEBOOK}/src.md" in device.fs.read_bytes(storage.PREFS).decode()
    tap(device, text="src.md")
    assert exists(device, resource_id=T.rid("view_webview"))


def test_long_press_selects_a_word_and_copy_puts_it_on_the_clipboard(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    text = "alpha bravo, charlie Second line: QX-4471"
    press_word(device, text, 8)  # inside "bravo"
    sel = device.top.state["sel"]
    assert text[sel["start"]:sel["end"]] == "bravo"  # the comma is not part of the word
    assert [v.text for v in device.wm.windows()[0].walk() if v.resource_id == "android:id/floating_toolbar_menu_item_text"] \
        == ["Copy", "Select all"]
    tap(device, content_desc="Copy")
    clip = device.get_clip()
    assert (clip.text, clip.label, clip.mime_type) == ("bravo", "html", "text/html")
    assert "sel" not in device.top.state and not exists(device, text="Copy")
    press_word(device, text, len(text) - 2)  # "QX-4471": the hyphen ends a word
    tap(device, content_desc="Copy")
    assert device.get_clip().text == "4471"


def test_select_all_selects_the_page_and_empty_space_selects_nothing(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    para = find(device, cls=T.cls("view_paragraph"), text="list item here")
    device.wm.long_press(para.bounds[2] - 20, para.bounds[1] + 8)  # past the end of the text
    assert "sel" not in device.top.state and not exists(device, text="Copy")
    press_word(device, "list item here", 1)
    tap(device, content_desc="Select all")
    assert not exists(device, content_desc="Select all")
    tap(device, content_desc="Copy")
    assert device.get_clip().text == "Source page\n\nalpha bravo, charlie Second line: QX-4471\n\nlist item here"


def test_a_tap_ends_the_selection_and_back_leaves_the_document(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    press_word(device, "list item here", 1)
    tap(device, content_desc="Copy")
    para = find(device, cls=T.cls("view_paragraph"), text="alpha bravo, charlie Second line: QX-4471")
    press_word(device, para.text, 1)
    device.wm.tap(para.bounds[2] - 20, para.bounds[1] + 8)  # beside the word, on the page
    assert "sel" not in device.top.state and not exists(device, text="Copy")
    assert device.current_focus() == (PKG, DOC)
    press_word(device, para.text, 1)
    device.wm.key(BACK)  # not handled by the page: the document closes
    assert device.top.package != PKG or device.current_focus()[1] != DOC
    assert device.get_clip().text == "list"


def test_blocks_join_soft_breaks_and_keep_hard_ones() -> None:
    shown = viewer.blocks("# T #\n\none\ntwo  \nthree\n\n* a\n* b\ncontinued\n\n```\nx = 1\n```\n**bold** [link](u)")
    assert [(b.kind, b.text) for b in shown] == [("h1", "T"), ("p", "one two\nthree"), ("li", "a"),
                                                ("li", "b continued"), ("pre", "x = 1"), ("p", "bold link")]
    assert webview.word_at("alpha bravo, charlie", 9) == (6, 11)
    assert webview.word_at("alpha bravo, charlie", 11) is None


# ---------------------------------------------------------------------------------------------- plumbing
def test_document_activity_extras_and_paths(device: VirtualDevice) -> None:
    write(device, "index.md", "# Home")
    device.start_activity(PKG, DOC, {"EXTRA_PATH": "/sdcard/Documents/Markor/index.md"})
    assert device.top.state["path"] == f"{NOTEBOOK}/index.md" and device.top.state["mode"] == "view"
    write(device, "other.md", "x")
    device.start_activity(PKG, DOC, {"EXTRA_PATH": f"file://{NOTEBOOK}/other.md"})
    assert device.top.state["mode"] == "edit"
    device.wm.key(BACK)


def test_state_is_json_and_force_stop_resets_screens(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    press_word(device, "list item here", 1)
    json.loads(device.state.model_dump_json())
    device.persist()
    again = VirtualDevice(device.state_dir)
    assert again.top.state["sel"] == device.top.state["sel"]
    assert again.screenshot_png() == device.screenshot_png()
    device.force_stop(PKG)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN) and titles(device) == ["..", "src.md"]


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = []
    for name in device.apps[PKG].gallery_scenes(device):
        names.append(name)
        assert device.screenshot_png()[:4] == b"\x89PNG"
    assert len(names) >= 15 and len(set(names)) == len(names)
    assert {"Notebook (empty)", "Selection mode", "Rename dialog", "Delete confirmation", "Blank editor",
            "Selection overflow (Move, Copy)", "Move: folder dialog",
            "View mode: word selected", "View mode: page selected"} <= set(names)


def test_home_pauses_the_document_and_its_text_is_written(device: VirtualDevice) -> None:
    """The device pauses the activity in front when HOME (or another app) takes over, as Android does; Markor
    writes the document then (DocumentEditAndViewFragment.onPause)."""
    write(device, "n.md", "old")
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "typed, then HOME")
    assert read(device, "n.md") == "old"
    device.wm.key(3)  # HOME
    assert read(device, "n.md") == "typed, then HOME"
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.set_text(T.rid("editor"), "typed, then a screen on top")
    device.start_activity("com.google.android.deskclock")
    assert read(device, "n.md") == "typed, then a screen on top"


# ---------------------------------------------------------------------------------------------- clipboard paths
# Moved in-process from the over-adb module (tests/integration/test_app_notes.py, which keeps one smoke test):
# a notebook holding a source page and an empty note, Markor started on it, and the clipboard's text checked
# after each step.
PAGE = "# Source page\n\nTuesday is the deadline\n\nKestrel7 flies at noon\n\nBudget code QX-4471 approved\n"


@pytest.fixture
def notebook_dev(device: VirtualDevice) -> VirtualDevice:
    """Markor started on a notebook of ``source.md`` (the page to copy from) and an empty ``blank.md``."""
    write(device, "source.md", PAGE)
    write(device, "blank.md", "")
    device.set_clip("initial")
    device.start_activity(PKG, MAIN)
    assert exists(device, resource_id=T.rid("notebook_row_title"), text="source.md")
    return device


def open_source_view(dev: VirtualDevice) -> None:
    tap(dev, resource_id=T.rid("notebook_row_title"), text="source.md")
    tap(dev, resource_id=T.rid("view_mode"))
    assert exists(dev, cls=T.cls("view_paragraph"), text="Tuesday is the deadline")


def press_first_word(dev: VirtualDevice, paragraph: str) -> None:
    press_word(dev, paragraph, 1)
    assert exists(dev, text=T.text("text_copy"))


def copy_first_word(dev: VirtualDevice, paragraph: str) -> None:
    press_first_word(dev, paragraph)
    tap(dev, text=T.text("text_copy"))


def back_to_notebook(dev: VirtualDevice) -> None:
    dev.wm.key(BACK)
    assert exists(dev, resource_id=T.rid("notebook_row_title"), text="blank.md")


def paste_into(dev: VirtualDevice, name: str) -> None:
    """Open the note ``name`` from the notebook and paste at the caret with the text toolbar."""
    tap(dev, resource_id=T.rid("notebook_row_title"), text=name)
    dev.wm.long_press(*find(dev, resource_id=T.rid("editor")).center)
    tap(dev, text=T.text("text_paste"))


def name_new_note(dev: VirtualDevice, name: str) -> None:
    """The FAB, the name set into its field (uiautomator's setText), OK."""
    tap(dev, resource_id=T.rid("fab_new"))
    dev.wm.set_text(T.rid("new_file_name"), name)
    tap(dev, resource_id=T.rid("dialog_ok"))
    assert exists(dev, resource_id=T.rid("editor"))


def editor_text(dev: VirtualDevice) -> str:
    return find(dev, resource_id=T.rid("editor")).text


def test_launch_list_create_type_and_save_on_leaving(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    assert dev.current_focus() == (PKG, MAIN)
    assert titles(dev) == ["..", "blank.md", "source.md"]
    name_new_note(dev, "typed")
    assert read(dev, "typed.md") == ""
    tap(dev, resource_id=T.rid("editor"))
    dev.wm.input_text("hello world")  # `input text 'hello%sworld'`
    dev.wm.key(67)  # DEL
    assert editor_text(dev) == "hello worl"
    assert read(dev, "typed.md") == ""  # written when the document is left, not while typing
    dev.wm.key(BACK)  # hides the keyboard
    dev.wm.key(BACK)  # back to the notebook: the document pauses and saves
    assert read(dev, "typed.md") == "hello worl"
    assert titles(dev) == ["..", "blank.md", "source.md", "typed.md"]


def test_rename_and_delete_one_file_from_selection_mode(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    dev.wm.long_press(*find(dev, resource_id=T.rid("notebook_row_title"), text="blank.md").center)
    assert exists(dev, resource_id=T.rid("selection_delete")) and not exists(dev, text="Markor")
    tap(dev, resource_id=T.rid("selection_rename"))
    dev.wm.set_text(T.rid("rename_field"), "renamed.md")
    tap(dev, resource_id=T.rid("dialog_ok"))
    assert sorted(dev.fs.listdir(NOTEBOOK)) == ["renamed.md", "source.md"]
    dev.wm.long_press(*find(dev, resource_id=T.rid("notebook_row_title"), text="renamed.md").center)
    tap(dev, resource_id=T.rid("selection_delete"))
    assert exists(dev, text=T.text("confirm_delete_title"))
    tap(dev, resource_id=T.rid("dialog_cancel"))
    assert "renamed.md" in dev.fs.listdir(NOTEBOOK)
    tap(dev, resource_id=T.rid("selection_delete"))
    tap(dev, resource_id=T.rid("dialog_ok"))
    assert sorted(dev.fs.listdir(NOTEBOOK)) == ["source.md"]


def test_copy_a_word_then_paste_into_the_blank_note(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    open_source_view(dev)
    copy_first_word(dev, "Kestrel7 flies at noon")
    assert dev.get_clip().text == "Kestrel7"
    assert not exists(dev, text=T.text("text_copy"))
    back_to_notebook(dev)
    paste_into(dev, "blank.md")
    assert editor_text(dev) == "Kestrel7"
    dev.wm.key(BACK)
    dev.wm.key(BACK)
    assert read(dev, "blank.md") == "Kestrel7"


def test_overwrite_keeps_the_last_copy(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    open_source_view(dev)
    copy_first_word(dev, "Tuesday is the deadline")
    assert dev.get_clip().text == "Tuesday"
    copy_first_word(dev, "Kestrel7 flies at noon")
    assert dev.get_clip().text == "Kestrel7"
    back_to_notebook(dev)
    paste_into(dev, "blank.md")
    assert editor_text(dev) == "Kestrel7"


def test_cancelled_second_selection_keeps_the_first_copy(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    open_source_view(dev)
    copy_first_word(dev, "Tuesday is the deadline")
    press_first_word(dev, "Kestrel7 flies at noon")
    bounds = find(dev, cls=T.cls("view_paragraph"), text="Kestrel7 flies at noon").bounds
    dev.wm.tap(bounds[2] - 20, bounds[1] + 20)  # a tap on the page ends the selection without copying
    assert not exists(dev, text=T.text("text_copy")) and exists(dev, resource_id=T.rid("view_webview"))
    press_first_word(dev, "Budget code QX-4471 approved")
    dev.wm.key(BACK)  # the page does not take BACK: the document closes
    assert exists(dev, resource_id=T.rid("notebook_row_title"), text="blank.md")
    assert dev.get_clip().text == "Tuesday"
    paste_into(dev, "blank.md")
    assert editor_text(dev) == "Tuesday"


def test_first_words_of_different_paragraphs_on_the_same_page(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    open_source_view(dev)
    copy_first_word(dev, "Budget code QX-4471 approved")
    assert dev.get_clip().text == "Budget"
    copy_first_word(dev, "Kestrel7 flies at noon")
    assert dev.get_clip().text == "Kestrel7"
    press_first_word(dev, "Tuesday is the deadline")
    tap(dev, text=T.text("text_select_all"))  # the whole page, not one paragraph
    tap(dev, text=T.text("text_copy"))
    assert dev.get_clip().text.startswith("Source page\n\nTuesday is the deadline\n\nKestrel7")


def test_copy_then_mutate_the_source(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    open_source_view(dev)
    copy_first_word(dev, "Budget code QX-4471 approved")
    tap(dev, resource_id=T.rid("edit_mode"))
    tap(dev, resource_id=T.rid("editor"))
    dev.wm.input_text("edited")
    assert dev.get_clip().text == "Budget"
    dev.wm.key(BACK)
    back_to_notebook(dev)
    assert read(dev, "source.md") == PAGE + "edited"
    paste_into(dev, "blank.md")
    assert editor_text(dev) == "Budget"


def test_blank_editor_screenshot_does_not_show_the_copied_word(notebook_dev: VirtualDevice) -> None:
    dev = notebook_dev
    shots = []
    for paragraph in ("Tuesday is the deadline", "Kestrel7 flies at noon"):
        tap(dev, resource_id=T.rid("notebook_row_title"), text="source.md")
        if exists(dev, resource_id=T.rid("view_mode")):  # the source page opens in the mode it was left in
            tap(dev, resource_id=T.rid("view_mode"))
        copy_first_word(dev, paragraph)
        back_to_notebook(dev)
        tap(dev, resource_id=T.rid("notebook_row_title"), text="blank.md")
        assert editor_text(dev) == ""
        shots.append((dev.get_clip().text, dev.screenshot_png()))  # `screencap -p`
        dev.wm.key(BACK)
    (clip_a, png_a), (clip_b, png_b) = shots
    assert (clip_a, clip_b) == ("Tuesday", "Kestrel7")
    assert png_a[:8] == b"\x89PNG\r\n\x1a\n" and png_a == png_b


def dialog_titles(dev: VirtualDevice) -> list[str]:
    """The row titles a hierarchy dump holds (while the folder dialog shows, its rows only: the notebook's own
    views are out of the hierarchy)."""
    return re.findall(r'text="([^"]*)" resource-id="' + re.escape(T.rid("notebook_row_title")) + '"',
                      dev.wm.hierarchy_xml())


def _hierarchy_ids(dev: VirtualDevice) -> list[str]:
    return re.findall(r'resource-id="([^"]*)"', dev.wm.hierarchy_xml())


def tap_row(dev: VirtualDevice, title: str) -> None:
    """Tap the row titled ``title`` of the topmost list (the folder dialog's while it shows)."""
    rows = [v for v in dev.wm.windows()[0].walk() if v.resource_id == T.rid("notebook_row_title") and v.text == title]
    dev.wm.tap(*rows[-1].center)


@pytest.mark.parametrize("move", [False, True])
def test_move_and_copy_through_the_folder_dialog(device: VirtualDevice, move: bool) -> None:
    for folder in ("Inbox", "Archive", "Archive/Old"):
        device.fs.makedirs(f"{NOTEBOOK}/{folder}")
    storage.write_text(device, f"{NOTEBOOK}/Inbox/a.md", "alpha")
    storage.write_text(device, f"{NOTEBOOK}/Inbox/b.md", "bravo")
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("notebook_row_title"), text="Inbox")
    device.wm.long_press(*find(device, resource_id=T.rid("notebook_row_title"), text="a.md").center)
    tap(device, content_desc=T.desc("selection_more_options"))
    assert [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("overflow_row_title")] == [
        "Move", "Copy"]
    tap(device, resource_id=T.rid("overflow_row_title"), text="Move" if move else "Copy")
    assert find(device, resource_id=T.rid("folder_dialog_title")).text == ("Move" if move else "Copy")
    # a modal window: the dump holds the dialog's nodes only; folders only, ".." first, described by their folder
    assert dialog_titles(device) == [".."]
    assert exists(device, content_desc=f"Folder .. {NOTEBOOK}")
    ids = _hierarchy_ids(device)
    assert T.rid("fab_new") not in ids and T.rid("selection_delete") not in ids
    tap_row(device, "..")
    assert dialog_titles(device) == ["..", "Archive", "Inbox"]
    assert exists(device, content_desc=f"Folder Archive {NOTEBOOK}")
    tap_row(device, "Archive")
    assert dialog_titles(device) == ["..", "Old"]
    tap(device, resource_id=T.rid("folder_dialog_ok"))
    assert not exists(device, resource_id=T.rid("folder_dialog_title"))
    assert exists(device, resource_id=T.rid("fab_new")) and not exists(device, resource_id=T.rid("selection_delete"))
    assert device.fs.read_bytes(f"{NOTEBOOK}/Archive/a.md") == b"alpha"
    assert device.fs.host(f"{NOTEBOOK}/Inbox/a.md").exists() is (not move)
    assert titles(device) == ["..", "b.md"] if move else ["..", "a.md", "b.md"]


def test_cancelled_copy_keeps_the_selection(device: VirtualDevice) -> None:
    device.fs.makedirs(f"{NOTEBOOK}/Inbox")
    storage.write_text(device, f"{NOTEBOOK}/a.md", "alpha")
    device.start_activity(PKG)
    device.wm.long_press(*find(device, resource_id=T.rid("notebook_row_title"), text="a.md").center)
    tap(device, content_desc=T.desc("selection_more_options"))
    tap(device, resource_id=T.rid("overflow_row_title"), text="Copy")
    tap_row(device, "Inbox")
    tap(device, resource_id=T.rid("folder_dialog_cancel"))
    assert not exists(device, resource_id=T.rid("folder_dialog_title"))
    assert exists(device, resource_id=T.rid("selection_delete"))  # still selected
    assert device.fs.listdir(f"{NOTEBOOK}/Inbox") == []
