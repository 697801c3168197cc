"""Tasks.org's data, where and how the real app keeps it (facts: the pinned table's repo ``tasks``, tasks/tasks
ee21cc66 at tag 13.6.3).

* ``databases/database``: Room ``com.todoroo.astrid.dao.Database`` version 88 (Database.kt:36, 67;
  ProductionModule.kt:34). The CREATE statements and the identity hash are those of the schema Room exported for
  that version (app/schemas/com.todoroo.astrid.dao.Database/88.json), ``${TABLE_NAME}`` filled in; the app adds no
  rows when Room creates the file. It is created at the app's first start: ``Tasks.onCreate`` starts background
  work that reads the accounts (Tasks.kt:56-63, 95-96).
* ``shared_prefs/org.tasks_preferences.xml`` (Preferences.kt:577-578): ``cv`` (the last run version),
  ``install_version`` and ``install_date`` (Upgrader.kt:117-128 on a fresh install, keys.xml:423-425),
  ``shown_beast_mode_hint`` (the editor's customize hint, keys.xml:450).
* a task's times are milliseconds (``DateUtilities.now()``); ``importance`` 0 high .. 3 none (Task.kt:306-309),
  2 for a new task (p_default_importance_key default "2", preferences_task_defaults.xml:23-30); ``remoteId`` a
  random positive long as text (UUIDHelper.java:10-16).
* a task created in the app is put in the local account's first list, made on demand: account ``local``
  (type 2), list "Default list" (CaldavDao.kt:383-404, CaldavAccount.kt:237), one ``caldav_tasks`` row
  (TaskMover.kt:127-142). Deleting only stamps ``deleted`` and ``modified`` (DeletionDao.kt:49-56); the cleanup
  work it enqueues then removes the rows of deleted tasks that are in a local list (DeletionDao.kt:78-79,
  CleanupWork.kt:55, WorkManagerImpl.kt:85-91) -- a task android_world wrote straight into ``tasks`` (no
  ``caldav_tasks`` row) stays, with ``deleted`` set.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "org.tasks"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
VERSION_CODE = 130605
PRIORITY_NONE, PRIORITY_LOW = 3, 2  # Task.kt:306-309; the default for new tasks is LOW (2)
LOCAL_ACCOUNT, TYPE_LOCAL = "local", 2  # CaldavDao.kt:404, CaldavAccount.kt:237
NO_ORDER = -1  # Filter.kt:33
SORT_NO_DATE_FACTOR, SORT_IMPORTANCE_WEIGHT = 2, 172799999  # SortHelper.java:143-156
HALF_DAY_MINUS_MINUTE_MS = 43140000  # ADJUSTED_DUE_DATE, SortHelper.java:52-53

SCHEMA = RoomSchema(
    package=PACKAGE, name="database", version=88, identity_hash="a2597380bdfaeeb040d40bab2fc653c1",
    create=(
        ('CREATE TABLE IF NOT EXISTS `notification` (`uid` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` '
         'INTEGER NOT NULL, `timestamp` INTEGER NOT NULL, `type` INTEGER NOT NULL, `location` INTEGER, FOREIGN '
         'KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE UNIQUE INDEX IF NOT EXISTS `index_notification_task` ON `notification` (`task`)',
        ('CREATE TABLE IF NOT EXISTS `tagdata` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `remoteId` TEXT, '
         '`name` TEXT, `color` INTEGER, `tagOrdering` TEXT, `td_icon` INTEGER, `td_order` INTEGER NOT NULL)'),
        ('CREATE TABLE IF NOT EXISTS `userActivity` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `remoteId` TEXT, '
         '`message` TEXT, `picture` TEXT, `target_id` TEXT, `created_at` INTEGER)'),
        ('CREATE TABLE IF NOT EXISTS `attachment_file` (`file_id` INTEGER PRIMARY KEY AUTOINCREMENT, '
         '`file_uuid` TEXT NOT NULL, `filename` TEXT NOT NULL, `uri` TEXT NOT NULL)'),
        ('CREATE TABLE IF NOT EXISTS `task_list_metadata` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `tag_uuid` '
         'TEXT, `filter` TEXT, `task_ids` TEXT)'),
        ('CREATE TABLE IF NOT EXISTS `tasks` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT, '
         '`importance` INTEGER NOT NULL, `dueDate` INTEGER NOT NULL, `hideUntil` INTEGER NOT NULL, `created` '
         'INTEGER NOT NULL, `modified` INTEGER NOT NULL, `completed` INTEGER NOT NULL, `deleted` INTEGER NOT '
         'NULL, `notes` TEXT, `estimatedSeconds` INTEGER NOT NULL, `elapsedSeconds` INTEGER NOT NULL, '
         '`timerStart` INTEGER NOT NULL, `notificationFlags` INTEGER NOT NULL, `lastNotified` INTEGER NOT '
         'NULL, `recurrence` TEXT, `repeat_from` INTEGER NOT NULL DEFAULT 0, `calendarUri` TEXT, `remoteId` '
         'TEXT, `collapsed` INTEGER NOT NULL, `parent` INTEGER NOT NULL, `order` INTEGER, `read_only` INTEGER '
         'NOT NULL DEFAULT 0)'),
        'CREATE UNIQUE INDEX IF NOT EXISTS `t_rid` ON `tasks` (`remoteId`)',
        'CREATE INDEX IF NOT EXISTS `active_and_visible` ON `tasks` (`completed`, `deleted`, `hideUntil`)',
        ('CREATE TABLE IF NOT EXISTS `alarms` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` '
         'INTEGER NOT NULL, `time` INTEGER NOT NULL, `type` INTEGER NOT NULL DEFAULT 0, `repeat` INTEGER NOT '
         'NULL DEFAULT 0, `interval` INTEGER NOT NULL DEFAULT 0, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) '
         'ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE INDEX IF NOT EXISTS `index_alarms_task` ON `alarms` (`task`)',
        ('CREATE TABLE IF NOT EXISTS `places` (`place_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `uid` '
         'TEXT, `name` TEXT, `address` TEXT, `phone` TEXT, `url` TEXT, `latitude` REAL NOT NULL, `longitude` '
         'REAL NOT NULL, `place_color` INTEGER NOT NULL, `place_icon` INTEGER NOT NULL, `place_order` INTEGER '
         'NOT NULL, `radius` INTEGER NOT NULL DEFAULT 250)'),
        'CREATE UNIQUE INDEX IF NOT EXISTS `place_uid` ON `places` (`uid`)',
        ('CREATE TABLE IF NOT EXISTS `geofences` (`geofence_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, '
         '`task` INTEGER NOT NULL, `place` TEXT, `arrival` INTEGER NOT NULL, `departure` INTEGER NOT NULL, '
         'FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE INDEX IF NOT EXISTS `index_geofences_task` ON `geofences` (`task`)',
        ('CREATE TABLE IF NOT EXISTS `tags` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` INTEGER '
         'NOT NULL, `name` TEXT, `tag_uid` TEXT, `task_uid` TEXT, FOREIGN KEY(`task`) REFERENCES '
         '`tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE INDEX IF NOT EXISTS `index_tags_task` ON `tags` (`task`)',
        ('CREATE TABLE IF NOT EXISTS `filters` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` '
         'TEXT, `sql` TEXT, `values` TEXT, `criterion` TEXT, `f_color` INTEGER, `f_icon` INTEGER, `f_order` '
         'INTEGER NOT NULL)'),
        ('CREATE TABLE IF NOT EXISTS `caldav_lists` (`cdl_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, '
         '`cdl_account` TEXT, `cdl_uuid` TEXT, `cdl_name` TEXT, `cdl_color` INTEGER NOT NULL, `cdl_ctag` TEXT, '
         '`cdl_url` TEXT, `cdl_icon` INTEGER, `cdl_order` INTEGER NOT NULL, `cdl_access` INTEGER NOT NULL, '
         '`cdl_last_sync` INTEGER NOT NULL)'),
        ('CREATE TABLE IF NOT EXISTS `caldav_tasks` (`cd_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, '
         '`cd_task` INTEGER NOT NULL, `cd_calendar` TEXT, `cd_remote_id` TEXT, `cd_object` TEXT, `cd_etag` '
         'TEXT, `cd_last_sync` INTEGER NOT NULL, `cd_deleted` INTEGER NOT NULL, `cd_remote_parent` TEXT, '
         '`gt_moved` INTEGER NOT NULL, `gt_remote_order` INTEGER NOT NULL, FOREIGN KEY(`cd_task`) REFERENCES '
         '`tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE INDEX IF NOT EXISTS `index_caldav_tasks_cd_task` ON `caldav_tasks` (`cd_task`)',
        ('CREATE TABLE IF NOT EXISTS `caldav_accounts` (`cda_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, '
         '`cda_uuid` TEXT, `cda_name` TEXT, `cda_url` TEXT, `cda_username` TEXT, `cda_password` TEXT, '
         '`cda_error` TEXT, `cda_account_type` INTEGER NOT NULL, `cda_collapsed` INTEGER NOT NULL, '
         '`cda_server_type` INTEGER NOT NULL)'),
        ('CREATE TABLE IF NOT EXISTS `principals` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `account` '
         'INTEGER NOT NULL, `href` TEXT NOT NULL, `email` TEXT, `display_name` TEXT, FOREIGN KEY(`account`) '
         'REFERENCES `caldav_accounts`(`cda_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        ('CREATE UNIQUE INDEX IF NOT EXISTS `index_principals_account_href` ON `principals` (`account`, '
         '`href`)'),
        ('CREATE TABLE IF NOT EXISTS `principal_access` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, '
         '`principal` INTEGER NOT NULL, `list` INTEGER NOT NULL, `invite` INTEGER NOT NULL, `access` INTEGER '
         'NOT NULL, FOREIGN KEY(`principal`) REFERENCES `principals`(`id`) ON UPDATE NO ACTION ON DELETE '
         'CASCADE , FOREIGN KEY(`list`) REFERENCES `caldav_lists`(`cdl_id`) ON UPDATE NO ACTION ON DELETE '
         'CASCADE )'),
        ('CREATE UNIQUE INDEX IF NOT EXISTS `index_principal_access_list_principal` ON `principal_access` '
         '(`list`, `principal`)'),
        'CREATE INDEX IF NOT EXISTS `index_principal_access_principal` ON `principal_access` (`principal`)',
        ('CREATE TABLE IF NOT EXISTS `attachment` (`attachment_id` INTEGER PRIMARY KEY AUTOINCREMENT, `task` '
         'INTEGER NOT NULL, `file` INTEGER NOT NULL, `file_uuid` TEXT NOT NULL, FOREIGN KEY(`task`) REFERENCES '
         '`tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE , FOREIGN KEY(`file`) REFERENCES '
         '`attachment_file`(`file_id`) ON UPDATE NO ACTION ON DELETE CASCADE )'),
        'CREATE UNIQUE INDEX IF NOT EXISTS `index_attachment_task_file` ON `attachment` (`task`, `file`)',
        'CREATE INDEX IF NOT EXISTS `index_attachment_task` ON `attachment` (`task`)',
        'CREATE INDEX IF NOT EXISTS `index_attachment_file` ON `attachment` (`file`)',
    ),
)
STORE = RoomStore(SCHEMA)
#: the ``tasks`` columns in the order Room creates them (88.json; android_world's Task dataclass has the same 23,
#: sqlite_schema_utils.py:266-295)
TASK_COLUMNS = ("_id", "title", "importance", "dueDate", "hideUntil", "created", "modified", "completed", "deleted",
                "notes", "estimatedSeconds", "elapsedSeconds", "timerStart", "notificationFlags", "lastNotified",
                "recurrence", "repeat_from", "calendarUri", "remoteId", "collapsed", "parent", "order", "read_only")


def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def save_prefs(device: VirtualDevice, p: shared_prefs.Prefs) -> None:
    shared_prefs.save(device, PREFS, p)


def app_start(device: VirtualDevice) -> None:
    """``Tasks.onCreate``: the upgrade step of a fresh install (install version and date, ``cv``; no "What's new",
    Upgrader.kt:68-122) and the first database access (Room creates ``database``)."""
    p = prefs(device)
    if p.get_int("cv") != VERSION_CODE:
        if p.get_int("cv") == 0:
            p.put_int("install_version", VERSION_CODE)
            p.put_long("install_date", device.wall_ms())
        p.put_int("cv", VERSION_CODE)
        save_prefs(device, p)
    STORE.create(device)


def new_remote_id(device: VirtualDevice, salt: str) -> str:
    """``UUIDHelper.newUUID``: a positive long of at least 100000000, as text (deterministic here: derived from
    the clock and ``salt``)."""
    value = int.from_bytes(hashlib.sha256(f"{device.wall_ms()}:{salt}".encode()).digest()[:8], "big")
    return str(max(value & 0x7FFFFFFFFFFFFFFF, 100000000))


def task(device: VirtualDevice, task_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM tasks WHERE _id = ?", (task_id,))
    return rows[0] if rows else None


def sort_key(row: dict[str, Any], now_ms: int) -> tuple[int, str]:
    """SORT_AUTO: no due date counts as now * 2, a due date without a time as its day's 11:59 (ADJUSTED_DUE_DATE),
    plus 172799999 * importance; ties by upper-cased title (SortHelper.java:52-53, 143-160)."""
    due = int(row["dueDate"] or 0)
    if due == 0:
        base = now_ms * SORT_NO_DATE_FACTOR
    else:
        base = due if (due // 1000) % 60 > 0 else due + HALF_DAY_MINUS_MINUTE_MS
    return base + SORT_IMPORTANCE_WEIGHT * int(row["importance"]), str(row["title"] or "").upper()


def my_tasks(device: VirtualDevice) -> list[dict[str, Any]]:
    """What "My Tasks" lists: active, visible, top-level tasks (MyTasksFilter.kt:21-28, TaskDao.kt:248-251)."""
    now = device.wall_ms()
    rows = STORE.rows(device, "SELECT * FROM tasks WHERE completed <= 0 AND deleted <= 0 AND hideUntil <= ? "
                              "AND parent = 0", (now,))
    return sorted(rows, key=lambda r: sort_key(r, now))


def new_task(device: VirtualDevice) -> dict[str, Any]:
    """``TaskCreator.create`` with the default preferences: an unsaved task (TaskCreator.kt:137-197)."""
    now = device.wall_ms()
    return {"_id": None, "title": "", "importance": PRIORITY_LOW, "dueDate": 0, "hideUntil": 0, "created": now,
            "modified": now, "completed": 0, "deleted": 0, "notes": None, "estimatedSeconds": 0,
            "elapsedSeconds": 0, "timerStart": 0, "notificationFlags": 0, "lastNotified": 0, "recurrence": None,
            "repeat_from": 0, "calendarUri": None, "remoteId": None, "collapsed": 0, "parent": 0, "order": None,
            "read_only": 0}


def local_list(device: VirtualDevice) -> str:
    """``CaldavDao.getLocalList``: the uuid of the local account's first list, creating the account and a
    "Default list" when there is none (CaldavDao.kt:383-401)."""
    with STORE.connect(device) as db:
        if db.execute("SELECT cda_id FROM caldav_accounts WHERE cda_uuid = ?", (LOCAL_ACCOUNT,)).fetchone() is None:
            db.execute("INSERT INTO caldav_accounts (cda_uuid, cda_name, cda_url, cda_username, cda_password, "
                       "cda_error, cda_account_type, cda_collapsed, cda_server_type) "
                       "VALUES (?, '', '', '', '', '', ?, 0, -1)", (LOCAL_ACCOUNT, TYPE_LOCAL))
        found = db.execute("SELECT cdl_uuid FROM caldav_lists WHERE cdl_account = ? ORDER BY cdl_id LIMIT 1",
                           (LOCAL_ACCOUNT,)).fetchone()
        if found is not None:
            return str(found["cdl_uuid"])
        uuid = new_remote_id(device, "list")
        db.execute("INSERT INTO caldav_lists (cdl_account, cdl_uuid, cdl_name, cdl_color, cdl_ctag, cdl_url, "
                   "cdl_icon, cdl_order, cdl_access, cdl_last_sync) VALUES (?, ?, ?, 0, NULL, '', -1, ?, 0, 0)",
                   (LOCAL_ACCOUNT, uuid, T.text("row_list"), NO_ORDER))
        return uuid


def save_task(device: VirtualDevice, values: dict[str, Any]) -> int:
    """``TaskEditViewModel.save``: a new task is inserted (``createNew``: a remoteId) and put in the local list
    (one ``caldav_tasks`` row); an existing one is updated with ``modified`` now (TaskEditViewModel.kt:240-310,
    TaskDao.kt:191-215). Returns the task's id."""
    now = device.wall_ms()
    row = dict(values)
    task_id = row.get("_id")
    if task_id is None:
        row["remoteId"] = row.get("remoteId") or new_remote_id(device, str(row.get("title")))
        row["created"] = row.get("created") or now
        row["modified"] = now
        columns = [c for c in TASK_COLUMNS if c != "_id"]
        calendar = local_list(device)
        with STORE.connect(device) as db:
            cur = db.execute(f"INSERT INTO tasks ({', '.join(f'`{c}`' for c in columns)}) "
                             f"VALUES ({', '.join('?' * len(columns))})", tuple(row[c] for c in columns))
            task_id = int(cur.lastrowid or 0)
            remote = new_remote_id(device, f"caldav:{task_id}")
            db.execute("INSERT INTO caldav_tasks (cd_task, cd_calendar, cd_remote_id, cd_object, cd_etag, "
                       "cd_last_sync, cd_deleted, cd_remote_parent, gt_moved, gt_remote_order) "
                       "VALUES (?, ?, ?, ?, NULL, 0, 0, NULL, 0, 0)", (task_id, calendar, remote, f"{remote}.ics"))
        return task_id
    row["modified"] = now
    columns = [c for c in TASK_COLUMNS if c != "_id"]
    STORE.execute(device, f"UPDATE tasks SET {', '.join(f'`{c}` = ?' for c in columns)} WHERE _id = ?",
                  (*(row[c] for c in columns), task_id))
    return int(task_id)


