"""The activity manager's broadcast queue: delivery of broadcasts to the apps' manifest receivers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

ACTION_TIME_SET = "android.intent.action.TIME_SET"
ACTION_TIMEZONE_CHANGED = "android.intent.action.TIMEZONE_CHANGED"
ACTION_LOCKED_BOOT_COMPLETED = "android.intent.action.LOCKED_BOOT_COMPLETED"
ACTION_BOOT_COMPLETED = "android.intent.action.BOOT_COMPLETED"
# Implicit broadcasts that still reach manifest receivers since Android 8 ("Implicit broadcast exceptions" of
# the Android developer guide: the boot broadcasts, TIME_SET, TIMEZONE_CHANGED, LOCALE_CHANGED, ...).
IMPLICIT_EXEMPT = frozenset({ACTION_TIME_SET, ACTION_TIMEZONE_CHANGED, ACTION_LOCKED_BOOT_COMPLETED,
                             ACTION_BOOT_COMPLETED, "android.intent.action.LOCALE_CHANGED"})


class BroadcastQueue:
    """Delivers broadcasts as ActivityManager's broadcast queue does (manifest receivers only)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def send(self, action: str | None, *, component: tuple[str, str] | None = None,
             package: str | None = None, include_stopped: bool = False,
             extras: dict[str, str] | None = None) -> list[str]:
        """Deliver a broadcast to the apps' manifest receivers; returns the receiving components.

        An app declares ``receivers`` (receiver class -> the actions of its intent filter) and handles them in
        ``on_broadcast(device, receiver, action, extras)``. As ActivityManager delivers them: an explicit
        component reaches that receiver whatever its filter; ``package`` limits the targets to one app; a
        package in the stopped state is skipped unless the intent carries FLAG_INCLUDE_STOPPED_PACKAGES
        (``--include-stopped-packages``, ``Intent.FLAG_INCLUDE_STOPPED_PACKAGES``), and delivering to it starts
        its process, which takes it out of the stopped state
        (:meth:`emukit.vdevice.services.activities.ActivityManager.ensure_process`); an implicit broadcast
        reaches manifest receivers only for the actions exempt from the Android 8 limits
        (:data:`IMPLICIT_EXEMPT`)."""
        device = self.device
        delivered: list[str] = []
        with device.lock:
            for pkg in sorted(device.apps):
                app = device.apps[pkg]
                receivers: dict[str, tuple[str, ...]] = getattr(app, "receivers", {}) or {}
                hook = getattr(app, "on_broadcast", None)
                if not receivers or hook is None:
                    continue
                if component is not None and component[0] != pkg:
                    continue
                if package is not None and package != pkg:
                    continue
                if device.package_stopped(pkg) and not include_stopped:
                    continue
                for receiver, actions in receivers.items():
                    if component is not None:
                        if app.full_activity(component[1]) != app.full_activity(receiver):
                            continue
                    elif action not in actions or (package is None and action not in IMPLICIT_EXEMPT):
                        continue
                    device.ensure_process(pkg)
                    hook(device, receiver, action, dict(extras or {}))
                    delivered.append(f"{pkg}/{app.full_activity(receiver)}")
        return delivered
