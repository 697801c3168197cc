"""Simple SMS Messenger 5.19.3 (``com.simplemobiletools.smsmessenger``, versionCode 85, the build android_world
installs): become the default SMS app, start a conversation, send a message, open a conversation, copy a message and
paste it into the compose field, delete a message or a conversation; the messages read as android_world reads them;
the ``messages:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/com.simplemobiletools.smsmessenger/85.yaml``; repos ``sms``
SimpleMobileTools/Simple-SMS-Messenger 8b27d9f3 at tag 5.19.3, ``commons`` Simple-Commons b72ded2a and
``permission`` the AOSP Permission module).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "SMS Messenger"; until the app holds the SMS role every start shows the permission
  controller's request "Set SMS Messenger as your default SMS app?": the app's row ("SMS Messenger") must be tapped
  before "Set as default" is enabled; Cancel closes the app (MainActivity.kt:194-238);
* the FAB ``conversations_fab`` opens "New conversation"; its field ``new_conversation_address`` takes the number,
  the check mark ``new_conversation_confirm`` (shown after 3 characters) opens the conversation;
* the compose field ``thread_type_message`` and the send button ``thread_send_message`` ("SMS", disabled while the
  field is empty) send through the Telephony provider;
* a long press on a message bubble starts the action mode; its "Copy to clipboard" icon copies the whole body (the
  bubble is not selectable text); the compose field takes a paste through the framework's floating toolbar (long
  press, "Paste"); "Share" and "Forward" are intents, not copies;
* a long press on a conversation row starts the conversations' action mode; Delete asks "Are you sure you want to
  delete 1 conversation?" Yes / No; the thread's toolbar Delete asks "Are you sure you want to delete all messages
  of this conversation?".

The messages probe (:func:`read_messages`) runs ``content query --uri content://sms`` over adb, as android_world
reads ``content://sms/sent`` and ``/inbox`` (android_world d9c569f7 task_evals/common_validators/sms_validators.py:
211-226); the provider, not the app's ``conversations.db`` cache, is what the app shows and what a device keeps.
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.apps.dataspec import DbReading
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.simplemobiletools.smsmessenger"
MAIN = f"{PACKAGE}.activities.MainActivity"
#: the columns the probe asks for, body last (its text may hold ", " and "=")
COLUMNS = ("_id", "thread_id", "address", "date", "date_sent", "read", "seen", "status", "type", "body")
BOXES = {"inbox": 1, "sent": 2, "draft": 3, "outbox": 4}
FIRST_RUN_STEPS = 8
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent


# ---------------------------------------------------------------------------------------------- probe
def parse_rows(output: str) -> list[dict[str, Any]]:
    """The rows ``content query`` prints (``Row: <n> col=value, ...``; ``No result found.``), for a projection
    that ends with ``body``: the body is everything after ``body=`` up to the next row."""
    text = output.replace("\r", "")
    if not text.strip() or text.lstrip().startswith("No result found."):
        return []
    rows = []
    for chunk in ("\n" + text).split("\nRow: ")[1:]:
        _, _, rest = chunk.partition(" ")
        head, sep, body = rest.partition(", body=")
        if not sep:
            head, body = rest.rstrip("\n"), None
        row: dict[str, Any] = {}
        for part in head.split(", "):
            key, _, value = part.partition("=")
            row[key] = None if value == "NULL" else (int(value) if value.lstrip("-").isdigit() else value)
        row["body"] = body.rstrip("\n") if body is not None else None
        rows.append(row)
    return rows


def read_messages(driver: Driver, box: str | None = None) -> DbReading:
    """Every SMS of the Telephony provider (or of one ``box``: inbox, sent, draft, outbox), newest first as the
    provider orders them; an explicit empty reading (``reason``) when there are none, as on a fresh device or after
    android_world's ``DELETE FROM sms``."""
    uri = "content://sms" + (f"/{box}" if box else "")
    out = driver.shell(f"content query --uri {uri} --projection {':'.join(COLUMNS)}", check=True).text
    if "Error while accessing provider" in out or "[ERROR]" in out:
        raise DeviceError(f"{driver.serial}: content query --uri {uri}: {out.strip()}")
    rows = parse_rows(out)
    return DbReading(rows=rows, reason=None if rows else f"{uri}: No result found.")


