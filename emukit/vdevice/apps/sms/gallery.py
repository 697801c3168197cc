"""SMS Messenger's gallery: the empty list, conversations, a thread, its action mode, a new conversation and the
delete confirmations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.apps.sms import SmsApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: SmsApp, device: VirtualDevice) -> Iterator[str]:
    from emukit.vdevice.apps.sms.main import NEW_CONVERSATION, open_thread

    device.start_activity(app.package)
    yield "conversation list (empty)"
    tel = device.telephony
    tel.deliver("+15550101", "Are we still on for lunch?")
    tel.send("+15550101", "Yes, 12:30 at the usual place")
    tel.deliver("+15550177", "Your parcel is on its way")
    yield "conversation list"
    main = device.top
    ctx = app.ctx(device, main)
    first = tel.threads()[-1]
    main.state["selected"] = [int(first["_id"])]
    yield "conversation action mode"
    ctx.open_dialog("delete_conversations")
    yield "delete conversations confirmation"
    ctx.close_dialog()
    main.state.pop("selected")
    open_thread(ctx, int(first["_id"]), first["address"])
    yield "thread"
    thread = device.top
    thread.state["selected"] = [tel.messages(thread_id=int(first["_id"]))[0]["_id"]]
    yield "message action mode"
    app.ctx(device, thread).open_dialog("delete_messages")
    yield "delete message confirmation"
    app.ctx(device, thread).close_dialog()
    thread.state.pop("selected")
    device.finish_top()
    ctx.start(NEW_CONVERSATION)
    yield "new conversation"
