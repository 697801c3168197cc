"""The virtual VLC's screens for ``emukit vdevice gallery``: each scene leaves the device on one screen or
dialog (two generated videos, a playlist of both)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.vlc import data as D
from emukit.vdevice.apps.vlc.screens import MAIN, PLAYLIST

if TYPE_CHECKING:
    from emukit.vdevice.apps.vlc import VlcApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: VlcApp, device: VirtualDevice) -> Iterator[str]:
    from emukit.apps.vlc_media import make_mp4

    device.start_activity(D.PACKAGE)
    yield "video grid (empty)"
    for name in ("clip_1.mp4", "clip_2.mp4"):
        device.fs.makedirs(D.VIDEOS_FOLDER)
        device.fs.write_bytes(f"{D.VIDEOS_FOLDER}/{name}", make_mp4(seconds=2))
    device.go_home()
    device.start_activity(D.PACKAGE)  # back in front: onStart reloads the library
    yield "video grid"
    act = device.top
    videos = D.media(device, D.TYPE_VIDEO)
    act.state["dialog"] = {"kind": "ctx", "target": "video", "id": videos[0]["id_media"], "title": "clip_1"}
    yield "context sheet"
    act.state["dialog"] = {"kind": "save_playlist", "media": [videos[0]["id_media"]], "name": ""}
    yield "add to playlist"
    act.state.pop("dialog")
    pid = D.create_playlist(device, "Road Trips")
    D.append(device, pid, [int(v["id_media"]) for v in videos])
    act.state["tab"] = "playlists"
    yield "playlists tab"
    act.state["dialog"] = {"kind": "confirm_delete", "id": pid, "name": "Road Trips"}
    yield "delete confirmation"
    act.state.pop("dialog")
    device.start_activity(D.PACKAGE, PLAYLIST, {"playlist_id": str(pid)}, new_task=False)
    yield "playlist detail"
    assert device.current_focus() == (D.PACKAGE, D.PACKAGE + PLAYLIST), MAIN
