"""The virtual Joplin (net.cozic.joplin, versionCode 2097740), driven in-process through the window manager like a
user would; its strings, content-descs and classes come from its pinned selector table (React Native views have
no resource ids: the screens are checked by the table's text / description / class selectors and against the
structure fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.joplin import JoplinApp, viewer
from emukit.vdevice.apps.joplin import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.kit import webview
from emukit.vdevice.shell import run_shell
from tests.vdevice.views import exists, find, install_standin, rendered_scenes, tap

T = table("net.cozic.joplin")
PKG = T.package
MAIN = f"{PKG}.MainActivity"
BACK = 4
FINE = "android.permission.ACCESS_FINE_LOCATION"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hierarchy" / "joplin"
# android_world's rows (d9c569f7 android_world/task_evals/utils/sqlite_schema_utils.py:360-435)
AW_NOTE = ["parent_id", "title", "body", "created_time", "updated_time", "is_conflict", "latitude", "longitude",
           "altitude", "author", "source_url", "is_todo", "todo_due", "todo_completed", "source", "source_application",
           "application_data", "order", "user_created_time", "user_updated_time", "encryption_cipher_text",
           "encryption_applied", "markup_language", "is_shared", "share_id", "conflict_original_id", "master_key_id",
           "user_data", "id"]
AW_FOLDER = ["title", "id", "created_time", "updated_time", "user_created_time", "user_updated_time", "deleted_time",
             "encryption_cipher_text", "encryption_applied", "parent_id", "is_shared", "share_id", "master_key_id",
             "icon", "user_data"]
AW_NORMALIZED = ["parent_id", "title", "body", "latitude", "longitude", "altitude", "source_url", "is_todo",
                 "todo_due", "todo_completed", "user_created_time", "user_updated_time", "id"]


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def sel(dev: VirtualDevice, entry: str, **fmt: str):
    """The view the table's entry selects (its text / content-desc / class / id)."""
    e = T.entry(entry)
    attrs = {}
    if e.resource_id:
        attrs["resource_id"] = e.resource_id
    if e.text is not None:
        attrs["text"] = e.text.format(**fmt)
    if e.description is not None:
        attrs["content_desc"] = e.description
    if e.class_name is not None:
        attrs["cls"] = e.class_name
    return find(dev, **attrs)


def press(dev: VirtualDevice, entry: str, **fmt: str) -> None:
    dev.wm.tap(*sel(dev, entry, **fmt).center)


def shows(dev: VirtualDevice, entry: str, **fmt: str) -> bool:
    try:
        sel(dev, entry, **fmt)
    except AssertionError:
        return False
    return True


def edit_texts(dev: VirtualDevice) -> list:
    return [v for v in dev.wm.windows()[0].walk() if v.cls == "android.widget.EditText"]


def body_field(dev: VirtualDevice):
    root = find(dev, resource_id=T.rid("editor_root"))
    return next(v for v in root.walk() if v.cls == T.cls("body_editor"))


def notes(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM notes ORDER BY created_time, id")


def make_notebook(dev: VirtualDevice, title: str) -> None:
    if shows(dev, "create_notebook"):
        press(dev, "create_notebook")
    else:
        press(dev, "sidebar_button")
        press(dev, "side_new_notebook")
    dev.wm.input_text(title)  # the field has the focus (autoFocus)
    press(dev, "save_changes_button")


def new_note(dev: VirtualDevice, title: str = "", body: str = "") -> None:
    press(dev, "fab_add")
    press(dev, "fab_new_note")
    assert exists(dev, resource_id=T.rid("editor_root"))
    if title:
        dev.wm.tap(*edit_texts(dev)[0].center)
        dev.wm.input_text(title)
    if body:
        dev.wm.tap(*body_field(dev).center)
        dev.wm.input_text(body)


def seeded(dev: VirtualDevice, body: str = "Flour and milk\nTwo eggs\n\nWhisk until smooth.") -> str:
    """A notebook "Recipes" with the note "Pancakes", as the app writes them; the note's id."""
    folder = D.create_folder(dev, "Recipes")
    return D.save_new_note(dev, folder, title="Pancakes", body=body)


def open_row(dev: VirtualDevice, title: str) -> None:
    press(dev, "note_row_title", title=title)
    assert shows(dev, "back_button")


def press_first_word(dev: VirtualDevice, text: str) -> None:
    para = find(dev, cls=T.cls("view_paragraph"), text=text)
    dev.wm.long_press(para.bounds[0] + 8, para.bounds[1] + 8)


# ---------------------------------------------------------------------------------------------- start
def test_deterministic_joplin_is_as_android_world_setup_leaves_it(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, JoplinApp)
    assert (app.version_code, app.version_name) == (2097740, "3.0.1-emukit-virtual")
    assert D.SCHEMA.path == "/data/data/net.cozic.joplin/databases/joplin.sqlite"
    assert D.STORE.exists(device)  # launched once by the setup, then cleared
    assert D.STORE.rows(device, "SELECT version FROM version") == [{"version": 46}]
    assert notes(device) == [] and D.folders(device) == []
    assert D.STORE.rows(device, "SELECT COUNT(*) AS n FROM notes_normalized") == [{"n": 0}]
    assert D.setting(device, "firstStart") == "0" and D.setting(device, "welcome.wasBuilt") == "1"
    assert device.permission_granted(PKG, FINE)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)
    assert exists(device, text="All notes", cls=T.cls("header_title"))  # the smart filter (root.tsx:250-254)
    assert shows(device, "sidebar_button") and shows(device, "search_button") and shows(device, "sort_button")
    assert shows(device, "no_notebooks") and shows(device, "create_notebook")
    assert not shows(device, "fab_add")  # no notebook: no action button (Notes.tsx:240-241)
    assert not shows(device, "back_button") and not shows(device, "actions_menu")
    assert notes(device) == []  # starting again builds no welcome notebook


