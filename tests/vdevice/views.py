"""Finding and tapping views of an in-process virtual device by their attributes (the app tests' helpers)."""

from __future__ import annotations

from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.ui.view import View


def find(dev: VirtualDevice, **attrs: object) -> View:
    """The first view on screen whose attributes equal ``attrs`` (AssertionError naming them when none does)."""
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def exists(dev: VirtualDevice, **attrs: object) -> bool:
    return dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items())) is not None


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def install_standin(dev: VirtualDevice, package: str) -> None:
    """Install emukit's stand-in APK of ``package`` at the build its selector table pins (as ``adb install``
    of the pinned APK would on an AVD)."""
    from emukit.apps.selectors import table
    from emukit.provision.standin import write_standin

    build = table(package).build
    assert build.version_code is not None and build.version_name is not None, package
    path = write_standin(dev.fs.host("/data/local/tmp"), package, build.version_code, build.version_name)
    assert dev.install_package(package, build.version_code, build.version_name, path.read_bytes()) is None


def rendered_scenes(dev: VirtualDevice, package: str) -> list[str]:
    """Walk the app's gallery scenes; each must render a PNG (more than 1000 bytes) and a hierarchy dump. Returns
    the scene names in order."""
    names = []
    for name in dev.apps[package].gallery_scenes(dev):
        names.append(name)
        png = dev.screenshot_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
        assert dev.hierarchy_xml()
    return names
