"""TaskEditFragment in MainActivity's ``detail``: the title EditText under the toolbar (navigation button "Save",
"Delete task" for an existing task), the customize hint banner on the first openings, and the Compose column of
rows (fragment_task_edit.xml; TaskEditFragment.kt:142-306). The rows have no resource ids; the description is a
framework EditText inside a Compose AndroidView (DescriptionRow.kt:36-75).

* Save (the navigation button; IME Done on the title): nothing changed -> the editor closes and nothing is
  written; else a blank title becomes "(No title)" and the task is written (TaskEditViewModel.kt:240-252).
* BACK (back_button_saves_task false, the default): with changes "Are you sure you want to discard your
  changes?" (Keep editing / Discard), without changes the editor closes (TaskEditFragment.kt:144-152, 376-386).
* Delete task: "Delete this task?" (OK / Cancel); OK marks it deleted and closes the editor.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.apps.tasks.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"
TITLE_H = dp(72)
ROW_H = dp(64)
BANNER_H = dp(120)
#: the rows in TEA_control_sets_prefs order (keys.xml:283-299) with the entry whose text each shows
ROWS = ("row_start_date", "row_due_date", "row_repeat", "row_priority", "row_location", "row_tags", "row_list",
        "row_subtasks", "reminders", "row_attachment", "description", "row_calendar", "row_timer", "created")
COMPOSE_ROW = Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_BODY_L, padding=dp(72))


def open_editor(ctx: Ctx, task_id: int | None) -> None:
    """``onTaskListItemClicked``: the editor replaces the list (a new task: TaskCreator's defaults, the title
    focused with the keyboard up)."""
    row = D.task(ctx.device, task_id) if task_id is not None else None
    values = dict(row) if row is not None else D.new_task(ctx.device)
    ctx.state["edit"] = {"task": values, "title": str(values.get("title") or ""),
                         "notes": values.get("notes"), "completed": int(values.get("completed") or 0)}
    ctx.state.pop("menu", None)
    ctx.device.state.ui.focused_id = T.rid("title_field") if row is None else None


def close_editor(ctx: Ctx) -> None:
    """``MainActivityEvent.ClearTaskEditFragment``: the list shows again."""
    ctx.state.pop("edit", None)
    ctx.state.pop("edit_scroll", None)
    ctx.close_dialog()
    ctx.device.state.ui.focused_id = None


def _blank(value: Any) -> bool:
    return value is None or not str(value).strip()


def has_changes(edit: dict[str, Any]) -> bool:
    """``TaskEditViewModel.hasChanges`` for the fields this editor changes (title, notes, completion)."""
    task = edit["task"]
    is_new = task.get("_id") is None
    title = edit["title"].strip()
    if (task.get("title") or "") != title and not (is_new and title == ""):
        return True
    if is_new and title:
        return True
    original = task.get("notes")
    if _blank(original):
        if not _blank(edit["notes"]):
            return True
    elif original != edit["notes"]:
        return True
    return int(task.get("completed") or 0) != int(edit["completed"])


def save(ctx: Ctx) -> None:
    """``TaskEditFragment.save`` -> ``TaskEditViewModel.save``."""
    edit = ctx.state.get("edit")
    if edit is None:
        return
    if has_changes(edit):
        values = dict(edit["task"])
        title = edit["title"].strip()
        values["title"] = title if title else T.text("no_title")
        values["notes"] = edit["notes"]
        values["completed"] = int(edit["completed"])
        D.save_task(ctx.device, values)
    close_editor(ctx)


def back(ctx: Ctx) -> None:
    """BACK in the editor (no dialog open)."""
    if has_changes(ctx.state["edit"]):
        ctx.open_dialog("discard")
    else:
        close_editor(ctx)


def _delete(ctx: Ctx) -> None:
    task_id = ctx.state["edit"]["task"].get("_id")
    if task_id is not None:
        D.delete_task(ctx.device, int(task_id))
    close_editor(ctx)


def _complete(ctx: Ctx) -> None:
    ctx.state["edit"]["completed"] = ctx.device.wall_ms()
    save(ctx)


def _row(ctx: Ctx, key: str, area: tuple[int, int, int, int], top: int) -> View:
    """One Compose row: a View whose text is merged from its Text (no resource id), or the description row with
    its framework EditText."""
    left, _, right, _ = area
    edit = ctx.state["edit"]
    if key == "description":
        box = View(cls="android.view.View", bounds=(left, top, right, top + dp(72)))

        def put(text: str) -> None:
            edit["notes"] = text.strip()

        node = N(entry="description_field", h=50)
        field = inflate(node, (left + dp(72), top + dp(11), right - dp(16), top + dp(61)), T,
                        {"description_field": {"text": "" if edit["notes"] is None else str(edit["notes"]),
                                               "hint": T.text("description_hint"), "on_text": put,
                                               "style": {"max_lines": 2, "valign": "top"}}})
        box.add(field)
        return box
    if key == "reminders":
        granted = ctx.device.permission_granted(T.package, NOTIFICATIONS)
        box = View(cls="android.view.View", bounds=(left, top, right, top + ROW_H))
        if granted:
            box.add(View(cls="android.view.View",
                         bounds=(left + dp(72), top + dp(8), right - dp(16), top + ROW_H - dp(8)),
                         text=T.text("row_add_reminder"), clickable=True, on_click=lambda: None, style=COMPOSE_ROW))
        else:
            box.add(View(cls="android.view.View", bounds=(left + dp(72), top, right - dp(16), top + ROW_H),
                         clickable=True, on_click=lambda: _ask_notifications(ctx),
                         text=T.text("row_enable_reminders") + "\n" + T.text("row_enable_reminders_detail"),
                         style=Style(fg=(229, 57, 53), font_size=theme.TEXT_BODY, padding=0, max_lines=2)))
        return box
    if key == "created":
        created = int(edit["task"].get("created") or 0)
        text = "Created " + _date(created) if created else ""
        return View(cls="android.view.View", bounds=(left, top, right, top + ROW_H), text=text, style=COMPOSE_ROW)
    return View(cls="android.view.View", bounds=(left, top, right, top + ROW_H), text=T.text(key), clickable=True,
                on_click=lambda: None, style=COMPOSE_ROW)


def _date(ms: int) -> str:
    import datetime as dt

    when = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return when.strftime("%a, %b ") + str(when.day) + when.strftime(", %Y")


def _ask_notifications(ctx: Ctx) -> None:
    from emukit.vdevice.apps.permissions import request_permissions

    request_permissions(ctx.device, ctx.act, [NOTIFICATIONS], 1)


def _banner(ctx: Ctx, box: tuple[int, int, int, int]) -> View:
    """BeastModeBanner (Banner.kt:108-133): the hint and its Dismiss / Settings buttons, Compose, no ids."""
    left, top, right, bottom = box

    def dismiss() -> None:
        p = D.prefs(ctx.device)
        p.put_bool("shown_beast_mode_hint", True)
        D.save_prefs(ctx.device, p)

    banner = View(cls="android.view.View", bounds=box, style=Style(bg=theme.SURFACE_VARIANT))
    banner.add(w.label((left + dp(16), top + dp(8), right - dp(16), top + dp(32)), T.text("beast_hint_title")))
    banner.add(w.label((left + dp(16), top + dp(32), right - dp(16), top + dp(72)), T.text("beast_hint_body"),
                       size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY, max_lines=2, valign="top"))
    x = right - dp(16)
    for entry, action in (("beast_hint_settings", dismiss), ("beast_hint_dismiss", dismiss)):
        text = T.text(entry)
        width = w.text_button_width(text)
        banner.add(w.button((x - width, bottom - dp(44), x, bottom - dp(4)), text, action, kind="text"))
        x -= width + dp(8)
    return banner


def build(ctx: Ctx) -> View:
    """The editor inside ``detail``."""
    left, top, right, bottom = ctx.frame
    edit = ctx.state["edit"]
    existing = edit["task"].get("_id") is not None
    root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                style=Style(bg=theme.BACKGROUND))
    appbar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + parts.TOOLBAR_H + TITLE_H),
                  resource_id=T.rid("editor_appbar"))
    collapsing = View(cls="android.widget.FrameLayout", bounds=appbar.bounds, resource_id=T.rid("editor_collapsing"))
    items = [parts.MenuItem("delete", "delete", lambda: ctx.open_dialog("delete"))] if existing else []
    bar = parts.toolbar(ctx, "editor_toolbar", "", items)
    bar.add(w.icon_button((left + dp(4), top + dp(8), left + dp(52), top + dp(56)),
                          w.Action("tasks.save", T.desc("editor_save"), lambda: save(ctx)), color=theme.TEXT))

    def put_title(text: str) -> None:
        edit["title"] = text

    title = inflate(N(entry="title_field", h=72), (left, top + parts.TOOLBAR_H, right, top + parts.TOOLBAR_H + TITLE_H),
                    T, {"title_field": {"text": edit["title"], "hint": T.text("title_hint"), "on_text": put_title,
                                        "on_submit": lambda: save(ctx),
                                        "style": {"font_size": theme.TEXT_TITLE_L, "border_width": 0}}})
    collapsing.add(title, bar)
    appbar.add(collapsing)
    root.add(appbar)
    y = appbar.bounds[3]
    column = View(cls="android.widget.LinearLayout", bounds=(left, y, right, bottom))
    if not D.prefs(ctx.device).get_bool("shown_beast_mode_hint"):
        holder = View(cls="android.view.View", bounds=(left, y, right, y + BANNER_H),
                      resource_id=T.rid("editor_banner"))
        holder.add(_banner(ctx, (left, y, right, y + BANNER_H)))
        column.add(holder)
        y += BANNER_H
    area = (left, y, right, bottom)
    heights = {"description": dp(72)}
    rows = [(heights.get(key, ROW_H), lambda t, key=key: _row(ctx, key, area, t)) for key in ROWS]
    scroll = w.scroll_list(area, rows, int(ctx.state.get("edit_scroll", 0)),
                           lambda v: ctx.state.__setitem__("edit_scroll", v), cls=T.cls("editor_scroll"))
    compose = View(cls="android.view.View", bounds=area, resource_id=T.rid("editor_rows"))
    compose.children.extend(scroll.children)
    scroll.children = [compose]
    column.add(scroll)
    root.add(column)
    if existing:
        root.add(View(cls=T.cls("editor_fab"), bounds=(right - dp(72), top + parts.TOOLBAR_H + TITLE_H - dp(28),
                                                        right - dp(16), top + parts.TOOLBAR_H + TITLE_H + dp(28)),
                      resource_id=T.rid("editor_fab"), clickable=True, on_click=lambda: _complete(ctx),
                      style=Style(bg=theme.PRIMARY_CONTAINER, radius=dp(16), icon="check",
                                  icon_color=theme.ON_PRIMARY_CONTAINER, icon_size=dp(24))))
    return root


def dialog(ctx: Ctx, dlg: dict[str, Any]) -> View | None:
    kind = dlg["kind"]
    if kind == "delete":
        return parts.confirm(ctx, "", lambda: _delete(ctx), title=T.text("delete_title"), yes=T.text("delete_ok"),
                             no=T.text("delete_cancel"), title_rid=T.rid("delete_title"))
    if kind == "discard":
        def discard() -> None:
            close_editor(ctx)

        return w.dialog(ctx.frame, T.text("discard_title"),
                        buttons=[(T.text("discard_confirm"), discard),
                                 (T.text("discard_keep_editing"), ctx.close_dialog)],
                        on_dismiss=ctx.close_dialog, title_rid=T.rid("discard_title"))
    return None
