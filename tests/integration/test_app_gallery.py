"""Simple Gallery Pro over adb (the virtual app, driven as an emulator would be): open it from All Apps, open an
image in the viewer, copy it to another folder through the folder picker, move it, rename it (pasting text copied
from the rename field), copy a property to the clipboard, delete it into the Recycle Bin; the media probe reads
the files as android_world reads them, the Persistent Artifact probe agrees, the cache reading reports an app
that has no database yet, the ``media:`` seed writes files the folders screen shows, and the capture walk's
screens match the structure fixtures."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.gallery import (
    MediaSeed,
    MediaSpec,
    capture_screens,
    read_cache,
    read_media,
)
from emukit.apps.registry import profile_for
from emukit.apps.structure import match_fixture
from emukit.device.driver import Driver
from emukit.probes.persistent import probe_persistent
from tests.hierarchy_match import FIXTURES

PACKAGE = "com.simplemobiletools.gallery.pro"
S = "/storage/emulated/0"
DCIM_FILE = f"{S}/DCIM/receipt_4821.jpg"


@pytest.fixture
def gallery(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "gallery")
    d.close()


def _fresh(g, items: list[MediaSpec]) -> None:
    d = g.driver
    d.shell(f"pm clear {PACKAGE}; rm -rf {S}/DCIM/* {S}/Download/* {S}/Pictures/*", check=True)
    MediaSeed.apply(d, items)


def test_copy_move_rename_delete_act_on_the_files(gallery):
    d = gallery.driver
    _fresh(gallery, [MediaSpec(path=DCIM_FILE, modified=dt.datetime(2026, 1, 10, 9, 0)),
                     MediaSpec(path=f"{S}/DCIM/IMG_0001.jpg", modified=dt.datetime(2026, 1, 12, 9, 0)),
                     MediaSpec(path=f"{S}/Pictures/sunset.png")])
    cache = read_cache(d)
    assert cache.rows == [] and cache.reason is not None  # never opened since the clear: no database
    gallery.open_from_all_apps()
    assert gallery.first_run_screen() == "folders"
    names = [e.text for e in d.elements() if e.resource_id == gallery.rid("folder_name")]
    assert sorted(names) == ["DCIM", "Pictures"]

    # android_world's SaveCopyOfReceiptTaskEval: copy the DCIM receipt into Download (no media there yet)
    gallery.copy_to(DCIM_FILE, f"{S}/Download")
    assert read_media(d, f"{S}/Download").paths == [f"{S}/Download/receipt_4821.jpg"]
    assert probe_persistent(d, DCIM_FILE, f"{S}/Download/receipt_4821.jpg").canonical == {
        "source_exists": True, "destination_exists": True}
    d.back()
    gallery.copy_to(f"{S}/DCIM/IMG_0001.jpg", f"{S}/Pictures", confirm=False)  # Cancel in the picker
    assert f"{S}/Pictures/IMG_0001.jpg" not in read_media(d).paths
    d.back()

    gallery.move_to(f"{S}/DCIM/IMG_0001.jpg", f"{S}/Pictures")
    assert probe_persistent(d, f"{S}/DCIM/IMG_0001.jpg", f"{S}/Pictures/IMG_0001.jpg").canonical == {
        "source_exists": False, "destination_exists": True}
    d.back()

    gallery.open_rename(f"{S}/Pictures/sunset.png")  # copy the name, paste it twice: "sunsetsunset"
    gallery.copy_field("rename_name_field")
    gallery.paste_into("rename_name_field")
    gallery.save()
    assert f"{S}/Pictures/sunsetsunset.png" in read_media(d).paths
    assert f"{S}/Pictures/sunset.png" not in read_media(d).paths
    d.back()

    gallery.copy_property(f"{S}/Download/receipt_4821.jpg", "Path")  # the app's own clipboard copy
    assert d.rpc("getClipboard") == f"{S}/Download"
    d.back()

    gallery.delete(f"{S}/Download/receipt_4821.jpg", confirm=False)
    assert f"{S}/Download/receipt_4821.jpg" in read_media(d).paths
    gallery.delete(f"{S}/Download/receipt_4821.jpg")
    assert read_media(d, f"{S}/Download").paths == []
    binned = read_media(d, f"/data/data/{PACKAGE}/files").paths
    assert binned == [f"/data/data/{PACKAGE}/files{S}/Download/receipt_4821.jpg"]  # in the Recycle Bin
    rows = {r["full_path"]: r for r in read_cache(d).rows}
    assert rows[f"recycle_bin{S}/Download/receipt_4821.jpg"]["deleted_ts"] > 0


def test_seed_and_probe_empty_state(gallery):
    d = gallery.driver
    _fresh(gallery, [])
    empty = read_media(d, f"{S}/DCIM")
    assert empty.paths == [] and empty.reason is not None
    MediaSeed.apply(d, [MediaSpec(path="DCIM/Camera/IMG_0100.jpg", caption="Harbour"),
                        MediaSpec(path="/sdcard/Pictures/map.png", width=64, height=64)])
    assert read_media(d).paths == [f"{S}/DCIM/Camera/IMG_0100.jpg", f"{S}/Pictures/map.png"]
    assert d.adbutils().sync.read_bytes(f"{S}/DCIM/Camera/IMG_0100.jpg")[:3] == b"\xff\xd8\xff"  # a JPEG
    assert d.adbutils().sync.read_bytes(f"{S}/Pictures/map.png")[:8] == b"\x89PNG\r\n\x1a\n"
    gallery.launch(fresh=True)
    names = {e.text for e in d.elements() if e.resource_id == gallery.rid("folder_name")}
    assert names == {"Camera", "Pictures"}
    gallery.open_file(f"{S}/DCIM/Camera/IMG_0100.jpg")
    assert gallery._title() == "IMG_0100.jpg"
    rows = read_cache(d).rows
    assert [r["full_path"] for r in rows] == [f"{S}/DCIM/Camera/IMG_0100.jpg"]


def test_doctor_row_and_the_capture_walk_match_the_fixtures(gallery):
    d = gallery.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    [(name, check)] = gallery.doctor_checks(rooted=True)
    ok, detail, _ = check()
    assert name == "gallery database" and ok and detail.startswith("no database yet")
    screens = capture_screens(gallery)
    assert sorted(screens) == sorted(p.stem for p in (FIXTURES / "gallery").glob("*.yaml"))
    for screen, reach in screens.items():
        reach()
        problems = match_fixture(d.hierarchy(), FIXTURES / "gallery" / f"{screen}.yaml")
        assert problems == [], (screen, problems)
        d.back()
    ok, detail, _ = check()
    assert ok and detail == "media has 12 columns"
