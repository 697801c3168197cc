"""The Telephony provider's SMS store (``content://sms``, ``mmssms.db``) and the default SMS app.

A real device keeps every SMS in the Telephony provider's database,
``/data/data/com.android.providers.telephony/databases/mmssms.db``; the default SMS app writes the messages it
receives and sends through ``content://sms`` and reads its conversations back from it, and android_world checks
messages with ``content query --uri content://sms/sent`` / ``/inbox`` and clears them with ``DELETE FROM sms`` /
``DELETE FROM threads`` on that file (android_world d9c569f7 task_evals/common_validators/sms_validators.py:176-180,
211-226). This service keeps the same file with the same tables, so all three routes (the app's screens, the
``content`` shell command, ``sqlite3`` over adb) see one state and every read goes to the file.

Schema and behaviour, from the provider at tag android-14.0.0_r1 (aosp-mirror/platform_packages_providers_
telephonyprovider a1e5ac7164cbb4556226279de386518c5814c115, ``MmsSmsDatabaseHelper.java``, ``SmsProvider.java``):

* ``DATABASE_NAME = "mmssms.db"``, ``DATABASE_VERSION = 68`` (MmsSmsDatabaseHelper.java:266-267); write-ahead
  logging off (:311).
* ``sms`` as ``CREATE_SMS_TABLE_STRING`` (:1082-1106), ``canonical_addresses`` (:1203-1207) and ``threads``
  (:1217-1230); the ``pdu`` table only with the columns the SMS triggers and thread updates read (MMS is not
  modelled; the full table is :816-854).
* the triggers ``sms_update_thread_on_insert`` and ``sms_update_thread_date_subject_on_update`` (thread date,
  snippet, message count and read flag, :97-144, :1253-1260) and ``sms_update_thread_read_on_update``
  (:1263-1268); threads left without messages are deleted by ``updateThreads`` after a delete (:417-440).
* a query on ``content://sms/inbox`` / ``/sent`` / ``/draft`` / ``/outbox`` / ``/failed`` / ``/queued`` adds
  ``type=1..6`` (SmsProvider.java ``constructQueryForBox``, :542-548) and orders by ``date DESC`` when no sort
  is given (``Sms.DEFAULT_SORT_ORDER``, :383-384).
* an insert without a thread id gets ``Threads.getOrCreateThreadId(address)`` (SmsProvider.java:777-782): one
  ``canonical_addresses`` row per address and one thread per recipient set (MmsSmsProvider.java ``getThreadId``, ``insertThread``: :801, :770).

The default SMS app is the ``sms_default_application`` secure setting, which android_world sets with
``settings put secure sms_default_application <package>`` (android_world env/adb_utils.py ``set_default_app``;
setup_device/apps.py ``SimpleSMSMessengerApp.setup``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PROVIDER = "com.android.providers.telephony"
DB_PATH = f"/data/data/{PROVIDER}/databases/mmssms.db"
DB_VERSION = 68
AUTHORITY = "sms"
# the inbound SMS handler runs in the phone process on a real device; this device's ``ps`` has no such process,
# so its log lines carry system_server's pid (emukit.vdevice.ui.wm.SYSTEM_SERVER_PID)
LOG_PID = 520

#: ``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*``
TYPE_ALL, TYPE_INBOX, TYPE_SENT, TYPE_DRAFT, TYPE_OUTBOX, TYPE_FAILED, TYPE_QUEUED = range(7)
#: the boxes of ``content://sms/<box>``
BOXES = {"inbox": TYPE_INBOX, "sent": TYPE_SENT, "draft": TYPE_DRAFT, "outbox": TYPE_OUTBOX,
         "failed": TYPE_FAILED, "queued": TYPE_QUEUED}

_CREATE = (
    ("CREATE TABLE sms (_id INTEGER PRIMARY KEY,thread_id INTEGER,address TEXT,person INTEGER,date INTEGER,"
     "date_sent INTEGER DEFAULT 0,protocol INTEGER,read INTEGER DEFAULT 0,status INTEGER DEFAULT -1,type INTEGER,"
     "reply_path_present INTEGER,subject TEXT,body TEXT,service_center TEXT,locked INTEGER DEFAULT 0,"
     "sub_id INTEGER DEFAULT -1, error_code INTEGER DEFAULT -1, creator TEXT,seen INTEGER DEFAULT 0);"),
    "CREATE TABLE canonical_addresses (_id INTEGER PRIMARY KEY AUTOINCREMENT,address TEXT,sub_id INTEGER DEFAULT -1);",
    ("CREATE TABLE threads (_id INTEGER PRIMARY KEY AUTOINCREMENT,date INTEGER DEFAULT 0,"
     "message_count INTEGER DEFAULT 0,recipient_ids TEXT,snippet TEXT,snippet_cs INTEGER DEFAULT 0,"
     "read INTEGER DEFAULT 1,archived INTEGER DEFAULT 0,type INTEGER DEFAULT 0,error INTEGER DEFAULT 0,"
     "has_attachment INTEGER DEFAULT 0,sub_id INTEGER DEFAULT -1);"),
    ("CREATE TABLE pdu (_id INTEGER PRIMARY KEY AUTOINCREMENT,thread_id INTEGER,date INTEGER,"
     "date_sent INTEGER DEFAULT 0,msg_box INTEGER,read INTEGER DEFAULT 0,sub TEXT,sub_cs INTEGER,m_type INTEGER,"
     "locked INTEGER DEFAULT 0,sub_id INTEGER DEFAULT -1,seen INTEGER DEFAULT 0,creator TEXT);"),
)
_READ_BODY = ("UPDATE threads SET read = CASE (SELECT COUNT(*) FROM sms WHERE read = 0 AND thread_id = threads._id) "
              "WHEN 0 THEN 1 ELSE 0 END WHERE threads._id = new.thread_id; ")
_COUNT_ON_NEW = ("UPDATE threads SET message_count = (SELECT COUNT(sms._id) FROM sms LEFT JOIN threads "
                 "ON threads._id = thread_id WHERE thread_id = new.thread_id AND sms.type != 3) + "
                 "(SELECT COUNT(pdu._id) FROM pdu LEFT JOIN threads ON threads._id = thread_id "
                 "WHERE thread_id = new.thread_id AND (m_type=132 OR m_type=130 OR m_type=128) AND msg_box != 3) "
                 "WHERE threads._id = new.thread_id; ")
_DATE_SNIPPET_COUNT = ("BEGIN UPDATE threads SET date = (strftime('%s','now') * 1000), snippet = new.body, "
                       "snippet_cs = 0 WHERE threads._id = new.thread_id; " + _COUNT_ON_NEW + _READ_BODY + "END;")
_TRIGGERS = (
    "CREATE TRIGGER sms_update_thread_on_insert AFTER INSERT ON sms " + _DATE_SNIPPET_COUNT,
    "CREATE TRIGGER sms_update_thread_date_subject_on_update AFTER UPDATE OF date, body, type ON sms "
    + _DATE_SNIPPET_COUNT,
    "CREATE TRIGGER sms_update_thread_read_on_update AFTER UPDATE OF read ON sms BEGIN " + _READ_BODY + "END;",
)


class TelephonyError(ValueError):
    """A request the provider refuses (unknown URI, bad column)."""


def normalize_address(address: str) -> str:
    """The digits (and a leading +) of a phone number, as the console's ``sms send`` accepts it and android_world
    compares numbers (``text_emulator`` keeps ``[0-9+]``, adb_utils.py)."""
    return "".join(c for i, c in enumerate(address.strip()) if c.isdigit() or (c == "+" and i == 0))


class Telephony:
    """``content://sms`` over the provider's database file, and the default SMS app."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    # ------------------------------------------------------------------ the database
    def _create(self) -> None:
        host = self.device.fs.host(DB_PATH)
        if host.exists():
            return
        self.device.fs.makedirs(DB_PATH.rsplit("/", 1)[0])
        with closing(sqlite3.connect(host, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("CREATE TABLE android_metadata (locale TEXT)")
            db.execute("INSERT INTO android_metadata VALUES ('en_US')")
            for statement in (*_CREATE, *_TRIGGERS):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {DB_VERSION}")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with self.device.lock:
            self._create()
            db = sqlite3.connect(self.device.fs.host(DB_PATH))
            db.row_factory = sqlite3.Row
            try:
                with db:
                    yield db
            finally:
                db.close()

    # ------------------------------------------------------------------ the default SMS app
    @property
    def default_package(self) -> str | None:
        value = self.device.state.settings.get("secure", {}).get("sms_default_application")
        return value if value and value != "null" else None

    # ------------------------------------------------------------------ threads
    def thread_id_for(self, address: str) -> int:
        """``Threads.getOrCreateThreadId`` for one recipient."""
        with self._db() as db:
            return self._thread_id(db, address)

    @staticmethod
    def _thread_id(db: sqlite3.Connection, address: str) -> int:
        row = db.execute("SELECT _id FROM canonical_addresses WHERE address = ?", (address,)).fetchone()
        if row is None:
            recipient = db.execute("INSERT INTO canonical_addresses (address) VALUES (?)", (address,)).lastrowid
        else:
            recipient = row[0]
        thread = db.execute("SELECT _id FROM threads WHERE recipient_ids = ?", (str(recipient),)).fetchone()
        if thread is not None:
            return int(thread[0])
        return int(db.execute("INSERT INTO threads (date, recipient_ids, message_count, read) VALUES (?, ?, 0, 1)",
                              (0, str(recipient))).lastrowid)

    def threads(self) -> list[dict[str, Any]]:
        """Threads rows, newest first, each with the ``address`` of its (one) recipient."""
        with self._db() as db:
            rows = db.execute("SELECT threads.*, (SELECT address FROM canonical_addresses "
                              "WHERE canonical_addresses._id = CAST(threads.recipient_ids AS INTEGER)) AS address "
                              "FROM threads ORDER BY date DESC, _id DESC").fetchall()
        return [dict(r) for r in rows]

    # ------------------------------------------------------------------ messages
    def insert(self, *, address: str, body: str, type: int, read: int, seen: int | None = None,
               date_ms: int | None = None, date_sent_ms: int = 0, creator: str | None = None,
               thread_id: int | None = None) -> dict[str, Any]:
        """One ``sms`` row as ``SmsProvider.insert`` writes it (a thread id from the address when none is given;
        the date now when none is given). The triggers then update the thread."""
        if type not in BOXES.values():
            raise TelephonyError(f"sms type {type!r} is not one of {sorted(BOXES.values())}")
        date = self.device.wall_ms() if date_ms is None else int(date_ms)
        with self._db() as db:
            thread = self._thread_id(db, address) if thread_id is None else int(thread_id)
            msg_id = db.execute(
                "INSERT INTO sms (thread_id, address, date, date_sent, read, type, body, creator, seen) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (thread, address, date, date_sent_ms, read, type, body, creator,
                 read if seen is None else seen)).lastrowid
            # the trigger stamps the thread with the host's clock (strftime('%s','now')); the device's is the one
            # a warped or frozen device shows
            db.execute("UPDATE threads SET date = ? WHERE _id = ?", (date, thread))
            row = db.execute("SELECT * FROM sms WHERE _id = ?", (msg_id,)).fetchone()
        return dict(row)

    def deliver(self, address: str, body: str) -> dict[str, Any]:
        """An incoming SMS (the console's ``sms send``): an unread inbox row, then the default SMS app's
        ``on_sms_delivered(device, message)`` hook, as ``SMS_DELIVER`` reaches the default app's receiver."""
        now = self.device.wall_ms()
        message = self.insert(address=address, body=body, type=TYPE_INBOX, read=0, seen=0, date_ms=now,
                              date_sent_ms=now - now % 1000)
        package = self.default_package
        if package and self.device.installed(package):
            hook = getattr(self.device.app(package), "on_sms_delivered", None)
            if hook is not None:
                hook(self.device, message)
        self.device.log("I", "InboundSmsHandler", f"SMS from {address} delivered to {package or 'no default SMS app'}",
                        pid=LOG_PID, uid=1000)
        return message

    def send(self, address: str, body: str, *, creator: str | None = None) -> dict[str, Any]:
        """A message the default app sent: a read ``sent`` row."""
        return self.insert(address=address, body=body, type=TYPE_SENT, read=1, seen=1,
                           creator=creator or self.default_package)

    def messages(self, *, thread_id: int | None = None, box: int | None = None) -> list[dict[str, Any]]:
        """``sms`` rows, oldest first (a conversation's order), of one thread and/or one box."""
        where, args = [], []
        if thread_id is not None:
            where.append("thread_id = ?")
            args.append(int(thread_id))
        if box is not None:
            where.append("type = ?")
            args.append(int(box))
        sql = "SELECT * FROM sms" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY date, _id"
        with self._db() as db:
            return [dict(r) for r in db.execute(sql, args).fetchall()]

    def delete_message(self, msg_id: int) -> int:
        with self._db() as db:
            n = db.execute("DELETE FROM sms WHERE _id = ?", (int(msg_id),)).rowcount
            self._update_threads(db)
        return n

    def delete_thread(self, thread_id: int) -> int:
        with self._db() as db:
            n = db.execute("DELETE FROM sms WHERE thread_id = ?", (int(thread_id),)).rowcount
            self._update_threads(db)
        return n

    def mark_read(self, thread_id: int) -> None:
        with self._db() as db:
            db.execute("UPDATE sms SET read = 1, seen = 1 WHERE thread_id = ? AND read = 0", (int(thread_id),))

    @staticmethod
    def _update_threads(db: sqlite3.Connection) -> None:
        """``updateThreads`` after a delete: threads without messages go, counts and snippets follow."""
        db.execute("DELETE FROM threads WHERE _id NOT IN (SELECT DISTINCT thread_id FROM sms WHERE thread_id IS "
                   "NOT NULL UNION SELECT DISTINCT thread_id FROM pdu WHERE thread_id IS NOT NULL)")
        db.execute("DELETE FROM canonical_addresses WHERE _id NOT IN (SELECT CAST(recipient_ids AS INTEGER) "
                   "FROM threads)")
        db.execute("UPDATE threads SET message_count = (SELECT COUNT(_id) FROM sms WHERE thread_id = threads._id "
                   "AND type != 3), snippet = (SELECT body FROM sms WHERE thread_id = threads._id "
                   "ORDER BY date DESC LIMIT 1), date = COALESCE((SELECT MAX(date) FROM sms "
                   "WHERE thread_id = threads._id), date)")

    # ------------------------------------------------------------------ content://sms
    @staticmethod
    def box_of(uri: str) -> int | None:
        """The box a ``content://sms[/<box>]`` URI names (None: all); TelephonyError for any other URI."""
        rest = uri.removeprefix("content://")
        authority, _, path = rest.partition("/")
        if authority != AUTHORITY or rest == uri:
            raise TelephonyError(f"Unknown URI {uri}")
        path = path.strip("/")
        if not path:
            return None
        if path in BOXES:
            return BOXES[path]
        raise TelephonyError(f"Unknown URI {uri}")

    def query(self, uri: str, *, projection: list[str] | None = None, where: str | None = None,
              sort: str | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Columns and rows of a ``content://sms`` query (the provider's own filters and order)."""
        box = self.box_of(uri)
        clauses = [f"type={box}"] if box is not None else []
        if where:
            clauses.append(f"({where})")
        cols = ", ".join(projection) if projection else "*"
        sql = f"SELECT {cols} FROM sms" + (" WHERE " + " AND ".join(clauses) if clauses else "")
        sql += f" ORDER BY {sort or 'date DESC'}"
        with self._db() as db:
            try:
                cur = db.execute(sql)
            except sqlite3.Error as exc:
                raise TelephonyError(f"{exc} (query: {sql})") from exc
            names = [d[0] for d in cur.description]
            return names, [tuple(r) for r in cur.fetchall()]

    def delete(self, uri: str, *, where: str | None = None) -> int:
        box = self.box_of(uri)
        clauses = [f"type={box}"] if box is not None else []
        if where:
            clauses.append(f"({where})")
        with self._db() as db:
            try:
                n = db.execute("DELETE FROM sms" + (" WHERE " + " AND ".join(clauses) if clauses else "")).rowcount
            except sqlite3.Error as exc:
                raise TelephonyError(str(exc)) from exc
            self._update_threads(db)
        return n

    def content_insert(self, uri: str, values: dict[str, Any]) -> int:
        """``content insert --uri content://sms[/<box>]``: the box (or the ``type`` binding, inbox by default)
        decides the type; ``read`` defaults as the provider's insert does for a sent message."""
        box = self.box_of(uri)
        kind = box if box is not None else int(values.pop("type", TYPE_INBOX))
        values.pop("type", None)
        address = str(values.pop("address", ""))
        body = str(values.pop("body", ""))
        read = int(values.pop("read", 1 if kind == TYPE_SENT else 0))
        date = values.pop("date", None)
        if values:
            unknown = sorted(values)
            raise TelephonyError(f"content insert: columns {unknown} are not modelled (address, body, type, "
                                 "read, date are)")
        return int(self.insert(address=address, body=body, type=kind, read=read,
                               date_ms=None if date is None else int(date))["_id"])
