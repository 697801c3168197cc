"""The virtual Simple SMS Messenger (com.simplemobiletools.smsmessenger, versionCode 85), driven in-process through
the window manager like a user would; ids and strings come from its pinned selector table, messages from the
device's Telephony provider."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.sms import SmsApp
from emukit.vdevice.apps.sms import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.services.telephony import DB_PATH
from emukit.vdevice.shell import run_shell
from tests.vdevice.views import exists, find, install_standin, rendered_scenes, tap

T = table("com.simplemobiletools.smsmessenger")
PKG = T.package
MAIN = f"{PKG}.activities.MainActivity"
THREAD = f"{PKG}.activities.ThreadActivity"
NEW = f"{PKG}.activities.NewConversationActivity"
BACK = 4
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hierarchy" / "sms"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def text_of(dev: VirtualDevice, entry: str) -> str:
    return find(dev, resource_id=T.rid(entry)).text


def texts(dev: VirtualDevice, entry: str) -> list[str]:
    return [v.text for v in dev.wm.windows()[0].walk() if v.resource_id == T.rid(entry)]


def shell(dev: VirtualDevice, cmd: str) -> str:
    out: list[bytes] = []
    assert run_shell(dev, cmd, out.append, out.append, b"", None) == 0
    return b"".join(out).decode()


def open_new_conversation(dev: VirtualDevice, number: str) -> None:
    tap(dev, resource_id=T.rid("fab_new_conversation"))
    assert dev.current_focus() == (PKG, NEW)
    assert dev.state.ui.focused_id == T.rid("new_conversation_address")  # focused, keyboard up
    dev.wm.input_text(number)
    tap(dev, resource_id=T.rid("new_conversation_confirm"))
    assert dev.current_focus() == (PKG, THREAD)


def type_and_send(dev: VirtualDevice, text: str) -> None:
    tap(dev, resource_id=T.rid("compose_field"))
    dev.wm.input_text(text)
    tap(dev, resource_id=T.rid("send_button"))


# ---------------------------------------------------------------------------------------------- first start
def test_first_start_shows_the_empty_list_and_creates_the_cache(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, SmsApp)
    assert (app.version_code, app.version_name, app.label) == (85, "5.19.3-emukit-virtual", "SMS Messenger")
    assert device.telephony.default_package == PKG and D.role_holder(device) == PKG  # past android_world's setup
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)
    assert not exists(device, resource_id=T.rid("role_title"))
    assert text_of(device, "no_conversations") == "No stored conversations have been found"
    assert text_of(device, "start_conversation") == "Start a conversation"
    assert find(device, resource_id=T.rid("search_field")).hint == "Search"
    assert find(device, resource_id=T.rid("menu_settings")).content_desc == "Settings"
    assert D.STORE.exists(device) and D.SCHEMA.path == f"/data/data/{PKG}/databases/conversations.db"
    assert D.STORE.rows(device, "SELECT identity_hash FROM room_master_table") == [
        {"identity_hash": "23811e41b338a810cf5df26a5dff67a5"}]
    tables = {r["name"] for r in D.STORE.rows(device, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"conversations", "attachments", "message_attachments", "messages", "recycle_bin_messages"} <= tables
    assert D.STORE.rows(device, "PRAGMA user_version") == [{"user_version": 8}]
    assert D.prefs(device).get_int("app_run_count") == 1 and D.prefs(device).get_int("last_version") == 85


def test_the_cache_schema_is_the_exported_room_schema(device: VirtualDevice) -> None:
    """Each CREATE statement is 8.json's with the table name put in (sms:app/schemas/...MessagesDatabase/8.json)."""
    device.start_activity(PKG)
    sql = {r["name"]: r["sql"] for r in D.STORE.rows(device, "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")}
    assert sql["messages"].startswith("CREATE TABLE `messages` (`id` INTEGER NOT NULL, `body` TEXT NOT NULL")
    assert "PRIMARY KEY(`thread_id`)" in sql["conversations"]
    assert "index_recycle_bin_messages_id" in sql


