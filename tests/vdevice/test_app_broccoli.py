"""The virtual Broccoli (com.flauschcode.broccoli, versionCode 1020600), driven in-process through the window
manager like a user would; ids and strings come from its pinned selector table, the database schema from the
Room schema the app exported at the tag."""

from __future__ import annotations

import sqlite3

import pytest

from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.provision.standin import write_standin
from emukit.vdevice.apps.broccoli import BroccoliApp
from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.ui import theme
from tests.hierarchy_match import FIXTURES
from tests.vdevice.views import exists, find, rendered_scenes, tap

T = table("com.flauschcode.broccoli")
PKG = T.package
MAIN = f"{PKG}.MainActivity"
DETAILS = f"{PKG}.recipe.details.RecipeDetailsActivity"
EDITOR = f"{PKG}.recipe.crud.CreateAndEditRecipeActivity"
BACK = 4


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def text_of(dev: VirtualDevice, entry: str) -> str:
    return find(dev, resource_id=T.rid(entry)).text


def rows(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM recipes ORDER BY recipeId")


def add(dev: VirtualDevice, title: str, **values: str) -> int:
    D.open_database(dev)
    return D.save_recipe(dev, {"title": title, **values}, None)


def reveal(dev: VirtualDevice, entry: str) -> None:
    """Swipe the editor's form up until ``entry`` is wholly on screen above the keyboard's top."""
    for _ in range(8):
        view = dev.wm.find_view(lambda v: v.resource_id == T.rid(entry))
        if view is not None and view.bounds[3] < theme.KEYBOARD_TOP:
            return
        form = find(dev, cls=T.cls("editor_scroll"))
        x, y0, _, y1 = form.bounds
        dev.wm.swipe(x + 200, y1 - 100, x + 200, y0 + (y1 - y0) // 3, 400)
    raise AssertionError(f"{entry} never came into view")


def type_into(dev: VirtualDevice, entry: str, text: str) -> None:
    reveal(dev, entry)
    tap(dev, resource_id=T.rid(entry))
    dev.wm.input_text(text)


def open_new(dev: VirtualDevice) -> None:
    tap(dev, resource_id=T.rid("fab_new_recipe"))
    assert dev.current_focus() == (PKG, EDITOR)


def open_details(dev: VirtualDevice, title: str) -> None:
    tap(dev, resource_id=T.rid("recipe_card_title"), text=title)
    assert dev.current_focus() == (PKG, DETAILS)


def overflow(dev: VirtualDevice, entry: str) -> None:
    tap(dev, content_desc="More options")
    tap(dev, text=T.text(entry))


# ---------------------------------------------------------------------------------------------- first start
def test_first_start_shows_the_empty_list_and_creates_the_database(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, BroccoliApp)
    assert (app.version_code, app.version_name) == (1020600, "1.2.6-emukit-virtual")
    assert app.label == T.text("launcher_icon") == "Broccoli"
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)  # no intro, no prompt
    assert D.SCHEMA.path == f"/data/data/{PKG}/databases/broccoli"
    assert D.STORE.exists(device) and rows(device) == []
    assert D.STORE.rows(device, "SELECT identity_hash FROM room_master_table") == [
        {"identity_hash": "1548e88f42d976a4b4915ca1cfa71e00"}]
    assert D.STORE.rows(device, "PRAGMA user_version") == [{"user_version": 1}]
    for entry in ("recipes_empty_text", "recipes_empty_create", "recipes_empty_import", "main_title", "category_all"):
        assert exists(device, text=T.text(entry)), entry
    assert find(device, resource_id=T.rid("fab_new_recipe")).content_desc == "New Recipe"
    assert find(device, resource_id=T.rid("category_spinner")).content_desc == "Categories"
    assert exists(device, resource_id=T.rid("recipes_empty"))
    assert not exists(device, resource_id=T.rid("recipe_list"))


def test_the_schema_is_the_one_room_exported_at_the_tag(device: VirtualDevice) -> None:
    """Every table's columns and the FTS triggers as the exported schema lists them
    (schemas/com.flauschcode.broccoli.BroccoliDatabase/1.json:9, 83, 109, 188-195)."""
    device.start_activity(PKG)
    with sqlite3.connect(device.fs.host(D.SCHEMA.path)) as db:
        cols = {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
                for t in ("recipes", "categories", "recipes_with_categories", "recipes_fts")}
        triggers = sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
    assert cols == {
        "recipes": ["recipeId", "title", "imageName", "description", "servings", "preparationTime", "source",
                    "ingredients", "directions", "favorite"],
        "categories": ["categoryId", "name"],
        "recipes_with_categories": ["recipeId", "categoryId"],
        "recipes_fts": ["title", "description", "source", "ingredients"]}
    assert triggers == sorted(f"room_fts_content_sync_recipes_fts_{w}" for w in
                              ("BEFORE_UPDATE", "BEFORE_DELETE", "AFTER_UPDATE", "AFTER_INSERT"))


# ---------------------------------------------------------------------------------------------- list
def test_list_orders_by_title_ignoring_case_and_shows_the_card_texts(device: VirtualDevice) -> None:
    add(device, "banana bread", description="Uses old bananas", source="grandma")
    add(device, "Apple pie")
    add(device, "Carrot cake")
    device.start_activity(PKG)
    titles = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("recipe_card_title")]
    assert titles == ["Apple pie", "banana bread", "Carrot cake"]
    assert exists(device, resource_id=T.rid("recipe_card_description"), text="Uses old bananas")
    assert exists(device, resource_id=T.rid("recipe_card_source"), text="grandma")
    assert find(device, resource_id=T.rid("recipe_list")).content_desc == "Recipes"
    assert not exists(device, resource_id=T.rid("recipes_empty"))


