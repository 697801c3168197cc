"""What every virtual app provides to the device: identity, screens built from state, notifications.

An app object is stateless. Its screen state lives in the back stack entry (:class:`Activity.state`), its
in-memory process state in ``device.state.app_data[package]`` and its persistent state in the device
filesystem (``/data/data/<package>/...`` or shared storage), exactly where the real app keeps it. That is
what makes snapshots complete and probes able to read the same places as on a real emulator.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

VIRTUAL_BUILD = "emukit-virtual"


@dataclass
class Notification:
    """A notification shown in the shade. ``actions`` maps button labels to callbacks."""

    package: str
    key: str
    title: str
    text: str = ""
    icon: str = "bell"
    actions: dict[str, Any] = field(default_factory=dict)
    ongoing: bool = False


class App(abc.ABC):
    """Base class of a virtual app. Subclasses set the class attributes and implement :meth:`build`."""

    package: str = ""
    label: str = ""
    version_name: str = f"1.0-{VIRTUAL_BUILD}"
    version_code: int = 1
    launcher_activity: str = ".MainActivity"
    activities: tuple[str, ...] = (".MainActivity",)
    icon: str = "app"
    icon_color: tuple[int, int, int] = (66, 133, 244)
    show_in_launcher: bool = True
    # Activities whose manifest taskAffinity differs from the launcher activity's: they live in a task of their own,
    # which the launcher intent (an icon tap, GUI-CC's open_app) never brings back; it brings the launcher
    # activity's task to front, or starts that activity when the task is gone.
    own_task_activities: frozenset[str] = frozenset()
    # Installed from an APK (a benchmark downloads it): absent from a fresh hardware-mode device until
    # ``pm install`` of its stand-in. The image's own apps (False) are always there.
    downloaded: bool = False
    # The runtime ("dangerous") permissions its manifest requests: what ``pm install -g`` grants and
    # ``dumpsys package`` lists under "runtime permissions:".
    runtime_permissions: tuple[str, ...] = ()
    # Where it comes in the device's app order (first boot installs, clock ticks): the launcher 0, the image's
    # apps next; a downloaded app keeps the default and follows by package name.
    install_order: int = 100

    def full_activity(self, activity: str) -> str:
        """``.Main`` -> ``com.pkg.Main``."""
        return self.package + activity if activity.startswith(".") else activity

    # --------------------------------------------------------------- lifecycle hooks
    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        """Initialise ``act.state`` when the activity is started."""

    def on_process_start(self, device: VirtualDevice) -> None:
        """Called when the app's process starts (cold launch); read persisted state here."""

    def on_process_stop(self, device: VirtualDevice) -> None:
        """Called on force-stop or crash; in-memory state is dropped by the device afterwards."""

    def on_pause(self, device: VirtualDevice, act: Activity) -> None:
        """The activity ``act`` stopped being in front (another screen covers it, HOME, an app switch, BACK)."""

    def on_resume(self, device: VirtualDevice, act: Activity) -> None:
        """The activity ``act`` is in front again (or for the first time)."""

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        """Handle BACK inside the activity (close a dialog...). Return True if consumed."""
        return False

    def on_key(self, device: VirtualDevice, act: Activity, keycode: int) -> bool:
        """Handle a key other than BACK/HOME/APP_SWITCH. Return True if consumed."""
        return False

    def on_time_changed(self, device: VirtualDevice) -> None:
        """Called after the logical clock moved (e.g. to expire timers)."""

    def notifications(self, device: VirtualDevice) -> list[Notification]:
        """Notifications this app currently shows."""
        return []

    # --------------------------------------------------------------- screens
    @abc.abstractmethod
    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        """The activity's content view tree inside ``frame`` (the area between the system bars)."""

    # --------------------------------------------------------------- gallery
    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        """Put ``device`` (fresh, this app's data seeded as the app wishes) into each screen and dialog of
        the app in turn, yielding a short scene name after each; ``emukit vdevice gallery`` renders every
        yielded state to PNG."""
        yield from ()

