"""Simple SMS Messenger over adb (the virtual app, driven as an emulator would be): open it from All Apps, receive a
text through ``adb emu sms send``, start a conversation and send a message, copy a message and paste it into the
compose field, delete a message and a conversation; the messages probe reads what the provider holds (an explicit
empty reading on a fresh device), android_world's clear empties the list, the ``messages:`` seed section puts
conversations on the device, and the structure fixtures match the screens reached over adb."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from emukit.apps.registry import profile_for
from emukit.apps.sms import (
    MessageSeed,
    MessageSpec,
    default_sms_app,
    parse_rows,
    read_messages,
)
from emukit.apps.structure import match_fixture
from emukit.device.driver import Driver
from emukit.snapshots import load_spec
from tests.integration.helpers import emu

PACKAGE = "com.simplemobiletools.smsmessenger"
MMSSMS = "/data/data/com.android.providers.telephony/databases/mmssms.db"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hierarchy" / "sms"


@pytest.fixture
def sms(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "sms")
    d.close()


def test_parse_rows_keeps_commas_and_equals_in_bodies():
    out = ("Row: 0 _id=2, thread_id=1, address=+1111, date=1693421073675, type=2, body=Yo, a=b, c\n"
           "Row: 1 _id=1, thread_id=1, address=NULL, date=1693421026207, type=1, body=Hi\nthere\n")
    rows = parse_rows(out)
    assert rows[0] == {"_id": 2, "thread_id": 1, "address": "+1111", "date": 1693421073675, "type": 2,
                       "body": "Yo, a=b, c"}
    assert rows[1]["address"] is None and rows[1]["body"] == "Hi\nthere"
    assert parse_rows("No result found.\n") == []


def test_messages_round_trip_through_the_real_ui(sms, adb_server, pooled_device):
    d = sms.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_messages(d)
    assert empty.rows == [] and empty.reason == "content://sms: No result found."  # nothing on a fresh device
    assert default_sms_app(d) == PACKAGE
    sms.open_from_all_apps()
    assert sms.first_run_screen() == "main"
    assert d.exists(**sms.sel("no_conversations"))

    # an incoming text, as android_world's text_emulator sends it
    assert "OK" in emu(adb_server, pooled_device.serial, "sms", "send", "+15550101", "Code 4471, valid 5 minutes")
    d.wait_until(lambda: d.exists(**sms.sel("conversation_address"), text="+15550101"), "the new conversation")
    inbox = read_messages(d, "inbox").rows
    assert [(r["address"], r["body"], r["read"], r["type"]) for r in inbox] == [
        ("+15550101", "Code 4471, valid 5 minutes", 0, 1)]

    # reply: open it, copy the message, paste it into the field, send
    sms.open_conversation("+15550101")
    assert read_messages(d, "inbox").rows[0]["read"] == 1  # opening marks it read
    sms.copy_message("Code 4471, valid 5 minutes")
    sms.paste_into_compose()
    assert sms.compose_text() == "Code 4471, valid 5 minutes"
    sms.send()
    sent = read_messages(d, "sent").rows
    assert [(r["address"], r["body"], r["read"]) for r in sent] == [("+15550101", "Code 4471, valid 5 minutes", 1)]
    now_ms = int(d.shell("date +%s").text.strip()) * 1000
    assert abs(now_ms - sent[0]["date"]) < 5 * 60 * 1000  # android_world's was_sent window

    # a new conversation
    sms.send_message("+15550123", "Hello there")
    assert sorted((r["address"], r["body"]) for r in read_messages(d, "sent").rows) == [
        ("+15550101", "Code 4471, valid 5 minutes"), ("+15550123", "Hello there")]
    assert d.current_app()[0] == PACKAGE  # android_world also checks the app in front

    # delete a conversation's only message (the thread closes), one from its toolbar, one from the list
    sms.open_conversation("+15550123")
    sms.delete_message("Hello there")
    assert sms.first_run_screen() == "main"  # the thread finished
    assert [r["address"] for r in read_messages(d).rows] == ["+15550101", "+15550101"]
    sms.open_conversation("+15550101")
    sms.delete_open_conversation()
    assert read_messages(d).rows == []
    emu(adb_server, pooled_device.serial, "sms", "send", "+15550177", "Delete me")
    d.wait_until(lambda: d.exists(**sms.sel("conversation_address"), text="+15550177"), "the conversation")
    sms.delete_conversation("+15550177")
    assert read_messages(d).rows == []
    assert d.exists(**sms.sel("no_conversations"))


def test_android_world_clear_empties_the_list(sms, adb_server, pooled_device):
    d = sms.driver
    sms.complete_first_run()
    emu(adb_server, pooled_device.serial, "sms", "send", "+15550177", "Soon cleared")
    d.wait_until(lambda: d.exists(**sms.sel("conversation_address"), text="+15550177"), "the conversation")
    d.shell(f"sqlite3 {MMSSMS} 'DELETE FROM sms;'", check=True)
    d.shell(f"sqlite3 {MMSSMS} 'DELETE FROM threads;'", check=True)
    sms.launch(fresh=True)
    d.wait_until(lambda: d.exists(**sms.sel("no_conversations")), "the empty list")
    assert read_messages(d).rows == []


def test_seed_section_puts_conversations_on_the_device(sms):
    d = sms.driver
    spec = load_spec("sms_base")
    assert spec.start == "sms" and len(spec.seeds["messages"]) == 4
    MessageSeed.apply(d, spec.seeds["messages"])
    rows = read_messages(d).rows
    assert [(r["address"], r["body"], r["type"]) for r in rows] == [
        ("+15550101", "Yes, 12:30 at the usual place", 2), ("+15550101", "Are we still on for lunch?", 1),
        ("+15550177", "Your parcel is on its way", 1), ("+15550142", "Call me when you land", 2)]
    assert rows[1]["date"] == int(dt.datetime(2026, 1, 15, 8, 10, tzinfo=dt.UTC).timestamp() * 1000)
    assert [r["read"] for r in rows] == [1, 0, 1, 1]
    sms.complete_first_run()
    titles = [e.text for e in d.elements() if e.resource_id == sms.rid("conversation_address")]
    assert titles == ["+15550101", "+15550177", "+15550142"]  # newest thread first
    MessageSeed.apply(d, [MessageSpec(address="+15550199", body="it's \"quoted\"; and $HOME",
                                      at=dt.datetime(2026, 1, 15, 8, 30, tzinfo=dt.UTC))])
    assert read_messages(d, "inbox").rows[0]["body"] == "it's \"quoted\"; and $HOME"


def test_structure_fixtures_match_the_screens_over_adb(sms, adb_server, pooled_device):
    d = sms.driver
    sms.complete_first_run()
    emu(adb_server, pooled_device.serial, "sms", "send", "+15550101", "Are we still on for lunch?")
    d.wait_until(lambda: d.exists(**sms.sel("conversation_address"), text="+15550101"), "the conversation")
    assert match_fixture(d.hierarchy(), FIXTURES / "conversations.yaml") == []
    d.long_press(**sms.sel("conversation_address"), text="+15550101")
    d.tap(**sms.sel("cab_delete"))
    d.element(**sms.sel("dialog_yes"))
    assert match_fixture(d.hierarchy(), FIXTURES / "delete_conversation_confirm.yaml") == []
    d.tap(**sms.sel("dialog_no"))
    d.tap(**sms.sel("cab_done"))
    sms.open_conversation("+15550101")
    assert match_fixture(d.hierarchy(), FIXTURES / "thread.yaml") == []
    d.long_press(**sms.sel("message_body"), text="Are we still on for lunch?")
    d.element(**sms.sel("cab_copy_to_clipboard"))
    assert match_fixture(d.hierarchy(), FIXTURES / "message_cab.yaml") == []
    d.tap(**sms.sel("cab_done"))
    d.back()
    d.tap(**sms.sel("fab_new_conversation"))
    d.type_text("+15550123")
    d.element(**sms.sel("new_conversation_confirm"))
    assert match_fixture(d.hierarchy(), FIXTURES / "new_conversation.yaml") == []


def test_doctor_row(sms):
    sms.complete_first_run()
    [(name, row)] = sms.doctor_checks(rooted=True)
    ok, detail, _ = row()
    assert name == "sms provider" and ok and "default SMS app com.simplemobiletools.smsmessenger" in detail
