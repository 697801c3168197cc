"""Telephony (``device.telephony``): the SMS store at the provider's path with its schema and triggers, the
default SMS app, and the ``content`` shell command over it. In-process devices; the shell runs the real command
table (``sh -c``)."""

from __future__ import annotations

import sqlite3

import pytest

from emukit.vdevice.services.telephony import (
    DB_PATH,
    DB_VERSION,
    TYPE_INBOX,
    TYPE_SENT,
    TelephonyError,
)
from emukit.vdevice.shell import run_shell
from tests.vdevice.services.conftest import add_probe


def sh(device, line: str) -> tuple[str, str]:
    out: list[bytes] = []
    err: list[bytes] = []
    run_shell(device, line, out.append, err.append)
    return b"".join(out).decode(), b"".join(err).decode()


def test_a_fresh_device_has_no_messages_and_the_database_is_the_providers(det):
    assert det.telephony.messages() == [] and det.telephony.threads() == []
    host = det.fs.host(DB_PATH)
    with sqlite3.connect(host) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"sms", "threads", "canonical_addresses", "pdu", "android_metadata"} <= tables
        assert db.execute("PRAGMA user_version").fetchone()[0] == DB_VERSION
        cols = [r[1] for r in db.execute("PRAGMA table_info(sms)")]
    assert cols == ["_id", "thread_id", "address", "person", "date", "date_sent", "protocol", "read", "status",
                    "type", "reply_path_present", "subject", "body", "service_center", "locked", "sub_id",
                    "error_code", "creator", "seen"]
    assert sh(det, "content query --uri content://sms")[0] == "No result found.\n"


def test_delivered_and_sent_messages_share_a_thread_kept_by_the_triggers(det):
    first = det.telephony.deliver("+15551234", "Hello, there")
    assert first["type"] == TYPE_INBOX and first["read"] == 0 and first["thread_id"] > 0
    sent = det.telephony.send("+15551234", "Yo")
    assert sent["type"] == TYPE_SENT and sent["thread_id"] == first["thread_id"] and sent["read"] == 1
    other = det.telephony.deliver("+15559999", "Other")
    assert other["thread_id"] != first["thread_id"]
    threads = {t["_id"]: t for t in det.telephony.threads()}
    t = threads[first["thread_id"]]
    assert t["message_count"] == 2 and t["snippet"] == "Yo" and t["read"] == 0 and t["address"] == "+15551234"
    det.telephony.mark_read(first["thread_id"])  # the read trigger sets the thread's flag
    assert {x["_id"]: x for x in det.telephony.threads()}[first["thread_id"]]["read"] == 1
    assert [m["body"] for m in det.telephony.messages(thread_id=first["thread_id"])] == ["Hello, there", "Yo"]
    det.telephony.delete_thread(first["thread_id"])
    assert [t["address"] for t in det.telephony.threads()] == ["+15559999"]


def test_the_default_sms_app_gets_each_delivery(det):
    probe = add_probe(det)
    got = []
    probe.on_sms_delivered = lambda device, message: got.append(message["body"])
    # the deterministic device's SMS Messenger is the default app, as after android_world's setup
    assert det.telephony.default_package == "com.simplemobiletools.smsmessenger"
    sh(det, "settings delete secure sms_default_application")
    det.telephony.deliver("123", "not yet default")
    assert got == [] and det.telephony.default_package is None
    sh(det, f"settings put secure sms_default_application {probe.package}")
    assert det.telephony.default_package == probe.package
    det.telephony.deliver("123", "now default")
    assert got == ["now default"]


def test_content_query_prints_rows_as_the_platform_tool(det):
    det.telephony.deliver("+1111", "Hi, you")
    det.telephony.send("+1111", "Yo")
    out, _ = sh(det, "content query --uri content://sms/sent")
    assert out.startswith("Row: 0 _id=2, thread_id=1, address=+1111, person=NULL, date=") and out.count("Row:") == 1
    assert ", body=Yo, " in out and out.endswith("seen=1\n")
    out, _ = sh(det, "content query --uri content://sms/inbox --projection address:body")
    assert out == "Row: 0 address=+1111, body=Hi, you\n"
    out, _ = sh(det, "content query --uri content://sms --projection _id --sort '_id ASC'")
    assert out == "Row: 0 _id=1\nRow: 1 _id=2\n"
    out, _ = sh(det, "content query --uri content://sms --projection body --where \"body='Yo'\"")
    assert out == "Row: 0 body=Yo\n"
    sh(det, "content insert --uri content://sms/inbox --bind address:s:+2222 --bind body:s:inserted")
    assert [m["body"] for m in det.telephony.messages(box=TYPE_INBOX)] == ["Hi, you", "inserted"]
    sh(det, "content delete --uri content://sms/inbox")
    assert [m["body"] for m in det.telephony.messages()] == ["Yo"]
    assert [t["address"] for t in det.telephony.threads()] == ["+1111"]


def test_content_refuses_what_the_platform_tool_refuses(det):
    out, _ = sh(det, "content frob --uri content://sms")
    assert "[ERROR] Unsupported operation: frob" in out
    out, _ = sh(det, "content query")
    assert "[ERROR] Content provider URI not specified." in out
    _, err = sh(det, "content query --uri content://contacts/people")
    assert "Error while accessing provider:contacts" in err
    _, err = sh(det, "content query --uri content://sms --where 'nosuch=1'")
    assert "no such column: nosuch" in err
    with pytest.raises(TelephonyError, match="type 9"):
        det.telephony.insert(address="1", body="x", type=9, read=0)


def test_a_snapshot_keeps_the_messages_and_sqlite_sees_them(det):
    det.telephony.deliver("555", "kept")
    det.snapshots.save("sms")
    det.telephony.deliver("555", "later")
    det.snapshots.load("sms")
    assert [m["body"] for m in det.telephony.messages()] == ["kept"]
    sh(det, f"sqlite3 {DB_PATH} 'DELETE FROM sms; DELETE FROM threads;'")
    assert det.telephony.messages() == [] and det.telephony.threads() == []
