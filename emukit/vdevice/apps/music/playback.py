"""The playing queue and playback, as Retro Music's MusicService and MusicPlayerRemote handle them.

Process state (``app_data["player"]``): ``queue`` and ``original`` (the un-shuffled queue), ``pos`` (index of
the current song, -1 when the queue is empty), ``playing``, ``progress`` (ms into the song when ``since`` was
taken), ``since`` (elapsed-realtime when playback last started, or None), ``shuffle`` and ``repeat``. There
is no audio; time passes with the device's logical clock.

What is written, and when, follows MusicService (MusicService.kt): every queue change (QUEUE_CHANGED: open,
add, move, remove, clear, shuffle) saves both queue tables (``saveQueues``, lines 1144-1148); a change of the
current song (META_CHANGED: a new queue, a tapped row, next / previous, a song that ended, removing or
clearing the current one) saves ``POSITION`` and ``POSITION_IN_TRACK`` (lines 1130-1131); pausing part-way
saves ``POSITION_IN_TRACK`` (lines 1102-1106); the shuffle and repeat modes save their own key when set
(lines 500-503, 221-226). A move that shifts the current song changes ``POSITION`` in memory only, as the
service does.

Semantics (from the real app): tapping a song (or "Play") replaces the queue with the list it was tapped in
and starts at that song; "Play next" inserts after the current song; "Add to playing queue" appends; with an
empty queue both open a queue of just those songs without starting playback.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.music import store
from emukit.vdevice.apps.music.const import (
    PREF_POSITION,
    PREF_POSITION_IN_TRACK,
    PREF_REPEAT,
    PREF_SHUFFLE,
    REPEAT_ALL,
    REPEAT_NONE,
    REPEAT_THIS,
    SHUFFLE_NONE,
    SHUFFLE_ON,
    T,
    app_data,
)
from emukit.vdevice.apps.music.store import Song

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


def player(device: VirtualDevice) -> dict[str, Any]:
    """The playback state, restored from the queue database and prefs when the process (re)starts."""
    data = app_data(device)
    p = data.get("player")
    if p is None:
        # restoreQueuesAndPositionIfNecessary (MusicService.kt:924-957): both saved queues of one size and a
        # saved position, else the service starts with an empty queue
        queue, original = store.load_queues(device)
        prefs = store.read_prefs(device)
        pos = prefs.get(PREF_POSITION, -1)
        if not queue or len(queue) != len(original) or pos == -1:
            queue, original, pos = [], [], -1
        pos = max(0, min(pos, len(queue) - 1)) if queue else -1
        p = {"queue": queue, "original": original, "pos": pos, "playing": False,
             "progress": max(0, prefs.get(PREF_POSITION_IN_TRACK, 0)) if queue else 0, "since": None,
             "shuffle": prefs.get(PREF_SHUFFLE, SHUFFLE_NONE), "repeat": prefs.get(PREF_REPEAT, REPEAT_NONE)}
        data["player"] = p
    return p


def current(device: VirtualDevice) -> Song | None:
    """The song at the current position, or None for an empty queue."""
    p = player(device)
    return p["queue"][p["pos"]] if 0 <= p["pos"] < len(p["queue"]) else None


def progress_ms(device: VirtualDevice) -> int:
    """How far into the current song playback is."""
    p = player(device)
    song = current(device)
    if song is None:
        return 0
    value = p["progress"]
    if p["playing"] and p["since"] is not None:
        value += device.elapsed_ms() - p["since"]
    return min(value, song["duration"]) if song["duration"] else value


def _queue_changed(device: VirtualDevice) -> None:
    """QUEUE_CHANGED: MusicPlaybackQueueStore.saveQueues."""
    p = player(device)
    store.save_queues(device, p["queue"], p["original"])


def _meta_changed(device: VirtualDevice) -> None:
    """META_CHANGED: savePosition and savePositionInTrack."""
    p = player(device)
    store.write_prefs(device, {PREF_POSITION: p["pos"], PREF_POSITION_IN_TRACK: progress_ms(device)})


def _start_track(device: VirtualDevice, pos: int, play: bool) -> None:
    p = player(device)
    p["pos"], p["progress"] = pos, 0
    p["playing"] = play and pos >= 0
    p["since"] = device.elapsed_ms() if p["playing"] else None
    p["started"] = p.get("started", False) or p["playing"]


def _shuffled(device: VirtualDevice, songs: list[Song], current_index: int) -> list[Song]:
    """ShuffleHelper.makeShuffleList: the current song first, the rest shuffled (seeded by the clock)."""
    rest = list(songs)
    head = [rest.pop(current_index)] if 0 <= current_index < len(rest) else []
    random.Random(device.elapsed_ms()).shuffle(rest)
    return head + rest


# ---------------------------------------------------------------------------------------------- queue edits
def open_queue(device: VirtualDevice, songs: list[Song], start: int, play: bool = True) -> None:
    """Replace the queue with ``songs`` starting at ``start`` (tapping a song in a list)."""
    p = player(device)
    songs = [_plain(s) for s in songs]
    p["original"] = list(songs)
    if p["shuffle"] == SHUFFLE_ON:
        p["queue"], start = _shuffled(device, songs, start), 0
    else:
        p["queue"] = list(songs)
    _start_track(device, start if songs else -1, play)
    _meta_changed(device)
    _queue_changed(device)


def _plain(song: Song) -> Song:
    """A queue entry: the song without playlist-only keys."""
    return {k: v for k, v in song.items() if k != "key"}


def play_next(device: VirtualDevice, songs: list[Song]) -> str:
    """Insert after the current song; returns the toast text."""
    p = player(device)
    if not p["queue"]:
        open_queue(device, songs, 0, play=False)
    else:
        at = p["pos"] + 1
        p["queue"][at:at] = [_plain(s) for s in songs]
        p["original"][at:at] = [_plain(s) for s in songs]
        _queue_changed(device)
    return _added(len(songs))


def enqueue(device: VirtualDevice, songs: list[Song]) -> str:
    """Append to the end of the queue; returns the toast text."""
    p = player(device)
    if not p["queue"]:
        open_queue(device, songs, 0, play=False)
    else:
        p["queue"].extend(_plain(s) for s in songs)
        p["original"].extend(_plain(s) for s in songs)
        _queue_changed(device)
    return _added(len(songs))


def _added(n: int) -> str:
    return T.text("toast_added_one") if n == 1 else T.text("toast_added_n", n=n)


def move(device: VirtualDevice, frm: int, to: int) -> None:
    """MusicService.moveSong: drag in the playing queue; the current position follows its song."""
    p = player(device)
    n = len(p["queue"])
    if not (0 <= frm < n) or not (0 <= to < n) or frm == to:
        return
    cur = p["pos"]
    p["queue"].insert(to, p["queue"].pop(frm))
    if p["shuffle"] == SHUFFLE_NONE:
        p["original"].insert(to, p["original"].pop(frm))
    if to <= cur < frm:
        p["pos"] = cur + 1
    elif frm < cur <= to:
        p["pos"] = cur - 1
    elif frm == cur:
        p["pos"] = to
    _queue_changed(device)


def remove_at(device: VirtualDevice, index: int) -> None:
    """MusicService.removeSong(position) and rePosition."""
    p = player(device)
    if not 0 <= index < len(p["queue"]):
        return
    if p["shuffle"] == SHUFFLE_NONE and index < len(p["original"]):
        p["queue"].pop(index)
        p["original"].pop(index)
    else:
        song = p["queue"].pop(index)
        if song in p["original"]:
            p["original"].remove(song)
    cur = p["pos"]
    if index < cur:
        p["pos"] = cur - 1
    elif index == cur:  # rePosition: setPosition opens the song now at that place (or the one before)
        _start_track(device, cur if cur < len(p["queue"]) else cur - 1, p["playing"])
        _meta_changed(device)
    _queue_changed(device)


def clear(device: VirtualDevice) -> None:
    """"Clear playing queue"."""
    p = player(device)
    p["queue"], p["original"] = [], []
    _start_track(device, -1, False)
    _meta_changed(device)
    _queue_changed(device)


# ---------------------------------------------------------------------------------------------- transport
def play_at(device: VirtualDevice, index: int) -> None:
    """Tapping a row of the playing queue."""
    if 0 <= index < len(player(device)["queue"]):
        _start_track(device, index, True)
        _meta_changed(device)


def set_playing(device: VirtualDevice, playing: bool) -> None:
    """Play or pause the current song, keeping its position."""
    p = player(device)
    if current(device) is None or p["playing"] == playing:
        return
    p["progress"] = progress_ms(device)
    song = current(device)
    if playing and song is not None and song["duration"] and p["progress"] >= song["duration"]:
        p["progress"] = 0
    p["playing"] = playing
    p["since"] = device.elapsed_ms() if playing else None
    p["started"] = True
    if not playing and p["progress"] > 0:
        store.write_prefs(device, {PREF_POSITION_IN_TRACK: p["progress"]})


def seek(device: VirtualDevice, ms: int) -> None:
    """Move the playback position inside the current song."""
    p = player(device)
    song = current(device)
    if song is None:
        return
    p["progress"] = max(0, min(ms, song["duration"] or ms))
    p["since"] = device.elapsed_ms() if p["playing"] else None


def toggle_play(device: VirtualDevice) -> None:
    """The play / pause button."""
    set_playing(device, not player(device)["playing"])


def _next_position(device: VirtualDevice, force: bool) -> int:
    """MusicService.getNextPosition; -1 means: stop at the end."""
    p = player(device)
    last = p["pos"] == len(p["queue"]) - 1
    if p["repeat"] == REPEAT_ALL or (p["repeat"] == REPEAT_THIS and force):
        return 0 if last else p["pos"] + 1
    if p["repeat"] == REPEAT_THIS:
        return p["pos"]
    return -1 if last else p["pos"] + 1


def next_song(device: VirtualDevice) -> None:
    """The Next button: at the end of a non-repeating queue playback stays on the last song."""
    p = player(device)
    if current(device) is None:
        return
    nxt = _next_position(device, force=True)
    _start_track(device, p["pos"] if nxt < 0 else nxt, p["playing"])
    _meta_changed(device)


def previous_song(device: VirtualDevice) -> None:
    """The Previous button: restart the song after 2 s of it, else go to the previous one."""
    p = player(device)
    if current(device) is None:
        return
    if progress_ms(device) > 2000:  # MusicService.back: seek(0), no song change
        _start_track(device, p["pos"], p["playing"])
        return
    prev = p["pos"] - 1
    if prev < 0:
        prev = len(p["queue"]) - 1 if p["repeat"] != REPEAT_NONE else 0
    _start_track(device, prev, p["playing"])
    _meta_changed(device)


def toggle_shuffle(device: VirtualDevice) -> None:
    """MusicService.setShuffleMode: shuffle keeps the current song first; off restores the original order."""
    p = player(device)
    song = current(device)
    if p["shuffle"] == SHUFFLE_NONE:
        p["shuffle"] = SHUFFLE_ON
        p["queue"] = _shuffled(device, p["queue"], p["pos"])
        p["pos"] = 0 if p["queue"] else -1
    else:
        p["shuffle"] = SHUFFLE_NONE
        p["queue"] = list(p["original"])
        ids = [s["id"] for s in p["queue"]]
        p["pos"] = ids.index(song["id"]) if song is not None and song["id"] in ids else (0 if ids else -1)
    store.write_prefs(device, {PREF_SHUFFLE: p["shuffle"]})
    _queue_changed(device)


def cycle_repeat(device: VirtualDevice) -> None:
    """Repeat: off -> all -> this song -> off."""
    p = player(device)
    p["repeat"] = {REPEAT_NONE: REPEAT_ALL, REPEAT_ALL: REPEAT_THIS}.get(p["repeat"], REPEAT_NONE)
    store.write_prefs(device, {PREF_REPEAT: p["repeat"]})


def tick(device: VirtualDevice) -> None:
    """The clock moved: finished songs give way to the next ones (stopping at the end of the queue)."""
    p = player(device)
    moved = False
    for _ in range(10_000):
        song = current(device)
        if song is None or not p["playing"] or not song["duration"] or p["since"] is None:
            break
        played = p["progress"] + device.elapsed_ms() - p["since"]
        if played < song["duration"]:
            break
        ended_at = p["since"] + song["duration"] - p["progress"]
        nxt = _next_position(device, force=False)
        if nxt < 0:  # onTrackWentToNext at the end: pause at the start of the last song
            p["playing"], p["progress"], p["since"] = False, 0, None
            break
        moved = True
        p["pos"], p["progress"], p["since"] = nxt, 0, ended_at
    if moved:
        _meta_changed(device)
