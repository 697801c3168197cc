"""MainActivity: the conversation list under Simple-Commons' search bar, the FAB, the conversations' action mode
and, until the app holds the SMS role, the permission controller's role request over it.

Start (MainActivity.kt:47-79, 215-285): ``appLaunched``; then on API 29+ the SMS role: not held, the role request
(RoleManager.createRequestRoleIntent, answered in onActivityResult: not OK finishes the activity, :194-203); held,
READ_SMS, SEND_SMS (either denied finishes), READ_CONTACTS and POST_NOTIFICATIONS (denied: "Permission Required"),
then the conversations: the cache first, then the provider's threads (:287-372).
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.permissions import request_permissions
from emukit.vdevice.apps.sms import cab
from emukit.vdevice.apps.sms import data as D
from emukit.vdevice.apps.sms.data import PACKAGE, T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
THREAD = ".activities.ThreadActivity"
NEW_CONVERSATION = ".activities.NewConversationActivity"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
SEARCH_H = dp(56)
ROW_H = dp(88)
READ_SMS, SEND_SMS = "android.permission.READ_SMS", "android.permission.SEND_SMS"
READ_CONTACTS, NOTIFICATIONS = "android.permission.READ_CONTACTS", "android.permission.POST_NOTIFICATIONS"
ASK = (READ_SMS, SEND_SMS, READ_CONTACTS, NOTIFICATIONS)  # handlePermission one at a time, in this order


def open_thread(ctx: Ctx, thread_id: int, title: str, number: str = "") -> None:
    extras = {"thread_id": str(thread_id), "thread_title": title}
    if number:
        extras["thread_number"] = number
    ctx.start(THREAD, extras)


class MainScreen(Screen):
    activity = ".activities.MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.app_launched(ctx.device)
        ctx.state["pending_load"] = True  # loadMessages once the activity is in front (it may start another)

    # ------------------------------------------------------------------------------ start: role, permissions
    def _load_messages(self, ctx: Ctx) -> None:
        if D.role_holder(ctx.device) == PACKAGE:
            self._ask(ctx, 0)
        else:
            ctx.open_dialog("role", checked=False)

    def _ask(self, ctx: Ctx, step: int) -> None:
        if step >= len(ASK):
            self._init_messenger(ctx)
            return
        request_permissions(ctx.device, ctx.act, [ASK[step]], 100 + step)

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        step = code - 100
        if not 0 <= step < len(ASK):
            return
        granted = bool(results.get(ASK[step]))
        if ASK[step] in (READ_SMS, SEND_SMS) and not granted:
            ctx.device.finish_top()
            return
        if ASK[step] == NOTIFICATIONS and not granted:
            ctx.open_dialog("notifications_required")
        self._ask(ctx, step + 1)

    def _init_messenger(self, ctx: Ctx) -> None:
        ctx.state["loaded"] = True
        D.cache_conversations(ctx.device)

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.pop("pending_load", False):
            self._load_messages(ctx)
        elif ctx.state.get("loaded"):  # EventBus RefreshMessages from a closing thread (ThreadActivity.kt:209)
            D.cache_conversations(ctx.device)

    # ------------------------------------------------------------------------------ back
    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.pop("menu", None):
            return True
        if ctx.state.get("selected") is not None:
            ctx.state.pop("selected")
            return True
        if ctx.state.get("query"):
            ctx.state.pop("query")
            ctx.device.state.ui.focused_id = None
            return True
        return False

    def cancel_dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> None:
        ctx.close_dialog()
        if dialog["kind"] == "role":  # a cancelled request: RESULT_CANCELED finishes MainActivity
            ctx.device.finish_top()

    # ------------------------------------------------------------------------------ build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("main_root"), style=Style(bg=theme.BACKGROUND))
        selected = ctx.state.get("selected")
        root.add(self._search_bar(ctx))
        body = (frame[0], frame[1] + SEARCH_H + dp(8), frame[2], frame[3])
        holder = View(cls="android.widget.RelativeLayout", bounds=body, resource_id=f"{PACKAGE}:id/main_holder")
        if ctx.state.get("loaded"):
            holder.add(self._list(ctx, body))
        root.add(holder)
        if ctx.state.get("loaded"):
            root.add(parts.fab(ctx, "fab_new_conversation", "plus", lambda: ctx.start(NEW_CONVERSATION)))
        if selected is not None:
            items = self._cab_items(ctx)
            total = len(D.conversations(ctx.device))
            root.add(cab.bar(ctx, len(selected), total, items, on_close=lambda: ctx.state.pop("selected", None),
                             on_title=lambda: self._select_all(ctx)))
            menu = cab.overflow(ctx, items)
            if menu is not None:
                root.add(menu)
        else:
            menu = parts.overflow_menu(ctx, "toolbar", self._menu(ctx), cab.OVERFLOW_TITLE)
            if menu is not None:
                root.add(menu)
        return root

    def _menu(self, ctx: Ctx) -> list[parts.MenuItem]:
        def nothing() -> None:
            return None

        return [parts.MenuItem("menu_settings", "settings", nothing), parts.MenuItem("menu_about", "info", nothing),
                parts.MenuItem("overflow_show_archived", "more_vert", nothing, always=False)]

    def _search_bar(self, ctx: Ctx) -> View:
        left, top, right, _ = ctx.frame
        bar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + SEARCH_H + dp(8)),
                   resource_id=T.rid("top_app_bar_layout"))
        inner = View(cls="android.widget.RelativeLayout",
                     bounds=(left + dp(8), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)),
                     resource_id=T.rid("main_menu"), style=Style(bg=theme.SURFACE_VARIANT, radius=dp(28)))
        inner.add(View(cls="android.widget.ImageView",
                       bounds=(left + dp(16), top + dp(16), left + dp(48), top + dp(48)),
                       resource_id=T.rid("search_icon"),
                       style=Style(icon="search", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))

        def set_query(text: str) -> None:
            ctx.state["query"] = text

        inner.add(w.text_field((left + dp(56), top + dp(4), right - dp(160), top + SEARCH_H + dp(4)),
                               ctx.state.get("query", ""), set_query, key=T.rid("search_field"), hint="Search",
                               rid=T.rid("search_field"), outlined=False))
        sub = ctx.app.ctx(ctx.device, ctx.act, (right - dp(152), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)))
        toolbar = parts.toolbar(sub, "toolbar", "", self._menu(ctx))
        toolbar.style = Style()
        inner.add(toolbar)
        bar.add(inner)
        return bar

    def _list(self, ctx: Ctx, body: tuple[int, int, int, int]) -> View:
        query = str(ctx.state.get("query", ""))
        if len(query) >= 2:
            return self._search(ctx, body, query)
        convs = D.conversations(ctx.device)
        if not convs:
            box = View(bounds=body)
            box.add(w.label((body[0], body[1] + dp(32), body[2], body[1] + dp(88)), T.text("no_conversations"),
                            rid=T.rid("no_conversations"), align="center", color=theme.TEXT_SECONDARY))

            box.add(View(cls="android.widget.TextView", bounds=(body[0] + dp(80), body[1] + dp(96),
                                                                 body[2] - dp(80), body[1] + dp(144)),
                         text=T.text("start_conversation"), resource_id=T.rid("start_conversation"), clickable=True,
                         on_click=lambda: ctx.start(NEW_CONVERSATION),
                         style=Style(fg=theme.PRIMARY, align="center", font_size=theme.TEXT_BODY_L)))
            return box
        drafts = D.drafts(ctx.device)
        rows = [(ROW_H, lambda top, c=c: self._row(ctx, body, top, c, drafts.get(c["thread_id"]))) for c in convs]
        return parts.recycler(ctx, "conversations_list", body, rows)

    def _row(self, ctx: Ctx, body: tuple[int, int, int, int], top: int, conv: dict[str, Any],
             draft: str | None) -> View:
        """item_conversation.xml: the frame, the avatar, the address, the snippet (or the draft) and the date."""
        selected = ctx.state.get("selected")
        tid = conv["thread_id"]

        def click() -> None:
            if selected is not None:
                self._toggle(ctx, tid)
            else:
                open_thread(ctx, tid, conv["title"])

        def long_click() -> None:
            if ctx.state.get("selected") is None:
                ctx.state["selected"] = []
            if tid not in ctx.state["selected"]:
                ctx.state["selected"] = [*ctx.state["selected"], tid]

        left, _, right, _ = body
        frame = View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + ROW_H - dp(2)),
                     resource_id=T.rid("conversation_row"), clickable=True, focusable=True, long_clickable=True,
                     on_click=click, on_long_click=long_click, selected=bool(selected and tid in selected),
                     style=cab.row_background(bool(selected and tid in selected)))
        holder = View(cls="android.widget.RelativeLayout", bounds=frame.bounds,
                      resource_id=f"{PACKAGE}:id/conversation_holder")
        holder.add(View(cls="android.widget.ImageView", bounds=(left + dp(16), top + dp(16), left + dp(64),
                                                                top + dp(64)),
                        resource_id=f"{PACKAGE}:id/conversation_image",
                        style=Style(bg=theme.PRIMARY, radius=dp(24), icon="person", icon_color=theme.ON_PRIMARY,
                                    icon_size=dp(28))))
        x = left + dp(80)
        unread = not conv["read"]
        holder.add(w.label((x, top + dp(12), right - dp(16), top + dp(38)), conv["title"],
                           rid=T.rid("conversation_address"), bold=unread, size=theme.TEXT_BODY_L))
        snippet_x = x
        if draft is not None:
            holder.add(w.label((x, top + dp(38), x + dp(48), top + dp(60)), T.text("conversation_draft"),
                               rid=T.rid("conversation_draft"), color=theme.PRIMARY, size=theme.TEXT_LABEL))
            snippet_x = x + dp(52)
        holder.add(w.label((snippet_x, top + dp(38), right - dp(16), top + dp(60)),
                           draft if draft is not None else conv["snippet"], rid=T.rid("conversation_snippet"),
                           bold=unread, size=theme.TEXT_LABEL, color=theme.TEXT))
        holder.add(w.label((x, top + dp(62), right - dp(16), top + dp(82)),
                           D.format_date_or_time(ctx.device, conv["date"], hide_time_at_other_days=True),
                           rid=T.rid("conversation_date"), size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
        frame.add(holder)
        return frame

    def _search(self, ctx: Ctx, body: tuple[int, int, int, int], query: str) -> View:
        """Search over the app's cache: conversations by title or number, messages by text (MainActivity.kt:498-561)."""
        q = f"%{query}%"
        convs = D.STORE.rows(ctx.device, "SELECT * FROM conversations WHERE title LIKE ? OR phone_number LIKE ?", (q, q))
        msgs = D.STORE.rows(ctx.device, "SELECT * FROM messages WHERE body LIKE ? ORDER BY id DESC", (q,))
        hits = [(c["title"], c["phone_number"], c["thread_id"]) for c in convs]
        hits += [(m["sender_name"], m["body"], m["thread_id"]) for m in msgs]
        box = View(cls="android.widget.RelativeLayout", bounds=body, resource_id=f"{PACKAGE}:id/search_holder")
        if not hits:
            box.add(w.label((body[0], body[1] + dp(16), body[2], body[1] + dp(56)), "No items found.",
                            rid=f"{PACKAGE}:id/search_placeholder", align="center", color=theme.TEXT_SECONDARY))
            return box

        def hit_row(top: int, title: str, text: str, tid: int) -> View:
            row = View(cls="android.widget.FrameLayout", bounds=(body[0], top, body[2], top + dp(72)),
                       resource_id=f"{PACKAGE}:id/search_result_holder", clickable=True,
                       on_click=lambda: open_thread(ctx, tid, title))
            row.add(w.label((body[0] + dp(80), top + dp(8), body[2] - dp(16), top + dp(36)), title,
                            rid=f"{PACKAGE}:id/search_result_title", bold=True))
            row.add(w.label((body[0] + dp(80), top + dp(36), body[2] - dp(16), top + dp(64)), text,
                            rid=f"{PACKAGE}:id/search_result_snippet", size=theme.TEXT_LABEL))
            return row

        rows = [(dp(72), lambda top, h=h: hit_row(top, *h)) for h in hits]
        box.add(w.scroll_list(body, rows, int(ctx.state.get("search_scroll", 0)),
                              lambda v: ctx.state.__setitem__("search_scroll", v),
                              rid=f"{PACKAGE}:id/search_results_list"))
        return box

    # ------------------------------------------------------------------------------ action mode
    def _toggle(self, ctx: Ctx, tid: int) -> None:
        selected = list(ctx.state.get("selected") or [])
        if tid in selected:
            selected.remove(tid)
        else:
            selected.append(tid)
        ctx.state["selected"] = selected

    def _select_all(self, ctx: Ctx) -> None:
        ids = [c["thread_id"] for c in D.conversations(ctx.device)]
        if len(ctx.state.get("selected") or []) == len(ids):
            ctx.state.pop("selected", None)
        else:
            ctx.state["selected"] = ids

    def _chosen(self, ctx: Ctx) -> list[dict[str, Any]]:
        ids = ctx.state.get("selected") or []
        return [c for c in D.conversations(ctx.device) if c["thread_id"] in ids]

    def _cab_items(self, ctx: Ctx) -> list[parts.MenuItem]:
        """cab_conversations.xml as prepareActionMode shows it for the selection (ConversationsAdapter.kt:26-45)."""
        chosen = self._chosen(ctx)
        single = len(chosen) == 1

        def copy_number() -> None:
            if chosen:
                number = chosen[0]["phone_number"]
                ctx.device.clipboard.set(number, label="Simple Commons")
                ctx.toast(f"Value copied to clipboard:\n{number}")
            ctx.state.pop("selected", None)

        def mark(read: bool) -> None:
            for c in chosen:
                if read:
                    ctx.device.telephony.mark_read(c["thread_id"])
            ctx.state.pop("selected", None)

        def nothing() -> None:
            return None

        items = [parts.MenuItem("cab_delete", "delete", lambda: ctx.open_dialog("delete_conversations"))]
        if single:
            items += [parts.MenuItem("cab_add_number_to_contact", "person", nothing),
                      parts.MenuItem("cab_dial_number", "phone", nothing)]
        items.append(parts.MenuItem("cab_archive", "folder", nothing, always=False))
        if single:
            items.append(parts.MenuItem("cab_copy_number", "copy", copy_number, always=False))
        if any(not c["read"] for c in chosen):
            items.append(parts.MenuItem("cab_mark_as_read", "check", lambda: mark(True), always=False))
        items += [parts.MenuItem("cab_pin", "star", nothing, always=False),
                  parts.MenuItem("cab_select_all", "menu", lambda: self._select_all(ctx), always=False)]
        return items

    def _delete_selected(self, ctx: Ctx) -> None:
        """``deleteConversations``: each thread's rows go from the provider and the cache (Context.kt:674-693)."""
        for c in self._chosen(ctx):
            ctx.device.telephony.delete_thread(c["thread_id"])
            D.uncache_thread(ctx.device, c["thread_id"])
        ctx.state.pop("selected", None)

    # ------------------------------------------------------------------------------ dialogs
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        if kind == "role":
            return self._role_dialog(ctx, dialog)
        if kind == "delete_conversations":
            n = len(ctx.state.get("selected") or [])
            items = f"{n} conversation" + ("" if n == 1 else "s")
            return parts.confirm(ctx, T.text("delete_conversations_message", items=items),
                                 lambda: self._delete_selected(ctx), yes="Yes", no="No", title_rid="",
                                 message_rid=T.rid("delete_conversations_message"))
        if kind == "notifications_required":
            return w.dialog(ctx.frame, "Permission Required", T.text("notifications_required"),
                            buttons=[("Cancel", ctx.close_dialog), ("Grant Permission", ctx.close_dialog)],
                            on_dismiss=ctx.close_dialog, title_rid=f"{PACKAGE}:id/dialog_title_textview",
                            message_rid=f"{PACKAGE}:id/message")
        return None

    def _role_dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View:
        """RequestRoleFragment's dialog (the permission controller's window): the title, the list of qualifying
        apps (here only this app: no other SMS app is installed on the virtual device), Cancel and "Set as default",
        enabled once a row other than the holder's is checked."""
        checked = bool(dialog.get("checked"))

        def check() -> None:
            dialog["checked"] = True

        def set_default() -> None:
            ctx.close_dialog()
            D.set_role_holder(ctx.device, PACKAGE)
            self._ask(ctx, 0)  # onActivityResult RESULT_OK -> askPermissions

        def cancel() -> None:
            self.cancel_dialog(ctx, dialog)

        def content(box: tuple[int, int, int, int]) -> list[View]:
            height = dp(88) if checked else dp(56)
            listing = View(cls=T.cls("role_list"), bounds=(box[0], box[1], box[2], box[1] + height),
                           resource_id=T.rid("role_list"))
            row = View(cls="android.widget.LinearLayout", bounds=listing.bounds, clickable=True, checkable=True,
                       checked=checked, on_click=check, style=Style(radius=dp(12)))
            row.add(View(cls="android.widget.ImageView", bounds=(box[0] + dp(8), box[1] + dp(12), box[0] + dp(40),
                                                                  box[1] + dp(44)),
                         resource_id="com.android.permissioncontroller:id/icon",
                         style=Style(icon="sms.app", icon_color=theme.PRIMARY, icon_size=dp(28))))
            row.add(w.label((box[0] + dp(52), box[1] + dp(8), box[2] - dp(48), box[1] + dp(36)),
                            T.text("role_app_row"), rid=T.rid("role_app_row")))
            if checked:
                row.add(w.label((box[0] + dp(52), box[1] + dp(36), box[2] - dp(48), box[1] + dp(84)),
                                T.text("role_app_subtitle"), rid=T.rid("role_app_subtitle"), size=theme.TEXT_SMALL,
                                color=theme.TEXT_SECONDARY, max_lines=3, valign="top"))
            row.add(View(cls="android.widget.RadioButton", bounds=(box[2] - dp(44), box[1] + dp(12), box[2] - dp(12),
                                                                    box[1] + dp(44)),
                         checkable=True, checked=checked,
                         style=Style(icon="check" if checked else None, icon_color=theme.PRIMARY,
                                     icon_size=dp(24))))
            listing.add(row)
            return [listing]

        layer = w.dialog(ctx.frame, T.text("role_title"), content=content,
                         content_height=dp(96) if checked else dp(64),
                         buttons=[(T.text("role_cancel"), cancel), (T.text("role_set_default"), set_default)],
                         title_rid=T.rid("role_title"))
        for view in layer.walk():
            if view.resource_id == T.rid("role_set_default") and not checked:
                view.enabled, view.on_click = False, None
        layer.fill_package(PERMISSION_CONTROLLER)
        return layer
