"""Simple SMS Messenger's data, where the real app and the system keep it (facts: the pinned table's repos ``sms``
SimpleMobileTools/Simple-SMS-Messenger 8b27d9f3 (tag 5.19.3), ``commons`` Simple-Commons b72ded2a and
``permission`` the AOSP Permission module at android-14.0.0_r29).

* The messages themselves live in the Telephony provider (``content://sms``, ``mmssms.db``), the device's
  :mod:`~emukit.vdevice.services.telephony` service: the app lists the provider's threads with
  ``message_count > 0`` (sms:.../extensions/Context.kt:265-335), reads a thread's messages from it
  (``getMessages``), writes what it sends and deletes through it (Context.kt:674-693, 768-778), and keeps drafts
  in its draft box (type 3, Context.kt:913-985). The screens here read the provider on every build.
* ``databases/conversations.db``: Room ``MessagesDatabase`` version 8 (MessagesDatabase.kt:17, 36), the schema
  exported at sms:app/schemas/com.simplemobiletools.smsmessenger.databases.MessagesDatabase/8.json (create
  statements and identity hash as written there). It is the app's cache: the list shows it first, then replaces it
  with the provider's threads (MainActivity.kt:287-372); a thread's messages are cached as they are read
  (ThreadActivity.kt:414-418). Search reads only this cache (MainActivity.kt:498-518).
* ``shared_prefs/Prefs.xml`` (commons Constants.kt:72): ``app_run_count`` (incremented by every MainActivity
  onCreate, commons Activity.kt:83), ``last_version`` (set on the first run without a What's new dialog, commons
  Activity.kt:608-622), ``pinned_conversations`` (sms Constants.kt:27).
* The SMS role holder is the permission controller's, ``roles.xml`` in the permission module's device-protected
  apex data (``RolesPersistenceImpl.getFile``, permission:service/java/com/android/role/persistence/
  RolesPersistenceImpl.java:281-285, tags ``roles`` / ``role`` / ``holder`` :63-65): system data, which a
  ``pm clear`` of the app does not touch. Granting the role also writes the ``sms_default_application`` secure
  setting the Telephony service reads.
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.simplemobiletools.smsmessenger"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/Prefs.xml"
VERSION_CODE = 85
ROLE_SMS = "android.app.role.SMS"
ROLES_XML = "/data/misc_de/0/apexdata/com.android.permission/roles.xml"
#: the permission sets the SMS role grants its holder (permission:PermissionController/res/xml/roles.xml:326-335),
#: as far as the app's manifest asks them (sms:app/src/main/AndroidManifest.xml:6-22)
ROLE_PERMISSIONS = ("android.permission.READ_SMS", "android.permission.SEND_SMS", "android.permission.RECEIVE_SMS",
                    "android.permission.RECEIVE_MMS", "android.permission.READ_PHONE_STATE",
                    "android.permission.READ_CONTACTS", "android.permission.POST_NOTIFICATIONS")
TYPE_INBOX, TYPE_SENT, TYPE_DRAFT, TYPE_OUTBOX = 1, 2, 3, 4  # Telephony.TextBasedSmsColumns
MIN_DATE_TIME_DIFF_SECS = 300  # ThreadActivity.kt:80

_T = "`${TABLE_NAME}`"
SCHEMA = RoomSchema(
    package=PACKAGE, name="conversations.db", version=8, identity_hash="23811e41b338a810cf5df26a5dff67a5",
    create=tuple(s.replace(_T, f"`{name}`") for name, s in (
        ("conversations", ("CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`thread_id` INTEGER NOT NULL, `snippet` TEXT "
         "NOT NULL, `date` INTEGER NOT NULL, `read` INTEGER NOT NULL, `title` TEXT NOT NULL, `photo_uri` TEXT NOT NULL, "
         "`is_group_conversation` INTEGER NOT NULL, `phone_number` TEXT NOT NULL, `is_scheduled` INTEGER NOT NULL, "
         "`uses_custom_title` INTEGER NOT NULL, `archived` INTEGER NOT NULL, PRIMARY KEY(`thread_id`))")),
        ("conversations", ("CREATE UNIQUE INDEX IF NOT EXISTS `index_conversations_thread_id` ON `${TABLE_NAME}` "
         "(`thread_id`)")),
        ("attachments", ("CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, "
         "`message_id` INTEGER NOT NULL, `uri_string` TEXT NOT NULL, `mimetype` TEXT NOT NULL, `width` INTEGER NOT "
         "NULL, `height` INTEGER NOT NULL, `filename` TEXT NOT NULL)")),
        ("attachments", ("CREATE UNIQUE INDEX IF NOT EXISTS `index_attachments_message_id` ON `${TABLE_NAME}` "
         "(`message_id`)")),
        ("message_attachments", ("CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER NOT NULL, `text` TEXT NOT "
         "NULL, `attachments` TEXT NOT NULL, PRIMARY KEY(`id`))")),
        ("messages", ("CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER NOT NULL, `body` TEXT NOT NULL, "
         "`type` INTEGER NOT NULL, `status` INTEGER NOT NULL, `participants` TEXT NOT NULL, `date` INTEGER NOT NULL, "
         "`read` INTEGER NOT NULL, `thread_id` INTEGER NOT NULL, `is_mms` INTEGER NOT NULL, `attachment` TEXT, "
         "`sender_phone_number` TEXT NOT NULL, `sender_name` TEXT NOT NULL, `sender_photo_uri` TEXT NOT NULL, "
         "`subscription_id` INTEGER NOT NULL, `is_scheduled` INTEGER NOT NULL, PRIMARY KEY(`id`))")),
        ("recycle_bin_messages", ("CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (`id` INTEGER NOT NULL, `deleted_ts` "
         "INTEGER NOT NULL, PRIMARY KEY(`id`))")),
        ("recycle_bin_messages", ("CREATE UNIQUE INDEX IF NOT EXISTS `index_recycle_bin_messages_id` ON "
         "`${TABLE_NAME}` (`id`)")),
    )),
)
STORE = RoomStore(SCHEMA)


# ---------------------------------------------------------------------------------------------- prefs
def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def app_launched(device: VirtualDevice) -> None:
    """``appLaunched``: one more run; the first run records the version without a What's new dialog."""
    p = prefs(device)
    p.put_int("app_run_count", p.get_int("app_run_count") + 1)
    if p.get_int("last_version") == 0:
        p.put_int("last_version", VERSION_CODE)
    shared_prefs.save(device, PREFS, p)


