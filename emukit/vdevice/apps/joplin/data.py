"""Joplin's data, where and how the real app keeps it (facts: the pinned table's repo ``joplin`` laurent22/joplin
0715340d, tag android-v3.0.1).

* ``databases/joplin.sqlite``: opened through react-native-sqlite-storage by name (DatabaseDriverReactNative,
  packages/app-mobile/utils/database-driver-react-native.js:8-21; root.tsx:573-574 with the production profile's name),
  which Android keeps under the app's ``databases`` folder; android_world reads and writes the same path
  (joplin_app_utils.py:32). The schema is Joplin's own migrations, not Room: ``structureSql`` creates version 1
  (JoplinDatabase.ts:11-125) and ``upgradeDatabase`` walks the versions up to 46 (41 numbered steps,
  JoplinDatabase.ts:359-361, then the five files of services/database/migrations, 42.ts-46.ts). The ``version``
  table holds 46; SQLite's user_version stays 0.
* The tables kept here are the ones the app's screens and android_world use: ``notes`` (structureSql :22-41 plus
  user_created_time/user_updated_time v5 :416-426, encryption_* v9 :456-461, markup_language v24 :702,
  is_shared v26 :715-721, share_id v36 :888-891, conflict_original_id v39 :907, master_key_id v40 :911-912,
  user_data 43.ts, deleted_time 46.ts), ``folders`` (structureSql :12-17 plus v5, v9, parent_id v12 :514,
  v26, share_id v36, master_key_id v40, icon v41 :917, user_data 43.ts, deleted_time 46.ts),
  ``notes_normalized`` (rebuilt at v33 :794-821, todo_due v35 :883), ``item_changes`` (upgradeVersion10
  :466-495, source and before_change_item v19 :648-649), ``settings`` (:84-88) and ``version`` (:118-124). The column order is the order those statements add them. The search index (notes_fts and its
  triggers), resources, tags, sync and revision tables are not kept.
* Settings with the default storage live in ``settings`` (key, value, type; Setting.valueToString writes booleans as
  "0"/"1", Setting.ts:2325-2335): ``firstStart`` (Setting.ts:787), ``welcome.wasBuilt`` (:1680),
  ``activeFolderId`` (:782).
* Ids are 32 lowercase hex digits (uuid.create), times milliseconds. A note the app creates has ``source``
  "joplin" (appName, Setting.ts:299) and ``source_application`` "net.cozic.joplin-mobile" (root.tsx:485),
  ``order`` its creation time and ``deleted_time`` 0 (Note.ts:759-762); ``markup_language`` 1 (Markdown).
* ``notes_normalized`` is the search engine's copy (title lower-cased); the app fills it in the background
  (SearchEngine.scheduleSyncTables, root.tsx:735), here on every write.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "net.cozic.joplin"
T = table(PACKAGE)
DB_VERSION = 46
SOURCE, SOURCE_APPLICATION = "joplin", "net.cozic.joplin-mobile"
INT, STRING, BOOL = 1, 2, 3  # SettingItemType (Setting.ts:21-28)
TYPE_NOTE, TYPE_FOLDER = 1, 2  # BaseModel.TYPE_*
CREATE, UPDATE = 1, 2  # ItemChange.TYPE_CREATE / TYPE_UPDATE (ItemChange.ts:17-18; moving to the trash is an update)
# the first start's notebook and notes (WelcomeUtils.createWelcomeItems; welcomeAssets.js en_GB titles, saved
# last to first so that "1. ..." is the most recent). Their bodies are not reproduced: each is a short stand-in.
WELCOME_NOTES = ("1. Welcome to Joplin!", "2. Importing and exporting notes", "3. Synchronising your notes",
                 "4. Tips", "5. Joplin Privacy Policy")

NOTE_COLUMNS = ("id", "parent_id", "title", "body", "created_time", "updated_time", "is_conflict", "latitude",
                "longitude", "altitude", "author", "source_url", "is_todo", "todo_due", "todo_completed", "source",
                "source_application", "application_data", "order", "user_created_time", "user_updated_time",
                "encryption_cipher_text", "encryption_applied", "markup_language", "is_shared", "share_id",
                "conflict_original_id", "master_key_id", "user_data", "deleted_time")
FOLDER_COLUMNS = ("id", "title", "created_time", "updated_time", "user_created_time", "user_updated_time",
                  "encryption_cipher_text", "encryption_applied", "parent_id", "is_shared", "share_id",
                  "master_key_id", "icon", "user_data", "deleted_time")
NORMALIZED_COLUMNS = ("id", "title", "body", "user_created_time", "user_updated_time", "is_todo", "todo_completed",
                      "parent_id", "latitude", "longitude", "altitude", "source_url", "todo_due")

SCHEMA = RoomSchema(
    package=PACKAGE, name="joplin.sqlite", version=0,
    create=(
        ('CREATE TABLE folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, '
         'updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0, '
         'user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", '
         'encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", '
         'is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", '
         'master_key_id TEXT NOT NULL DEFAULT "", icon TEXT NOT NULL DEFAULT "", '
         'user_data TEXT NOT NULL DEFAULT "", deleted_time INT NOT NULL DEFAULT 0)'),
        "CREATE INDEX folders_title ON folders (title)",
        "CREATE INDEX folders_updated_time ON folders (updated_time)",
        ('CREATE TABLE notes (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT "", '
         'title TEXT NOT NULL DEFAULT "", body TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, '
         'updated_time INT NOT NULL, is_conflict INT NOT NULL DEFAULT 0, latitude NUMERIC NOT NULL DEFAULT 0, '
         'longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, author TEXT NOT NULL DEFAULT "", '
         'source_url TEXT NOT NULL DEFAULT "", is_todo INT NOT NULL DEFAULT 0, todo_due INT NOT NULL DEFAULT 0, '
         'todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT "", '
         'source_application TEXT NOT NULL DEFAULT "", application_data TEXT NOT NULL DEFAULT "", '
         '`order` INT NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0, '
         'user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", '
         'encryption_applied INT NOT NULL DEFAULT 0, markup_language INT NOT NULL DEFAULT 1, '
         'is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", '
         'conflict_original_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", '
         'user_data TEXT NOT NULL DEFAULT "", deleted_time INT NOT NULL DEFAULT 0)'),
        "CREATE INDEX notes_title ON notes (title)",
        "CREATE INDEX notes_updated_time ON notes (updated_time)",
        "CREATE INDEX notes_is_conflict ON notes (is_conflict)",
        "CREATE INDEX notes_is_todo ON notes (is_todo)",
        "CREATE INDEX notes_order ON notes (`order`)",
        ('CREATE TABLE notes_normalized (id TEXT NOT NULL, title TEXT NOT NULL DEFAULT "", '
         'body TEXT NOT NULL DEFAULT "", user_created_time INT NOT NULL DEFAULT 0, '
         'user_updated_time INT NOT NULL DEFAULT 0, is_todo INT NOT NULL DEFAULT 0, '
         'todo_completed INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", '
         'latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, '
         'altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT "", '
         'todo_due INT NOT NULL DEFAULT 0)'),
        "CREATE INDEX notes_normalized_id ON notes_normalized (id)",
        ("CREATE TABLE item_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, item_type INT NOT NULL, "
         'item_id TEXT NOT NULL, type INT NOT NULL, created_time INT NOT NULL, source INT NOT NULL DEFAULT 1, '
         'before_change_item TEXT NOT NULL DEFAULT "")'),
        "CREATE INDEX item_changes_item_id ON item_changes (item_id)",
        "CREATE TABLE settings (`key` TEXT PRIMARY KEY, `value` TEXT, `type` INT NOT NULL)",
        "CREATE TABLE version (version INT NOT NULL)",
    ),
    on_create=(("INSERT INTO version (version) VALUES (?)", (DB_VERSION,)),),
)
STORE = RoomStore(SCHEMA)


# ------------------------------------------------------------------------------------------------ settings
def setting(device: VirtualDevice, key: str, default: str = "") -> str:
    rows = STORE.rows(device, "SELECT value FROM settings WHERE `key` = ?", (key,))
    return str(rows[0]["value"]) if rows and rows[0]["value"] is not None else default


def set_setting(device: VirtualDevice, key: str, value: str, kind: int) -> None:
    STORE.execute(device, "INSERT OR REPLACE INTO settings (`key`, `value`, `type`) VALUES (?, ?, ?)",
                  (key, value, kind))


def _new_id(device: VirtualDevice, kind: str) -> str:
    """A 32-hex-digit id (uuid.create's form), derived from the clock and the number of item changes ever
    recorded (item_changes is AUTOINCREMENT, so the number never repeats, even after rows are deleted): the same
    steps give the same ids."""
    seq = STORE.rows(device, "SELECT seq FROM sqlite_sequence WHERE name = 'item_changes'")
    n = int(seq[0]["seq"]) if seq else 0
    return hashlib.sha256(f"{kind}:{device.wall_ms()}:{n}".encode()).hexdigest()[:32]


def _changed(device: VirtualDevice, item_type: int, item_id: str, change: int) -> None:
    """ItemChange.add (ItemChange.ts:59): every save and delete of a note or folder is recorded."""
    STORE.execute(device, "INSERT INTO item_changes (item_type, item_id, type, source, created_time) "
                          "VALUES (?, ?, ?, 1, ?)", (item_type, item_id, change, device.wall_ms()))


# ------------------------------------------------------------------------------------------------ start
def open_database(device: VirtualDevice) -> None:
    """``initialize`` (root.tsx:472-801): open joplin.sqlite (created and migrated on the first access), clear
    ``firstStart`` (root.tsx:592-598), build the welcome notebook once (WelcomeUtils.install, root.tsx:752)."""
    STORE.create(device)
    if setting(device, "firstStart", "1") == "1":
        set_setting(device, "firstStart", "0", BOOL)
    if setting(device, "welcome.wasBuilt", "0") != "1":
        folder_id = create_folder(device, "Welcome!")
        for i, title in reversed(list(enumerate(WELCOME_NOTES))):
            save_new_note(device, folder_id, title=title, body=f"# {title[3:]}\n\nWelcome note {i + 1} of "
                          f"{len(WELCOME_NOTES)}.", tick=len(WELCOME_NOTES) - i)
        set_setting(device, "welcome.wasBuilt", "1", BOOL)
        set_setting(device, "activeFolderId", folder_id, STRING)


def after_android_world_setup(device: VirtualDevice) -> None:
    """The state android_world's setup leaves (apps.py:716-743): the app launched once (database, welcome
    notebook), then every row of folders, notes and notes_normalized deleted (joplin_app_utils.clear_dbs)."""
    open_database(device)
    for name in ("folders", "notes", "notes_normalized"):
        STORE.execute(device, f"DELETE FROM {name}")


# ------------------------------------------------------------------------------------------------ folders
def folders(device: VirtualDevice) -> list[dict[str, Any]]:
    """Real notebooks (not deleted), by title (the mobile app sorts notebooks by title, root.tsx:632-633)."""
    return STORE.rows(device, "SELECT * FROM folders WHERE deleted_time = 0 ORDER BY title COLLATE NOCASE, id")


def folder(device: VirtualDevice, folder_id: str) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM folders WHERE id = ?", (folder_id,))
    return rows[0] if rows else None


def default_folder(device: VirtualDevice) -> dict[str, Any] | None:
    """Folder.defaultFolder: the most recently created folder (Folder.ts:818-820)."""
    rows = STORE.rows(device, "SELECT * FROM folders ORDER BY created_time DESC LIMIT 1")
    return rows[0] if rows else None


def create_folder(device: VirtualDevice, title: str) -> str:
    """Folder.save({title}) of a new notebook; its id."""
    now = device.wall_ms()
    folder_id = _new_id(device, "folder")
    values = {"id": folder_id, "title": title, "created_time": now, "updated_time": now, "user_created_time": now,
              "user_updated_time": now}
    STORE.execute(device, f"INSERT INTO folders ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                  tuple(values.values()))
    _changed(device, TYPE_FOLDER, folder_id, CREATE)
    return folder_id


# ------------------------------------------------------------------------------------------------ notes
def notes(device: VirtualDevice, folder_id: str | None) -> list[dict[str, Any]]:
    """Note.previews of a notebook (None: All notes): not deleted, not conflicts, most recently updated first
    (notes.sortOrder.field user_updated_time, reverse; Setting.ts:936-974)."""
    where = "deleted_time = 0 AND is_conflict = 0" + (" AND parent_id = ?" if folder_id is not None else "")
    args = (folder_id,) if folder_id is not None else ()
    return STORE.rows(device, f"SELECT * FROM notes WHERE {where} ORDER BY user_updated_time DESC, id", args)


def note(device: VirtualDevice, note_id: str) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM notes WHERE id = ?", (note_id,))
    return rows[0] if rows else None


def _normalize(device: VirtualDevice, row: dict[str, Any]) -> None:
    STORE.execute(device, "DELETE FROM notes_normalized WHERE id = ?", (row["id"],))
    values = {c: row[c] for c in NORMALIZED_COLUMNS}
    values["title"] = str(values["title"]).lower()
    STORE.execute(device, f"INSERT INTO notes_normalized ({', '.join(values)}) VALUES "
                          f"({', '.join('?' * len(values))})", tuple(values.values()))


def save_new_note(device: VirtualDevice, folder_id: str, *, title: str = "", body: str = "", is_todo: bool = False,
                  tick: int = 0) -> str:
    """Note.save of a new note (Note.ts:749-817); ``tick`` ms added to the clock (the welcome notes are saved
    one after the other)."""
    now = device.wall_ms() + tick
    note_id = _new_id(device, f"note{tick}")
    row: dict[str, Any] = {c: 0 for c in NOTE_COLUMNS}
    row.update({c: "" for c in ("parent_id", "title", "body", "author", "source_url", "source",
                                "source_application", "application_data", "encryption_cipher_text", "share_id",
                                "conflict_original_id", "master_key_id", "user_data")})
    row.update(id=note_id, parent_id=folder_id, title=title, body=body, created_time=now, updated_time=now,
               user_created_time=now, user_updated_time=now, is_todo=int(is_todo), source=SOURCE,
               source_application=SOURCE_APPLICATION, order=now, markup_language=1, deleted_time=0)
    columns = ", ".join(f"`{c}`" for c in NOTE_COLUMNS)
    STORE.execute(device, f"INSERT INTO notes ({columns}) VALUES ({', '.join('?' * len(NOTE_COLUMNS))})",
                  tuple(row[c] for c in NOTE_COLUMNS))
    _changed(device, TYPE_NOTE, note_id, CREATE)
    _normalize(device, row)
    return note_id


def update_note(device: VirtualDevice, note_id: str, **fields: Any) -> None:
    """Note.save of changed fields: updated_time and user_updated_time move to now."""
    now = device.wall_ms()
    fields.update(updated_time=now, user_updated_time=now)
    sets = ", ".join(f"`{k}` = ?" for k in fields)
    STORE.execute(device, f"UPDATE notes SET {sets} WHERE id = ?", (*fields.values(), note_id))
    _changed(device, TYPE_NOTE, note_id, UPDATE)
    row = note(device, note_id)
    if row is not None:
        _normalize(device, row)


def trash_note(device: VirtualDevice, note_id: str) -> None:
    """Note.delete(id, {toTrash: true}): deleted_time and updated_time set, the row kept (Note.ts:839-870)."""
    now = device.wall_ms()
    STORE.execute(device, "UPDATE notes SET deleted_time = ?, updated_time = ? WHERE id = ?", (now, now, note_id))
    _changed(device, TYPE_NOTE, note_id, UPDATE)


def display_title(row: dict[str, Any]) -> str:
    """BaseItem.displayTitle: the title, "Untitled" when empty (BaseItem.ts:865)."""
    return str(row["title"]) or T.text("untitled")


def title_from_body(body: str) -> str:
    """markdownUtils.titleFromBody: the first line, leading markup stripped, links to their text, 80 characters
    at most (markdownUtils.ts:216-224)."""
    import re

    if not body:
        return ""
    first = body.strip().split("\n")[0].strip()
    first = re.sub(r"^[# \n\t*`-]*", "", first)
    first = re.sub(r"!?\[([^\]]+?)\]\(.+?\)", r"\1", first)
    first = re.sub(r"!?\[\]\((.+?)\)", r"\1", first)
    return first[:80]


def markdown_tag(row: dict[str, Any]) -> str:
    """BaseItem.markdownTag: ``[title](:/id)``, brackets in the title escaped (BaseItem.ts:951-963; what "Copy
    Markdown link" puts on the clipboard)."""
    title = str(row["title"]).replace("[", "\\[").replace("]", "\\]")
    return f"[{title}](:/{row['id']})"
