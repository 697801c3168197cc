"""Tasks.org's gallery: the empty list, the list with tasks, the overflow menu, a new task, an existing task and
its delete confirmation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.apps.tasks import editor

if TYPE_CHECKING:
    from emukit.vdevice.apps.tasks import TasksApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: TasksApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "my tasks (empty)"
    now = device.wall_ms()
    for title, notes, due in (("Buy milk", "Two litres", now + 3 * 3600_000), ("Call Grandma", None, 0),
                              ("Water plants", None, now + 26 * 3600_000)):
        values = D.new_task(device)
        values.update(title=title, notes=notes, dueDate=due)
        D.save_task(device, values)
    yield "my tasks"
    main = device.top
    ctx = app.ctx(device, main)
    main.state["menu"] = "overflow:bottom_app_bar"
    yield "overflow menu"
    main.state.pop("menu")
    editor.open_editor(ctx, None)
    yield "new task"
    editor.close_editor(ctx)
    first = D.my_tasks(device)[0]
    editor.open_editor(ctx, int(first["_id"]))
    yield "existing task"
    ctx.open_dialog("delete")
    yield "delete confirmation"
