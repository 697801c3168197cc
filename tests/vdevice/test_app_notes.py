"""The virtual Markor, driven in-process through the window manager like a user would."""

from __future__ import annotations

import json

import pytest

from emukit.vdevice.apps.notes import NotesApp, viewer
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.ui.view import View

PKG = "net.gsantner.markor"
MAIN = f"{PKG}.activity.MainActivity"
DOC = f"{PKG}.activity.DocumentActivity"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
EDITOR = f"{PKG}:id/document__fragment__edit__highlighting_editor"
TOGGLE = f"{PKG}:id/action_preview_edit_toggle"
LINE = f"{PKG}:id/source_line"
ROW_TITLE = f"{PKG}:id/opoc_filesystem_item__title"
BACK = 4
SOURCE = "# Source page\n\nalpha bravo, charlie\nSecond line: QX-4471\n- list item here\n"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def find(dev: VirtualDevice, **attrs: object) -> View:
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def exists(dev: VirtualDevice, **attrs: object) -> bool:
    return dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items())) is not None


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def read(dev: VirtualDevice, name: str) -> str:
    return dev.fs.read_bytes(f"{NOTEBOOK}/{name}").decode()


def write(dev: VirtualDevice, name: str, text: str) -> None:
    dev.fs.makedirs(NOTEBOOK)
    dev.fs.write_bytes(f"{NOTEBOOK}/{name}", text.encode())


def titles(dev: VirtualDevice) -> list[str]:
    return [v.text for v in dev.wm.windows()[0].walk() if v.resource_id == ROW_TITLE]


def new_note(dev: VirtualDevice, name: str) -> None:
    tap(dev, content_desc="Create a new document")
    dev.wm.input_text(name)  # the name field has the focus when the dialog opens
    tap(dev, text="OK")


def open_view_mode(dev: VirtualDevice, name: str, text: str = SOURCE) -> None:
    write(dev, name, text)
    dev.start_activity(PKG, DOC, {"EXTRA_PATH": f"{NOTEBOOK}/{name}", "EXTRA_DO_PREVIEW": "true"})


def long_press_word(dev: VirtualDevice, line_text: str, chars_in: int) -> None:
    """Long press ``chars_in`` characters into the line (font metrics of the line's own style)."""
    from emukit.vdevice.ui.render import font

    line = find(dev, resource_id=LINE, text=line_text)
    f = font(line.style.font_size, line.style.bold)
    x = line.bounds[0] + line.style.padding + int(f.getlength(line_text[:chars_in])) + 4
    dev.wm.long_press(x, line.bounds[1] + line.style.padding + 10)


# ---------------------------------------------------------------------------------------------- notebook
def test_identity_and_first_launch_creates_the_notebook(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, NotesApp) and app.version_name.endswith("-emukit-virtual")
    assert not device.fs.host(NOTEBOOK).exists()
    device.start_activity(PKG, MAIN)
    assert device.current_focus() == (PKG, MAIN)
    assert device.fs.host(NOTEBOOK).is_dir()
    assert exists(device, text="No documents yet. Tap + to create your first note.")
    fab = find(device, content_desc="Create a new document")
    assert fab.resource_id == f"{PKG}:id/fab_add_new_item"


def test_list_is_sorted_by_name_and_a_tap_opens_the_note(device: VirtualDevice) -> None:
    for name in ("beta.md", "Alpha.txt", "gamma.md", ".hidden.md"):
        write(device, name, f"text of {name}")
    device.fs.makedirs(f"{NOTEBOOK}/folder")
    device.start_activity(PKG)
    assert titles(device) == ["Alpha.txt", "beta.md", "gamma.md"]
    tap(device, text="beta.md")
    assert device.current_focus() == (PKG, DOC)
    assert find(device, resource_id=EDITOR).text == "text of beta.md"
    assert find(device, resource_id=f"{PKG}:id/note__activity__text_note_title").text == "beta"
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)


