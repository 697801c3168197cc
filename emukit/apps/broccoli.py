"""Broccoli 1.2.6 (``com.flauschcode.broccoli``, versionCode 1020600, the build android_world installs): open it
from All Apps, create, open, edit and delete recipes, copy and paste text between the editor's fields; its recipes
read as android_world reads them; the ``recipes:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/com.flauschcode.broccoli/1020600.yaml``; repo ``broccoli``
flauschtrud/broccoli f8ef1d64 at tag v1.2.6).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "Broccoli"; a fresh install opens on the recipe list ("Recipes") with nothing to dismiss,
  and that first launch creates ``databases/broccoli``;
* the FAB ``fab_recipes`` ("New Recipe") opens the editor; its SAVE button (``button_save_recipe``) writes the row
  and finishes, and for a new recipe the list then opens the recipe's details;
* a recipe is opened from its card on the list (``card_text_view_title``); its details' overflow ("More
  options") holds Share, Share as file, Edit and Delete; Delete asks "Delete this recipe?" (DELETE / CANCEL);
* text is copied from an editor field with the framework's floating toolbar (long press, "Select all", "Copy")
  and pasted with a long press on the target field, "Paste". The details screen has no selectable text, and its
  "Share" sends an intent (it is no clipboard action).

The recipes probe (:func:`read_recipes`) pulls the whole ``databases`` folder (``-wal`` included) and runs
``SELECT * FROM recipes`` on the copy, as android_world's ``sqlite_utils.get_rows_from_remote_device`` does
(android_world d9c569f7 task_evals/utils/sqlite_utils.py:53-103; task_evals/single/recipe.py:28-31).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from emukit.apps.base import AppProfile, DoctorCheck, operation, register_app
from emukit.apps.dataspec import AppDatabase, DbReading, RowsSeed
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.flauschcode.broccoli"
RECIPES_DB = AppDatabase(PACKAGE, "broccoli")
KEYCODE_ENTER, KEYCODE_DEL, KEYCODE_MOVE_END = 66, 67, 123  # android.view.KeyEvent
#: the editor's text fields (table entries) and the recipes columns they edit
FIELDS = {"title_field": "title", "description_field": "description", "source_field": "source",
          "servings_field": "servings", "time_field": "preparationTime", "ingredients_field": "ingredients",
          "directions_field": "directions"}
#: the columns of ``recipes`` as BroccoliDatabase version 1 creates them (schemas/.../1.json:9)
COLUMNS = ["recipeId", "title", "imageName", "description", "servings", "preparationTime", "source", "ingredients",
           "directions", "favorite"]


class RecipeSpec(BaseModel):
    """A recipe of a base snapshot, written as android_world writes its recipes (sqlite_schema_utils.Recipe,
    android_world sqlite_schema_utils.py:197-214: every text column "" by default, favorite 0, no image; the
    key recipeId left to the database)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    description: str = ""
    servings: str = ""
    preparationTime: str = ""  # the column's name
    source: str = ""
    ingredients: str = ""
    directions: str = ""
    favorite: bool = False


class RecipeSeed(RowsSeed):
    """``recipes:`` in a base snapshot spec: rows of ``recipes`` in ``databases/broccoli`` (the app's first launch
    creates the database; the FTS index follows the rows through the schema's triggers)."""

    key = "recipes"
    item = RecipeSpec
    database = RECIPES_DB
    table = "recipes"
    profile = "broccoli"

    @classmethod
    def row(cls, item: Any) -> dict[str, Any]:
        return {"title": item.title, "description": item.description, "servings": item.servings,
                "preparationTime": item.preparationTime, "source": item.source, "ingredients": item.ingredients,
                "directions": item.directions, "favorite": int(item.favorite), "imageName": ""}


def read_recipes(driver: Driver) -> DbReading:
    """Every row of ``recipes`` (an explicit empty reading with its ``reason`` when the app has not created its
    database: installed or cleared and not opened since)."""
    return RECIPES_DB.read(driver, "SELECT * FROM recipes ORDER BY recipeId")