def test_schema_has_the_columns_android_world_reads_and_writes(device: VirtualDevice) -> None:
    def columns(name: str) -> list[str]:
        return [r["name"] for r in D.STORE.rows(device, f"PRAGMA table_info({name})")]

    assert columns("notes") == [AW_NOTE[-1], *AW_NOTE[:-1], "deleted_time"]  # migration order; id first
    assert columns("notes") == list(D.NOTE_COLUMNS)
    assert sorted(columns("folders")) == sorted(AW_FOLDER) and columns("folders")[:2] == ["id", "title"]
    assert sorted(columns("notes_normalized")) == sorted(AW_NORMALIZED)
    assert columns("settings") == ["key", "value", "type"]
    # android_world's inserts name the columns, so a row of defaults fits (insert_rows_to_remote_db)
    D.STORE.execute(device, "INSERT INTO folders (title, id, created_time, updated_time) VALUES ('F', 'f1', 1, 1)")
    D.STORE.execute(device, "INSERT INTO notes (parent_id, title, body, created_time, updated_time, id) "
                            "VALUES ('f1', 'N', 'b', 1, 1, 'n1')")
    row = notes(device)[0]
    assert (row["deleted_time"], row["markup_language"], row["is_todo"]) == (0, 1, 0)


# ---------------------------------------------------------------------------------------------- notebooks
def test_create_a_notebook_from_the_empty_list(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    press(device, "create_notebook")
    assert shows(device, "save_changes_button") and exists(device, text="Edit notebook")
    field = sel(device, "folder_title_field")
    assert field.hint == T.text("folder_title_hint") and device.state.ui.focused_id is not None
    press(device, "save_changes_button")  # disabled while the title is empty
    assert D.folders(device) == [] and shows(device, "save_changes_button")
    device.wm.input_text("Recipes")
    press(device, "save_changes_button")
    assert [f["title"] for f in D.folders(device)] == ["Recipes"]
    assert exists(device, text="Recipes") and shows(device, "no_notes") and shows(device, "fab_add")
    assert D.setting(device, "activeFolderId") == D.folders(device)[0]["id"]


def test_side_menu_lists_the_notebooks_and_switches_between_them(device: VirtualDevice) -> None:
    a = D.create_folder(device, "Work")
    D.STORE.execute(device, "UPDATE folders SET created_time = created_time - 1000 WHERE id = ?", (a,))  # older
    D.save_new_note(device, a, title="Budget")
    b = D.create_folder(device, "Home")
    D.save_new_note(device, b, title="Groceries")
    device.start_activity(PKG)  # the most recently created notebook (Folder.defaultFolder)
    assert exists(device, text="Home") and shows(device, "note_row_title", title="Groceries")
    assert not exists(device, text="Budget")
    press(device, "sidebar_button")
    for entry in ("side_all_notes", "side_notebooks", "side_new_notebook", "side_tags", "side_configuration",
                  "side_synchronise"):
        assert exists(device, text=T.text(entry)), entry
    press(device, "side_folder", title="Work")
    assert shows(device, "note_row_title", title="Budget") and not exists(device, text="Groceries")
    press(device, "sidebar_button")
    press(device, "side_all_notes")
    assert shows(device, "note_row_title", title="Budget") and shows(device, "note_row_title", title="Groceries")
    device.force_stop(PKG)
    device.start_activity(PKG)  # activeFolderId: the last notebook opened
    assert shows(device, "note_row_title", title="Budget") and not exists(device, text="Groceries")


# ---------------------------------------------------------------------------------------------- notes
def test_new_note_is_a_row_at_once_and_each_change_is_written(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    make_notebook(device, "Recipes")
    press(device, "fab_add")
    assert shows(device, "fab_new_note") and shows(device, "fab_new_todo")
    press(device, "fab_new_note")
    assert exists(device, resource_id="note-editor-root") and shows(device, "back_button")
    assert shows(device, "actions_menu") and not shows(device, "fab_edit")
    rows = notes(device)
    assert len(rows) == 1 and rows[0]["title"] == "" and rows[0]["body"] == ""
    assert (rows[0]["source"], rows[0]["source_application"]) == ("joplin", "net.cozic.joplin-mobile")
    assert rows[0]["parent_id"] == D.folders(device)[0]["id"] and len(rows[0]["id"]) == 32
    title = edit_texts(device)[0]
    assert title.hint == "Add title" and title.text == ""
    device.wm.tap(*title.center)
    device.wm.input_text("Pancakes")
    assert notes(device)[0]["title"] == "Pancakes"
    device.wm.tap(*body_field(device).center)
    device.wm.input_text("Two eggs")
    assert notes(device)[0]["body"] == "Two eggs" and notes(device)[0]["title"] == "Pancakes"
    assert D.STORE.rows(device, "SELECT title, body FROM notes_normalized") == [{"title": "pancakes",
                                                                                 "body": "Two eggs"}]
    press(device, "back_button")  # a new note: back to the list
    assert shows(device, "note_row_title", title="Pancakes") and shows(device, "sidebar_button")


def test_a_new_note_without_a_title_takes_its_body_first_line(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    make_notebook(device, "Lists")
    new_note(device, body="## Shopping list")
    assert notes(device)[0]["title"] == "Shopping list"
    press(device, "back_button")
    assert shows(device, "note_row_title", title="Shopping list")
    new_note(device)
    press(device, "back_button")  # left empty: the row stays, listed as "Untitled"
    assert shows(device, "untitled")


def test_existing_note_opens_in_view_mode_with_chromium_nodes(device: VirtualDevice) -> None:
    seeded(device, "# Pancakes\n\nFlour and milk\nTwo eggs\n\nWhisk until smooth.")
    device.start_activity(PKG)
    open_row(device, "Pancakes")
    host = sel(device, "body_viewer")
    assert host.resource_id == "" and host.children[0].cls == "android.webkit.WebView"
    texts = [v.text for v in host.walk() if v.cls == T.cls("view_paragraph") and v.text]
    # markdown-it with breaks: a single newline stays a line break inside the paragraph
    assert texts == ["Pancakes", "Flour and milk\nTwo eggs", "Whisk until smooth."]
    assert edit_texts(device)[0].text == "Pancakes"
    assert shows(device, "fab_edit") and not exists(device, resource_id=T.rid("editor_root"))
    press(device, "fab_edit")
    assert body_field(device).text == "# Pancakes\n\nFlour and milk\nTwo eggs\n\nWhisk until smooth."
    device.wm.key(BACK)  # edit mode of a saved note: back to view mode
    assert shows(device, "fab_edit") and shows(device, "back_button")
    press(device, "back_button")
    assert shows(device, "sidebar_button")


def test_an_empty_body_shows_no_webview(device: VirtualDevice) -> None:
    seeded(device, "")
    device.start_activity(PKG)
    open_row(device, "Pancakes")
    assert not shows(device, "body_viewer") and shows(device, "fab_edit")


def test_copy_a_word_of_the_body_and_paste_it_into_the_title(device: VirtualDevice) -> None:
    seeded(device)
    device.start_activity(PKG)
    open_row(device, "Pancakes")
    press_first_word(device, "Whisk until smooth.")
    items = [v.text for v in device.wm.windows()[0].walk() if v.resource_id ==
             "android:id/floating_toolbar_menu_item_text"]
    assert items == [T.text("text_copy"), T.text("text_select_all")]
    tap(device, content_desc=T.text("text_copy"))
    clip = device.get_clip()
    assert (clip.text, clip.mime_type) == ("Whisk", "text/html")
    assert not exists(device, content_desc="Copy")
    title = edit_texts(device)[0]
    device.wm.long_press(*title.center)
    tap(device, text=T.text("text_paste"))
    # the long press selects the title's word, which Paste replaces (or the caret takes it)
    assert notes(device)[0]["title"] in ("Whisk", "PancakesWhisk", "WhiskPancakes")


def test_paste_into_the_body_editor(device: VirtualDevice) -> None:
    note_id = seeded(device, "Mix well.")
    device.start_activity(PKG)
    device.set_clip("PAYLOAD-7", label="x")
    open_row(device, "Pancakes")
    press(device, "fab_edit")
    device.wm.long_press(*body_field(device).center)
    tap(device, text=T.text("text_paste"))
    assert "PAYLOAD-7" in D.note(device, note_id)["body"]
    assert D.note(device, note_id)["body"].replace("PAYLOAD-7", "") == "Mix well."


def test_delete_moves_the_note_to_the_trash(device: VirtualDevice) -> None:
    note_id = seeded(device)
    device.start_activity(PKG)
    open_row(device, "Pancakes")
    press(device, "actions_menu")
    for entry in ("menu_attach", "menu_draw_picture", "menu_share", "menu_tags", "menu_convert_to_todo",
                  "menu_copy_markdown_link", "menu_properties", "menu_delete"):
        assert shows(device, entry), entry
    press(device, "menu_delete")  # no confirmation
    row = D.note(device, note_id)
    assert row is not None and row["deleted_time"] > 0  # the row stays, in the trash
    assert shows(device, "sidebar_button") and not shows(device, "note_row_title", title="Pancakes")
    assert D.notes(device, None) == []


def test_copy_markdown_link_puts_a_link_on_the_clipboard(device: VirtualDevice) -> None:
    note_id = seeded(device)
    device.start_activity(PKG)
    open_row(device, "Pancakes")
    press(device, "actions_menu")
    assert T.entry("menu_copy_markdown_link").clipboard == "copy" and T.entry("menu_share").clipboard == "none"
    press(device, "menu_copy_markdown_link")
    assert device.get_clip().text == f"[Pancakes](:/{note_id})"
    assert D.note(device, note_id)["deleted_time"] == 0


def test_viewer_keeps_a_single_newline_as_a_break() -> None:
    assert [b.text for b in viewer.blocks("a\nb\n\n# H\n- x\n- y")] == ["a\nb", "H", "x", "y"]
    assert T.cls("body_viewer") == webview.WEBVIEW  # the table's class is the one the kit's page reports
    assert D.title_from_body("  # [Link](http://x) rest\nmore") == "Link rest"


# ---------------------------------------------------------------------------------------------- fixtures
@pytest.mark.parametrize("screen", ["notebook", "note_view", "editor_new"])
def test_screens_match_their_structure_fixtures(device: VirtualDevice, screen: str) -> None:
    folder = D.create_folder(device, "Capture")
    D.save_new_note(device, folder, title="Capture check", body="Kestrel flies high")
    device.start_activity(PKG)
    if screen == "note_view":
        open_row(device, "Capture check")
    elif screen == "editor_new":
        press(device, "fab_add")
        press(device, "fab_new_note")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / f"{screen}.yaml") == []


# ---------------------------------------------------------------------------------------------- hardware
def test_hardware_first_start_builds_the_welcome_notebook(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps and not dev.installed(PKG)
    install_standin(dev, PKG)
    assert not D.STORE.exists(dev) and not dev.permission_granted(PKG, FINE)
    dev.start_activity(PKG)
    assert dev.current_focus() == (PKG, MAIN)  # nothing before the list
    assert [f["title"] for f in D.folders(dev)] == ["Welcome!"]
    titles = [n["title"] for n in D.notes(dev, None)]
    assert titles == list(D.WELCOME_NOTES)  # saved last to first: "1. ..." is the most recent
    assert D.setting(dev, "firstStart") == "0" and D.setting(dev, "welcome.wasBuilt") == "1"
    assert exists(dev, text=T.text("welcome_folder")) and shows(dev, "fab_add")
    press(dev, "note_row_title", title="1. Welcome to Joplin!")  # opening a note asks for the location
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_button")
    assert dev.current_focus() == (PKG, MAIN) and shows(dev, "back_button")
    assert dev.permission_granted(PKG, FINE)


def test_pm_clear_removes_the_database_and_the_next_start_is_a_first_start(device: VirtualDevice) -> None:
    seeded(device)
    device.start_activity(PKG)
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device) and device.current_focus()[0] != PKG
    device.start_activity(PKG)
    assert [f["title"] for f in D.folders(device)] == ["Welcome!"]
    assert len(D.notes(device, None)) == 5 and shows(device, "note_row_title", title="1. Welcome to Joplin!")


# ---------------------------------------------------------------------------------------------- gallery
def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["no notebooks", "notebook", "side menu", "action button open", "note view", "word selected",
                     "actions menu", "note editor"]