def test_new_note_dialog_validates_creates_and_opens_an_empty_file(device: VirtualDevice) -> None:
    write(device, "taken.md", "x")
    device.start_activity(PKG)
    tap(device, content_desc="Create a new document")
    assert find(device, resource_id="android:id/alertTitle").text == "New document"
    assert device.state.ui.focused_id == f"{PKG}:id/new_file_dialog__name"
    tap(device, text="OK")
    assert exists(device, text="Enter a name")
    device.wm.input_text("taken")
    tap(device, text="OK")
    assert exists(device, text="A file with this name already exists")
    device.wm.set_text(f"{PKG}:id/new_file_dialog__name", "Shopping list")
    tap(device, text="OK")
    assert read(device, "Shopping list.md") == ""
    assert device.current_focus() == (PKG, DOC)
    assert find(device, resource_id=EDITOR).text == ""
    device.wm.key(BACK)
    assert titles(device) == ["Shopping list.md", "taken.md"]


def test_new_note_dialog_extension_and_cancel_paths(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, content_desc="Create a new document")
    device.wm.set_text(f"{PKG}:id/new_file_dialog__ext", ".txt")
    device.wm.set_text(f"{PKG}:id/new_file_dialog__name", "plain")
    tap(device, text="Cancel")
    assert not exists(device, text="New document")
    assert device.fs.listdir(NOTEBOOK) == []
    tap(device, content_desc="Create a new document")
    device.wm.key(BACK)  # hides the keyboard
    device.wm.key(BACK)  # closes the dialog
    assert not exists(device, text="New document") and device.current_focus() == (PKG, MAIN)
    tap(device, content_desc="Create a new document")
    device.wm.set_text(f"{PKG}:id/new_file_dialog__ext", ".txt")
    device.wm.set_text(f"{PKG}:id/new_file_dialog__name", "plain")
    tap(device, text="OK")
    device.wm.key(BACK)
    new_note(device, "readme.md")  # an extension in the name is kept
    assert sorted(device.fs.listdir(NOTEBOOK)) == ["plain.txt", "readme.md"]


def test_selection_mode_rename_and_delete(device: VirtualDevice) -> None:
    for name in ("a.md", "b.md", "c.md"):
        write(device, name, name)
    device.start_activity(PKG)
    device.wm.long_press(*find(device, text="a.md").center)
    assert exists(device, text="1 selected") and not exists(device, content_desc="Create a new document")
    tap(device, content_desc="Rename")
    assert find(device, resource_id=f"{PKG}:id/new_name").text == "a.md"
    device.wm.set_text(f"{PKG}:id/new_name", "b.md")
    tap(device, text="OK")
    assert exists(device, text="A file with this name already exists")
    device.wm.set_text(f"{PKG}:id/new_name", "renamed.md")
    tap(device, text="OK")
    assert titles(device) == ["b.md", "c.md", "renamed.md"] and read(device, "renamed.md") == "a.md"
    assert not exists(device, text="1 selected")
    # select two, Rename disappears, Delete asks first
    device.wm.long_press(*find(device, text="b.md").center)
    tap(device, text="c.md")
    assert exists(device, text="2 selected") and not exists(device, content_desc="Rename")
    tap(device, content_desc="Delete")
    assert exists(device, text="Delete 2 documents? This cannot be undone.")
    tap(device, text="Cancel")
    assert titles(device) == ["b.md", "c.md", "renamed.md"] and exists(device, text="2 selected")
    tap(device, content_desc="Delete")
    tap(device, resource_id="android:id/button1")
    assert titles(device) == ["renamed.md"]
    assert sorted(device.fs.listdir(NOTEBOOK)) == ["renamed.md"]


