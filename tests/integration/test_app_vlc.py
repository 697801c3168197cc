"""VLC over adb (the virtual app, driven as an emulator would be): open it from All Apps, seed generated videos,
build a playlist with "Add to playlist", reorder and remove inside it, copy and paste the new playlist's name,
delete it; the playlist probe reads the medialibrary database as android_world does (and reports an app that
has no database yet)."""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.apps.vlc import VideoSeed, VideoSpec, probe_playlist, read_playlists
from emukit.device.driver import Driver

PACKAGE = "org.videolan.vlc"


@pytest.fixture
def vlc(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "vlc")
    d.close()


def test_playlists_round_trip_through_the_real_ui(vlc):
    d = vlc.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_playlists(d)
    assert empty.rows == [] and empty.reason is not None
    state = probe_playlist(d, "Road Trips")
    assert state.canonical == {"collection_type": "playlist", "ordered_items": []}
    assert state.evidence["reason"] is not None

    VideoSeed.apply(d, [VideoSpec(file=f) for f in ("clip_1.mp4", "footage_2.mp4", "scene_3.mp4")])
    vlc.open_from_all_apps()
    assert read_playlists(d).reason is None  # the first start created the database

    vlc.create_playlist("Road Trips", ["scene_3", "clip_1", "footage_2"])
    rows = read_playlists(d).rows
    assert [(r["media_file_name"], r["order_in_playlist"]) for r in rows] == [
        ("scene_3.mp4", 0), ("clip_1.mp4", 1), ("footage_2.mp4", 2)]
    assert probe_playlist(d, "Road Trips").canonical["ordered_items"] == ["scene_3.mp4", "clip_1.mp4",
                                                                           "footage_2.mp4"]

    vlc.open_playlist("Road Trips")
    assert vlc.visible_items() == ["scene_3", "clip_1", "footage_2"]
    vlc.move(2, 0)
    assert probe_playlist(d, "Road Trips").canonical["ordered_items"] == ["footage_2.mp4", "scene_3.mp4",
                                                                           "clip_1.mp4"]
    vlc.remove_from_playlist("scene_3")
    assert probe_playlist(d, "Road Trips").canonical["ordered_items"] == ["footage_2.mp4", "clip_1.mp4"]
    d.back()

    vlc.open_add_to_playlist("clip_1")
    vlc.type_name("Road Trips")
    vlc.copy_name()
    vlc.paste_name()  # caret at the end: the name twice
    vlc.save()
    names = sorted({r["playlist_name"] for r in read_playlists(d).rows})
    assert names == ["Road Trips", "Road TripsRoad Trips"]

    vlc.delete_playlist("Road Trips")
    assert [r["playlist_name"] for r in read_playlists(d).rows] == ["Road TripsRoad Trips"]
    assert probe_playlist(d, "Road Trips").canonical["ordered_items"] == []
