"""MainActivity with RecipeFragment, its start destination (broccoli: app/src/main/res/layout/activity_main.xml,
app_bar_main.xml, content_main.xml, fragment_recipes.xml, recipes_list.xml, recipe_item.xml; RecipeFragment.java).

* The action bar (``toolbar``) says "Recipes" with the drawer button; the drawer (NavigationView ``nav_view``)
  lists the destinations of activity_main_drawer.xml. Only "Recipes" is modelled: the other destinations close
  the drawer and stay on the list.
* The fragment's own toolbar (``toolbar_recipes``) holds the category Spinner ("All recipes") and the search
  item; the expanded SearchView filters the list as the app's FTS prefix query does.
* The RecyclerView (``recycler_view``) lists recipe cards by title; ``recipes_empty`` shows when it is empty;
  the FAB ``fab_recipes`` opens the editor for a new recipe.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.apps.broccoli.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
GREEN_800, GREEN_500 = (46, 125, 50), (76, 175, 80)  # colorPrimary / colorSecondaryToolbar (res/values/colors.xml)
BAR_H = dp(56)
CARD_H = dp(120)
EDITOR = ".recipe.crud.CreateAndEditRecipeActivity"
DETAILS = ".recipe.details.RecipeDetailsActivity"
DRAWER = ("nav_recipes", "nav_categories", "nav_seasons", "nav_support", "nav_backup", "nav_settings", "nav_about")


def open_details(ctx: Ctx, recipe_id: int) -> None:
    """``onListInteraction``: RecipeDetailsActivity with the recipe (RecipeFragment.java:198-202)."""
    ctx.start(DETAILS, {"recipe_id": str(recipe_id)})


class MainScreen(Screen):
    activity = ".MainActivity"

    def on_resume(self, ctx: Ctx) -> None:
        D.open_database(ctx.device)  # the recipe list's LiveData query is the first access

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("drawer"):
            ctx.state.pop("drawer")
            return True
        if ctx.state.get("searching"):  # RecipeFragment.java:125-138: BACK collapses the SearchView first
            ctx.state.pop("searching")
            ctx.state.pop("query", None)
            ctx.device.state.ui.focused_id = None
            return True
        return False

    # -------------------------------------------------------------------------------------- build
    def build(self, ctx: Ctx) -> View:
        D.open_database(ctx.device)
        frame = ctx.frame
        left, top, right, bottom = frame
        root = View(cls="androidx.drawerlayout.widget.DrawerLayout", bounds=frame, resource_id=T.rid("drawer_layout"),
                    style=Style(bg=theme.BACKGROUND))
        coordinator = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame)
        coordinator.add(self._action_bar(ctx))
        host = View(cls="android.widget.FrameLayout", bounds=(left, top + BAR_H, right, bottom),
                    resource_id=f"{T.package}:id/nav_host_fragment")
        host.add(self._fragment(ctx, (left, top + BAR_H, right, bottom)))
        coordinator.add(host)
        root.add(coordinator)
        if ctx.state.get("drawer"):
            root.add(self._drawer(ctx))
        return root

    def _action_bar(self, ctx: Ctx) -> View:
        left, top, right, _ = ctx.frame
        bar = View(cls="com.google.android.material.appbar.AppBarLayout", bounds=(left, top, right, top + BAR_H),
                   style=Style(bg=GREEN_800))
        toolbar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + BAR_H),
                       resource_id=T.rid("main_toolbar"))

        def open_drawer() -> None:
            ctx.state["drawer"] = True

        toolbar.add(w.icon_button((left + dp(4), top + dp(4), left + dp(52), top + dp(52)),
                                  w.Action("menu", T.entry("open_drawer").description or "", open_drawer),
                                  color=theme.ON_PRIMARY))
        toolbar.add(w.label((left + dp(72), top, right - dp(16), top + BAR_H), T.text("main_title"),
                            size=theme.TEXT_TITLE, color=theme.ON_PRIMARY))
        bar.add(toolbar)
        return bar

    def _drawer(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        layer = w.scrim(ctx.frame, lambda: ctx.state.pop("drawer", None))
        width = min(right - left - dp(56), dp(320))
        nav = View(cls="android.widget.FrameLayout", bounds=(left, top, left + width, bottom),
                   resource_id=T.rid("nav_view"), style=Style(bg=theme.SURFACE))
        header = View(cls="android.widget.LinearLayout", bounds=(left, top, left + width, top + dp(176)),
                      style=Style(bg=GREEN_800))
        header.add(w.label((left + dp(16), top + dp(120), left + width, top + dp(160)), T.text("launcher_icon"),
                           size=theme.TEXT_TITLE, color=theme.ON_PRIMARY))
        nav.add(header)
        menu = View(cls="androidx.recyclerview.widget.RecyclerView", bounds=(left, top + dp(176), left + width, bottom),
                    resource_id=f"{T.package}:id/design_navigation_view")

        def choose(entry: str) -> Any:
            def run() -> None:
                ctx.state.pop("drawer", None)  # the other destinations are not modelled: the list stays
            return run

        y = top + dp(184)
        for entry in DRAWER:
            item = View(cls="android.widget.FrameLayout", bounds=(left, y, left + width, y + dp(48)), clickable=True,
                        checkable=True, checked=entry == "nav_recipes", on_click=choose(entry))
            item.add(View(cls="android.widget.CheckedTextView", bounds=(left + dp(16), y, left + width, y + dp(48)),
                          text=T.text(entry), resource_id=f"{T.package}:id/design_menu_item_text",
                          style=Style(fg=GREEN_800 if entry == "nav_recipes" else theme.TEXT,
                                      font_size=theme.TEXT_BODY)))
            menu.add(item)
            y += dp(48)
        nav.add(menu)
        layer.add(nav)
        return layer

    def _fragment(self, ctx: Ctx, area: tuple[int, int, int, int]) -> View:
        left, top, right, bottom = area
        box = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=area)
        box.add(self._recipes_toolbar(ctx, (left, top, right, top + BAR_H)))
        body = (left, top + BAR_H, right, bottom)
        rows = D.recipes(ctx.device, str(ctx.state.get("query", "")) if ctx.state.get("searching") else "")
        if not rows:
            box.add(self._empty(body))
        else:
            list_area = (left, body[1], right, bottom)
            cards = [(CARD_H + dp(8), lambda y, r=r: self._card(ctx, list_area, y, r)) for r in rows]
            box.add(w.scroll_list(list_area, cards, int(ctx.state.get("scroll", 0)),
                                  lambda v: ctx.state.__setitem__("scroll", v), rid=T.rid("recipe_list"),
                                  padding_bottom=dp(90)))
            listing = box.children[-1]
            listing.content_desc = T.entry("recipe_list").description or ""
        box.add(parts.fab(ctx, "fab_new_recipe", "plus", lambda: ctx.start(EDITOR), area=area))
        return box

    def _recipes_toolbar(self, ctx: Ctx, bounds: tuple[int, int, int, int]) -> View:
        left, top, right, bottom = bounds
        appbar = View(cls="com.google.android.material.appbar.AppBarLayout", bounds=bounds)
        bar = View(cls="android.view.ViewGroup", bounds=bounds, resource_id=T.rid("recipes_toolbar"),
                   style=Style(bg=GREEN_500))
        if ctx.state.get("searching"):
            def collapse() -> None:
                ctx.state.pop("searching", None)
                ctx.state.pop("query", None)

            bar.add(w.icon_button((left + dp(4), top + dp(4), left + dp(52), top + dp(52)),
                                  w.Action("arrow_back", "Collapse", collapse), color=theme.ON_PRIMARY))

            def set_query(text: str) -> None:
                ctx.state["query"] = text
                ctx.state["scroll"] = 0

            field = w.text_field((left + dp(64), top + dp(4), right - dp(8), bottom - dp(4)),
                                 str(ctx.state.get("query", "")), set_query, key=T.rid("search_field"),
                                 hint=f"Search in {T.text('category_all').upper()}", rid=T.rid("search_field"),
                                 outlined=False)
            bar.add(field)
        else:
            spinner = View(cls="android.widget.Spinner", bounds=(left + dp(16), top, right - dp(64), bottom),
                           resource_id=T.rid("category_spinner"),
                           content_desc=T.entry("category_spinner").description or "", clickable=True)
            spinner.add(View(cls="android.widget.TextView", bounds=(left + dp(16), top, right - dp(96), bottom),
                             text=T.text("category_all"), resource_id="android:id/text1",
                             style=Style(fg=theme.ON_PRIMARY, font_size=theme.TEXT_TITLE)))
            bar.add(spinner)

            def search() -> None:
                ctx.state["searching"] = True
                ctx.device.state.ui.focused_id = T.rid("search_field")

            e = T.entry("search_action")
            bar.add(View(cls="android.widget.TextView", bounds=(right - dp(56), top + dp(4), right - dp(8),
                                                                 top + dp(52)),
                         resource_id=e.resource_id or "", content_desc=e.description or "", clickable=True,
                         focusable=True, on_click=search,
                         style=Style(icon="search", icon_color=theme.ON_PRIMARY, icon_size=dp(24))))
        appbar.add(bar)
        return appbar

    def _empty(self, body: tuple[int, int, int, int]) -> View:
        left, top, right, bottom = body
        mid = (top + bottom) // 2
        box = View(cls="android.widget.LinearLayout", bounds=(left, mid - dp(110), right, mid + dp(110)),
                   resource_id=T.rid("recipes_empty"))
        inner = View(cls="android.widget.LinearLayout", bounds=(left + dp(50), mid - dp(60), right - dp(50),
                                                                mid + dp(60)))
        for i, entry in enumerate(("recipes_empty_text", "recipes_empty_create", "recipes_empty_import")):
            y = mid - dp(60) + i * dp(40)
            inner.add(w.label((left + dp(50), y, right - dp(50), y + dp(40)), T.text(entry),
                              size=theme.TEXT_BODY_L))
        box.add(inner)
        return box

    def _card(self, ctx: Ctx, area: tuple[int, int, int, int], y: int, r: dict[str, Any]) -> View:
        """recipe_item.xml: a clickable MaterialCardView with the photo and three TextViews."""
        left, _, right, _ = area
        y0 = y + dp(8)
        card = View(cls="android.widget.FrameLayout", bounds=(left + dp(8), y0, right - dp(8), y0 + CARD_H),
                    clickable=True, on_click=lambda: open_details(ctx, int(r["recipeId"])),
                    style=Style(bg=theme.SURFACE, radius=dp(4), elevation=dp(2)))
        inner = View(cls="android.view.ViewGroup", bounds=card.bounds)
        x_img = left + dp(8)
        inner.add(View(cls="android.widget.ImageView", bounds=(x_img, y0, x_img + CARD_H, y0 + CARD_H),
                       resource_id=T.rid("recipe_card_image"),
                       content_desc=T.entry("recipe_card_image").description or "",
                       style=Style(bg=theme.SURFACE_VARIANT, icon="image", icon_color=theme.TEXT_HINT,
                                   icon_size=dp(40))))
        x = x_img + CARD_H + dp(8)
        x1 = right - dp(16)
        inner.add(w.label((x, y0 + dp(10), x1, y0 + dp(46)), r["title"] or "", size=theme.TEXT_TITLE,
                          rid=T.rid("recipe_card_title")))
        inner.add(w.label((x, y0 + dp(46), x1, y0 + dp(86)), r["description"] or "", size=theme.TEXT_LABEL,
                          color=theme.TEXT_SECONDARY, max_lines=2, rid=T.rid("recipe_card_description")))
        inner.add(w.label((x, y0 + dp(88), x1, y0 + dp(110)), r["source"] or "", size=theme.TEXT_LABEL,
                          color=GREEN_800, rid=T.rid("recipe_card_source")))
        card.add(inner)
        return card
