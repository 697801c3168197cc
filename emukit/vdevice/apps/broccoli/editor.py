"""CreateAndEditRecipeActivity: a new recipe (the list's FAB) or an existing one (the details' Edit)
(broccoli: app/src/main/res/layout/activity_new_recipe.xml; CreateAndEditRecipeActivity.java).

* The toolbar says "New Recipe" for both, with the close icon and the SAVE button (``button_save_recipe``).
* The form scrolls (NestedScrollView): the photo, then the TextInputEditTexts title, categories (not editable:
  a tap opens the Categories dialog), description, source, servings, time, ingredients, directions. Each is an
  EditText, so the floating text toolbar (Select all / Copy / Paste) works on it: these fields are the app's
  only places to copy or paste text.
* Save: an empty title toasts "Please add a title." and writes nothing; otherwise the row is inserted (new) or
  updated, "The recipe has been saved." is toasted and the editor finishes. A new recipe's details open next
  (RecipeFragment.java:219-227).
* BACK or the close icon: "Discard changes?" (CANCEL / DISCARD) when the recipe is dirty, else finish. Dirty is
  set by a text change, except the first character typed into an empty field (the app's ``onTextChanged``
  ignores a change at start 0 with before 0, CreateAndEditRecipeActivity.java:202-208, which is what a keyboard's
  first key into an empty field gives), or by a category change.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.apps.broccoli.data import T
from emukit.vdevice.apps.broccoli.main import BAR_H, DETAILS, GREEN_800
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
#: (table entry, column, hint, multi-line) in activity_new_recipe.xml's order (categories between title and
#: description is not a text column)
FIELDS = (("title_field", "title", "Title", False), ("categories_field", None, "Categories", False),
          ("description_field", "description", "Description", True), ("source_field", "source", "Source", False),
          ("servings_field", "servings", "Servings", False), ("time_field", "preparationTime", "Time", False),
          ("ingredients_field", "ingredients", "Ingredients", True),
          ("directions_field", "directions", "Directions", True))
FIELD_H = dp(56)
LINE_H = dp(24)


class EditorScreen(Screen):
    activity = ".recipe.crud.CreateAndEditRecipeActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if ctx.state.get("loaded"):
            return
        recipe_id = int(extras["recipe_id"]) if extras.get("recipe_id") else None
        row = D.recipe(ctx.device, recipe_id) if recipe_id is not None else None
        values = {c: (row[c] or "") if row else "" for c in D.TEXT_COLUMNS}
        values["favorite"] = int(row["favorite"]) if row else 0
        categories = D.categories_of(ctx.device, recipe_id) if row else []
        ctx.state.update(values=values, recipe_id=recipe_id if row else None, categories=categories, dirty=False,
                         loaded=True)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("dirty"):
            ctx.open_dialog("discard")
            return True
        return False

    def _close(self, ctx: Ctx) -> None:
        if ctx.state.get("dirty"):
            ctx.open_dialog("discard")
        else:
            ctx.device.finish_top()

    def save(self, ctx: Ctx) -> None:
        values = dict(ctx.state["values"])
        if not str(values["title"]).strip():
            ctx.toast(T.text("toast_title_empty"))
            return
        recipe_id = ctx.state.get("recipe_id")
        saved = D.save_recipe(ctx.device, values, recipe_id)
        D.set_categories(ctx.device, saved, ctx.state["categories"])
        ctx.state["dirty"] = False
        ctx.toast(T.text("toast_saved"))
        ctx.device.finish_top()
        if recipe_id is None:  # the list's result handler opens the new recipe
            ctx.start(DETAILS, {"recipe_id": str(saved)})

    # -------------------------------------------------------------------------------------- build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        left, top, right, bottom = frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    style=Style(bg=theme.BACKGROUND))
        appbar = View(cls="com.google.android.material.appbar.AppBarLayout", bounds=(left, top, right, top + BAR_H),
                      style=Style(bg=GREEN_800))
        bar = View(cls="android.view.ViewGroup", bounds=appbar.bounds, resource_id=T.rid("editor_toolbar"))
        bar.add(w.icon_button((left + dp(4), top + dp(4), left + dp(52), top + dp(52)),
                              w.Action("close", "", lambda: self._close(ctx)), color=theme.ON_PRIMARY))
        bar.add(w.label((left + dp(72), top, right - dp(120), top + BAR_H), T.text("editor_title"),
                        size=theme.TEXT_TITLE, color=theme.ON_PRIMARY))
        save = View(cls=T.cls("save"), bounds=(right - dp(100), top + dp(4), right - dp(4), top + dp(52)),
                    text=T.text("save_label"), resource_id=T.rid("save"), clickable=True, focusable=True,
                    on_click=lambda: self.save(ctx),
                    style=Style(fg=theme.ON_PRIMARY, font_size=theme.TEXT_LABEL, bold=True, align="center"))
        bar.add(save)
        appbar.add(bar)
        root.add(appbar)
        root.add(self._form(ctx, (left, top + BAR_H, right, bottom)))
        return root

    def _form(self, ctx: Ctx, area: tuple[int, int, int, int]) -> View:
        left, _, right, _ = area
        values: dict[str, Any] = ctx.state["values"]
        rows: list[tuple[int, Any]] = []

        def image(y: int) -> View:
            box = View(cls="android.view.ViewGroup", bounds=(left + dp(16), y + dp(16), right - dp(16), y + dp(196)))
            box.add(View(cls="android.widget.ImageView", bounds=box.bounds, resource_id=T.rid("editor_image"),
                         content_desc=T.entry("editor_image").description or "", clickable=True,
                         style=Style(bg=theme.SURFACE_VARIANT, icon="image", icon_color=theme.TEXT_HINT,
                                     icon_size=dp(48))))
            return box
        rows.append((dp(212), image))

        focused = ctx.device.state.ui.focused_id
        focus_span: tuple[int, int] | None = None  # the focused field's rows in the form's content (px)
        for entry, column, hint, multi in FIELDS:
            text = ", ".join(ctx.state["categories"]) if column is None else str(values[column])
            lines = max(1, text.count("\n") + 1) if multi else 1
            height = FIELD_H + (lines - 1) * LINE_H + dp(16)
            if focused is not None and focused == T.rid(entry):
                start = sum(h for h, _ in rows)
                focus_span = (start, start + height)
            rows.append((height, self._field_row(ctx, area, entry, column, hint, text, lines, multi)))
        if focus_span is not None:  # the scroll view keeps the focused field in view when the keyboard shrinks it
            self._keep_in_view(ctx, focus_span, area[3] - area[1])

        return w.scroll_list(area, rows, int(ctx.state.get("scroll", 0)),
                             lambda v: ctx.state.__setitem__("scroll", v),
                             padding_bottom=dp(20), cls=T.cls("editor_scroll"))

    @staticmethod
    def _keep_in_view(ctx: Ctx, span: tuple[int, int], height: int) -> None:
        """NestedScrollView.onSizeChanged: when the window shrinks (the keyboard opens, adjustResize) and the
        focused child was on screen, the view scrolls by the least amount that keeps the child within it
        (androidx core NestedScrollView, ``isWithinDeltaOfScreen`` then ``computeScrollDeltaToGetChildRectOnScreen``)."""
        scroll = int(ctx.state.get("scroll", 0))
        top, bottom = span
        if bottom > scroll + height:
            scroll = min(top, bottom - height)
        elif top < scroll:
            scroll = top
        ctx.state["scroll"] = max(0, scroll)

    def _field_row(self, ctx: Ctx, area: tuple[int, int, int, int], entry: str, column: str | None, hint: str,
                   text: str, lines: int, multi: bool) -> Any:
        left, _, right, _ = area

        def setter(value: str) -> None:
            old = str(ctx.state["values"][column])
            if value != old and not (old == "" and len(value) == 1):
                ctx.state["dirty"] = True  # the first key typed into an empty field (start 0, before 0) does not
            ctx.state["values"][column] = value

        def build(y: int) -> View:
            layout = View(cls="android.widget.LinearLayout", bounds=(left, y, right, y + FIELD_H + (lines - 1) * LINE_H
                                                                     + dp(16)))
            bounds = (left + dp(16), y, right - dp(16), y + FIELD_H + (lines - 1) * LINE_H)
            if column is None:  # categories: focusable false, inputType none; a tap opens the dialog
                field = View(cls="android.widget.EditText", bounds=bounds, text=text, hint=hint,
                             resource_id=T.rid(entry), clickable=True, on_click=lambda: ctx.open_dialog("categories"),
                             style=Style(border=theme.OUTLINE, border_width=dp(1), radius=dp(4), padding=dp(16),
                                         font_size=theme.TEXT_BODY_L))
            else:
                field = w.text_field(bounds, text, setter, key=T.rid(entry), hint=hint, rid=T.rid(entry),
                                     max_lines=max(lines, 99) if multi else 1)  # textMultiLine: ENTER is a newline
            layout.add(field)
            return layout
        return build

    # -------------------------------------------------------------------------------------- dialogs
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        if kind == "discard":
            return parts.confirm(ctx, T.text("discard_message"), ctx.device.finish_top,
                                 yes=T.text("discard_confirm_label"), no=T.text("delete_cancel_label"),
                                 message_rid=T.rid("discard_message"))
        if kind == "categories":
            return self._categories(ctx)
        return None

    def _categories(self, ctx: Ctx) -> View:
        """The Categories dialog: a multi-choice list of the categories, or a message when there are none
        (CreateAndEditRecipeActivity.java:210-239); OK closes it."""
        names = [c["name"] for c in D.all_categories(ctx.device)]
        chosen: list[str] = ctx.state["categories"]
        ok = [(T.text("dialog_ok_label"), ctx.close_dialog)]
        if not names:
            return w.dialog(ctx.frame, T.text("categories_dialog_title"), T.text("no_categories_message"),
                            buttons=ok, on_dismiss=ctx.close_dialog)

        def toggle(name: str) -> Any:
            def run() -> None:
                ctx.state["dirty"] = True
                if name in chosen:
                    chosen.remove(name)
                else:
                    chosen.append(name)
            return run

        def content(box: tuple[int, int, int, int]) -> list[View]:
            views = []
            for i, name in enumerate(names):
                y = box[1] + i * dp(48)
                views.append(View(cls="android.widget.CheckedTextView", bounds=(box[0], y, box[2], y + dp(48)),
                                  text=name, resource_id="android:id/text1", checkable=True, checked=name in chosen,
                                  clickable=True, on_click=toggle(name),
                                  style=Style(padding=dp(16), font_size=theme.TEXT_BODY_L)))
            return views

        return w.dialog(ctx.frame, T.text("categories_dialog_title"), content=content,
                        content_height=len(names) * dp(48), buttons=ok, on_dismiss=ctx.close_dialog)
