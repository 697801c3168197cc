"""The virtual Retro Music app (``code.name.monkey.retromusic``), the pinned build of its selector table.

One activity (MainActivity, sliding_music_panel_layout.xml): the navigation host with the current destination
(:mod:`screens`, :mod:`player` for the queue), the sliding panel (the mini player when something is queued,
Now playing when expanded) and the bottom navigation on the library's tabs. Persistent state is written by
:mod:`store`, the library is scanned by :mod:`library`, playback lives in :mod:`playback`.

In hardware mode the app is installed from its stand-in and starts as the real build does (:mod:`.firstrun`):
PermissionActivity until READ_MEDIA_AUDIO and POST_NOTIFICATIONS are granted, then the What's New bottom sheet
once per version. The deterministic device's app starts past both.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import VIRTUAL_BUILD, App, Notification
from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import firstrun, icons, library, playback, store
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import MAIN_ACTIVITY, PKG, T, app_data
from emukit.vdevice.apps.music.overlays import dialog, popup
from emukit.vdevice.apps.music.player import player_layer, queue_screen
from emukit.vdevice.apps.music.rows import (
    ACCENT,
    MINI_H,
    NAV_BAR_H,
    bottom_nav,
    mini_player,
)
from emukit.vdevice.apps.music.screens import (
    group_screen,
    library_screen,
    playlist_screen,
)
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

icons.register()

SCREENS = {"library": library_screen, "playlist": playlist_screen, "album": group_screen, "artist": group_screen,
           "queue": queue_screen}
MEDIA_KEYS = {85: playback.toggle_play, 126: lambda d: playback.set_playing(d, True),
              127: lambda d: playback.set_playing(d, False), 87: playback.next_song, 88: playback.previous_song}


@register_virtual_app
class MusicApp(App):
    """Retro Music: library, playlists (Room database), Now playing and the playing queue."""

    install_order = 5

    package = PKG
    label = T.text("app_name")
    version_name = f"{T.build.version_name}-{VIRTUAL_BUILD}"
    version_code = T.build.version_code or 0
    launcher_activity = MAIN_ACTIVITY
    activities = (MAIN_ACTIVITY, firstrun.PERMISSION_ACTIVITY)
    icon = "music"
    icon_color = ACCENT
    downloaded = True
    # AndroidManifest.xml:5-34: the runtime permissions it requests on API 34 (READ_EXTERNAL_STORAGE has
    # maxSdkVersion 32, WRITE_EXTERNAL_STORAGE 29; SCHEDULE_EXACT_ALARM and WRITE_SETTINGS are app-ops)
    runtime_permissions = (firstrun.READ_MEDIA_AUDIO, firstrun.POST_NOTIFICATIONS, firstrun.BLUETOOTH_CONNECT)
    min_sdk, target_sdk = 21, 34  # app/build.gradle:12-13

    # ------------------------------------------------------------------ lifecycle
    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        """A fresh MainActivity shows the library on the Songs tab."""
        if act.activity.endswith("PermissionActivity"):
            return
        act.state.setdefault("nav", [{"s": "library"}])
        act.state.setdefault("tab", "songs")
        firstrun.main_created(device, act)

    def on_resume(self, device: VirtualDevice, act: Activity) -> None:
        if not act.activity.endswith("PermissionActivity"):
            firstrun.main_resumed(device, act)

    def on_permissions_result(self, device: VirtualDevice, act: Activity, code: int, results: dict[str, bool]) -> None:
        firstrun.on_permissions_result(device, act, code, results)

    def on_process_start(self, device: VirtualDevice) -> None:
        """Cold start: create the databases, scan the library, restore the queue and the playlists."""
        store.ensure_databases(device)
        library.media_scan(device)
        playback.player(device)
        pl.reload(device)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        """BACK closes a menu or dialog, then the expanded panel (handleBackPress), then the top destination;
        on the library it leaves the app."""
        if act.activity.endswith("PermissionActivity"):
            return firstrun.permission_back(device, act)
        if act.state.get("changelog"):
            act.state.pop("changelog")
            return True
        ui = Ui(device, act, (0, 0, 0, 0))
        if act.state.get("menu") or act.state.get("dialog"):
            ui.close_overlays()
            return True
        if ui.expanded:
            ui.collapse()
            return True
        if len(ui.nav) > 1:
            a.leave(ui)
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
        """The destination, the sliding panel and the bottom navigation, with the open menu or dialog."""
        if act.activity.endswith("PermissionActivity"):
            return firstrun.build_permission(device, act, frame)
        ui = Ui(device, act, frame)
        _prune(ui)
        root = w.screen(frame, rid=T.rid("main_content"))
        host = View(cls="android.widget.FrameLayout", bounds=frame, resource_id=T.rid("fragment_container"))
        root.add(host)
        top = ui.top["s"]
        SCREENS.get(top, library_screen)(ui, host)
        song = playback.current(device)
        on_tabs = top == "library"
        if ui.expanded and song is not None:
            sheet = View(cls="android.widget.FrameLayout", bounds=frame, resource_id=T.rid("sliding_panel"))
            sheet.add(player_layer(ui))
            root.add(sheet)
        else:
            if song is not None and top != "queue":  # the queue hides the sheet (MainActivity.kt:103-105)
                y1 = frame[3] - (NAV_BAR_H if on_tabs else 0)
                box = (frame[0], y1 - MINI_H, frame[2], y1)
                sheet = View(cls="android.widget.FrameLayout", bounds=box, resource_id=T.rid("sliding_panel"))
                sheet.add(mini_player(box, song, playback.player(device)["playing"], on_open=lambda: a.open_player(ui),
                                      on_toggle=lambda: playback.toggle_play(device)))
                root.add(sheet)
            if on_tabs:
                root.add(bottom_nav(frame, ui.state.get("tab", "songs"), lambda tab: a.select_tab(ui, tab)))
        dlg, menu = act.state.get("dialog"), act.state.get("menu")
        if dlg:
            root.add(dialog(ui, dlg))
        elif menu:
            root.add(popup(ui, menu))
        if act.state.get("changelog"):
            root.add(firstrun.changelog_sheet(device, act, frame))
        return root

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        """See :func:`emukit.vdevice.apps.music.gallery.scenes`."""
        from emukit.vdevice.apps.music.gallery import scenes

        yield from scenes(device)


def _prune(ui: Ui) -> None:
    """Close what lost its subject: a deleted playlist's detail (playlistExists -> navigateUp, which pauses the
    fragment: its rows are saved), the queue once empty (onQueueChanged -> navigateUp), the panel with
    nothing to play, a deleted album or artist."""
    device = ui.device
    playing = playback.current(device) is not None
    if not playing:
        ui.state.pop("panel", None)
    for _ in range(len(ui.nav)):
        entry = ui.top
        kind = entry["s"]
        gone = (kind == "playlist" and pl.get(device, int(entry.get("id", 0))) is None) or \
            (kind == "queue" and not playing)
        if kind in ("album", "artist"):
            groups = library.albums(device) if kind == "album" else library.artists(device)
            gone = not any(g["id"] == entry.get("id") for g in groups)
        if not gone or len(ui.nav) == 1:
            break
        a.leave(ui)
