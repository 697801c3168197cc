"""MediaProvider's index on the virtual device (``emukit.vdevice.services.mediastore``), driven through the real
adb server like a driver does: files pushed with adbutils' sync, the scan broadcast, shell writes and deletes,
and ``adb shell content query --uri content://media/...`` read with the real adb client.

What the platform does (MediaProvider at android-14.0.0_r1, docs/vdevice.md "MediaStore"): a push by the shell uid
creates a *pending* row owned by ``com.android.shell`` (the FUSE create, nothing on close); the scan broadcast
publishes it with the scanner's values; root bypasses MediaProvider, so its pushes and deletes leave the index
alone until a scan; hidden folders are indexed as non-media.
"""

from __future__ import annotations

import re
import subprocess
import time

import adbutils
import pytest

from emukit.apps.gallery_media import make_image
from emukit.apps.vlc_media import make_mp4
from emukit.device.adbserver import adb_binary
from emukit.media import make_mp3
from tests.integration.helpers import wait_usable

DB = "/data/data/com.google.android.providers.media.module/databases/external.db"
IMAGES = "content://media/external/images/media"
VIDEO = "content://media/external/video/media"
AUDIO = "content://media/external/audio/media"
FILES = "content://media/external/file"
SCAN = "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://{}"
_ROW = re.compile(r"^Row: (\d+) (.*)$")


def java_hash(text: str) -> int:
    """``String.hashCode`` of an ASCII string, signed 32-bit (how the platform computes bucket_id)."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) % (1 << 32)
    return h - (1 << 32) if h >= 1 << 31 else h


def adb_shell(server, serial: str, cmd: str) -> str:
    """``adb shell CMD`` through the real adb client."""
    out = subprocess.run([adb_binary(), "-P", str(server.port), "-s", serial, "shell", cmd], env=server.env,
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout + out.stderr


def query(server, serial: str, uri: str, projection: tuple[str, ...] = (), where: str = "") -> list[dict[str, str]]:
    """The rows of ``content query`` as printed, one dict per ``Row: N col=value, ...`` line."""
    cmd = f"content query --uri {uri}"
    if projection:
        cmd += " --projection " + ":".join(projection)
    if where:
        cmd += f' --where "{where}"'
    text = adb_shell(server, serial, cmd)
    if text.strip() == "No result found.":
        return []
    rows = []
    for n, line in enumerate(text.splitlines()):
        m = _ROW.match(line)
        assert m and int(m.group(1)) == n, f"not a row line: {line!r} in {text!r}"
        pairs = re.split(r", (?=[a-z_]+=)", m.group(2))
        rows.append(dict(p.split("=", 1) for p in pairs))
    return rows


def set_root(server, serial: str, root: bool) -> adbutils.AdbDevice:
    """``adb root`` / ``adb unroot`` and wait until adbd answers again as that user."""
    dev = adbutils.AdbClient(port=server.port).device(serial)
    with dev.open_transport() as conn:
        conn.send_command("root:" if root else "unroot:")
        conn.check_okay()
        conn.read_until_close()
    deadline = time.monotonic() + 30
    while True:
        dev = wait_usable(server, serial)
        if dev.shell("id -u").strip() == ("0" if root else "2000"):
            return dev
        assert time.monotonic() < deadline, "adbd did not switch user"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def dev(vdevice, adb_server):
    """The module's device, adbd running as the shell user (where pushes go through MediaProvider)."""
    return set_root(adb_server, vdevice.serial, False)


def test_a_push_is_a_pending_row_of_the_shell_until_the_scan_publishes_it(dev, adb_server, vdevice):
    data = make_image("mst_push.png", 300, 200)
    dev.sync.push(data, "/sdcard/Pictures/mst_push.png")
    cols = ("_id", "_data", "_display_name", "_size", "mime_type", "is_pending", "owner_package_name", "width",
            "height", "relative_path", "bucket_display_name", "bucket_id", "volume_name", "date_modified")
    where = "_display_name='mst_push.png'"
    [row] = query(adb_server, vdevice.serial, IMAGES, cols, where)
    assert row["_data"] == "/storage/emulated/0/Pictures/mst_push.png"  # the canonical path, not /sdcard
    assert (row["is_pending"], row["owner_package_name"], row["mime_type"]) == ("1", "com.android.shell", "image/png")
    assert (row["_size"], row["width"], row["height"], row["date_modified"]) == ("NULL",) * 4  # nothing on close
    assert (row["relative_path"], row["bucket_display_name"], row["volume_name"]) == (
        "Pictures/", "Pictures", "external_primary")
    assert int(row["bucket_id"]) == java_hash("/storage/emulated/0/pictures")

    out = adb_shell(adb_server, vdevice.serial, SCAN.format("/sdcard/Pictures/mst_push.png"))
    assert out.endswith("Broadcast completed: result=0\n")
    [scanned] = query(adb_server, vdevice.serial, IMAGES, (*cols, "resolution", "title"), where)
    assert scanned["_id"] == row["_id"]  # the same row, published
    assert scanned["is_pending"] == "0" and scanned["_size"] == str(len(data))
    assert (scanned["width"], scanned["height"], scanned["resolution"]) == ("300", "200", "300\u00d7200")
    assert scanned["title"] == "mst_push"
    assert scanned["date_modified"] == dev.shell("stat -c %Y /sdcard/Pictures/mst_push.png").strip()
    [as_file] = query(adb_server, vdevice.serial, FILES, ("_id", "media_type", "format"), where)
    assert (as_file["_id"], as_file["media_type"], as_file["format"]) == (row["_id"], "1", str(0x3800))


