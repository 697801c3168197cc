"""Every virtual app, registered: the image's apps (always installed) and the downloaded ones (``downloaded``:
installed in the deterministic mode from the start, in the hardware mode once their stand-in is installed).

A virtual app is one module (or package) in ``emukit/vdevice/apps/`` whose :class:`~emukit.vdevice.apps.base.App`
subclass is decorated with :func:`register_virtual_app`, or an outside module named by an entry point in the
``emukit.virtual_apps`` group; nothing lists them. The device installs them in ``install_order`` (the launcher
first, then the system apps), then by package.
"""

from __future__ import annotations

from emukit.plugins import Registry
from emukit.vdevice.apps.base import App

#: virtual app classes by package
VIRTUAL_APPS: Registry[type[App]] = Registry("virtual app", "emukit.vdevice.apps", "emukit.virtual_apps")


def register_virtual_app(cls: type[App]) -> type[App]:
    """Class decorator: register a virtual app under its ``package`` (which it must set)."""
    if not cls.package:
        raise TypeError(f"{cls.__qualname__}: a virtual app sets its package before it is registered")
    return VIRTUAL_APPS.register(cls.package)(cls)


def default_apps() -> list[App]:
    """Fresh instances of every registered virtual app, launcher and system apps first."""
    classes = [VIRTUAL_APPS[p] for p in VIRTUAL_APPS.names()]
    return [cls() for cls in sorted(classes, key=lambda c: (c.install_order, c.package))]
