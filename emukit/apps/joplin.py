"""Joplin 3.0.1 (``net.cozic.joplin``, versionCode 2097740, the build android_world installs): notebooks and notes,
copy a word from a note's rendered body and paste it into a title or a body, delete; its notes and notebooks read
as android_world reads them; the ``joplin:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/net.cozic.joplin/2097740.yaml``; repo ``joplin`` laurent22/joplin
0715340d at tag android-v3.0.1). Joplin is React Native: its views have no resource ids, so the table selects by
content-desc (the components' ``accessibilityLabel``: "Sidebar", "Back", "Add new", "New note", "Edit",
"Actions"), text and class; the one testID of the screens used ("note-editor-root") is a resource id as it is.

What the operations rely on (the table cites each line):

* android_world's setup leaves no notebook (apps.py:716-743), and a note needs one: the list then shows "You
  currently have no notebooks." with "CREATE A NOTEBOOK", and the action button ("Add new") only appears once a
  notebook exists (Notes.tsx:240-241, NoteList.tsx:94-101); a notebook is made on the notebook screen (title
  field, "Save changes"), reached from that button or the side menu's "New Notebook";
* "Add new" opens "New to-do" / "New note"; a new note opens in edit mode, every change is saved at once (the
  app's save queue), and Back (header button or key) leaves it;
* an existing note opens in view mode: its body is a WebView whose paragraphs are Chromium TextView nodes; a long
  press on a word selects it and the floating toolbar's Copy copies it; "Edit" switches to the editor, whose body
  is an EditText (CodeMirror's content) inside the WebView inside ``note-editor-root``;
* paste is the framework toolbar's Paste after a long press on the title or the body field;
* Delete (Actions menu) moves the note to the trash at once (``deleted_time`` set; the row stays).

The probes (:func:`read_notes`, :func:`read_folders`) pull the whole ``databases`` folder and query
``joplin.sqlite`` on the copy, as android_world's ``sqlite_utils`` does (joplin_app_utils.py:32, 83-100).
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from emukit.actions import Element
from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.apps.dataspec import AppDatabase, DbReading, sql_literal
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "net.cozic.joplin"
DB = AppDatabase(PACKAGE, "joplin.sqlite")
SCHEMA_VERSION = 46  # JoplinDatabase.ts:359-361 (41 numbered steps) + services/database/migrations 42-46
NOTE_COLUMNS = 30  # android_world's JoplinNote (29 fields, sqlite_schema_utils.py:383-416) + deleted_time (46.ts)
PRESS_IN_DP = 8  # how far into a paragraph's first word the long press lands
FIRST_LINE_DP = 9  # the middle of a paragraph's first line


class NoteSpec(BaseModel):
    """A note of a base snapshot, written as android_world writes its notes (JoplinNote / JoplinFolder defaults,
    sqlite_schema_utils.py:383-435: times yesterday, markup_language 1, a notes_normalized twin with the title
    lower-cased, joplin_app_utils.py:154-197)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    body: str = ""
    folder: str = "Notes"
    is_todo: bool = False
    todo_completed: bool = False


def _hex_id(*parts: str) -> str:
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:32]