def test_each_kind_of_media_lands_in_its_own_collection(dev, adb_server, vdevice):
    serial = vdevice.serial
    jpeg, mp4 = make_image("mix.jpg", 640, 480), make_mp4(12.5, 320, 240)
    mp3 = make_mp3("Mst Song", "Mst Artist", "Mst Album", duration_s=200)
    for name, data in (("mix.jpg", jpeg), ("mix.mp4", mp4), ("mix.mp3", mp3)):
        dev.sync.push(data, f"/sdcard/MstMix/{name}")
    adb_shell(adb_server, serial, SCAN.format("/sdcard/MstMix"))  # a folder: its whole tree
    mix = "relative_path='MstMix/'"

    images = query(adb_server, serial, IMAGES, ("_display_name", "mime_type", "width", "height", "_size"), mix)
    assert images == [{"_display_name": "mix.jpg", "mime_type": "image/jpeg", "width": "640", "height": "480",
                       "_size": str(len(jpeg))}]  # only the image
    videos = query(adb_server, serial, VIDEO, ("_display_name", "mime_type", "duration", "width", "height",
                                               "artist", "album", "bucket_display_name"), mix)
    assert videos == [{"_display_name": "mix.mp4", "mime_type": "video/mp4", "duration": "12500", "width": "320",
                       "height": "240", "artist": "<unknown>", "album": "MstMix", "bucket_display_name": "MstMix"}]
    audio = query(adb_server, serial, AUDIO, ("_display_name", "mime_type", "title", "artist", "album", "duration",
                                              "is_music", "is_pending"), mix)
    assert audio == [{"_display_name": "mix.mp3", "mime_type": "audio/mpeg", "title": "Mst Song",
                      "artist": "Mst Artist", "album": "Mst Album", "duration": "200000", "is_music": "1",
                      "is_pending": "0"}]
    files = query(adb_server, serial, FILES, ("_display_name", "media_type", "mime_type", "format", "parent", "_id"),
                  "_data LIKE '/storage/emulated/0/MstMix%'")
    kinds = {r["_display_name"]: (r["media_type"], r["mime_type"]) for r in files}
    # the folder's row is the one the first push's insert made for its parent (insertDirectory: no media type),
    # and the scan leaves existing folder rows alone
    assert kinds == {"MstMix": ("NULL", "NULL"), "mix.jpg": ("1", "image/jpeg"), "mix.mp4": ("3", "video/mp4"),
                     "mix.mp3": ("2", "audio/mpeg")}
    folder = next(r for r in files if r["_display_name"] == "MstMix")
    assert folder["format"] == str(0x3001)  # an MTP association
    assert {r["parent"] for r in files if r is not folder} == {folder["_id"]}


def test_a_file_the_shell_writes_is_indexed_by_the_scan(dev, adb_server, vdevice):
    serial = vdevice.serial
    adb_shell(adb_server, serial, "echo hello > /sdcard/Download/mst_note.txt")
    cols = ("_display_name", "is_pending", "_size", "media_type", "mime_type", "is_download", "relative_path")
    where = "_display_name='mst_note.txt'"
    [created] = query(adb_server, serial, FILES, cols, where)
    assert (created["is_pending"], created["_size"]) == ("1", "NULL")  # created through FUSE by the shell
    adb_shell(adb_server, serial, SCAN.format("/sdcard/Download/mst_note.txt"))
    [row] = query(adb_server, serial, FILES, cols, where)
    assert row == {"_display_name": "mst_note.txt", "is_pending": "0", "_size": "6", "media_type": "6",
                   "mime_type": "text/plain", "is_download": "1", "relative_path": "Download/"}
    assert query(adb_server, serial, IMAGES, ("_id",), where) == []  # a document is not an image


