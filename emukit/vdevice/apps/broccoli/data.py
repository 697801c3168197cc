"""Broccoli's data, where and how the real app keeps it (facts: the pinned table's repo ``broccoli``
flauschtrud/broccoli f8ef1d64 at tag v1.2.6; paths below are under app/).

* ``databases/broccoli``: Room ``BroccoliDatabase`` version 1, no file extension (src/main/java/.../di/
  DatabaseModule.java:53-57, BroccoliDatabase.java:16), entities CoreRecipe (table ``recipes``), Category
  (``categories``), RecipeCategoryAssociation (``recipes_with_categories``) and the FTS4 index CoreRecipeFts
  (``recipes_fts``, content table ``recipes``). The CREATE statements, the FTS content-sync triggers and the
  identity hash are those of the schema Room exported at the tag (schemas/com.flauschcode.broccoli.
  BroccoliDatabase/1.json:5-233). There is no onCreate callback: a new database has no rows.
* The first access is the recipe list's LiveData query when MainActivity shows RecipeFragment
  (RecipeFragment.java:97-98); android_world's setup launches the app once for that (apps.py:506-511).
* ``recipes`` columns: recipeId, title, imageName, description, servings, preparationTime, source, ingredients,
  directions, favorite; strings default to "" (CoreRecipe.java:11-24); the list orders by ``title COLLATE
  NOCASE`` (RecipeDAO.java:32); a search is an FTS prefix match (``<term>*``) over title, description, source
  and ingredients (RecipeDAO.java:39-41, RecipeRepository.java:72-75).
* Ingredients and directions are shown one line each (IngredientBuilder.java:16-31, DirectionBuilder.java:15-31).
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.flauschcode.broccoli"
T = table(PACKAGE)
RECIPE_COLUMNS = ("title", "imageName", "description", "servings", "preparationTime", "source", "ingredients",
                  "directions", "favorite")
TEXT_COLUMNS = RECIPE_COLUMNS[:-1]

# schemas/com.flauschcode.broccoli.BroccoliDatabase/1.json, createSql of each entity (${TABLE_NAME} filled in),
# its indices and the FTS entity's content-sync triggers, in the order Room's createAllTables runs them
SCHEMA = RoomSchema(
    package=PACKAGE, name="broccoli", version=1, identity_hash="1548e88f42d976a4b4915ca1cfa71e00",
    create=(
        ("CREATE TABLE IF NOT EXISTS `recipes` (`recipeId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT, "
         "`imageName` TEXT, `description` TEXT, `servings` TEXT, `preparationTime` TEXT, `source` TEXT, "
         "`ingredients` TEXT, `directions` TEXT, `favorite` INTEGER NOT NULL)"),
        ("CREATE TABLE IF NOT EXISTS `categories` (`categoryId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "
         "`name` TEXT)"),
        ("CREATE TABLE IF NOT EXISTS `recipes_with_categories` (`recipeId` INTEGER NOT NULL, `categoryId` INTEGER "
         "NOT NULL, PRIMARY KEY(`recipeId`, `categoryId`), FOREIGN KEY(`recipeId`) REFERENCES `recipes`(`recipeId`) "
         "ON UPDATE NO ACTION ON DELETE CASCADE , FOREIGN KEY(`categoryId`) REFERENCES `categories`(`categoryId`) "
         "ON UPDATE NO ACTION ON DELETE CASCADE )"),
        ("CREATE INDEX IF NOT EXISTS `index_recipes_with_categories_recipeId` ON `recipes_with_categories` "
         "(`recipeId`)"),
        ("CREATE INDEX IF NOT EXISTS `index_recipes_with_categories_categoryId` ON `recipes_with_categories` "
         "(`categoryId`)"),
        ("CREATE VIRTUAL TABLE IF NOT EXISTS `recipes_fts` USING FTS4(`title` TEXT, `description` TEXT, "
         "`source` TEXT, `ingredients` TEXT, tokenize=unicode61 `tokenchars=#`, content=`recipes`)"),
        ("CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_UPDATE BEFORE UPDATE ON `recipes` "
         "BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END"),
        ("CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_DELETE BEFORE DELETE ON `recipes` "
         "BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END"),
        ("CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_UPDATE AFTER UPDATE ON `recipes` "
         "BEGIN INSERT INTO `recipes_fts`(`docid`, `title`, `description`, `source`, `ingredients`) VALUES "
         "(NEW.`rowid`, NEW.`title`, NEW.`description`, NEW.`source`, NEW.`ingredients`); END"),
        ("CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_INSERT AFTER INSERT ON `recipes` "
         "BEGIN INSERT INTO `recipes_fts`(`docid`, `title`, `description`, `source`, `ingredients`) VALUES "
         "(NEW.`rowid`, NEW.`title`, NEW.`description`, NEW.`source`, NEW.`ingredients`); END"),
    ),
)
STORE = RoomStore(SCHEMA)


def open_database(device: VirtualDevice) -> None:
    """The app's first access (the recipe list's query): Room creates the file with the schema, no rows."""
    STORE.create(device)


def recipes(device: VirtualDevice, search: str = "") -> list[dict[str, Any]]:
    """The list as RecipeFragment shows it with "All recipes": every recipe by title (case-insensitive); with
    ``search``, the FTS prefix match ``<search>*`` the app runs (an unparsable term matches nothing)."""
    if not search.strip():
        return STORE.rows(device, "SELECT * FROM recipes ORDER BY title COLLATE NOCASE")
    try:
        return STORE.rows(device, "SELECT recipes.* FROM recipes JOIN recipes_fts ON (recipes.recipeId = "
                                  "recipes_fts.docid) WHERE recipes_fts MATCH ? ORDER BY "
                                  "SUBSTR(OFFSETS(recipes_fts), 1, 1), recipes.title COLLATE NOCASE",
                          (f"{search}*",))
    except sqlite3.Error:  # an FTS syntax error: the real query fails and the list stays empty
        return []


def recipe(device: VirtualDevice, recipe_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM recipes WHERE recipeId = ?", (recipe_id,))
    return rows[0] if rows else None


def categories_of(device: VirtualDevice, recipe_id: int) -> list[str]:
    return [r["name"] for r in STORE.rows(
        device, "SELECT categories.name FROM categories JOIN recipes_with_categories USING (categoryId) "
                "WHERE recipes_with_categories.recipeId = ? ORDER BY categories.categoryId", (recipe_id,))]


def all_categories(device: VirtualDevice) -> list[dict[str, Any]]:
    return STORE.rows(device, "SELECT * FROM categories ORDER BY name COLLATE NOCASE")


def save_recipe(device: VirtualDevice, values: dict[str, Any], recipe_id: int | None) -> int:
    """RecipeRepository.insertOrUpdate: ``@Insert`` of a new recipe (recipeId 0), ``@Update`` of an existing one
    (RecipeRepository.java:124-139); returns its id."""
    row = {c: values.get(c, "") for c in TEXT_COLUMNS}
    row["favorite"] = int(bool(values.get("favorite", 0)))
    if recipe_id is None:
        cols = ", ".join(f"`{c}`" for c in RECIPE_COLUMNS)
        return STORE.execute(device, f"INSERT INTO recipes ({cols}) VALUES ({', '.join('?' * len(RECIPE_COLUMNS))})",
                             tuple(row[c] for c in RECIPE_COLUMNS))
    sets = ", ".join(f"`{c}` = ?" for c in RECIPE_COLUMNS)
    STORE.execute(device, f"UPDATE recipes SET {sets} WHERE recipeId = ?",
                  (*(row[c] for c in RECIPE_COLUMNS), recipe_id))
    return recipe_id


def set_categories(device: VirtualDevice, recipe_id: int, names: list[str]) -> None:
    """The recipe's links in ``recipes_with_categories``: the old ones deleted, one per chosen category
    inserted (RecipeRepository.java:129-136)."""
    with STORE.connect(device) as db:
        db.execute("DELETE FROM recipes_with_categories WHERE recipeId = ?", (recipe_id,))
        for name in names:
            for row in db.execute("SELECT categoryId FROM categories WHERE name = ?", (name,)).fetchall():
                db.execute("INSERT OR IGNORE INTO recipes_with_categories (recipeId, categoryId) VALUES (?, ?)",
                           (recipe_id, row[0]))


def set_favorite(device: VirtualDevice, recipe_id: int, favorite: bool) -> None:
    STORE.execute(device, "UPDATE recipes SET favorite = ? WHERE recipeId = ?", (int(favorite), recipe_id))


def delete_recipe(device: VirtualDevice, recipe_id: int) -> None:
    """``@Delete`` of the row; its category links go by ON DELETE CASCADE (Room turns foreign keys on)."""
    with STORE.connect(device) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("DELETE FROM recipes WHERE recipeId = ?", (recipe_id,))
        db.execute("DELETE FROM recipes_with_categories WHERE recipeId = ?", (recipe_id,))


_QUANTITY = re.compile(r"^\s*([¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]|\d+([,/.-])*\d*)(\s*-\s*([¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]|\d+([,/.-])*\d*))?(?!$)")


def ingredient_lines(text: str | None) -> list[tuple[str, str]]:
    """(quantity, text) of each non-empty line, a leading dash dropped (IngredientBuilder.java:16-31)."""
    out = []
    for line in (text or "").split("\n"):
        line = re.sub(r"^\s*[-–](?!$)", "", line, count=1).strip()
        if not line:
            continue
        m = _QUANTITY.search(line)
        quantity = m.group(0) if m else ""
        out.append((quantity, line.replace(quantity, "", 1) if quantity else line))
    return out


def direction_lines(text: str | None) -> list[str]:
    """Each non-empty line, a leading "N." dropped (DirectionBuilder.java:15-31)."""
    out = []
    for line in (text or "").split("\n"):
        line = re.sub(r"^\s*(\d+\.)(?!$)", "", line, count=1).strip()
        if line:
            out.append(line)
    return out
