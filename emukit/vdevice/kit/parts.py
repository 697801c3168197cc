"""The parts list/detail/edit apps share, drawn with the shared widgets and named from the app's table.

* :func:`toolbar`: a Toolbar with its title, the menu items shown as actions (``ActionMenuItemView``, whose
  content-desc is the item's title) and the rest behind the overflow button, whose popup lists them
  (``toolbar_menu`` below);
* :func:`recycler`: a RecyclerView of rows built by the app, scrolled by swipes, its offset in the activity
  state;
* :func:`fab`: the floating action button;
* :func:`confirm`: an AlertDialog (title, message, negative and positive buttons with the framework's
  ``button2`` / ``button1`` ids).

AppCompat's overflow button is an ``AppCompatImageView`` with content-desc "More options"
(androidx/androidx ``appcompat/appcompat/src/main/res/values/strings.xml``: ``abc_action_menu_overflow_description``;
``ActionMenuPresenter.OverflowMenuButton``), and its popup's rows hold a TextView ``title``
(``abc_popup_menu_item_layout.xml``; merged into the app's package).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

OVERFLOW_DESC = "More options"
TOOLBAR_H = theme.dp(64)


@dataclass(frozen=True)
class MenuItem:
    """A menu item: its table entry (id and title), icon, action; ``always``: shown as an action (else in the
    overflow menu)."""

    entry: str
    icon: str
    on_click: Callable[[], Any]
    always: bool = True


def toolbar(ctx: Ctx, entry: str, title: str, items: Sequence[MenuItem] = (), *,
            on_up: Callable[[], Any] | None = None, up_desc: str = "Navigate up") -> View:
    """The top toolbar (table ``entry``) with ``title``, action items and the overflow button."""
    left, top, right, _ = ctx.frame
    bar = View(cls=ctx.table.entry(entry).class_name or "android.view.ViewGroup",
               bounds=(left, top, right, top + TOOLBAR_H), resource_id=ctx.rid(entry),
               style=Style(bg=theme.BACKGROUND))
    touch = theme.dp(48)
    inset = (TOOLBAR_H - touch) // 2
    x = left + theme.dp(16)
    if on_up is not None:
        bar.add(w.icon_button((left + theme.dp(4), top + inset, left + theme.dp(4) + touch, top + inset + touch),
                              w.Action("arrow_back", up_desc, on_up), color=theme.TEXT))
        x = left + theme.dp(64)
    shown = [i for i in items if i.always]
    hidden = [i for i in items if not i.always]
    end = right - theme.dp(4)
    if hidden:
        key = f"overflow:{entry}"

        def open_overflow() -> None:
            ctx.state["menu"] = key

        bar.add(View(cls="android.widget.ImageView", bounds=(end - touch, top + inset, end, top + inset + touch),
                     content_desc=OVERFLOW_DESC, clickable=True, focusable=True, on_click=open_overflow,
                     style=Style(icon="more_vert", icon_color=theme.TEXT, icon_size=theme.dp(24))))
        end -= touch
    for item in reversed(shown):
        e = ctx.table.entry(item.entry)
        bar.add(View(cls="android.widget.TextView", bounds=(end - touch, top + inset, end, top + inset + touch),
                     resource_id=e.resource_id or "", content_desc=e.description or e.text or "", clickable=True,
                     focusable=True, on_click=item.on_click,
                     style=Style(icon=item.icon, icon_color=theme.TEXT, icon_size=theme.dp(24))))
        end -= touch
    bar.add(w.label((x, top, end - theme.dp(8), top + TOOLBAR_H), title, size=theme.TEXT_TITLE))
    return bar


def overflow_menu(ctx: Ctx, entry: str, items: Sequence[MenuItem], title_rid: str) -> View | None:
    """The overflow popup of the toolbar ``entry`` when it is open (its rows' TextViews have ``title_rid``)."""
    if ctx.state.get("menu") != f"overflow:{entry}":
        return None

    def dismiss() -> None:
        ctx.state.pop("menu", None)

    def choose(item: MenuItem) -> Callable[[], None]:
        def run() -> None:
            dismiss()
            item.on_click()
        return run

    hidden = [i for i in items if not i.always]
    return w.popup_menu(ctx.frame, (ctx.frame[2] - theme.dp(8), ctx.frame[1] + theme.dp(8)),
                        [(ctx.text(i.entry), choose(i)) for i in hidden], dismiss, title_rid)


def recycler(ctx: Ctx, entry: str, area: Bounds, rows: Sequence[tuple[int, Callable[[int], View]]],
             *, key: str = "scroll") -> View:
    """A RecyclerView (table ``entry``) over ``area``; ``rows`` are (height px, build(top)) pairs."""
    def set_scroll(value: int) -> None:
        ctx.state[key] = value

    return w.scroll_list(area, rows, int(ctx.state.get(key, 0)), set_scroll, rid=ctx.rid(entry),
                         cls=ctx.table.entry(entry).class_name or "androidx.recyclerview.widget.RecyclerView")


def fab(ctx: Ctx, entry: str, icon: str, on_click: Callable[[], Any], area: Bounds | None = None) -> View:
    """The floating action button (table ``entry``: its id and content-desc)."""
    e = ctx.table.entry(entry)
    view = w.fab(area or ctx.frame, icon, e.description or "", on_click, rid=e.resource_id or "")
    view.cls = e.class_name or view.cls
    return view


def confirm(ctx: Ctx, message: str, on_yes: Callable[[], Any], *, title: str = "", yes: str = "OK",
            no: str = "Cancel", on_no: Callable[[], Any] | None = None, title_rid: str = "android:id/alertTitle",
            message_rid: str = "android:id/message") -> View:
    """An AlertDialog asking ``message``: ``no`` (``android:id/button2``) closes it, ``yes`` (``button1``) closes
    it and runs ``on_yes``. ``title_rid`` / ``message_rid`` as in :func:`~emukit.vdevice.ui.widgets.dialog`."""
    def cancel() -> None:
        ctx.close_dialog()
        if on_no is not None:
            on_no()

    def accept() -> None:
        ctx.close_dialog()
        on_yes()

    return w.dialog(ctx.frame, title, message, buttons=[(no, cancel), (yes, accept)], on_dismiss=cancel,
                    title_rid=title_rid, message_rid=message_rid)
