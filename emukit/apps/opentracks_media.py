"""A recorded OpenTracks track, generated as data: the ``tracks`` row and its ``trackpoints`` as OpenTracks v4.11.3
writes them (ot:src/main/java/de/dennisguse/opentracks/data/ContentProviderUtils.java:315-346 for a track,
:783-820 for a trackpoint), for a device that has no GPS receiver to record one.

The route is deterministic: an out-and-back line from a start point, its length the track's distance, one point
every ``interval_s`` seconds between a manual segment start (type -2) and a manual segment end (type 1), the
altitude climbing by the gain and falling by the loss. The statistics columns are the ones TrackStatisticsUpdater
would derive from those points (total/moving time, average and maximum speed, min/max elevation, gain/loss), so the
list, the statistics tab and android_world's reading of ``tracks`` agree with the points.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any

EARTH_M = 6_371_000.0
START = (47.3769, 8.5417)  # where generated routes begin (any fixed point would do)
SEGMENT_START_MANUAL, TRACKPOINT, SEGMENT_END_MANUAL = -2, 0, 1  # TrackPoint.java:54-65


def track_uuid(seed: str) -> bytes:
    """A stable 16-byte uuid (the tracks.uuid BLOB, unique per track)."""
    return hashlib.sha256(seed.encode()).digest()[:16]


def generate(name: str, activity_type: str, description: str, start_ms: int, minutes: float, distance_m: float,
             *, elevation_gain: float = 0.0, elevation_loss: float = 0.0, interval_s: int = 60,
             base_elevation: float = 400.0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``tracks`` row (without ``_id``) and its ``trackpoints`` rows (without ``_id`` and ``trackid``)."""
    duration_ms = round(minutes * 60_000)
    stop_ms = start_ms + duration_ms
    steps = max(1, duration_ms // (interval_s * 1000))
    bearing = (int(hashlib.sha256(name.encode()).hexdigest()[:4], 16) % 360) * math.pi / 180
    speed = distance_m / (duration_ms / 1000) if duration_ms else 0.0
    points: list[dict[str, Any]] = [{"time": start_ms, "type": SEGMENT_START_MANUAL}]
    climb_steps = max(1, steps // 2)
    prev_alt = base_elevation
    for i in range(steps + 1):
        along = distance_m * i / steps
        lat = START[0] + math.degrees(along * math.cos(bearing) / EARTH_M)
        lon = START[1] + math.degrees(along * math.sin(bearing) / (EARTH_M * math.cos(math.radians(START[0]))))
        if i <= climb_steps:
            alt = base_elevation + elevation_gain * i / climb_steps
        else:
            alt = base_elevation + elevation_gain - elevation_loss * (i - climb_steps) / max(1, steps - climb_steps)
        points.append({"longitude": int(lon * 1e6), "latitude": int(lat * 1e6),
                       "time": start_ms + duration_ms * i // steps, "elevation": round(alt, 1), "accuracy": 5.0,
                       "speed": round(speed, 3), "bearing": round(math.degrees(bearing), 1),
                       "elevation_gain": round(max(0.0, alt - prev_alt), 2) if i else None,
                       "elevation_loss": round(max(0.0, prev_alt - alt), 2) if i else None,
                       "type": TRACKPOINT})
        prev_alt = alt
    points.append({"time": stop_ms, "type": SEGMENT_END_MANUAL})
    alts = [p["elevation"] for p in points if "elevation" in p]
    track = {"uuid": track_uuid(f"{name}:{start_ms}"), "name": name, "description": description,
             "category": activity_type, "activity_type": activity_type, "starttime_offset": 0,
             "starttime": start_ms, "stoptime": stop_ms, "numpoints": len(points), "totaldistance": float(distance_m),
             "totaltime": duration_ms, "movingtime": duration_ms, "avgspeed": speed, "avgmovingspeed": speed,
             "maxspeed": speed, "minelevation": min(alts), "maxelevation": max(alts),
             "elevationgain": float(elevation_gain), "elevationloss": float(elevation_loss)}
    return track, points


def track_rows(specs: Iterable[tuple[str, str, str, int, float, float]]) -> list[tuple[dict[str, Any],
                                                                                        list[dict[str, Any]]]]:
    """:func:`generate` for (name, activity type, description, start ms, minutes, distance m) tuples."""
    return [generate(*spec) for spec in specs]
