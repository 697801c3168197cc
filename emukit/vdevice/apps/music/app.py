"""The virtual Retro Music app (``code.name.monkey.retromusic``): one activity, screens as fragments.

Screens (``act.state["nav"]`` entries): ``library`` (bottom navigation Songs / Albums / Artists / Playlists,
``act.state["tab"]``), ``playlist`` / ``album`` / ``artist`` details (``id``), ``player`` (Now playing) and
``queue`` (Playing queue). Overlays: ``act.state["menu"]`` and ``act.state["dialog"]``. Persistent state is
written by :mod:`store`, the library is scanned by :mod:`library`, playback lives in :mod:`playback`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import VIRTUAL_BUILD, App, Notification
from emukit.vdevice.apps.music import icons, library, playback, store
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import MAIN_ACTIVITY, PKG, app_data
from emukit.vdevice.apps.music.overlays import dialog, popup
from emukit.vdevice.apps.music.player import player_screen, queue_screen
from emukit.vdevice.apps.music.rows import ACCENT
from emukit.vdevice.apps.music.screens import (
    group_screen,
    library_screen,
    playlist_screen,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

icons.register()

SCREENS = {"library": library_screen, "playlist": playlist_screen, "album": group_screen, "artist": group_screen,
           "player": player_screen, "queue": queue_screen}


MEDIA_KEYS = {85: playback.toggle_play, 126: lambda d: playback.set_playing(d, True),
              127: lambda d: playback.set_playing(d, False), 87: playback.next_song, 88: playback.previous_song}


class MusicApp(App):
    """Retro Music: library, playlists (Room database), Now playing and the playing queue."""

    package = PKG
    label = "Retro Music"
    version_name = f"6.1.0-{VIRTUAL_BUILD}"
    version_code = 10610
    launcher_activity = MAIN_ACTIVITY
    activities = (MAIN_ACTIVITY,)
    icon = "music"
    icon_color = ACCENT

    # ------------------------------------------------------------------ lifecycle
    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        """A fresh MainActivity shows the library (Songs tab)."""
        act.state.setdefault("nav", [{"s": "library"}])
        act.state.setdefault("tab", "songs")

    def on_process_start(self, device: VirtualDevice) -> None:
        """Cold start: create the databases, scan the library, restore the queue and the playlists."""
        store.ensure_databases(device)
        library.media_scan(device)
        playback.player(device)
        pl.reload(device)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        """BACK closes a menu or dialog first, then the top screen; on the library it leaves the app."""
        ui = Ui(device, act, (0, 0, 0, 0))
        if act.state.get("menu") or act.state.get("dialog"):
            ui.close_overlays()
            return True
        if len(ui.nav) > 1:
            ui.pop()
            return True
        return False

    def on_key(self, device: VirtualDevice, act: Activity, keycode: int) -> bool:
        """Media keys (headset / ``input keyevent``): play-pause, play, pause, next, previous."""
        action = MEDIA_KEYS.get(keycode)
        if action is None:
            return False
        action(device)
        return True

    def on_time_changed(self, device: VirtualDevice) -> None:
        """Songs that ended while time passed give way to the next ones."""
        if PKG in device.state.running and "player" in app_data(device):
            playback.tick(device)

    def notifications(self, device: VirtualDevice) -> list[Notification]:
        """The media notification while a song was started in this process (Previous, Play/Pause, Next)."""
        if PKG not in device.state.running or "player" not in app_data(device):
            return []
        p = playback.player(device)
        song = playback.current(device)
        if song is None or not p.get("started"):
            return []
        toggle = "Pause" if p["playing"] else "Play"
        return [Notification(PKG, "playing", song["title"], song["artist"], icon="music", ongoing=True, actions={
            "Previous": lambda: playback.previous_song(device), toggle: lambda: playback.toggle_play(device),
            "Next": lambda: playback.next_song(device)})]

    # ------------------------------------------------------------------ screens
    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        """The top screen of the fragment stack with the open menu or dialog."""
        ui = Ui(device, act, frame)
        _prune(ui)
        root = w.screen(frame)
        SCREENS.get(ui.top["s"], library_screen)(ui, root)
        dlg, menu = act.state.get("dialog"), act.state.get("menu")
        if dlg:
            root.add(dialog(ui, dlg))
        elif menu:
            root.add(popup(ui, menu))
        return root

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        """See :func:`emukit.vdevice.apps.music.gallery.scenes`."""
        from emukit.vdevice.apps.music.gallery import scenes

        yield from scenes(device)


def _prune(ui: Ui) -> None:
    """Close screens whose subject is gone (a deleted playlist, an empty queue...)."""
    device = ui.device
    playing = playback.current(device) is not None
    keep = []
    for entry in ui.nav:
        kind = entry["s"]
        if kind == "playlist" and pl.get(device, int(entry.get("id", 0))) is None:
            continue
        if kind in ("player", "queue") and not playing:
            continue
        if kind in ("album", "artist"):
            groups = library.albums(device) if kind == "album" else library.artists(device)
            if not any(g["id"] == entry.get("id") for g in groups):
                continue
        keep.append(entry)
    if len(keep) != len(ui.nav):
        ui.state["nav"] = keep if keep and keep[0]["s"] == "library" else [{"s": "library"}, *keep]
        ui.close_overlays()