class JoplinSeed(SeedSection):
    """``joplin:`` in a base snapshot spec: notebooks (by title) and notes, written with the app stopped after
    android_world's ``clear_dbs`` (every folder, note and notes_normalized row deleted first)."""

    key = "joplin"
    item = NoteSpec
    create_timeout_s = 60.0

    @classmethod
    def sql(cls, items: list[NoteSpec], now_ms: int) -> str:
        """The statements: clear_dbs, then each notebook once, then each note and its normalized twin."""
        yesterday = now_ms - 86_400_000
        out = ["BEGIN;", "DELETE FROM folders;", "DELETE FROM notes;", "DELETE FROM notes_normalized;"]
        folder_ids: dict[str, str] = {}
        for item in items:
            if item.folder not in folder_ids:
                folder_ids[item.folder] = _hex_id("folder", item.folder)
                out.append("INSERT INTO folders (id, title, created_time, updated_time, user_created_time, "
                           f"user_updated_time) VALUES ({sql_literal(folder_ids[item.folder])}, "
                           f"{sql_literal(item.folder)}, {yesterday}, {yesterday}, {yesterday}, {yesterday});")
        for i, item in enumerate(items):
            note_id = _hex_id("note", str(i), item.folder, item.title)
            parent = sql_literal(folder_ids[item.folder])
            flags = f"{int(item.is_todo)}, {int(item.todo_completed)}"
            out.append("INSERT INTO notes (id, parent_id, title, body, created_time, updated_time, is_todo, "
                       "todo_completed, user_created_time, user_updated_time, markup_language) VALUES "
                       f"({sql_literal(note_id)}, {parent}, {sql_literal(item.title)}, {sql_literal(item.body)}, "
                       f"{yesterday}, {yesterday}, {flags}, {yesterday}, {yesterday}, 1);")
            out.append("INSERT INTO notes_normalized (id, parent_id, title, body, is_todo, todo_completed, "
                       f"user_created_time, user_updated_time) VALUES ({sql_literal(note_id)}, {parent}, "
                       f"{sql_literal(item.title.lower())}, {sql_literal(item.body)}, {flags}, {yesterday}, "
                       f"{yesterday});")
        out.append("COMMIT;")
        return " ".join(out)

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        import time

        from emukit.apps.registry import profile_for

        if not DB.exists(driver):  # the first start creates and migrates the database
            profile_for(driver, "joplin").complete_first_run()
            deadline = time.monotonic() + cls.create_timeout_s
            while not DB.exists(driver):
                if time.monotonic() > deadline:
                    raise DeviceError(f"{driver.serial}: {DB.path} did not appear after Joplin's first start")
                time.sleep(0.2)
            driver.home()
        driver.shell(f"am force-stop {PACKAGE}", check=True)
        now_ms = int(driver.shell("date +%s", check=True).text.strip()) * 1000
        driver.shell(f"sqlite3 {shlex.quote(DB.path)} {shlex.quote(cls.sql(items, now_ms))}", check=True)


def read_notes(driver: Driver) -> DbReading:
    """Every row of ``notes`` (trashed ones too: their ``deleted_time`` is set), oldest first; an explicit empty
    reading with its ``reason`` when the app has not created its database (installed or cleared, not opened)."""
    return DB.read(driver, "SELECT * FROM notes ORDER BY created_time, id")


def read_folders(driver: Driver) -> DbReading:
    """Every row of ``folders`` (what android_world's _get_folder_to_id reads), oldest first."""
    return DB.read(driver, "SELECT * FROM folders ORDER BY created_time, id")