# ---------------------------------------------------------------------------------------------- list
def test_incoming_messages_list_newest_first_and_unread_bold(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "First one")
    device.telephony.deliver("+15550177", "Second one")
    assert texts(device, "conversation_address") == ["+15550177", "+15550101"]  # same time: the newer thread first
    rows = {a: s for a, s in zip(texts(device, "conversation_address"), texts(device, "conversation_snippet"))}
    assert rows == {"+15550101": "First one", "+15550177": "Second one"}
    address = find(device, resource_id=T.rid("conversation_address"), text="+15550101")
    assert address.style.bold  # unread
    assert texts(device, "conversation_date") == ["09:00", "09:00"]  # today: the time
    # the receiver cached them (SmsReceiver: messagesDB.insertOrUpdate)
    assert sorted(r["body"] for r in D.STORE.rows(device, "SELECT body FROM messages")) == ["First one", "Second one"]
    assert not exists(device, resource_id=T.rid("no_conversations"))


def test_a_sqlite_delete_over_adb_empties_the_list(device: VirtualDevice) -> None:
    """android_world's clear: DELETE FROM sms / threads on mmssms.db; the next screen build shows the provider."""
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Soon gone")
    assert texts(device, "conversation_address") == ["+15550101"]
    db = sqlite3.connect(device.fs.host(DB_PATH))
    db.execute("DELETE FROM sms")
    db.execute("DELETE FROM threads")
    db.commit()
    db.close()
    assert texts(device, "conversation_address") == []
    assert exists(device, text="No stored conversations have been found")