def default_sms_app(driver: Driver) -> str | None:
    value = driver.shell("settings get secure sms_default_application").text.strip()
    return value if value and value != "null" else None


# ---------------------------------------------------------------------------------------------- seed
class MessageSpec(BaseModel):
    """One SMS of a base snapshot: a received (``inbox``, unread unless ``read``) or a sent message."""

    model_config = ConfigDict(extra="forbid")
    address: str
    body: str
    box: Literal["inbox", "sent"] = "inbox"
    at: dt.datetime
    read: bool | None = None


class MessageSeed(SeedSection):
    """``messages:`` in a base snapshot spec: rows of the Telephony provider, inserted through ``content insert``
    (the provider's own insert keeps ``threads`` and ``canonical_addresses`` in step), the app stopped so that its
    next start lists them as it lists any provider change."""

    key: ClassVar[str] = "messages"
    item = MessageSpec

    @staticmethod
    def command(item: MessageSpec) -> str:
        at = item.at if item.at.tzinfo else item.at.replace(tzinfo=dt.UTC)
        read = item.read if item.read is not None else item.box == "sent"
        binds = [f"address:s:{item.address}", f"body:s:{item.body}", f"date:l:{int(at.timestamp() * 1000)}",
                 f"read:i:{int(read)}"]
        return (f"content insert --uri content://sms/{item.box} "
                + " ".join(f"--bind {shlex.quote(b)}" for b in binds))

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        driver.shell(f"am force-stop {PACKAGE}", check=True)
        for item in items:
            out = driver.shell(cls.command(item), check=True).text
            if "Error" in out or "[ERROR]" in out:
                raise DeviceError(f"{driver.serial}: seeding {item.address!r}: {out.strip()}")


