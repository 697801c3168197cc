"""MainActivity (com.todoroo.astrid.activity.MainActivity): task_list_activity.xml's ``drawer_layout`` with the
list fragment in ``master`` and, once a task is opened, the editor fragment in ``detail`` (single pane: one of the
two is shown, MainActivity.kt:256-274). The activity's state keeps the open editor (``edit``) so BACK, dialogs and
a snapshot see it."""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.apps.tasks import editor, tasklist
from emukit.vdevice.apps.tasks.data import T
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui.view import View


class MainScreen(Screen):
    activity = "com.todoroo.astrid.activity.MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.app_start(ctx.device)

    def on_resume(self, ctx: Ctx) -> None:
        D.app_start(ctx.device)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("edit") is not None:
            editor.back(ctx)
            return True
        if ctx.state.get("menu"):
            ctx.state.pop("menu")
            return True
        return False

    def build(self, ctx: Ctx) -> View:
        root = View(cls="android.widget.LinearLayout", bounds=ctx.frame, resource_id=T.rid("main_root"))
        editing = ctx.state.get("edit") is not None
        pane = View(cls="android.widget.FrameLayout", bounds=ctx.frame,
                    resource_id=T.rid("detail" if editing else "master"))
        if editing:
            pane.add(editor.build(ctx))
        else:
            def open_task(task_id: int | None) -> None:
                editor.open_editor(ctx, task_id)

            pane.add(tasklist.build(ctx, open_task))
        root.add(pane)
        return root

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        return editor.dialog(ctx, dialog)
