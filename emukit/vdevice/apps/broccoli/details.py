"""RecipeDetailsActivity (broccoli: app/src/main/res/layout/activity_recipe_details.xml,
content_recipe_details.xml, ingredient_item.xml, direction_item.xml, menu/details.xml; RecipeDetailsActivity.java).

* The collapsed app bar (no photo) with the up arrow, "Mark as favorite" / "Remove from favorites" as an action
  and the overflow (Share, Share as file, Edit, Delete); the title is drawn by the CollapsingToolbarLayout.
* The NestedScrollView: ``details_title``, servings and time (each GONE when empty), categories, description and
  source, then "Ingredients" (one row per line, quantity split off) and "Directions" (numbered rows).
* No TextView is selectable: the screen offers no text selection and no clipboard action. Share and Share as file
  send intents through the chooser (not modelled: they do nothing here); the FAB "Cook" opens the cooking
  assistant (not modelled).
* Delete asks "Delete this recipe?" (CANCEL / DELETE); DELETE removes the row, toasts and finishes.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.apps.broccoli.data import T
from emukit.vdevice.apps.broccoli.main import BAR_H, EDITOR, GREEN_800
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
LINE_H = dp(22)


class DetailsScreen(Screen):
    activity = ".recipe.details.RecipeDetailsActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if "recipe_id" not in ctx.state and extras.get("recipe_id"):
            ctx.state["recipe_id"] = int(extras["recipe_id"])

    def _recipe(self, ctx: Ctx) -> dict[str, Any] | None:
        rid = ctx.state.get("recipe_id")
        return D.recipe(ctx.device, int(rid)) if rid is not None else None

    # -------------------------------------------------------------------------------------- actions
    def _toggle_favorite(self, ctx: Ctx, recipe: dict[str, Any]) -> None:
        D.set_favorite(ctx.device, int(recipe["recipeId"]), not recipe["favorite"])

    def _delete(self, ctx: Ctx) -> None:
        D.delete_recipe(ctx.device, int(ctx.state["recipe_id"]))
        ctx.toast(T.text("toast_deleted"))
        ctx.device.finish_top()

    def _edit(self, ctx: Ctx) -> None:
        ctx.start(EDITOR, {"recipe_id": str(ctx.state["recipe_id"])})

    # -------------------------------------------------------------------------------------- build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        left, top, right, bottom = frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    style=Style(bg=theme.BACKGROUND))
        recipe = self._recipe(ctx)
        if recipe is None:  # deleted under the activity: the app would show the stale copy; show nothing
            return root
        favorite = bool(recipe["favorite"])
        items = [parts.MenuItem("menu_unlike" if favorite else "menu_like", "star",
                                lambda: self._toggle_favorite(ctx, recipe)),
                 parts.MenuItem("menu_share", "share", lambda: None, always=False),
                 parts.MenuItem("menu_share_as_file", "share", lambda: None, always=False),
                 parts.MenuItem("menu_edit", "edit", lambda: self._edit(ctx), always=False),
                 parts.MenuItem("menu_delete", "delete", lambda: ctx.open_dialog("delete"), always=False)]
        appbar = View(cls="com.google.android.material.appbar.AppBarLayout", bounds=(left, top, right, top + BAR_H),
                      resource_id=T.rid("details_app_bar"), style=Style(bg=GREEN_800))
        collapsing = View(cls="android.widget.FrameLayout", bounds=appbar.bounds,
                          resource_id=f"{T.package}:id/toolbar_layout")
        toolbar = parts.toolbar(ctx, "details_toolbar", "", items, on_up=ctx.device.finish_top)
        toolbar.style = Style(bg=GREEN_800)
        collapsing.add(toolbar)
        appbar.add(collapsing)
        root.add(appbar)
        root.add(self._content(ctx, recipe, (left, top + BAR_H, right, bottom)))
        root.add(parts.fab(ctx, "fab_cook", "play", lambda: None))
        menu = parts.overflow_menu(ctx, "details_toolbar", items, T.rid("overflow_row_title"))
        if menu is not None:
            root.add(menu)
        return root

    def _content(self, ctx: Ctx, recipe: dict[str, Any], area: tuple[int, int, int, int]) -> View:
        """content_recipe_details.xml, laid out top to bottom inside the scroll view (16dp margins)."""
        left, _, right, _ = area
        x0, x1 = left + dp(16), right - dp(16)
        rows: list[tuple[int, Any]] = []

        def text_row(height: int, build: Any) -> None:
            rows.append((height, build))

        title = (recipe["title"] or "").strip()
        text_row(dp(48), lambda y: [w.label((x0, y + dp(8), x1, y + dp(44)), title, size=theme.TEXT_TITLE_L,
                                           rid=T.rid("details_title"))])
        servings, time = recipe["servings"] or "", recipe["preparationTime"] or ""
        if servings or time:
            def meta(y: int) -> list[View]:
                views: list[View] = []
                x = x0
                for entry, value, desc in (("details_servings", servings, "Servings"),
                                           ("details_preparation_time", time, "Time")):
                    if not value:
                        continue
                    views.append(View(cls="android.widget.ImageView", bounds=(x, y + dp(16), x + dp(24), y + dp(40)),
                                      content_desc=desc, style=Style(icon="person" if desc == "Servings" else "clock",
                                                                     icon_color=theme.TEXT_SECONDARY,
                                                                     icon_size=dp(20))))
                    views.append(w.label((x + dp(29), y + dp(16), x + dp(150), y + dp(40)), value, rid=T.rid(entry)))
                    x += dp(170)
                return views
            text_row(dp(40), meta)
        names = D.categories_of(ctx.device, int(recipe["recipeId"]))
        if names:
            text_row(dp(40), lambda y: [w.label((x0 + dp(29), y + dp(16), x1, y + dp(40)), ", ".join(names),
                                                rid=T.rid("details_categories"))])
        description, source = recipe["description"] or "", recipe["source"] or ""
        if description:
            lines = max(1, description.count("\n") + 1)
            text_row(dp(16) + lines * LINE_H + dp(5), lambda y: [
                w.label((x0, y + dp(16), x1, y + dp(16) + lines * LINE_H), description, valign="top",
                        max_lines=lines, rid=T.rid("details_description"))])
        if source:
            text_row(dp(28), lambda y: [w.label((x0 + dp(34), y + dp(4), x1, y + dp(26)), source, color=GREEN_800,
                                                rid=T.rid("details_source"))])
        ingredients = D.ingredient_lines(recipe["ingredients"])
        if ingredients:
            text_row(dp(48), lambda y: [w.label((x0, y + dp(16), x1, y + dp(44)), T.text("details_ingredients_label"),
                                                size=theme.TEXT_BODY_L, color=GREEN_800)])

            def ingredient_block(y: int) -> list[View]:
                box = View(cls="android.widget.LinearLayout", bounds=(x0, y, x1, y + len(ingredients) * LINE_H),
                           resource_id=T.rid("details_ingredients"))
                for i, (quantity, text) in enumerate(ingredients):
                    yy = y + i * LINE_H
                    row = View(cls="android.view.ViewGroup", bounds=(x0, yy, x1, yy + LINE_H))
                    qw = dp(10) * len(quantity) + dp(4) if quantity else 0
                    row.add(w.label((x0, yy, x0 + qw, yy + LINE_H), quantity, bold=True,
                                    rid=T.rid("ingredient_quantity")))
                    row.add(w.label((x0 + qw, yy, x1, yy + LINE_H), text, rid=T.rid("ingredient_text")))
                    box.add(row)
                return [box]
            text_row(len(ingredients) * LINE_H, ingredient_block)
        directions = D.direction_lines(recipe["directions"])
        if directions:
            text_row(dp(48), lambda y: [w.label((x0, y + dp(16), x1, y + dp(44)), T.text("details_directions_label"),
                                                size=theme.TEXT_BODY_L, color=GREEN_800)])

            def direction_block(y: int) -> list[View]:
                box = View(cls="android.widget.LinearLayout", bounds=(x0, y, x1, y + len(directions) * (LINE_H + dp(10))),
                           resource_id=T.rid("details_directions"))
                for i, text in enumerate(directions):
                    yy = y + i * (LINE_H + dp(10))
                    row = View(cls="android.widget.RelativeLayout", bounds=(x0, yy, x1, yy + LINE_H + dp(10)))
                    row.add(w.label((x0 + dp(5), yy + dp(5), x0 + dp(25), yy + dp(5) + LINE_H), str(i + 1),
                                    color=GREEN_800, align="center", rid=T.rid("direction_position")))
                    row.add(w.label((x0 + dp(35), yy + dp(5), x1, yy + dp(5) + LINE_H), text,
                                    rid=T.rid("direction_text")))
                    box.add(row)
                return [box]
            text_row(len(directions) * (LINE_H + dp(10)), direction_block)

        def make(height: int, build: Any) -> tuple[int, Any]:
            def at(y: int) -> View:
                holder = View(cls="android.widget.LinearLayout", bounds=(left, y, right, y + height))
                holder.add(*build(y))
                return holder
            return height, at

        return w.scroll_list(area, [make(h, b) for h, b in rows], int(ctx.state.get("scroll", 0)),
                             lambda v: ctx.state.__setitem__("scroll", v), rid=T.rid("details_scroll"),
                             padding_bottom=dp(90), cls=T.cls("details_scroll"))

    # -------------------------------------------------------------------------------------- dialogs
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] != "delete":
            return None
        return parts.confirm(ctx, T.text("delete_message"), lambda: self._delete(ctx),
                             yes=T.text("delete_confirm_label"), no=T.text("delete_cancel_label"),
                             title_rid=T.rid("dialog_parent").replace("parentPanel", "alertTitle"),
                             message_rid=T.rid("delete_message"))