def test_back_closes_dialog_then_selection_then_leaves(device: VirtualDevice) -> None:
    write(device, "a.md", "")
    device.start_activity(PKG)
    device.wm.long_press(*find(device, text="a.md").center)
    tap(device, content_desc="Delete")
    assert exists(device, resource_id="android:id/message")
    device.wm.key(BACK)
    assert not exists(device, resource_id="android:id/message")
    assert exists(device, text="1 selected")
    device.wm.key(BACK)
    assert not exists(device, text="1 selected") and device.current_focus() == (PKG, MAIN)
    tap(device, text="a.md")
    tap(device, content_desc="Navigate up")
    assert device.current_focus() == (PKG, MAIN)
    device.wm.key(BACK)
    assert device.top.package == device.launcher_package


# ---------------------------------------------------------------------------------------------- editor
def test_editor_saves_every_change(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_note(device, "draft")
    editor = find(device, resource_id=EDITOR)
    assert editor.editable and editor.style.max_lines > 10
    device.wm.tap(*editor.center)
    device.wm.input_text("hello")
    assert read(device, "draft.md") == "hello"
    device.wm.key(66)  # ENTER: a new line in the multi-line editor
    device.wm.input_text("world")
    assert read(device, "draft.md") == "hello\nworld"
    device.wm.key(67)  # DEL
    assert read(device, "draft.md") == "hello\nworl"
    device.wm.set_text(EDITOR, "replaced")
    assert read(device, "draft.md") == "replaced"
    assert find(device, resource_id=EDITOR).text == "replaced"
    write(device, "draft.md", "changed by adb")  # the editor shows the file as it is now
    assert find(device, resource_id=EDITOR).text == "changed by adb"


def test_paste_inserts_at_the_caret_and_keeps_the_clipboard(device: VirtualDevice) -> None:
    device.set_clip("PAYLOAD-1", label="x")
    device.start_activity(PKG)
    new_note(device, "scratch")
    device.wm.long_press(*find(device, resource_id=EDITOR).center)
    tap(device, text="Paste")
    assert read(device, "scratch.md") == "PAYLOAD-1"
    assert device.get_clip().text == "PAYLOAD-1"
    device.wm.long_press(*find(device, resource_id=EDITOR).center)
    tap(device, text="Paste")
    assert read(device, "scratch.md") == "PAYLOAD-1PAYLOAD-1"
    assert device.get_clip().text == "PAYLOAD-1"


def test_cut_in_the_editor_removes_the_text_and_fills_the_clipboard(device: VirtualDevice) -> None:
    write(device, "n.md", "cut me")
    device.start_activity(PKG)
    tap(device, text="n.md")
    device.wm.long_press(*find(device, resource_id=EDITOR).center)
    tap(device, text="Select all")
    tap(device, text="Cut")
    assert read(device, "n.md") == "" and device.get_clip().text == "cut me"


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
def test_view_mode_shows_one_text_view_per_line(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    lines = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == LINE]
    assert lines == ["Source page", "alpha bravo, charlie", "Second line: QX-4471", "list item here"]
    assert find(device, resource_id=TOGGLE).content_desc == "Edit mode"
    tap(device, resource_id=TOGGLE)
    assert find(device, resource_id=TOGGLE).content_desc == "View mode"
    assert find(device, resource_id=EDITOR).text == SOURCE
    tap(device, content_desc="View mode")
    assert exists(device, resource_id=LINE, text="Source page")


def test_copy_a_word_and_a_whole_line(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    long_press_word(device, "alpha bravo, charlie", 8)  # inside "bravo"
    sel = device.top.state["sel"]
    assert "alpha bravo, charlie"[sel["start"]:sel["end"]] == "bravo"  # the comma is not part of the word
    assert find(device, resource_id=LINE, text="alpha bravo, charlie").selected
    tap(device, text="Copy")
    assert device.get_clip().text == "bravo" and device.get_clip().label == "markor"
    assert "sel" not in device.top.state and not exists(device, text="Copy")
    long_press_word(device, "Second line: QX-4471", 2)
    tap(device, text="Select all")
    assert not exists(device, text="Select all")
    tap(device, text="Copy")
    assert device.get_clip().text == "Second line: QX-4471"
    long_press_word(device, "Source page", 1)  # a heading: copied without its "#"
    tap(device, resource_id="android:id/selectAll")
    tap(device, resource_id="android:id/copy")
    assert device.get_clip().text == "Source page"


def test_cancelled_selection_keeps_the_clipboard(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    long_press_word(device, "alpha bravo, charlie", 1)
    tap(device, text="Copy")
    long_press_word(device, "Second line: QX-4471", 15)
    assert exists(device, text="Copy")
    device.wm.tap(540, 2000)  # elsewhere
    assert "sel" not in device.top.state and not exists(device, text="Copy")
    long_press_word(device, "list item here", 6)
    device.wm.key(BACK)  # BACK ends the selection and stays in the document
    assert "sel" not in device.top.state and device.current_focus() == (PKG, DOC)
    assert device.get_clip().text == "alpha"


def test_copy_then_mutate_the_source(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    long_press_word(device, "Second line: QX-4471", 15)
    tap(device, text="Copy")
    assert device.get_clip().text == "QX-4471"
    tap(device, content_desc="Edit mode")
    device.wm.tap(*find(device, resource_id=EDITOR).center)
    device.wm.input_text("appended")
    assert read(device, "src.md") == SOURCE + "appended"
    assert device.get_clip().text == "QX-4471"


def test_word_at_and_blocks() -> None:
    assert viewer.word_at("alpha bravo, charlie", 9) == (6, 11)
    assert viewer.word_at("alpha bravo, charlie", 5) in ((0, 5), (6, 11))
    assert viewer.word_at("(QX-4471).", 3) == (1, 8)
    assert viewer.word_at("!!!", 1) == (0, 3)
    shown = viewer.blocks("## Title ##\n\n* item\nplain\n\n")
    assert [(b.text, b.bold, b.bullet) for b in shown] == [("Title", True, False), ("", False, False),
                                                          ("item", False, True), ("plain", False, False)]


# ---------------------------------------------------------------------------------------------- plumbing
def test_document_activity_extras_and_paths(device: VirtualDevice) -> None:
    write(device, "index.md", "# Home")
    device.start_activity(PKG, DOC, {"EXTRA_PATH": "/sdcard/Documents/Markor/index.md"})
    assert device.top.state == {"path": f"{NOTEBOOK}/index.md", "mode": "view"}  # index.* opens in view mode
    device.start_activity(PKG, DOC, {"EXTRA_PATH": f"file://{NOTEBOOK}/index.md"})
    assert device.top.state["mode"] == "view"
    write(device, "other.md", "x")
    device.start_activity(PKG, DOC, {"EXTRA_PATH": f"{NOTEBOOK}/other.md"})
    assert device.top.state["mode"] == "edit"
    tap(device, content_desc="Navigate up")  # opened on its own: up leads to the notebook
    assert device.current_focus() == (PKG, MAIN)
    device.start_activity(PKG, DOC)
    assert exists(device, text="No document to open")


def test_state_is_json_and_force_stop_resets_screens(device: VirtualDevice) -> None:
    open_view_mode(device, "src.md")
    long_press_word(device, "alpha bravo, charlie", 1)
    json.loads(device.state.model_dump_json())
    device.persist()
    again = VirtualDevice(device.state_dir)
    assert again.top.state["sel"] == device.top.state["sel"]
    assert again.screenshot_png() == device.screenshot_png()
    device.force_stop(PKG)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN) and titles(device) == ["src.md"]


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = []
    for name in device.apps[PKG].gallery_scenes(device):
        names.append(name)
        assert device.screenshot_png()[:4] == b"\x89PNG"
    assert len(names) >= 15 and len(set(names)) == len(names)
    assert {"Notebook (empty)", "Selection mode", "Rename dialog", "Delete confirmation", "Blank editor",
            "View mode: word selected", "View mode: whole line selected"} <= set(names)
