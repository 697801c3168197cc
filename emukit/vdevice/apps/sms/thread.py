"""ThreadActivity: one conversation (activity_thread.xml): the toolbar titled with the conversation, the messages
oldest first with date rows, the compose field ``thread_type_message`` and the send button; a long press on a
bubble starts the message action mode (cab_thread.xml).

* Send (ThreadActivity.kt:1331-1405): the field's text goes to the number as an SMS, written through the provider
  (the Telephony service's ``send``: a read ``sent`` row), the field is cleared; the button is disabled while the
  field is empty (:1315-1329).
* The field's text is kept as a draft in the provider's draft box when the screen is left, and put back when it
  comes back (:176-179, 200-211).
* Opening a thread marks its unread messages read (:1127-1131, markMessageRead).
* Delete in the toolbar asks "Are you sure you want to delete all messages of this conversation?" Yes / No, then
  deletes and finishes (:952-967); a message's Delete asks "Are you sure you want to delete 1 message?" and
  finishes when no message is left (:527-541).
* "Copy to clipboard" copies the selected message's body (ThreadAdapter.kt:166-169); Share and Forward are
  intents, not clipboard copies.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.sms import cab
from emukit.vdevice.apps.sms import data as D
from emukit.vdevice.apps.sms.data import PACKAGE, T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
COMPOSE_H = dp(64)
FIELD = "compose_field"
HINT = "Type a message\u2026"  # type_a_message (sms:app/src/main/res/values/strings.xml:5)


class ThreadScreen(Screen):
    activity = ".activities.ThreadActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if ctx.state.get("thread_id") is not None:
            return
        if not extras.get("thread_id"):
            ctx.toast("An unknown error occurred")  # ThreadActivity.kt:132-137
            ctx.device.finish_top()
            return
        thread_id = int(extras["thread_id"])
        number = extras.get("thread_number") or ""
        if not number:
            thread = next((t for t in ctx.device.telephony.threads() if int(t["_id"]) == thread_id), None)
            number = (thread or {}).get("address") or ""
        ctx.state.update(thread_id=thread_id, number=number, title=extras.get("thread_title") or number,
                         text="")
        if not D.messages(ctx.device, thread_id):
            ctx.state["focus_field"] = True  # an empty thread focuses the field with the keyboard (:341-344)

    def on_resume(self, ctx: Ctx) -> None:
        tid = ctx.state.get("thread_id")
        if tid is None:
            return
        draft = D.draft(ctx.device, tid)
        if draft is not None:
            ctx.state["text"] = draft
        if ctx.state.pop("focus_field", False):
            ctx.device.state.ui.focused_id = T.rid(FIELD)
        self._mark_read(ctx)

    def on_pause(self, ctx: Ctx) -> None:
        tid = ctx.state.get("thread_id")
        if tid is not None and ctx.device.telephony is not None:
            D.save_draft(ctx.device, tid, ctx.state.get("number", ""), str(ctx.state.get("text", "")))

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.pop("menu", None):
            return True
        if ctx.state.get("selected") is not None:
            ctx.state.pop("selected")
            return True
        return False

    def _mark_read(self, ctx: Ctx) -> None:
        tid = int(ctx.state["thread_id"])
        if any(not int(m["read"]) for m in D.messages(ctx.device, tid)):
            ctx.device.telephony.mark_read(tid)

    # ------------------------------------------------------------------------------ actions
    def _send(self, ctx: Ctx) -> None:
        text = str(ctx.state.get("text", ""))
        number = str(ctx.state.get("number", ""))
        if not text:
            ctx.toast("An unknown error occurred")  # sendMessage with nothing to send (:1332-1336)
            return
        row = ctx.device.telephony.send(number, text, creator=PACKAGE)
        D.cache_message(ctx.device, row)
        if int(row["thread_id"]) != int(ctx.state["thread_id"]):
            ctx.state["thread_id"] = int(row["thread_id"])
        ctx.state["text"] = ""
        D.save_draft(ctx.device, int(ctx.state["thread_id"]), number, "")

    def _delete_conversation(self, ctx: Ctx) -> None:
        tid = int(ctx.state["thread_id"])
        ctx.device.telephony.delete_thread(tid)
        D.uncache_thread(ctx.device, tid)
        ctx.state["text"] = ""
        ctx.device.finish_top()

    def _delete_selected(self, ctx: Ctx) -> None:
        for msg_id in ctx.state.get("selected") or []:
            ctx.device.telephony.delete_message(int(msg_id))
            D.uncache_message(ctx.device, int(msg_id))
        ctx.state.pop("selected", None)
        if not D.messages(ctx.device, int(ctx.state["thread_id"])):
            ctx.device.finish_top()

    def _selected_messages(self, ctx: Ctx) -> list[dict[str, Any]]:
        ids = ctx.state.get("selected") or []
        return [m for m in D.messages(ctx.device, int(ctx.state["thread_id"])) if m["_id"] in ids]

    def _cab_items(self, ctx: Ctx) -> list[parts.MenuItem]:
        """cab_thread.xml as prepareActionMode shows it for one or more SMS (ThreadAdapter.kt:73-86)."""
        chosen = self._selected_messages(ctx)
        single = len(chosen) == 1
        has_text = single and bool(chosen[0]["body"])

        def copy() -> None:
            body = chosen[0]["body"]
            ctx.device.clipboard.set(body, label="Simple Commons")
            ctx.toast(f"Value copied to clipboard:\n{body}")

        def share() -> None:
            return None  # ACTION_SEND through the "Share via" chooser (not modelled); nothing reaches the clipboard

        def forward() -> None:
            ctx.state.pop("selected", None)
            ctx.start(".activities.NewConversationActivity", {"text": chosen[0]["body"]})

        def nothing() -> None:
            return None

        items: list[parts.MenuItem] = []
        if has_text:
            items += [parts.MenuItem("cab_copy_to_clipboard", "copy", copy),
                      parts.MenuItem("cab_share", "share", share)]
        items.append(parts.MenuItem("cab_delete_message", "delete", lambda: ctx.open_dialog("delete_messages")))
        if single:
            items += [parts.MenuItem("cab_properties", "info", nothing, always=False),
                      parts.MenuItem("cab_forward", "arrow_forward", forward, always=False)]
        if has_text:
            items.append(parts.MenuItem("cab_select_text", "edit", lambda: ctx.open_dialog("select_text"),
                                        always=False))
        items.append(parts.MenuItem("cab_select_all", "menu", lambda: self._select_all(ctx), always=False))
        return items

    def _select_all(self, ctx: Ctx) -> None:
        ids = [m["_id"] for m in D.messages(ctx.device, int(ctx.state["thread_id"]))]
        ctx.state["selected"] = [] if len(ctx.state.get("selected") or []) == len(ids) else ids
        if not ctx.state["selected"]:
            ctx.state.pop("selected")

    # ------------------------------------------------------------------------------ build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("thread_root"), style=Style(bg=theme.BACKGROUND))
        tid = ctx.state.get("thread_id")
        if tid is None:
            return root
        msgs = D.messages(ctx.device, int(tid))
        menu = [parts.MenuItem("thread_delete", "delete", lambda: ctx.open_dialog("delete_conversation")),
                parts.MenuItem("thread_dial_number", "phone", lambda: None),
                parts.MenuItem("thread_add_person", "person", lambda: None)]
        if not msgs:  # the Delete item shows only with messages (ThreadActivity.kt:254)
            menu = menu[1:]
        selected = ctx.state.get("selected")
        if selected is not None:
            items = self._cab_items(ctx)
            root.add(cab.bar(ctx, len(selected), len(msgs), items, on_close=lambda: ctx.state.pop("selected", None),
                             on_title=lambda: self._select_all(ctx)))
        else:
            root.add(parts.toolbar(ctx, "thread_toolbar", str(ctx.state.get("title", "")), menu,
                                   on_up=ctx.device.finish_top))
        body_top = frame[1] + parts.TOOLBAR_H
        holder = View(cls="androidx.constraintlayout.widget.ConstraintLayout",
                      bounds=(frame[0], body_top, frame[2], frame[3]), resource_id=f"{PACKAGE}:id/thread_holder")
        area = (frame[0], body_top, frame[2], frame[3] - COMPOSE_H)
        holder.add(self._messages(ctx, area, msgs))
        holder.add(self._compose(ctx, (frame[0], frame[3] - COMPOSE_H, frame[2], frame[3])))
        root.add(holder)
        if selected is not None:
            overflow = cab.overflow(ctx, self._cab_items(ctx))
            if overflow is not None:
                root.add(overflow)
        return root

    def _messages(self, ctx: Ctx, area: tuple[int, int, int, int], msgs: list[dict[str, Any]]) -> View:
        """getThreadItems: a date row when a message comes more than 300 s after the last dated one, the bubbles,
        the check under the last message when it is a sent one (ThreadActivity.kt:1094-1140)."""
        rows: list[tuple[int, Any]] = []
        prev = 0
        selected = ctx.state.get("selected")
        for i, m in enumerate(msgs):
            secs = D.seconds(int(m["date"]))
            if secs - prev > D.MIN_DATE_TIME_DIFF_SECS:
                prev = secs
                text = D.format_date_or_time(ctx.device, secs, hide_time_at_other_days=False)
                rows.append((dp(40), lambda top, text=text: self._date_row(area, top, text)))
            lines = max(1, min(6, len(m["body"]) // 28 + 1))
            rows.append((dp(28) + lines * dp(22), lambda top, m=m, lines=lines: self._bubble(
                ctx, area, top, m, lines, bool(selected and m["_id"] in selected))))
            if int(m["type"]) == D.TYPE_OUTBOX:
                rows.append((dp(28), lambda top: w.label((area[0] + dp(16), top, area[2] - dp(16), top + dp(24)),
                                                         T.text("thread_sending"), rid=T.rid("thread_sending"),
                                                         align="right", size=theme.TEXT_SMALL)))
            if i == len(msgs) - 1 and int(m["type"]) == D.TYPE_SENT:
                rows.append((dp(28), lambda top: View(
                    cls="android.widget.ImageView", bounds=(area[2] - dp(40), top + dp(2), area[2] - dp(16),
                                                             top + dp(26)),
                    resource_id=T.rid("thread_success"),
                    style=Style(icon="check", icon_color=theme.TEXT_SECONDARY, icon_size=dp(18)))))
        total = sum(h for h, _ in rows)
        # stackFromEnd: the newest message sits at the bottom; the list starts scrolled to the end
        scroll = ctx.state.get("scroll")
        if scroll is None:
            scroll = max(0, total - (area[3] - area[1]))

        def set_scroll(value: int) -> None:
            ctx.state["scroll"] = value

        return w.scroll_list(area, rows, int(scroll), set_scroll, rid=T.rid("thread_messages_list"),
                             cls=T.cls("thread_messages_list"))

    @staticmethod
    def _date_row(area: tuple[int, int, int, int], top: int, text: str) -> View:
        holder = View(cls="android.widget.RelativeLayout", bounds=(area[0], top, area[2], top + dp(40)),
                      resource_id=f"{PACKAGE}:id/thread_date_time_holder")
        holder.add(w.label((area[0], top + dp(8), area[2], top + dp(36)), text, rid=T.rid("thread_date_time"),
                           align="center", size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
        return holder

    def _bubble(self, ctx: Ctx, area: tuple[int, int, int, int], top: int, m: dict[str, Any], lines: int,
                selected: bool) -> View:
        """item_message.xml: the holder row, the wrapper at most 80% wide, the body bubble; received ones start
        left, sent ones end right (ThreadAdapter.kt:275-330)."""
        height = dp(28) + lines * dp(22)
        received = int(m["type"]) == D.TYPE_INBOX
        left, _, right, _ = area
        width = (right - left) * 8 // 10
        x0 = left + dp(16) if received else right - dp(16) - width
        msg_id = m["_id"]

        def long_click() -> None:
            sel = list(ctx.state.get("selected") or [])
            if msg_id not in sel:
                sel.append(msg_id)
            ctx.state["selected"] = sel

        def click() -> None:
            sel = ctx.state.get("selected")
            if sel is None:
                return
            sel = list(sel)
            if msg_id in sel:
                sel.remove(msg_id)
            else:
                sel.append(msg_id)
            ctx.state["selected"] = sel

        row = View(cls="androidx.constraintlayout.widget.ConstraintLayout", bounds=(left, top, right, top + height),
                   resource_id=T.rid("message_holder_row"), selected=selected,
                   style=cab.row_background(selected))
        wrapper = View(cls="android.widget.RelativeLayout", bounds=(x0, top + dp(4), x0 + width, top + height),
                       resource_id=f"{PACKAGE}:id/thread_message_wrapper")
        wrapper.add(View(cls=T.cls("message_body"), bounds=(x0, top + dp(4), x0 + width, top + height - dp(4)),
                         text=m["body"], resource_id=T.rid("message_body"), clickable=True, long_clickable=True,
                         on_click=click, on_long_click=long_click,
                         style=Style(bg=theme.SURFACE_VARIANT if received else theme.PRIMARY_CONTAINER,
                                     fg=theme.TEXT, radius=dp(16), padding=dp(12), font_size=theme.TEXT_BODY,
                                     max_lines=lines, valign="top")))
        row.add(wrapper)
        return row

    def _compose(self, ctx: Ctx, box: tuple[int, int, int, int]) -> View:
        """layout_thread_send_message_holder.xml: attachment, the field, the send button."""
        left, top, right, bottom = box
        holder = View(cls="androidx.constraintlayout.widget.ConstraintLayout", bounds=box,
                      resource_id=f"{PACKAGE}:id/message_holder", style=Style(bg=theme.SURFACE_VARIANT))
        holder.add(View(cls="android.widget.ImageView", bounds=(left + dp(8), top + dp(8), left + dp(56),
                                                                top + dp(56)),
                        resource_id=T.rid("attach_button"), content_desc=T.desc("attach_button"), clickable=True,
                        style=Style(icon="plus", icon_color=theme.TEXT, icon_size=dp(24))))

        def set_text(text: str) -> None:
            ctx.state["text"] = text

        text = str(ctx.state.get("text", ""))
        holder.add(w.text_field((left + dp(64), top + dp(4), right - dp(72), bottom - dp(4)), text, set_text,
                                key=T.rid(FIELD), hint=HINT,
                                rid=T.rid(FIELD), outlined=False, max_lines=3))
        enabled = bool(text)
        holder.add(View(cls=T.cls("send_button"), bounds=(right - dp(64), top + dp(8), right - dp(8), bottom - dp(8)),
                        text=T.text("send_button"), content_desc=T.desc("send_button"),
                        resource_id=T.rid("send_button"), clickable=enabled, enabled=enabled,
                        on_click=(lambda: self._send(ctx)) if enabled else None,
                        style=Style(fg=theme.TEXT if enabled else theme.TEXT_HINT, icon="sms.send",
                                    icon_color=theme.TEXT if enabled else theme.TEXT_HINT, icon_size=dp(20),
                                    icon_pos="top", font_size=theme.TEXT_SMALL, align="center")))
        return holder

    # ------------------------------------------------------------------------------ dialogs
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        if kind == "delete_conversation":
            return parts.confirm(ctx, T.text("delete_conversation_message"), lambda: self._delete_conversation(ctx),
                                 yes="Yes", no="No", title_rid="", message_rid=T.rid("delete_conversation_message"))
        if kind == "delete_messages":
            n = len(ctx.state.get("selected") or [])
            items = f"{n} message" + ("" if n == 1 else "s")
            return parts.confirm(ctx, T.text("delete_messages_message", items=items),
                                 lambda: self._delete_selected(ctx), yes="Yes", no="No", title_rid="",
                                 message_rid=T.rid("delete_messages_message"))
        if kind == "select_text":
            chosen = self._selected_messages(ctx)
            body = chosen[0]["body"] if chosen else ""

            def content(box: tuple[int, int, int, int]) -> list[View]:
                return [View(cls=T.cls("select_text_value"), bounds=box, text=body,
                             resource_id=T.rid("select_text_value"), long_clickable=True, focusable=True,
                             key=T.rid("select_text_value"), style=Style(fg=theme.TEXT, max_lines=4, valign="top"))]

            return w.dialog(ctx.frame, "", content=content, content_height=dp(96), buttons=[("OK", ctx.close_dialog)],
                            on_dismiss=ctx.close_dialog, title_rid="")
        return None