def test_search_is_a_prefix_match_and_back_collapses_it(device: VirtualDevice) -> None:
    add(device, "Tomato soup", ingredients="1 kg tomatoes")
    add(device, "Greek salad", ingredients="2 tomatoes\n1 cucumber")
    add(device, "Pancakes")
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("search_action"))
    assert not exists(device, resource_id=T.rid("category_spinner"))  # the expanded SearchView takes the toolbar
    device.wm.input_text("tomat")
    titles = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("recipe_card_title")]
    assert sorted(titles) == ["Greek salad", "Tomato soup"]
    device.wm.key(BACK)  # hides the keyboard or collapses the search
    if exists(device, resource_id=T.rid("search_field")):
        device.wm.key(BACK)
    assert exists(device, resource_id=T.rid("category_spinner"))
    assert len([v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("recipe_card_title")]) == 3
    assert device.current_focus() == (PKG, MAIN)


def test_drawer_lists_the_destinations_and_back_closes_it(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, content_desc=T.entry("open_drawer").description)
    assert exists(device, resource_id=T.rid("nav_view"))
    for entry in ("nav_recipes", "nav_categories", "nav_seasons", "nav_support", "nav_backup", "nav_settings",
                  "nav_about"):
        assert exists(device, text=T.text(entry)), entry
    device.wm.key(BACK)
    assert not exists(device, resource_id=T.rid("nav_view")) and device.current_focus() == (PKG, MAIN)


