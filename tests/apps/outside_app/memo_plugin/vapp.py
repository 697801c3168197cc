"""The virtual memo app, made of the kit: a list screen and an editor declared as layouts."""

from __future__ import annotations

from emukit.apps.selectors import table
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, KitApp, Screen
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.kit.store import RoomSchema, RoomStore
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.icons import Pen, register_icon
from emukit.vdevice.ui.view import View

T = table("org.example.memo")
STORE = RoomStore(RoomSchema(T.package, "memos.db", 1, (
    "CREATE TABLE IF NOT EXISTS `memos` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `title` TEXT NOT NULL)",)))
FORM = N(entry="editor_form", pad=16, children=(N(entry="editor_title", h=56),))


@register_icon("memo.app")
def _icon(p: Pen) -> None:
    p.rect(20, 14, 76, 82, r=8)


class ListScreen(Screen):
    activity = ".MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        STORE.create(ctx.device)  # the first access creates the database

    def build(self, ctx: Ctx) -> View:
        root = w.screen(ctx.frame)
        items = [parts.MenuItem("delete_all", "delete", lambda: STORE.execute(ctx.device, "DELETE FROM memos"),
                                always=False)]
        root.add(parts.toolbar(ctx, "toolbar", "Memos", items))
        memos = STORE.rows(ctx.device, "SELECT title FROM memos ORDER BY id")
        area = (ctx.frame[0], ctx.frame[1] + parts.TOOLBAR_H, ctx.frame[2], ctx.frame[3])
        rows = [(theme.dp(56), lambda top, m=m: w.label((area[0] + theme.dp(16), top, area[2], top + theme.dp(56)),
                                                          m["title"], rid=ctx.rid("row_title"))) for m in memos]
        root.add(parts.recycler(ctx, "list", area, rows))
        root.add(parts.fab(ctx, "fab", "plus", lambda: ctx.start(".EditActivity")))
        menu = parts.overflow_menu(ctx, "toolbar", items, ctx.rid("overflow_title"))
        if menu is not None:
            root.add(menu)
        return root


class EditScreen(Screen):
    activity = ".EditActivity"

    def build(self, ctx: Ctx) -> View:
        def save() -> None:
            STORE.execute(ctx.device, "INSERT INTO memos (title) VALUES (?)", (ctx.state.get("title", ""),))
            ctx.device.finish_top()

        def set_title(text: str) -> None:
            ctx.state["title"] = text

        root = w.screen(ctx.frame)
        root.add(parts.toolbar(ctx, "toolbar", "", [parts.MenuItem("save", "check", save)],
                               on_up=ctx.device.finish_top))
        body = (ctx.frame[0], ctx.frame[1] + parts.TOOLBAR_H, ctx.frame[2], ctx.frame[3])
        root.add(inflate(FORM, body, ctx.table, {"editor_title": {"text": ctx.state.get("title", ""),
                                                                  "on_text": set_title}}))
        return root


@register_virtual_app
class MemoApp(KitApp):
    table = T
    screens = (ListScreen, EditScreen)
    label = "Memos"
    icon = "memo.app"
    downloaded = True
