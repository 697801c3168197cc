"""OpenTracks' gallery: the introduction, the empty and filled track list, a track's statistics, the edit screen,
the delete confirmation, recording and the stopped screen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.opentracks import data as D

if TYPE_CHECKING:
    from emukit.vdevice.apps.opentracks import OpenTracksApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: OpenTracksApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "introduction"
    device.start_activity(app.package, ".TrackListActivity")
    yield "track list (empty)"
    from emukit.apps.opentracks_media import track_rows

    now = device.wall_ms()
    for track, points in track_rows([("Morning Run", "running", "Along the river", now - 86_400_000, 30, 4800.0),
                                     ("Bike Tour", "biking", "", now - 3 * 86_400_000, 95, 31000.0)]):
        with D.STORE.connect(device) as db:
            cur = db.execute(f"INSERT INTO tracks ({', '.join(track)}) VALUES ({', '.join('?' * len(track))})",
                             tuple(track.values()))
            for p in points:
                p = {**p, "trackid": cur.lastrowid}
                db.execute(f"INSERT INTO trackpoints ({', '.join(p)}) VALUES ({', '.join('?' * len(p))})",
                           tuple(p.values()))
    device.finish_top()
    device.start_activity(app.package, ".TrackListActivity")
    yield "track list"
    first = D.tracks(device)[0]
    device.push_activity(app.package, ".TrackRecordedActivity", {"track_id": first["_id"]})
    yield "track statistics"
    app.ctx(device, device.top).open_dialog("delete")
    yield "delete confirmation"
    device.finish_top()
    device.push_activity(app.package, ".TrackEditActivity")
    device.top.state.clear()
    app.screen(device.top).on_create(app.ctx(device, device.top), {"track_id": str(first["_id"])})
    yield "edit track"
