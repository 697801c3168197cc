"""A virtual app as its activities: one :class:`Screen` per real activity, dialogs as overlays.

A :class:`KitApp` names its selector table and its screens; the first screen is the launcher activity. The
device calls the app's lifecycle hooks; the kit hands each to the screen of the activity concerned, so an app
writes no dispatch of its own. A dialog is a dict in the activity's state (``act.state["dialog"]``, with its
``kind``): while one is open, BACK closes it (as ``Dialog.onBackPressed`` cancels a cancelable dialog) and
:meth:`Screen.dialog` draws it over the screen; the screen's own views stay underneath, as in a real window
stack where the dialog is a window of its own over the activity.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from emukit.apps.selectors import SelectorTable
from emukit.vdevice.apps.base import VIRTUAL_BUILD, App
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


_INTENT = "_intent_extras"  # the activity state key that carries Ctx.start's extras to on_create


@dataclass
class Ctx:
    """What a screen works with: the device, its activity (``state`` is the activity's state), the app and,
    while building, the frame between the system bars."""

    device: VirtualDevice
    act: Activity
    app: KitApp
    frame: Bounds = (0, 0, 0, 0)

    @property
    def state(self) -> dict[str, Any]:
        return self.act.state

    @property
    def table(self) -> SelectorTable:
        return self.app.table

    def rid(self, entry: str) -> str:
        return self.app.table.rid(entry)

    def text(self, entry: str, **fmt: Any) -> str:
        return self.app.table.text(entry, **fmt)

    # dialogs -------------------------------------------------------------------------------------------
    @property
    def dialog_open(self) -> dict[str, Any] | None:
        return self.act.state.get("dialog")

    def open_dialog(self, kind: str, **fields: Any) -> None:
        self.act.state["dialog"] = {"kind": kind, **fields}

    def close_dialog(self) -> None:
        self.act.state.pop("dialog", None)

    def toast(self, text: str) -> None:
        self.device.state.ui.toast = text

    def start(self, activity: str, extras: dict[str, str] | None = None) -> Activity:
        """Open another activity of this app on top (``startActivity`` with an explicit intent); its screen's
        :meth:`Screen.on_create` gets ``extras``."""
        return self.device.push_activity(self.app.package, activity, {_INTENT: dict(extras or {})})


class Screen(abc.ABC):
    """One activity. Screens are stateless; what they show is built from ``ctx.state`` and the app's data."""

    #: the activity's class name (``.activities.MainActivity`` or fully qualified)
    activity: ClassVar[str]

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        """Initialise ``ctx.state`` (``onCreate`` with the intent's extras)."""

    def on_resume(self, ctx: Ctx) -> None:
        """The activity is in front (again)."""

    def on_pause(self, ctx: Ctx) -> None:
        """The activity left the front."""

    def on_back(self, ctx: Ctx) -> bool:
        """BACK with no dialog open; True when consumed (False: the activity finishes)."""
        return False

    @abc.abstractmethod
    def build(self, ctx: Ctx) -> View:
        """The activity's content inside ``ctx.frame``."""

    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        """The view of the open dialog (``dialog["kind"]``), drawn over the screen; None: nothing to draw."""
        return None

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        """``onRequestPermissionsResult`` of a request this screen made (:mod:`emukit.vdevice.apps.permissions`)."""

    def cancel_dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> None:
        """BACK on the open dialog (a cancelable dialog's ``onBackPressed``): it closes."""
        ctx.close_dialog()


class KitApp(App):
    """An app made of :class:`Screen` objects; subclasses set ``table`` and ``screens`` (launcher first) and,
    from the table, ``package``, ``label`` and the build."""

    table: ClassVar[SelectorTable]
    screens: ClassVar[tuple[type[Screen], ...]] = ()

    def __init__(self) -> None:
        self._screens = {self.full_activity(s.activity): s() for s in self.screens}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table = cls.__dict__.get("table")
        if table is not None:  # the identity every KitApp takes from its pinned table
            cls.package = cls.__dict__.get("package") or table.package
            cls.version_code = table.build.version_code or 0
            cls.version_name = f"{table.build.version_name}-{VIRTUAL_BUILD}"
        if cls.screens:
            cls.launcher_activity = cls.screens[0].activity
            cls.activities = tuple(s.activity for s in cls.screens)

    def screen(self, act: Activity) -> Screen:
        try:
            return self._screens[self.full_activity(act.activity)]
        except KeyError:
            raise KeyError(f"{self.package}: no screen for activity {act.activity}") from None

    def ctx(self, device: VirtualDevice, act: Activity, frame: Bounds = (0, 0, 0, 0)) -> Ctx:
        return Ctx(device, act, self, frame)

    # lifecycle, handed to the activity's screen -------------------------------------------------------
    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        extras = {**extras, **act.state.pop(_INTENT, {})}  # what :meth:`Ctx.start` passed
        self.screen(act).on_create(self.ctx(device, act), extras)

    def on_resume(self, device: VirtualDevice, act: Activity) -> None:
        self.screen(act).on_resume(self.ctx(device, act))

    def on_pause(self, device: VirtualDevice, act: Activity) -> None:
        self.screen(act).on_pause(self.ctx(device, act))

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        ctx = self.ctx(device, act)
        dialog = ctx.dialog_open
        if dialog is not None:
            self.screen(act).cancel_dialog(ctx, dialog)
            return True
        return self.screen(act).on_back(ctx)

    def on_permissions_result(self, device: VirtualDevice, act: Activity, code: int,
                              results: dict[str, bool]) -> None:
        self.screen(act).on_permissions_result(self.ctx(device, act), code, results)

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        ctx = self.ctx(device, act, frame)
        screen = self.screen(act)
        root = screen.build(ctx)
        dialog = ctx.dialog_open
        if dialog is not None:
            overlay = screen.dialog(ctx, dialog)
            if overlay is not None:
                root.add(overlay)
        return root