# ---------------------------------------------------------------------------------------------- the SMS role
def _roles(device: VirtualDevice) -> ET.Element:
    try:
        return ET.fromstring(device.fs.read_bytes(ROLES_XML))
    except (OSError, ET.ParseError):
        return ET.Element("roles", {"version": "-1"})


def role_holder(device: VirtualDevice) -> str | None:
    """The package holding the SMS role (None: no holder)."""
    for role in _roles(device).iter("role"):
        if role.get("name") == ROLE_SMS:
            holder = role.find("holder")
            return holder.get("name") if holder is not None else None
    return None


def set_role_holder(device: VirtualDevice, package: str) -> None:
    """The role's grant (RoleControllerService: the holder, its permissions, the legacy secure setting)."""
    root = _roles(device)
    for role in list(root.iter("role")):
        if role.get("name") == ROLE_SMS:
            root.remove(role)
    role = ET.SubElement(root, "role", {"name": ROLE_SMS})
    ET.SubElement(role, "holder", {"name": package})
    device.fs.makedirs(ROLES_XML.rsplit("/", 1)[0])
    device.fs.write_bytes(ROLES_XML, b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
                          + ET.tostring(root))
    device.state.settings.setdefault("secure", {})["sms_default_application"] = package
    app = device.apps.get(package)
    for perm in ROLE_PERMISSIONS:
        if app is not None and perm in app.runtime_permissions and not device.permission_granted(package, perm):
            device.grant_permission(package, perm)


# ---------------------------------------------------------------------------------------------- conversations
def seconds(ms: int) -> int:
    """``date`` as the app keeps it: seconds (Context.kt:300-303)."""
    return int(ms) // 1000 if len(str(int(ms))) > 10 else int(ms)


def conversations(device: VirtualDevice) -> list[dict[str, Any]]:
    """``getConversations``: the provider's threads with messages, newest first, titled by their number (no
    contacts are modelled), pinned ones on top (MainActivity.kt:393-397)."""
    pinned = set(prefs(device).get_set("pinned_conversations"))
    out = []
    for t in device.telephony.threads():
        if int(t.get("message_count") or 0) <= 0 or not t.get("address"):
            continue
        out.append({"thread_id": int(t["_id"]), "title": t["address"], "phone_number": t["address"],
                    "snippet": t.get("snippet") or "", "date": seconds(int(t.get("date") or 0)),
                    "read": int(t.get("read", 1)) == 1})
    out.sort(key=lambda c: (str(c["thread_id"]) not in pinned, -c["date"]))
    return out


def messages(device: VirtualDevice, thread_id: int) -> list[dict[str, Any]]:
    """A thread's messages oldest first, drafts left out (``getMessages``)."""
    return [m for m in device.telephony.messages(thread_id=thread_id) if int(m["type"]) != TYPE_DRAFT]


