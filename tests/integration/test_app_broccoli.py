"""Broccoli over adb (the virtual app, driven as an emulator would be): open it from All Apps, create a recipe,
open, edit and delete it, copy a field's text and paste it into another; the recipes probe reads what the app
wrote (as android_world reads it), reports an app with no database yet, and the ``recipes:`` seed writes rows
the list shows. The structure fixtures' screens, reached by the capture walk, match their fixtures."""

from __future__ import annotations

import pytest

from emukit.apps.broccoli import RecipeSeed, RecipeSpec, read_recipes
from emukit.apps.registry import profile_for
from emukit.apps.structure import match_fixture
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES

PACKAGE = "com.flauschcode.broccoli"


@pytest.fixture
def broccoli(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "broccoli")
    d.close()


def _titles(d: Driver) -> list[str]:
    return [r["title"] for r in read_recipes(d).rows]


def test_recipes_round_trip_through_the_real_ui(broccoli):
    d = broccoli.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_recipes(d)
    assert empty.rows == [] and empty.reason is not None  # never opened since the clear: no database
    broccoli.open_from_all_apps()
    assert broccoli.first_run_screen() == "list"
    first = read_recipes(d)
    assert first.rows == [] and first.reason is None and "broccoli" in first.files  # the first launch made it

    broccoli.create_recipe("Pancakes", description="Fluffy", servings="4", preparationTime="20 min",
                           ingredients="200 g flour\n2 eggs", directions="Whisk.\nFry.")
    rows = read_recipes(d).rows
    assert len(rows) == 1
    row = rows[0]
    assert {k: row[k] for k in ("title", "description", "servings", "preparationTime", "source", "ingredients",
                                "directions", "favorite", "imageName")} == {
        "title": "Pancakes", "description": "Fluffy", "servings": "4", "preparationTime": "20 min", "source": "",
        "ingredients": "200 g flour\n2 eggs", "directions": "Whisk.\nFry.", "favorite": 0, "imageName": ""}

    broccoli.open_editor_of("Pancakes")  # copy the description into the source field
    broccoli.copy_field("description_field")
    broccoli.paste_into("source_field")
    broccoli.save()
    assert read_recipes(d).rows[0]["source"] == "Fluffy"
    assert d.exists(**broccoli.sel("details_source"), text="Fluffy")  # back on the details, updated

    broccoli.edit_recipe("Pancakes", title="Pancakes (big batch)")
    assert _titles(d) == ["Pancakes (big batch)"]
    broccoli.delete_recipe("Pancakes (big batch)")
    assert read_recipes(d).rows == []
    assert d.exists(**broccoli.sel("recipes_empty_text"))


def test_seed_writes_rows_the_list_shows(broccoli):
    d = broccoli.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    items = [RecipeSpec(title="Tomato soup", ingredients="1 kg tomatoes"),
             RecipeSpec(title="apple pie", favorite=True)]
    RecipeSeed.apply(d, items)  # creates the database through the first launch, then writes with the app stopped
    rows = read_recipes(d).rows
    assert [(r["recipeId"], r["title"], r["favorite"]) for r in rows] == [(1, "Tomato soup", 0),
                                                                            (2, "apple pie", 1)]
    broccoli.launch(fresh=True)
    shown = [e.text for e in d.elements() if e.resource_id == broccoli.rid("recipe_card_title")]
    assert shown == ["apple pie", "Tomato soup"]  # by title, case-insensitive
    broccoli.open_recipe("Tomato soup")
    assert d.exists(**broccoli.sel("ingredient_text"), text=" kg tomatoes")
    assert d.exists(**broccoli.sel("ingredient_quantity"), text="1")


def test_doctor_row_and_the_capture_walk_match_the_fixtures(broccoli):
    d = broccoli.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    [(name, check)] = broccoli.doctor_checks(rooted=True)
    ok, detail, _ = check()
    assert name == "broccoli database" and ok and detail.startswith("no database yet")
    screens = broccoli.capture_screens()
    assert sorted(screens) == sorted(p.stem for p in (FIXTURES / "broccoli").glob("*.yaml"))
    for screen, reach in screens.items():
        reach()
        problems = match_fixture(d.hierarchy(), FIXTURES / "broccoli" / f"{screen}.yaml")
        assert problems == [], (screen, problems)
        d.back()
    ok, detail, _ = check()
    assert ok and detail == "recipes has 10 columns"