@register_app
class JoplinProfile(AppProfile):
    package = PACKAGE
    name = "joplin"
    database = DB
    activity = f"{PACKAGE}.MainActivity"
    seed = JoplinSeed
    main_screens = ("notes",)
    fixture_screens = ("notebook", "note_view", "editor_new")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``notes`` (the list, with the Sidebar button), ``note``, ``folder`` (the notebook screen), or None."""
        if self.driver.exists(**self.sel("sidebar_button")):
            return "notes"
        if self.driver.exists(**self.sel("save_changes_button")):
            return "folder"
        if self.driver.exists(**self.sel("back_button")):
            return "note"
        return None

    @operation
    def complete_first_run(self) -> None:
        """Leave Joplin as android_world's setup does (apps.py:716-743): a first start shows nothing before the list
        (root.tsx:472-801) but builds the database and the welcome notebook, which takes a while on a real device;
        then, with the app stopped, every folder, note and notes_normalized row is deleted (clear_dbs,
        joplin_app_utils.py:69-80), so the next start opens on "You currently have no notebooks." A later start
        builds no welcome notebook again (``welcome.wasBuilt`` stays set)."""
        self.launch(fresh=True)
        self.driver.wait_until(lambda: self.first_run_screen() == "notes", "Joplin's note list", timeout=60)
        self.driver.shell(f"am force-stop {PACKAGE}", check=True)
        clear = "DELETE FROM folders; DELETE FROM notes; DELETE FROM notes_normalized;"
        self.driver.shell(f"sqlite3 {shlex.quote(DB.path)} {shlex.quote(clear)}", check=True)

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Joplin", timeout=60)

    def _on_list(self) -> None:
        self.driver.wait_until(lambda: self.first_run_screen() == "notes", "Joplin's note list")

    # ------------------------------------------------------------------ notebooks
    @operation
    def create_notebook(self, title: str) -> None:
        """"CREATE A NOTEBOOK" on the empty list, else the side menu's "New Notebook"; type the title, "Save
        changes"; the new notebook's list opens."""
        if self.driver.exists(**self.sel("create_notebook")):
            self.driver.tap(**self.sel("create_notebook"))
        else:
            self.driver.tap(**self.sel("sidebar_button"))
            self.driver.tap(**self.sel("side_new_notebook"))
        self.driver.tap(**self.sel("folder_title_field"))
        self.driver.type_text(title)
        self.driver.tap(**self.sel("save_changes_button"))
        self._on_list()

    @operation
    def open_notebook(self, title: str) -> None:
        """The side menu, then the notebook's row (nothing to do when the list already shows that notebook)."""
        if self.driver.exists(**self.sel("header_title"), text=title) and self.first_run_screen() == "notes":
            return
        self.driver.tap(**self.sel("sidebar_button"))
        self.driver.tap(**self.sel("side_folder", title=title))
        self._on_list()

    @operation
    def show_all_notes(self) -> None:
        """The side menu's "All notes" (nothing to do when the list already is All notes: its header says so)."""
        if self.driver.exists(**self.sel("header_title"), text=self.table.text("side_all_notes")):
            return
        self.driver.tap(**self.sel("sidebar_button"))
        self.driver.tap(**self.sel("side_all_notes"))
        self._on_list()

    def _answer_location(self) -> None:
        """Opening a note asks for the location while it is not granted (a cleared or fresh install): Allow."""
        self.driver.wait_stable()
        if self.driver.exists(**self.sel("permissions:allow_button")):
            self.driver.tap(**self.sel("permissions:allow_button"))
            self.driver.wait_until(lambda: self.first_run_screen() is not None, "Joplin after the location prompt")

    # ------------------------------------------------------------------ notes
    def _editing(self) -> bool:
        return self.driver.exists(**self.sel("editor_root"))

    @operation
    def new_note(self) -> None:
        """"Add new", then "New note": the editor of an empty note (already a row)."""
        self.driver.tap(**self.sel("fab_add"))
        self.driver.tap(**self.sel("fab_new_note"))
        self._answer_location()
        self.driver.wait_until(self._editing, "the note editor")

    def _field(self, entry: str) -> Element:
        """The title field or the body field: EditTexts without ids, selected by structure (the table's
        ``title_field`` is the first EditText of the note screen, ``body_editor`` the EditText inside
        ``note-editor-root``)."""
        if entry == "body_editor":
            return self.driver.element(**self.sel("body_editor"))
        return self.driver.element(**self.sel("title_field"))

    @operation
    def paste_menu(self) -> None:
        """A new note's editor with the title field long-pressed: the text toolbar's "Paste" shows (the query
        context of a paste; from a note, back to the list first)."""
        if self.first_run_screen() != "notes":
            self.back_to_list()
        self.new_note()
        field = self._field("title_field")
        self.driver.tap(*field.center)
        self.show_paste_menu(self._field("title_field"))

    @operation
    def fill(self, *, title: str | None = None, body: str | None = None) -> None:
        """Type into the title and (in edit mode) the body; each field is tapped first and typed at its end."""
        if title is not None:
            self.driver.tap(*self._field("title_field").center)
            self.driver.type_text(title)
        if body is not None:
            if not self._editing():
                self.edit()
            self.driver.tap(*self._field("body_editor").center)
            self.driver.type_text(body)

    @operation
    def edit(self) -> None:
        """View mode -> edit mode ("Edit")."""
        self.driver.tap(**self.sel("fab_edit"))
        self.driver.wait_until(self._editing, "the note editor")

    @operation
    def save(self) -> None:
        """Leave the editor with Back (the app has already saved every change; Back saves once more): a new note
        goes back to the list, an existing one to view mode."""
        self.driver.tap(**self.sel("back_button"))
        self.driver.wait_until(lambda: not self._editing(), "the editor to close")

    @operation
    def create_note(self, title: str, body: str = "", *, notebook: str | None = None) -> None:
        """(In ``notebook``) a new note with a title and a body; Back to the list."""
        if notebook is not None:
            self.open_notebook(notebook)
        self.new_note()
        self.fill(title=title, body=body or None)
        self.save()
        self._on_list()

    @operation
    def open_note(self, title: str) -> None:
        """All notes, then the note's row: the note in view mode."""
        if self.first_run_screen() == "note":
            self.back_to_list()
        self.show_all_notes()
        self.driver.tap(**self.sel("note_row_title", title=title))
        self._answer_location()
        self.driver.wait_until(lambda: self.first_run_screen() == "note", f"the note {title!r}")

    @operation
    def back_to_list(self) -> None:
        """Back until the note list shows."""
        for _ in range(3):
            if self.first_run_screen() == "notes":
                return
            self.driver.tap(**self.sel("back_button"))
            self.driver.wait_stable()
        self._on_list()

    @operation
    def delete_note(self, title: str) -> None:
        """Open ``title``, Actions, Delete (no confirmation: to the trash)."""
        self.open_note(title)
        self.driver.tap(**self.sel("actions_menu"))
        self.driver.tap(**self.sel("menu_delete"))
        self._on_list()

    # ------------------------------------------------------------------ copy and paste
    def _paragraph(self, word: str) -> Element:
        """The rendered body's paragraph node (a TextView inside the WebView, the table's ``view_paragraph``)
        whose text is ``word`` or starts with it and a space or a line break."""
        starts = f"(?s){re.escape(word)}(?:[ \n].*)?"
        found = self.driver.find(**self.sel("view_paragraph"), textMatches=starts)
        if found is None:
            raise DeviceError(f"{self.driver.serial}: no paragraph of the rendered body starts with {word!r}")
        return found

    @operation
    def copy_word(self, word: str) -> None:
        """In view mode, copy ``word``, the first word of a paragraph of the body: long-press it, Copy."""
        para = self._paragraph(word)
        left, top, _right, bottom = para.bounds
        self.driver.long_press(left + self.driver.dp(PRESS_IN_DP), top + min(self.driver.dp(FIRST_LINE_DP),
                                                                               (bottom - top) // 2))
        self.driver.tap(**self.sel("text_copy"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("text_copy")), "the selection to close")

    @operation
    def copy_markdown_link(self) -> None:
        """Actions, "Copy Markdown link" (the clipboard gets ``[title](:/id)``)."""
        self.driver.tap(**self.sel("actions_menu"))
        self.driver.tap(**self.sel("menu_copy_markdown_link"))

    @operation
    def paste_into(self, entry: str) -> None:
        """Long-press the title field (``title_field``) or the body (``body_editor``, switching to edit mode), then
        the text toolbar's Paste."""
        if entry not in ("title_field", "body_editor"):
            raise DeviceError(f"{self.driver.serial}: {entry!r} is not a Joplin text field")
        if entry == "body_editor" and not self._editing():
            self.edit()
        before = self._field(entry).text
        self.paste_at(self._field(entry))
        self.driver.wait_until(lambda: self._field(entry).text != before, f"the pasted text in {entry}")

    # ------------------------------------------------------------------ probes
    def notes(self) -> DbReading:
        return read_notes(self.driver)

    def folders(self) -> DbReading:
        return read_folders(self.driver)

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """A notebook "Capture" with the note "Capture check" (made when missing), that note in view mode, and a
        new note's editor."""
        def notebook() -> None:
            self.launch(fresh=True)
            self._on_list()
            titles = {r["title"] for r in read_folders(self.driver).rows}
            if "Capture" not in titles:
                self.create_notebook("Capture")
            else:
                self.open_notebook("Capture")
            if not any(r["title"] == "Capture check" and not r["deleted_time"] for r in read_notes(self.driver).rows):
                self.create_note("Capture check", "Kestrel flies high")

        def note_view() -> None:
            notebook()
            self.driver.tap(**self.sel("note_row_title", title="Capture check"))
            self._answer_location()
            self.driver.element(**self.sel("body_viewer"))

        def editor_new() -> None:
            notebook()
            self.new_note()

        return {"notebook": notebook, "note_view": note_view, "editor_new": editor_new}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``joplin database``: joplin.sqlite is at schema version 46 with the 30 columns of ``notes`` android_world
        writes (and ``deleted_time``), or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read Joplin's database", "fix the root row first"
            reading = DB.read(self.driver, "PRAGMA table_info(notes)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            version = DB.read(self.driver, "SELECT version FROM version").rows
            ok = (len(columns) == NOTE_COLUMNS and columns[:4] == ["id", "parent_id", "title", "body"]
                  and bool(version) and version[0]["version"] == SCHEMA_VERSION)
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return ok, f"notes has {len(columns)} columns, schema version {version[0]['version'] if version else '?'}", fix

        return [("joplin database", row)]