@register_app
class BroccoliProfile(AppProfile):
    package = PACKAGE
    name = "broccoli"
    database = RECIPES_DB
    activity = f"{PACKAGE}.MainActivity"
    seed = RecipeSeed
    main_screens = ("list",)
    fixture_screens = ("recipes", "editor_new", "details", "delete_confirm")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``list`` (the New Recipe FAB shows), ``details``, ``editor`` or None while none is in front."""
        if self.driver.exists(**self.sel("fab_new_recipe")):
            return "list"
        if self.driver.exists(**self.sel("save")):
            return "editor"
        if self.driver.exists(**self.sel("details_title")):
            return "details"
        return None

    @operation
    def complete_first_run(self) -> None:
        """A fresh install opens on the recipe list with nothing to dismiss (MainActivity.java:20-50, no
        intro, no permission); launching it once creates its database (the list's first query)."""
        self.launch(fresh=True)
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "Broccoli's recipe list")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Broccoli")

    def _to_list(self) -> None:
        """BACK until the recipe list shows (from details, or an editor without changes)."""
        for _ in range(4):
            if self.first_run_screen() == "list":
                return
            self.driver.back()
            self.driver.wait_stable()
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "the recipe list")

    # ------------------------------------------------------------------ recipes
    def _editor_open(self) -> bool:
        return self.driver.exists(**self.sel("save"))

    @operation
    def new_recipe(self) -> None:
        """The list's FAB: the editor of a new recipe."""
        self._to_list()
        self.driver.tap(**self.sel("fab_new_recipe"))
        self.driver.wait_until(self._editor_open, "the recipe editor")

    @operation
    def fill(self, **values: str) -> None:
        """Type into the editor's fields, named by column (title, description, source, servings,
        preparationTime, ingredients, directions); each is cleared first; a newline is typed as ENTER."""
        by_column = {c: e for e, c in FIELDS.items()}
        for column, value in values.items():
            entry = by_column.get(column)
            if entry is None:
                raise DeviceError(f"{self.driver.serial}: the recipe editor has no field for {column!r}")
            field = self._tap_field(entry)
            if field.text and field.text != self._hint(entry):
                self.driver.key(KEYCODE_MOVE_END)
                for _ in range(len(field.text)):
                    self.driver.key(KEYCODE_DEL)
            for i, line in enumerate(value.split("\n")):
                if i:
                    self.driver.key(KEYCODE_ENTER)
                if line:
                    self.driver.type_text(line)

    def _hint(self, entry: str) -> str:
        return {"title_field": "Title", "description_field": "Description", "source_field": "Source",
                "servings_field": "Servings", "time_field": "Time", "ingredients_field": "Ingredients",
                "directions_field": "Directions"}[entry]

    @operation
    def save(self) -> None:
        """SAVE; the editor finishes (a new recipe's details open next)."""
        self.driver.tap(**self.sel("save"))
        self.driver.wait_until(lambda: not self._editor_open(), "the editor to close after SAVE")

    @operation
    def create_recipe(self, title: str, **values: str) -> None:
        """New recipe with a title and any other fields; SAVE; back to the list."""
        self.new_recipe()
        self.fill(title=title, **values)
        self.save()
        self._to_list()

    @operation
    def open_recipe(self, title: str) -> None:
        """From the list, tap the card whose title is ``title`` (swiping the list until it shows)."""
        self._to_list()
        self.scroll_into_view("recipe_list", lambda: self.driver.find(**self.sel("recipe_card_title"), text=title),
                              12)
        self.driver.tap(**self.sel("recipe_card_title"), text=title)
        self.driver.wait_until(lambda: self.first_run_screen() == "details", f"the recipe {title!r}")

    @operation
    def edit_recipe(self, title: str, /, **values: str) -> None:
        """Open ``title``, overflow, Edit, change the fields, SAVE, back to the list."""
        self.open_recipe(title)
        self._overflow("edit")
        self.driver.wait_until(self._editor_open, "the recipe editor")
        self.fill(**values)
        self.save()
        self._to_list()

    @operation
    def open_editor_of(self, title: str) -> None:
        """Open ``title`` and its editor (overflow, Edit)."""
        self.open_recipe(title)
        self._overflow("edit")
        self.driver.wait_until(self._editor_open, "the recipe editor")

    @operation
    def delete_recipe(self, title: str) -> None:
        """Open ``title``, overflow, Delete, DELETE."""
        self.open_recipe(title)
        self._overflow("delete")
        self.driver.element(**self.sel("delete_message"))
        self.driver.tap(**self.sel("delete_confirm"))
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "the list after Delete")

    def _overflow(self, item: str) -> None:
        """The details' overflow ("More options"), then its ``edit`` or ``delete`` row."""
        self.driver.tap(**self.sel("more_options"))
        if item == "edit":
            self.driver.tap(**self.sel("menu_edit"))
        elif item == "delete":
            self.driver.tap(**self.sel("menu_delete"))
        else:
            raise DeviceError(f"{self.driver.serial}: no overflow item {item!r} is driven")

    @operation
    def copy_field(self, entry: str) -> None:
        """Select all of an editor field's text and copy it (framework floating toolbar): the keyboard is put away
        first when it shows (BACK; on a small screen it covers the form's fields), then the field is scrolled
        into view and long-pressed directly (a tap first would raise the keyboard again)."""
        if self.keyboard_shown():
            self.driver.back()
            self.driver.wait_until(lambda: not self.keyboard_shown(), "the keyboard to hide")
        find = self._finder(entry)
        self.scroll_into_view("editor_scroll", find, 8)
        self.select_all_and_copy(self.driver.wait_until(find, f"the editor's {entry}"))

    @operation
    def paste_into(self, entry: str) -> None:
        """Long-press an editor field and Paste the clipboard at the caret."""
        field = self._tap_field(entry)
        self.paste_at(field)

    @operation
    def paste_menu(self) -> None:
        """A new recipe's editor with the title field long-pressed: the text toolbar's "Paste" shows (the query
        context of a paste; from details or an editor without changes, back to the list first)."""
        self.new_recipe()
        find = self._finder("title_field")  # long-pressed directly: the press focuses it and offers Paste
        self.show_paste_menu(self.driver.wait_until(find, "the editor's title field"))

    def _tap_field(self, entry: str) -> Any:
        """Scroll the editor's form to one of its text fields (FIELDS) and tap it; its element."""
        find = self._finder(entry)
        self.scroll_into_view("editor_scroll", find, 8)
        field = self.driver.wait_until(find, f"the editor's {entry}")
        self.driver.tap(*field.center)
        return field

    def _finder(self, entry: str) -> Any:
        """A function finding one of the editor's text fields (FIELDS) on screen (None when it is not)."""
        if entry == "title_field":
            return lambda: self.driver.find(**self.sel("title_field"))
        if entry == "description_field":
            return lambda: self.driver.find(**self.sel("description_field"))
        if entry == "source_field":
            return lambda: self.driver.find(**self.sel("source_field"))
        if entry == "servings_field":
            return lambda: self.driver.find(**self.sel("servings_field"))
        if entry == "time_field":
            return lambda: self.driver.find(**self.sel("time_field"))
        if entry == "ingredients_field":
            return lambda: self.driver.find(**self.sel("ingredients_field"))
        if entry == "directions_field":
            return lambda: self.driver.find(**self.sel("directions_field"))
        raise DeviceError(f"{self.driver.serial}: {entry!r} is not a text field of the recipe editor")

    def recipes(self) -> DbReading:
        return read_recipes(self.driver)

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``broccoli database``: databases/broccoli has the recipes columns android_world's Recipe reads, or does
        not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read Broccoli's database", "fix the root row first"
            reading = RECIPES_DB.read(self.driver, "PRAGMA table_info(recipes)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return columns == COLUMNS, f"recipes has {len(columns)} columns", fix

        return [("broccoli database", row)]

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The structure fixtures' screens (``tests/fixtures/real/hierarchy/broccoli/<name>.yaml``) and how to
        bring each up from anywhere on a device past its first run, for a capture walk (each ends with BACK)."""
        def recipes() -> None:
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            self.complete_first_run()
            self.create_recipe("Capture check", description="From the capture walk", servings="2",
                               ingredients="1 cup rice", directions="Cook the rice")

        def editor_new() -> None:
            recipes()
            self.new_recipe()

        def details() -> None:
            recipes()
            self.open_recipe("Capture check")

        def delete_confirm() -> None:
            details()
            self._overflow("delete")
            self.driver.element(**self.sel("delete_message"))

        return {"recipes": recipes, "editor_new": editor_new, "details": details, "delete_confirm": delete_confirm}
