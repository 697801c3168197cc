"""The Calendar's gallery: the month view with events, a day, the event list, the editor and its dialogs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.calendar import data as D
from emukit.vdevice.kit import pickers

if TYPE_CHECKING:
    from emukit.vdevice.apps.calendar import CalendarApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: CalendarApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "month view (empty)"
    now = device.wall_ms() // 1000
    for i, (title, desc) in enumerate((("Dentist", "Bring the forms"), ("Team sync", ""), ("Flight to Oslo", ""))):
        D.save_event(device, {"title": title, "description": desc, "start_ts": now + 3600 * (2 + 26 * i),
                              "end_ts": now + 3600 * (3 + 26 * i)}, None)
    yield "month view"
    main = device.top
    main.state["day"] = D.local(device, now + 7200).date().isoformat()
    yield "day view"
    main.state.pop("day")
    main.state["fab_open"] = True
    yield "new event button expanded"
    main.state.pop("fab_open")
    D.set_view(device, D.EVENTS_LIST_VIEW)
    yield "simple event list"
    ctx = app.ctx(device, main)
    ctx.open_dialog("view")
    yield "change view dialog"
    ctx.close_dialog()
    from emukit.vdevice.apps.calendar.main import open_editor

    open_editor(ctx)
    yield "new event editor"
    editor = device.top
    ectx = app.ctx(device, editor)
    first = D.events(device)[0]
    pickers.open_date(ectx, "start", D.local(device, first["start_ts"]).date())
    yield "date picker"
    pickers.open_time(ectx, "start", 10, 0)
    yield "time picker"
    ectx.close_dialog()
    device.finish_top()
    open_editor(ctx, first["id"])
    editor = device.top
    app.ctx(device, editor).open_dialog("delete")
    yield "delete confirmation"