# ---------------------------------------------------------------------------------------------- editor
def test_new_recipe_save_writes_a_row_and_opens_its_details(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new(device)
    assert exists(device, text=T.text("editor_title"))
    assert find(device, resource_id=T.rid("save")).text == "SAVE"
    type_into(device, "title_field", "Pancakes")
    type_into(device, "servings_field", "4")
    type_into(device, "ingredients_field", "200 g flour")
    device.wm.key(66)  # ENTER in a textMultiLine field is a new line
    device.wm.input_text("2 eggs")
    tap(device, resource_id=T.rid("save"))
    assert device.state.ui.toast == T.text("toast_saved")
    [row] = rows(device)
    assert (row["title"], row["servings"], row["ingredients"], row["favorite"], row["imageName"]) == (
        "Pancakes", "4", "200 g flour\n2 eggs", 0, "")
    assert device.current_focus() == (PKG, DETAILS)  # RecipeFragment's result handler opens it
    assert text_of(device, "details_title") == "Pancakes"
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    assert exists(device, resource_id=T.rid("recipe_card_title"), text="Pancakes")


def test_empty_title_toasts_and_writes_nothing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new(device)
    type_into(device, "description_field", "no title")
    tap(device, resource_id=T.rid("save"))
    assert device.state.ui.toast == T.text("toast_title_empty") == "Please add a title."
    assert device.current_focus() == (PKG, EDITOR) and rows(device) == []


def test_back_after_typing_asks_to_discard(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new(device)
    type_into(device, "title_field", "Draft")
    device.wm.key(BACK)
    if not exists(device, text=T.text("discard_message")):  # the first BACK may only hide the keyboard
        device.wm.key(BACK)
    assert exists(device, resource_id="android:id/message", text="Discard changes?")
    tap(device, resource_id="android:id/button2", text="CANCEL")
    assert device.current_focus() == (PKG, EDITOR) and text_of(device, "title_field") == "Draft"
    device.wm.key(BACK)
    if not exists(device, text=T.text("discard_message")):
        device.wm.key(BACK)
    tap(device, resource_id="android:id/button1", text="DISCARD")
    assert device.current_focus() == (PKG, MAIN) and rows(device) == []


def test_the_first_key_into_an_empty_field_leaves_the_recipe_clean(device: VirtualDevice) -> None:
    """onTextChanged ignores start 0 / before 0 (CreateAndEditRecipeActivity.java:202-208): one character typed
    into an empty field does not make the recipe dirty, so BACK leaves without asking; a second one does."""
    device.start_activity(PKG)
    open_new(device)
    type_into(device, "title_field", "P")
    ctx = device.apps[PKG].ctx(device, device.top)
    assert ctx.state["dirty"] is False
    device.wm.input_text("a")
    assert ctx.state["dirty"] is True
    device.wm.key(BACK)
    if not exists(device, text=T.text("discard_message")):  # the first BACK may only hide the keyboard
        device.wm.key(BACK)
    assert exists(device, text=T.text("discard_message"))


def test_back_without_changes_leaves_at_once(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new(device)
    type_into(device, "title_field", "X")  # one key into an empty field: still clean
    device.wm.key(BACK)
    if device.current_focus() == (PKG, EDITOR):
        device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN) and rows(device) == []


def test_categories_field_opens_the_dialog_and_saves_the_link(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new(device)
    tap(device, resource_id=T.rid("categories_field"))
    assert exists(device, text=T.text("no_categories_message"))
    tap(device, text="OK")
    D.STORE.execute(device, "INSERT INTO categories (name) VALUES ('Dessert')")
    tap(device, resource_id=T.rid("categories_field"))
    tap(device, text="Dessert")
    tap(device, text="OK")
    assert text_of(device, "categories_field") == "Dessert"
    type_into(device, "title_field", "Pudding")
    tap(device, resource_id=T.rid("save"))
    assert D.STORE.rows(device, "SELECT recipeId, categoryId FROM recipes_with_categories") == [
        {"recipeId": 1, "categoryId": 1}]
    assert text_of(device, "details_categories") == "Dessert"


def test_copy_and_paste_between_editor_fields(device: VirtualDevice) -> None:
    add(device, "Soup", description="Hot and spicy")
    device.start_activity(PKG)
    open_details(device, "Soup")
    overflow(device, "menu_edit")
    assert device.current_focus() == (PKG, EDITOR)
    assert text_of(device, "description_field") == "Hot and spicy"
    field = find(device, resource_id=T.rid("description_field"))
    device.wm.tap(*field.center)
    device.wm.long_press(*field.center)
    tap(device, text=T.text("text_select_all"))
    tap(device, text=T.text("text_copy"))
    assert device.get_clip().text == "Hot and spicy"
    source = find(device, resource_id=T.rid("source_field"))
    device.wm.tap(*source.center)
    source = find(device, resource_id=T.rid("source_field"))  # the form scrolls it above the keyboard
    device.wm.long_press(*source.center)
    tap(device, text=T.text("text_paste"))
    assert text_of(device, "source_field") == "Hot and spicy"
    tap(device, resource_id=T.rid("save"))
    assert rows(device)[0]["source"] == "Hot and spicy"
    assert device.current_focus() == (PKG, DETAILS)  # an edit returns to the details, now updated
    assert text_of(device, "details_source") == "Hot and spicy"


# ---------------------------------------------------------------------------------------------- details
def test_details_show_the_recipe_as_the_layout_binds_it(device: VirtualDevice) -> None:
    add(device, "  Pancakes ", servings="4", preparationTime="20 min", description="Fluffy #sweet",
        ingredients="- 200 g flour\n\n2 eggs", directions="1. Whisk\n2. Fry")
    device.start_activity(PKG)
    open_details(device, "  Pancakes ")
    assert text_of(device, "details_title") == "Pancakes"  # trimmed
    assert text_of(device, "details_servings") == "4" and text_of(device, "details_preparation_time") == "20 min"
    assert not exists(device, resource_id=T.rid("details_source"))  # GONE when empty
    assert not exists(device, resource_id=T.rid("details_categories"))
    win = device.wm.windows()[0]
    quantities = [v.text for v in win.walk() if v.resource_id == T.rid("ingredient_quantity")]
    texts = [v.text for v in win.walk() if v.resource_id == T.rid("ingredient_text")]
    assert quantities == ["200", "2"] and texts == [" g flour", " eggs"]
    steps = [(p.text, t.text) for p, t in zip([v for v in win.walk() if v.resource_id == T.rid("direction_position")],
                                              [v for v in win.walk() if v.resource_id == T.rid("direction_text")])]
    assert steps == [("1", "Whisk"), ("2", "Fry")]
    assert find(device, resource_id=T.rid("fab_cook")).content_desc == "Cook"
    assert not any(v.editable for v in win.walk())  # nothing on the details is editable or selectable


def test_favorite_toggles_the_column_and_the_action(device: VirtualDevice) -> None:
    add(device, "Soup")
    device.start_activity(PKG)
    open_details(device, "Soup")
    tap(device, resource_id=T.rid("menu_like"))
    assert rows(device)[0]["favorite"] == 1
    assert find(device, resource_id=T.rid("menu_unlike")).content_desc == "Remove from favorites"
    tap(device, resource_id=T.rid("menu_unlike"))
    assert rows(device)[0]["favorite"] == 0


def test_overflow_lists_share_and_delete_cancel_keeps_the_recipe(device: VirtualDevice) -> None:
    add(device, "Soup")
    device.start_activity(PKG)
    open_details(device, "Soup")
    tap(device, content_desc="More options")
    for entry in ("menu_share", "menu_share_as_file", "menu_edit", "menu_delete"):
        assert exists(device, text=T.text(entry), resource_id=T.rid("overflow_row_title")), entry
    tap(device, text="Share")  # an intent through the chooser in the real app; nothing is copied here
    assert device.get_clip() is None or device.get_clip().text != "Soup"
    overflow(device, "menu_delete")
    assert exists(device, resource_id="android:id/message", text="Delete this recipe?")
    tap(device, resource_id="android:id/button2", text="CANCEL")
    assert len(rows(device)) == 1 and device.current_focus() == (PKG, DETAILS)


def test_delete_removes_the_row_and_its_category_links(device: VirtualDevice) -> None:
    rid = add(device, "Soup")
    add(device, "Salad")
    D.STORE.execute(device, "INSERT INTO categories (name) VALUES ('Lunch')")
    D.set_categories(device, rid, ["Lunch"])
    device.start_activity(PKG)
    open_details(device, "Soup")
    overflow(device, "menu_delete")
    tap(device, resource_id="android:id/button1", text="DELETE")
    assert device.state.ui.toast == T.text("toast_deleted")
    assert [r["title"] for r in rows(device)] == ["Salad"]
    assert D.STORE.rows(device, "SELECT * FROM recipes_with_categories") == []
    assert D.recipes(device, "soup") == []  # the FTS index followed the delete
    assert device.current_focus() == (PKG, MAIN)


# ---------------------------------------------------------------------------------------------- structure
@pytest.mark.parametrize("screen", ["recipes", "editor_new", "details", "delete_confirm"])
def test_screens_match_the_structure_fixtures(device: VirtualDevice, screen: str) -> None:
    add(device, "Capture check", description="From the capture walk", servings="2", ingredients="1 cup rice",
        directions="Cook the rice")
    device.start_activity(PKG)
    if screen == "editor_new":
        open_new(device)
    elif screen in ("details", "delete_confirm"):
        open_details(device, "Capture check")
        if screen == "delete_confirm":
            overflow(device, "menu_delete")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "broccoli" / f"{screen}.yaml") == []


def test_every_drawn_id_is_in_the_table(device: VirtualDevice) -> None:
    """The app's own ids on its screens come from the table (or are the layouts' containers it names in code)."""
    add(device, "Soup", description="Hot", servings="2", preparationTime="1 h", source="web", ingredients="1 pot",
        directions="Heat")
    known = {e.resource_id for e in T.selectors.values() if e.resource_id}
    containers = {f"{PKG}:id/{n}" for n in ("nav_host_fragment", "toolbar_layout", "design_navigation_view",
                                            "design_menu_item_text")}
    device.start_activity(PKG)
    seen = set()
    for step in ("list", "details", "editor"):
        if step == "details":
            open_details(device, "Soup")
        if step == "editor":
            overflow(device, "menu_edit")
        seen |= {v.resource_id for v in device.wm.windows()[0].walk() if v.resource_id.startswith(PKG)}
    assert seen and seen <= known | containers, sorted(seen - known - containers)


# ---------------------------------------------------------------------------------------------- pm clear, hardware
def test_pm_clear_removes_the_database(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    add(device, "Gone soon")
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device) and rows(device) == []
    assert device.current_focus()[0] != PKG
    device.start_activity(PKG)
    assert D.STORE.exists(device) and rows(device) == []
    assert exists(device, text=T.text("recipes_empty_text"))


def test_hardware_broccoli_is_absent_until_installed_and_opens_on_its_list(hardware: VirtualDevice) -> None:
    assert PKG not in hardware.apps and not hardware.installed(PKG)
    path = write_standin(hardware.fs.host("/data/local/tmp"), PKG, 1020600, "1.2.6")
    assert hashlib_of(path) == T.apk.standin_sha256
    assert hardware.install_package(PKG, 1020600, "1.2.6", path.read_bytes()) is None
    assert hardware.installed(PKG) and hardware.version_code(PKG) == 1020600
    assert not D.STORE.exists(hardware)
    hardware.start_activity(PKG)
    assert hardware.current_focus() == (PKG, MAIN)  # no first-run screen, no permission prompt
    assert D.STORE.exists(hardware) and exists(hardware, text=T.text("recipes_empty_text"))


def hashlib_of(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------- gallery
def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["recipe list (empty)", "recipe list", "navigation drawer", "search", "recipe details",
                     "details overflow menu", "delete confirmation", "recipe editor"]