@register_app
class SmsProfile(AppProfile):
    package = PACKAGE
    name = "sms"
    activity = MAIN
    seed = MessageSeed
    main_screens = ("main",)
    fixture_screens = ("conversations", "delete_conversation_confirm", "thread", "message_cab", "new_conversation")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``role_request`` (the default-SMS-app request), ``allow_button`` (a permission prompt), ``main`` (the
        conversation list), ``thread``, ``new_conversation`` or None while none is in front."""
        if self.driver.exists(**self.sel("role_title")):
            return "role_request"
        if self.driver.exists(**self.sel("permissions:allow_button")):
            return "allow_button"
        if self.driver.exists(**self.sel("main_root")):
            return "main"
        if self.driver.exists(**self.sel("thread_root")):
            return "thread"
        if self.driver.exists(**self.sel("new_conversation_root")):
            return "new_conversation"
        return None

    @operation
    def complete_first_run(self) -> None:
        """Start MainActivity and answer what it asks: the role request (the app's row, "Set as default", as
        android_world's setup taps them, apps.py:425-431) and any permission prompt, until the list shows. The
        start does not wait for the app's own window: the role request is the permission controller's."""
        self.driver.shell(f"am start -S -n {PACKAGE}/{MAIN}", check=True)
        for _ in range(FIRST_RUN_STEPS):
            screen = self.driver.wait_until(self.first_run_screen, "SMS Messenger or its role request")
            if screen == "main":
                return
            if screen == "role_request":
                self.driver.tap(**self.sel("role_app_row"))
                self.driver.wait_until(lambda: self.driver.exists(**self.sel("role_set_default"), enabled=True),
                                       '"Set as default" enabled')
                self.driver.tap(**self.sel("role_set_default"))
            elif screen == "allow_button":
                self.driver.tap(**self.sel("permissions:allow_button"))
            else:
                self.driver.back()
            self.driver.wait_stable()
        raise DeviceError(f"{self.driver.serial}: SMS Messenger still shows a first-run screen after "
                          f"{FIRST_RUN_STEPS} steps")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "SMS Messenger")

    def _to_list(self) -> None:
        """BACK until the conversation list shows (closing an action mode, a thread, a new conversation)."""
        for _ in range(4):
            if self.driver.exists(**self.sel("main_root")) and not self.driver.exists(**self.sel("cab_title")):
                return
            self.driver.back()
            self.driver.wait_stable()
        self.driver.element(**self.sel("main_root"))

    # ------------------------------------------------------------------ conversations
    @operation
    def open_conversation(self, title: str) -> None:
        """Tap the row whose title (the number, when no contact has it) is ``title``."""
        self._to_list()
        self.driver.tap(**self.sel("conversation_address"), text=title)
        self.driver.wait_until(lambda: self.driver.exists(**self.sel("thread_root")), f"the conversation {title!r}")

    @operation
    def new_conversation(self, number: str) -> None:
        """The FAB, the number, the check mark: the conversation with ``number`` (empty when new)."""
        self._to_list()
        self.driver.tap(**self.sel("fab_new_conversation"))
        self.driver.tap(**self.sel("new_conversation_address"))
        self.driver.type_text(number)
        self.driver.tap(**self.sel("new_conversation_confirm"))
        self.driver.wait_until(lambda: self.driver.exists(**self.sel("thread_root")), f"the conversation {number!r}")

    @operation
    def type_message(self, text: str) -> None:
        """Tap the compose field, clear it, type ``text``."""
        field = self.driver.element(**self.sel("compose_field"))
        self.driver.tap(*field.center)
        if field.text and field.text != "Type a message\u2026":
            self.driver.key(KEYCODE_MOVE_END)
            for _ in range(len(field.text)):
                self.driver.key(KEYCODE_DEL)
        if text:
            self.driver.type_text(text)

    @operation
    def send(self) -> None:
        """Tap the send button; the field empties when the message has gone to the provider."""
        self.driver.tap(**self.sel("send_button"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("send_button"), enabled=True),
                               "the compose field to clear after sending")

    @operation
    def send_message(self, number: str, text: str) -> None:
        """Open the conversation with ``number`` (a new one when it has none), type ``text`` and send it."""
        self._to_list()
        if self.driver.exists(**self.sel("conversation_address"), text=number):
            self.open_conversation(number)
        else:
            self.new_conversation(number)
        self.type_message(text)
        self.send()

    @operation
    def copy_message(self, body: str) -> None:
        """Long-press the bubble ``body`` in the open conversation, "Copy to clipboard", end the action mode."""
        self.driver.long_press(**self.sel("message_body"), text=body)
        self.driver.tap(**self.sel("cab_copy_to_clipboard"))
        self.driver.tap(**self.sel("cab_done"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("cab_title")), "the action mode to end")

    @operation
    def copy_compose_text(self) -> None:
        """Select all of the compose field's text and copy it (framework floating toolbar)."""
        self.driver.tap(**self.sel("compose_field"))
        self.driver.wait_stable()  # the keyboard shows and the window resizes: the field moves up
        self.driver.long_press(**self.sel("compose_field"))
        self.driver.tap(**self.sel("text_select_all"))
        self.driver.tap(**self.sel("text_copy"))

    @operation
    def paste_menu(self) -> None:
        """The compose field of the open conversation (else of the list's first conversation) tapped and
        long-pressed: the text toolbar's "Paste" shows (the query context of a paste)."""
        if not self.driver.exists(**self.sel("thread_root")):
            self._to_list()
            self.driver.tap(**self.sel("conversation_address"))
            self.driver.wait_until(lambda: self.driver.exists(**self.sel("thread_root")), "a conversation")
        self.driver.tap(**self.sel("compose_field"))
        self.show_paste_menu(self.driver.element(**self.sel("compose_field")))

    @operation
    def paste_into_compose(self) -> None:
        """Long-press the compose field and Paste the clipboard at the caret."""
        self.driver.tap(**self.sel("compose_field"))
        self.driver.wait_stable()  # the keyboard shows and the window resizes: the field moves up
        self.driver.long_press(**self.sel("compose_field"))
        self.driver.tap(**self.sel("text_paste"))

    @operation
    def delete_message(self, body: str) -> None:
        """Long-press the bubble ``body``, Delete, Yes."""
        self.driver.long_press(**self.sel("message_body"), text=body)
        self.driver.tap(**self.sel("cab_delete_message"))
        self.driver.tap(**self.sel("dialog_yes"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("message_body"), text=body),
                               f"the message {body!r} to go")

    @operation
    def delete_conversation(self, title: str) -> None:
        """On the list: long-press the row ``title``, Delete, Yes."""
        self._to_list()
        self.driver.long_press(**self.sel("conversation_address"), text=title)
        self.driver.tap(**self.sel("cab_delete"))
        self.driver.element(**self.sel("delete_conversations_message", items="1 conversation"))
        self.driver.tap(**self.sel("dialog_yes"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("conversation_address"), text=title),
                               f"the conversation {title!r} to go")

    @operation
    def delete_open_conversation(self) -> None:
        """In a conversation: the toolbar's Delete, Yes; the list shows again."""
        self.driver.tap(**self.sel("thread_delete"))
        self.driver.element(**self.sel("delete_conversation_message"))
        self.driver.tap(**self.sel("dialog_yes"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("thread_root")), "the conversation to close")

    def compose_text(self) -> str:
        text = self.driver.element(**self.sel("compose_field")).text
        return "" if text == "Type a message\u2026" else text

    def messages(self, box: str | None = None) -> DbReading:
        return read_messages(self.driver, box)

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The list with one received message (the provider cleared first, the app cleared and past its first
        run), its delete confirmation, the conversation, the message's selection bar, a new conversation with
        a number typed."""
        sender, body = "+15550101", "Are we still on for lunch?"

        def conversations() -> None:
            self.driver.shell("content delete --uri content://sms", check=True)
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            MessageSeed.apply(self.driver, [MessageSpec(address=sender, body=body, at=dt.datetime.now(dt.UTC))])
            self.complete_first_run()
            self.driver.element(**self.sel("conversation_address"), text=sender)

        def delete_conversation_confirm() -> None:
            conversations()
            self.driver.long_press(**self.sel("conversation_address"), text=sender)
            self.driver.tap(**self.sel("cab_delete"))
            self.driver.element(**self.sel("dialog_yes"))

        def thread() -> None:
            conversations()
            self.open_conversation(sender)

        def message_cab() -> None:
            thread()
            self.driver.long_press(**self.sel("message_body"), text=body)
            self.driver.element(**self.sel("cab_copy_to_clipboard"))

        def new_conversation() -> None:
            conversations()
            self.driver.tap(**self.sel("fab_new_conversation"))
            self.driver.type_text("+15550123")
            self.driver.element(**self.sel("new_conversation_confirm"))

        return {"conversations": conversations, "delete_conversation_confirm": delete_conversation_confirm,
                "thread": thread, "message_cab": message_cab, "new_conversation": new_conversation}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``sms provider``: ``content query --uri content://sms`` answers (rows or "No result found.") and the
        default SMS app is this one (android_world's setup makes it so)."""
        def row() -> tuple[bool, str, str]:
            try:
                reading = read_messages(self.driver)
            except DeviceError as exc:
                return False, str(exc), "the Telephony provider must answer content://sms"
            holder = default_sms_app(self.driver)
            ok = holder == PACKAGE
            fix = (f"adb -s {self.driver.serial} shell settings put secure sms_default_application {PACKAGE}; "
                   "then start the app and tap SMS Messenger, Set as default")
            return ok, f"{len(reading.rows)} messages; default SMS app {holder or 'none'}", fix

        return [("sms provider", row)]