def test_deletes_through_fuse_and_the_scan_of_a_missing_file(dev, adb_server, vdevice):
    serial = vdevice.serial
    where = "_display_name='{}'"
    # the shell user: the unlink goes through MediaProvider, the row goes at once
    dev.sync.push(make_image("mst_gone.jpg"), "/sdcard/DCIM/mst_gone.jpg")
    assert len(query(adb_server, serial, IMAGES, ("_id",), where.format("mst_gone.jpg"))) == 1
    adb_shell(adb_server, serial, "rm /sdcard/DCIM/mst_gone.jpg")
    assert query(adb_server, serial, IMAGES, ("_id",), where.format("mst_gone.jpg")) == []
    # root bypasses MediaProvider: its push makes no row, its rm leaves the row; a scan of the path settles both
    set_root(adb_server, serial, True)
    try:
        root_dev = adbutils.AdbClient(port=adb_server.port).device(serial)
        root_dev.sync.push(make_image("mst_root.jpg"), "/sdcard/DCIM/mst_root.jpg")
        assert query(adb_server, serial, FILES, ("_id",), where.format("mst_root.jpg")) == []
        adb_shell(adb_server, serial, SCAN.format("/sdcard/DCIM/mst_root.jpg"))
        [row] = query(adb_server, serial, IMAGES, ("_id", "is_pending"), where.format("mst_root.jpg"))
        assert row["is_pending"] == "0"
        adb_shell(adb_server, serial, "rm /sdcard/DCIM/mst_root.jpg")
        assert query(adb_server, serial, IMAGES, ("_id",), where.format("mst_root.jpg")) == [{"_id": row["_id"]}]
        adb_shell(adb_server, serial, SCAN.format("/sdcard/DCIM/mst_root.jpg"))
        assert query(adb_server, serial, FILES, ("_id",), where.format("mst_root.jpg")) == []
    finally:
        set_root(adb_server, serial, False)


def test_content_delete_removes_the_row_and_the_file(dev, adb_server, vdevice):
    serial = vdevice.serial
    dev.sync.push(make_image("mst_del.png"), "/sdcard/Pictures/mst_del.png")
    adb_shell(adb_server, serial, SCAN.format("/sdcard/Pictures/mst_del.png"))
    assert len(query(adb_server, serial, IMAGES, ("_id",), "_display_name='mst_del.png'")) == 1
    adb_shell(adb_server, serial, f'content delete --uri {IMAGES} --where "_display_name=\'mst_del.png\'"')
    assert query(adb_server, serial, FILES, ("_id",), "_display_name='mst_del.png'") == []
    assert adb_shell(adb_server, serial, "test -e /sdcard/Pictures/mst_del.png && echo there || echo gone") == "gone\n"


def test_hidden_folders_hold_no_media_and_a_standard_folder_cannot_be_hidden(dev, adb_server, vdevice):
    serial = vdevice.serial
    dev.sync.push(b"", "/sdcard/MstHidden/.nomedia")
    dev.sync.push(make_image("secret.png"), "/sdcard/MstHidden/secret.png")
    dev.sync.push(b"", "/sdcard/Movies/.nomedia")
    dev.sync.push(make_mp4(3.0), "/sdcard/Movies/mst_clip.mp4")
    adb_shell(adb_server, serial, SCAN.format("/sdcard/MstHidden"))
    adb_shell(adb_server, serial, SCAN.format("/sdcard/Movies/mst_clip.mp4"))
    rows = query(adb_server, serial, FILES, ("_display_name", "media_type", "mime_type", "is_pending"),
                 "_data LIKE '/storage/emulated/0/MstHidden/%'")
    # the image is indexed, as no media; the .nomedia keeps the pending row of its FUSE create (the scanner never
    # writes a .nomedia row)
    assert rows == [{"_display_name": ".nomedia", "media_type": "0", "mime_type": "application/octet-stream",
                     "is_pending": "1"},
                    {"_display_name": "secret.png", "media_type": "0", "mime_type": "image/png", "is_pending": "0"}]
    assert query(adb_server, serial, IMAGES, ("_id",), "_display_name='secret.png'") == []
    assert [r["_display_name"] for r in query(adb_server, serial, VIDEO, ("_display_name",),
                                              "_display_name='mst_clip.mp4'")] == ["mst_clip.mp4"]
    # the scan deleted it
    assert adb_shell(adb_server, serial, "test -e /sdcard/Movies/.nomedia && echo there || echo gone") == "gone\n"


def test_the_database_and_the_default_columns_are_the_providers(dev, adb_server, vdevice):
    serial = vdevice.serial
    dev.sync.push(make_image("mst_cols.png", 64, 48), "/sdcard/Pictures/mst_cols.png")
    adb_shell(adb_server, serial, SCAN.format("/sdcard/Pictures/mst_cols.png"))
    assert adb_shell(adb_server, serial, f"sqlite3 {DB} 'PRAGMA user_version'").strip() == "1407"
    views = adb_shell(adb_server, serial, f"sqlite3 {DB} \"SELECT name FROM sqlite_master WHERE type='view' "
                                          "ORDER BY name\"").split()
    assert views == ["audio", "images", "video"]
    [row] = query(adb_server, serial, IMAGES, where="_display_name='mst_cols.png'")
    names = list(row)
    # Images.Media's projection map in ArrayMap order (by String.hashCode); media_type is not an image column
    assert names[:4] == ["instance_id", "compilation", "disc_number", "duration"] and len(names) == 56
    assert names == sorted(names, key=java_hash) and "media_type" not in names
    assert (row["width"], row["height"], row["is_trashed"], row["is_favorite"]) == ("64", "48", "0", "0")
    err = adb_shell(adb_server, serial, f"content query --uri {IMAGES} --projection media_type")
    assert "java.lang.IllegalArgumentException: Invalid column media_type" in err