def test_new_conversation_send_writes_a_sent_row(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_conversation(device, "+15550123")
    assert find(device, resource_id=T.rid("thread_toolbar")).children  # the number as title
    assert exists(device, text="+15550123")
    assert device.state.ui.focused_id == T.rid("compose_field")  # an empty thread focuses the field
    send = find(device, resource_id=T.rid("send_button"))
    assert (send.text, send.content_desc, send.enabled) == ("SMS", "OK", False)
    type_and_send(device, "Hello there")
    assert text_of(device, "compose_field") == ""
    assert not find(device, resource_id=T.rid("send_button")).enabled
    sent = device.telephony.messages(box=D.TYPE_SENT)
    assert [(m["address"], m["body"], m["read"], m["type"]) for m in sent] == [("+15550123", "Hello there", 1, 2)]
    assert sent[0]["date"] == device.wall_ms()
    assert texts(device, "message_body") == ["Hello there"]
    assert exists(device, resource_id=T.rid("thread_success"))
    assert shell(device, "content query --uri content://sms/sent --projection address:body").strip() == (
        "Row: 0 address=+15550123, body=Hello there")
    device.wm.key(BACK)
    if device.current_focus() == (PKG, THREAD):
        device.wm.key(BACK)  # hides the keyboard first
    assert device.current_focus() == (PKG, NEW)  # NewConversationActivity stays below the thread
    device.wm.key(BACK)
    if device.current_focus() == (PKG, NEW):
        device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    assert texts(device, "conversation_address") == ["+15550123"]
    assert texts(device, "conversation_snippet") == ["Hello there"]


def test_confirm_shows_after_three_characters(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_new_conversation"))
    assert exists(device, text="New conversation")
    device.wm.input_text("55")
    assert not exists(device, resource_id=T.rid("new_conversation_confirm"))
    device.wm.input_text("5")
    assert exists(device, resource_id=T.rid("new_conversation_confirm"))


def test_opening_a_conversation_marks_it_read_and_shows_date_rows(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    msg = device.telephony.deliver("+15550101", "Are we still on?")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    assert device.current_focus() == (PKG, THREAD)
    assert texts(device, "message_body") == ["Are we still on?"]
    assert texts(device, "thread_date_time") == ["09:00"]
    assert device.telephony.messages()[0]["read"] == 1 and msg["read"] == 0
    assert device.state.ui.focused_id is None  # a thread with messages opens without the keyboard
    type_and_send(device, "Yes")
    assert texts(device, "message_body") == ["Are we still on?", "Yes"]
    assert [m["thread_id"] for m in device.telephony.messages()] == [msg["thread_id"]] * 2


def test_copy_to_clipboard_copies_the_whole_body_and_paste_puts_it_in_the_field(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Code 4471, valid 5 minutes")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    device.wm.long_press(*find(device, resource_id=T.rid("message_body")).center)
    assert text_of(device, "cab_title") == "1 / 1"
    assert find(device, resource_id=T.rid("cab_copy_to_clipboard")).content_desc == "Copy to clipboard"
    assert find(device, resource_id=T.rid("cab_share")).content_desc == "Share"
    tap(device, resource_id=T.rid("cab_copy_to_clipboard"))
    assert device.clipboard.get().text == "Code 4471, valid 5 minutes"
    assert device.state.ui.toast == "Value copied to clipboard:\nCode 4471, valid 5 minutes"
    assert exists(device, resource_id=T.rid("cab_title"))  # the action mode stays
    tap(device, resource_id=T.rid("cab_done"))
    assert not exists(device, resource_id=T.rid("cab_title"))
    tap(device, resource_id=T.rid("compose_field"))  # the keyboard shows: the field moves up (adjustResize)
    device.wm.long_press(*find(device, resource_id=T.rid("compose_field")).center)
    tap(device, text="Paste")
    assert text_of(device, "compose_field") == "Code 4471, valid 5 minutes"
    assert find(device, resource_id=T.rid("send_button")).enabled


def test_share_and_forward_do_not_touch_the_clipboard(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Not copied")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    device.wm.long_press(*find(device, resource_id=T.rid("message_body")).center)
    tap(device, resource_id=T.rid("cab_share"))
    assert device.clipboard.get() is None
    tap(device, content_desc="More options")
    rows = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == f"{PKG}:id/title"]
    assert rows == ["Properties", "Forward", "Select text", "Select all"]
    tap(device, text="Forward")
    assert device.current_focus() == (PKG, NEW) and device.clipboard.get() is None


def test_delete_a_message_asks_and_removes_the_row(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Keep")
    device.telephony.deliver("+15550101", "Drop")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    device.wm.long_press(*find(device, resource_id=T.rid("message_body"), text="Drop").center)
    tap(device, resource_id=T.rid("cab_delete_message"))
    assert text_of(device, "delete_messages_message") == "Are you sure you want to delete 1 message?"
    tap(device, resource_id="android:id/button2", text="No")
    assert [m["body"] for m in device.telephony.messages()] == ["Keep", "Drop"]
    tap(device, resource_id=T.rid("cab_delete_message"))
    tap(device, resource_id="android:id/button1", text="Yes")
    assert [m["body"] for m in device.telephony.messages()] == ["Keep"]
    assert texts(device, "message_body") == ["Keep"]
    device.wm.long_press(*find(device, resource_id=T.rid("message_body"), text="Keep").center)
    tap(device, resource_id=T.rid("cab_delete_message"))
    tap(device, resource_id="android:id/button1", text="Yes")
    assert device.current_focus() == (PKG, MAIN)  # no message left: the thread finishes
    assert device.telephony.messages() == [] and device.telephony.threads() == []


def test_delete_conversation_from_the_list(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "One")
    device.telephony.deliver("+15550177", "Two")
    device.wm.long_press(*find(device, resource_id=T.rid("conversation_address"), text="+15550101").center)
    assert text_of(device, "cab_title") == "1 / 2"
    assert find(device, resource_id=T.rid("cab_delete")).content_desc == "Delete"
    tap(device, resource_id=T.rid("cab_delete"))
    assert text_of(device, "delete_conversations_message") == "Are you sure you want to delete 1 conversation?"
    tap(device, resource_id="android:id/button1", text="Yes")
    assert texts(device, "conversation_address") == ["+15550177"]
    assert [m["address"] for m in device.telephony.messages()] == ["+15550177"]
    assert not exists(device, resource_id=T.rid("cab_title"))
    assert [r["phone_number"] for r in D.STORE.rows(device, "SELECT phone_number FROM conversations")] == ["+15550177"]


def test_copy_number_is_a_clipboard_copy(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "One")
    device.wm.long_press(*find(device, resource_id=T.rid("conversation_address")).center)
    tap(device, content_desc="More options")
    tap(device, text="Copy number to clipboard")
    assert device.clipboard.get().text == "+15550101"
    assert not exists(device, resource_id=T.rid("cab_title"))  # the action mode ends


def test_thread_toolbar_delete_removes_the_conversation(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "One")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    tap(device, resource_id=T.rid("thread_delete"))
    assert text_of(device, "delete_conversation_message") == (
        "Are you sure you want to delete all messages of this conversation?")
    tap(device, resource_id="android:id/button1", text="Yes")
    assert device.current_focus() == (PKG, MAIN)
    assert device.telephony.messages() == []
    assert exists(device, text="No stored conversations have been found")


def test_leaving_with_text_keeps_a_draft_in_the_provider(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Hi")
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    tap(device, resource_id=T.rid("compose_field"))
    device.wm.input_text("Half written")
    device.wm.key(BACK)
    if device.current_focus() == (PKG, THREAD):
        device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    drafts = device.telephony.messages(box=D.TYPE_DRAFT)
    assert [d["body"] for d in drafts] == ["Half written"]
    assert text_of(device, "conversation_draft") == "Draft"
    assert text_of(device, "conversation_snippet") == "Half written"
    tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    assert text_of(device, "compose_field") == "Half written"  # put back
    assert "Half written" not in texts(device, "message_body")


def test_search_finds_cached_messages(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "The parcel is here")
    device.telephony.deliver("+15550177", "Lunch?")
    tap(device, resource_id=T.rid("search_field"))
    device.wm.input_text("parcel")
    assert exists(device, text="The parcel is here") and not exists(device, text="Lunch?")


# ---------------------------------------------------------------------------------------------- hardware
def test_hardware_first_start_asks_for_the_sms_role(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps
    install_standin(dev, PKG)
    assert D.role_holder(dev) is None and not dev.permission_granted(PKG, "android.permission.READ_SMS")
    shell(dev, f"settings put secure sms_default_application {PKG}")  # android_world's setup: not the role
    dev.start_activity(PKG)
    assert text_of(dev, "role_title") == "Set SMS Messenger as your default SMS app?"
    title = find(dev, resource_id=T.rid("role_title"))
    assert title.package == "com.google.android.permissioncontroller"
    assert not find(dev, resource_id="android:id/button1").enabled  # nothing checked yet
    assert not exists(dev, resource_id=T.rid("role_app_subtitle"))
    tap(dev, resource_id=T.rid("role_app_row"), text="SMS Messenger")
    assert text_of(dev, "role_app_subtitle").startswith("This app will be given access to")
    button = find(dev, resource_id="android:id/button1")
    assert (button.text, button.enabled) == ("Set as default", True)
    dev.wm.tap(*button.center)
    assert not exists(dev, resource_id=T.rid("role_title"))
    assert dev.current_focus() == (PKG, MAIN)
    assert D.role_holder(dev) == PKG and dev.telephony.default_package == PKG
    assert all(dev.permission_granted(PKG, p) for p in D.ROLE_PERMISSIONS)  # the role's grants: no prompt
    assert exists(dev, text="No stored conversations have been found")
    dev.force_stop(PKG)
    dev.start_activity(PKG)
    assert not exists(dev, resource_id=T.rid("role_title"))  # asked once


def test_hardware_cancel_closes_the_app_and_the_next_start_asks_again(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.start_activity(PKG)
    tap(dev, resource_id="android:id/button2", text="Cancel")
    assert dev.current_focus()[0] != PKG
    assert D.role_holder(dev) is None
    dev.start_activity(PKG)
    assert exists(dev, text="Set SMS Messenger as your default SMS app?")
    dev.wm.key(BACK)  # cancels as well
    assert dev.current_focus()[0] != PKG


def test_hardware_incoming_sms_without_the_role_is_not_cached(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.telephony.deliver("+15550101", "Before the role")
    assert not D.STORE.exists(dev)
    assert [m["body"] for m in dev.telephony.messages()] == ["Before the role"]


def test_hardware_a_revoked_sms_permission_is_asked_for_and_denial_closes(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    D.set_role_holder(dev, PKG)
    dev.grant_permission(PKG, "android.permission.READ_SMS", False)
    dev.start_activity(PKG)
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_deny_button")
    assert dev.current_focus()[0] != PKG  # READ_SMS denied: finish()


# ---------------------------------------------------------------------------------------------- pm clear
def test_pm_clear_removes_the_cache_and_prefs_but_not_the_messages(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Provider data")
    assert D.STORE.exists(device) and device.fs.host(D.PREFS).exists()
    shell(device, f"pm clear {PKG}")
    assert not D.STORE.exists(device) and not device.fs.host(D.PREFS).exists()
    assert device.current_focus()[0] != PKG
    assert [m["body"] for m in device.telephony.messages()] == ["Provider data"]  # the provider's, not the app's
    assert D.role_holder(device) == PKG  # the role is the permission controller's
    device.start_activity(PKG)
    assert texts(device, "conversation_address") == ["+15550101"]
    assert D.prefs(device).get_int("app_run_count") == 1


# ---------------------------------------------------------------------------------------------- structure
@pytest.mark.parametrize("screen", sorted(p.stem for p in FIXTURES.glob("*.yaml")))
def test_virtual_screens_match_the_structure_fixtures(device: VirtualDevice, screen: str) -> None:
    """Each fixture (written from the real layouts) matches the virtual screen it names."""
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Are we still on for lunch?")
    if screen == "thread":
        tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
    elif screen == "message_cab":
        tap(device, resource_id=T.rid("conversation_address"), text="+15550101")
        device.wm.long_press(*find(device, resource_id=T.rid("message_body")).center)
    elif screen == "new_conversation":
        tap(device, resource_id=T.rid("fab_new_conversation"))
        device.wm.input_text("+15550123")
    elif screen == "delete_conversation_confirm":
        device.wm.long_press(*find(device, resource_id=T.rid("conversation_address")).center)
        tap(device, resource_id=T.rid("cab_delete"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / f"{screen}.yaml") == []


def test_fixtures_cite_the_pinned_sources() -> None:
    names = sorted(p.stem for p in FIXTURES.glob("*.yaml"))
    assert names == ["conversations", "delete_conversation_confirm", "message_cab", "new_conversation", "thread"]
    for path in FIXTURES.glob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        assert doc["screen"] == path.stem and doc["sources"]
        for src in doc["sources"]:
            repo = {"SimpleMobileTools/Simple-SMS-Messenger": T.repos["sms"],
                    "SimpleMobileTools/Simple-Commons": T.repos["commons"]}[src["repo"]]
            assert src["commit"] == repo.commit


def test_table_ids_appear_on_the_virtual_screens(device: VirtualDevice) -> None:
    """The layout ids the profile selects by are drawn on the screens they belong to."""
    device.start_activity(PKG)
    device.telephony.deliver("+15550101", "Hello")
    xml = device.hierarchy_xml()
    for entry in ("main_root", "top_app_bar_layout", "search_field", "conversations_list", "conversation_row",
                  "conversation_address", "conversation_snippet", "conversation_date", "fab_new_conversation"):
        assert f'resource-id="{T.rid(entry)}"' in xml, entry
    tap(device, resource_id=T.rid("conversation_address"))
    xml = device.hierarchy_xml()
    for entry in ("thread_root", "thread_toolbar", "thread_messages_list", "message_holder_row", "message_body",
                  "thread_date_time", "compose_field", "send_button", "attach_button", "thread_delete"):
        assert f'resource-id="{T.rid(entry)}"' in xml, entry


# ---------------------------------------------------------------------------------------------- gallery
def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["conversation list (empty)", "conversation list", "conversation action mode",
                     "delete conversations confirmation", "thread", "message action mode",
                     "delete message confirmation", "new conversation"]