def delete_task(device: VirtualDevice, task_id: int) -> None:
    """``TaskDeleter.markDeleted``: ``deleted`` and ``modified`` set to now (DeletionDao.kt:49-56); then the cleanup
    work's ``purgeDeleted`` removes deleted tasks of local lists (DeletionDao.kt:78-79), run here at once."""
    now = device.wall_ms()
    with STORE.connect(device) as db:
        db.execute("UPDATE tasks SET modified = ?, deleted = ? WHERE _id = ? OR parent = ?",
                   (now, now, task_id, task_id))
        db.execute("DELETE FROM tasks WHERE _id IN (SELECT _id FROM tasks INNER JOIN caldav_tasks ON _id = cd_task "
                   "INNER JOIN caldav_lists ON cdl_uuid = cd_calendar WHERE cdl_account = ? AND deleted > 0 "
                   "AND cd_deleted = 0)", (LOCAL_ACCOUNT,))
        db.execute("DELETE FROM caldav_tasks WHERE cd_task NOT IN (SELECT _id FROM tasks)")


def complete_task(device: VirtualDevice, task_id: int) -> None:
    """The row's check box / the editor's check FAB: ``completed`` = now."""
    now = device.wall_ms()
    STORE.execute(device, "UPDATE tasks SET completed = ?, modified = ? WHERE _id = ?", (now, now, task_id))
