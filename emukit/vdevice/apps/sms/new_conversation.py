"""NewConversationActivity (activity_new_conversation.xml): the toolbar "New conversation", the number field
``new_conversation_address`` (focused, keyboard up, NewConversationActivity.kt:47-48) and the check mark
``new_conversation_confirm`` that shows once the field holds more than 2 characters (:84) and opens ThreadActivity
for that number (THREAD_ID from ``Threads.getOrCreateThreadId``, the title and number the typed text, :88-96,
241-266). NewConversationActivity stays under the thread (it does not finish). Contacts are not modelled: the
suggestions and the contact list stay empty."""

from __future__ import annotations

from emukit.vdevice.apps.sms.data import PACKAGE, T
from emukit.vdevice.apps.sms.main import open_thread
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
HINT = "Add Contact or Number\u2026"  # add_contact_or_number (sms:app/src/main/res/values/strings.xml:32)


class NewConversationScreen(Screen):
    activity = ".activities.NewConversationActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state.setdefault("number", "")
        ctx.state["text"] = extras.get("text", "")  # Intent.EXTRA_TEXT of a forwarded message
        ctx.state["focus"] = True

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.pop("focus", False):
            ctx.device.state.ui.focused_id = T.rid("new_conversation_address")

    def _confirm(self, ctx: Ctx) -> None:
        number = str(ctx.state.get("number", "")).strip()
        if any(c.isalpha() for c in number):  # isShortCodeWithLetters: "Can't reply to short codes like this"
            ctx.state["number"] = ""
            ctx.toast("Can't reply to short codes like this")
            return
        ctx.device.state.ui.focused_id = None  # hideKeyboard
        thread_id = ctx.device.telephony.thread_id_for(number)
        open_thread(ctx, thread_id, number, number)
        if ctx.state.get("text"):
            ctx.device.top.state["text"] = ctx.state["text"]

    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("new_conversation_root"), style=Style(bg=theme.BACKGROUND))
        root.add(parts.toolbar(ctx, "new_conversation_toolbar", T.text("new_conversation_title"),
                               on_up=ctx.device.finish_top))
        top = frame[1] + parts.TOOLBAR_H
        holder = View(cls="android.widget.RelativeLayout", bounds=(frame[0], top, frame[2], frame[3]),
                      resource_id=f"{PACKAGE}:id/new_conversation_holder")

        def set_number(text: str) -> None:
            ctx.state["number"] = text

        number = str(ctx.state.get("number", ""))
        holder.add(w.text_field((frame[0] + dp(16), top, frame[2] - dp(64), top + dp(56)), number, set_number,
                                key=T.rid("new_conversation_address"), hint=HINT,
                                rid=T.rid("new_conversation_address"), outlined=False,
                                on_submit=lambda: None))
        if len(number) > 2:
            holder.add(View(cls=T.cls("new_conversation_confirm"),
                            bounds=(frame[2] - dp(56), top + dp(4), frame[2] - dp(8), top + dp(52)),
                            resource_id=T.rid("new_conversation_confirm"), clickable=True,
                            on_click=lambda: self._confirm(ctx),
                            style=Style(icon="check", icon_color=theme.TEXT, icon_size=dp(24))))
        holder.add(View(cls="android.widget.ImageView", bounds=(frame[0], top + dp(56), frame[2], top + dp(57)),
                        resource_id=f"{PACKAGE}:id/add_contact_divider", style=Style(bg=theme.OUTLINE)))
        holder.add(View(cls="androidx.recyclerview.widget.RecyclerView",
                        bounds=(frame[0], top + dp(64), frame[2], frame[3]), resource_id=T.rid("contacts_list")))
        root.add(holder)
        return root