def draft(device: VirtualDevice, thread_id: int) -> str | None:
    """``getSmsDraft``: the body of the thread's row in the draft box."""
    rows = device.telephony.messages(thread_id=thread_id, box=TYPE_DRAFT)
    return rows[0]["body"] if rows else None


def drafts(device: VirtualDevice) -> dict[int, str]:
    return {int(m["thread_id"]): m["body"] for m in device.telephony.messages(box=TYPE_DRAFT)}


def save_draft(device: VirtualDevice, thread_id: int, address: str, body: str) -> None:
    """``saveSmsDraft`` / ``deleteSmsDraft`` on leaving a thread: the draft box holds the field's text (one row per
    thread here; see the facts file for the provider's own handling)."""
    for row in device.telephony.messages(thread_id=thread_id, box=TYPE_DRAFT):
        device.telephony.delete_message(int(row["_id"]))
    if body:
        device.telephony.insert(address=address, body=body, type=TYPE_DRAFT, read=1, thread_id=thread_id)


# ---------------------------------------------------------------------------------------------- the cache (conversations.db)
def cache_conversations(device: VirtualDevice) -> None:
    """``getNewConversations``: the cache follows the provider (new threads in, deleted ones out, changed ones
    updated; MainActivity.kt:312-361)."""
    live = conversations(device)
    with STORE.connect(device) as db:
        ids = [c["thread_id"] for c in live]
        marks = ",".join("?" * len(ids))
        db.execute(f"DELETE FROM conversations WHERE is_scheduled = 0 AND thread_id NOT IN ({marks or 'NULL'})", ids)
        for c in live:
            db.execute("INSERT OR REPLACE INTO conversations (thread_id, snippet, date, read, title, photo_uri, "
                       "is_group_conversation, phone_number, is_scheduled, uses_custom_title, archived) "
                       "VALUES (?, ?, ?, ?, ?, '', 0, ?, 0, 0, 0)",
                       (c["thread_id"], c["snippet"], c["date"], int(c["read"]), c["title"], c["phone_number"]))


def cache_message(device: VirtualDevice, message: dict[str, Any]) -> None:
    """``messagesDB.insertOrUpdate`` of a provider row (SmsReceiver.kt:98-115, ThreadActivity.kt:414-418)."""
    if not STORE.exists(device):
        return
    address = message.get("address") or ""
    participants = json.dumps([{"rawId": 0, "contactId": 0, "name": address, "photoUri": "",
                               "phoneNumbers": [{"value": address, "type": 0, "label": "", "normalizedNumber": address,
                                                 "isPrimary": False}], "birthdays": [], "anniversaries": []}],
                              separators=(",", ":"))
    STORE.execute(device, "INSERT OR REPLACE INTO messages (id, body, type, status, participants, date, read, "
                  "thread_id, is_mms, attachment, sender_phone_number, sender_name, sender_photo_uri, subscription_id, "
                  "is_scheduled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, '', ?, 0)",
                  (int(message["_id"]), message.get("body") or "", int(message["type"]),
                   int(message.get("status", -1)), participants, seconds(int(message["date"])),
                   int(message.get("read") or 0), int(message["thread_id"]), address, address,
                   int(message.get("sub_id", -1))))


def uncache_thread(device: VirtualDevice, thread_id: int) -> None:
    if STORE.exists(device):
        with STORE.connect(device) as db:
            db.execute("DELETE FROM conversations WHERE thread_id = ?", (thread_id,))
            db.execute("DELETE FROM messages WHERE thread_id = ?", (thread_id,))


def uncache_message(device: VirtualDevice, msg_id: int) -> None:
    if STORE.exists(device):
        STORE.execute(device, "DELETE FROM messages WHERE id = ?", (msg_id,))


# ---------------------------------------------------------------------------------------------- formats
def local(device: VirtualDevice, secs: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(secs, dt.UTC)


def format_date_or_time(device: VirtualDevice, secs: int, *, hide_time_at_other_days: bool) -> str:
    """``Int.formatDateOrTime`` (commons Int.kt:70-88) with the defaults an en-US device gets: 24-hour time (the
    device's clock format), the date format dd.MM.yyyy (BaseConfig.kt:395-409), the year left out this year."""
    when = local(device, secs)
    today = local(device, device.wall_ms() // 1000).date()
    time = when.strftime("%H:%M")
    if when.date() == today:
        return time
    date = when.strftime("%d.%m") if when.year == today.year else when.strftime("%d.%m.%Y")
    return date if hide_time_at_other_days else f"{date}, {time}"
