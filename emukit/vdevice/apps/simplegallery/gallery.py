"""The Gallery's gallery: the folders, a folder, the viewer, its overflow and each dialog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.simplegallery import data as D

if TYPE_CHECKING:
    from emukit.vdevice.apps.simplegallery import GalleryApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: GalleryApp, device: VirtualDevice) -> Iterator[str]:
    from emukit.apps.gallery_media import make_image

    device.start_activity(app.package)
    yield "folders (empty)"
    for path in ("DCIM/Camera/IMG_0001.jpg", "DCIM/Camera/IMG_0002.jpg", "Pictures/receipt_oslo.png",
                 "Download/ticket.jpg"):
        device.fs.makedirs(f"{D.STORAGE}/{path.rsplit('/', 1)[0]}")
        device.fs.write_bytes(f"{D.STORAGE}/{path}", make_image(path.rsplit("/", 1)[1]))
    device.finish_top()
    device.start_activity(app.package)
    yield "folders"
    main = app.ctx(device, device.top)
    main.start(".activities.MediaActivity", {"directory": f"{D.STORAGE}/DCIM/Camera"})
    yield "folder"
    media = app.ctx(device, device.top)
    media.start(".activities.ViewPagerActivity", {"path": f"{D.STORAGE}/DCIM/Camera/IMG_0001.jpg",
                                                   "directory": f"{D.STORAGE}/DCIM/Camera"})
    yield "viewer"
    viewer = app.ctx(device, device.top)
    viewer.state["menu"] = "overflow:viewer_toolbar"
    yield "viewer overflow"
    viewer.state.pop("menu")
    path = f"{D.STORAGE}/DCIM/Camera/IMG_0001.jpg"
    for kind, fields in (("pick", {"source": path, "move": False}),
                         ("files", {"source": path, "move": False, "at": f"{D.STORAGE}/DCIM"}),
                         ("rename", {"path": path, "name": "IMG_0001", "ext": "jpg"}),
                         ("properties", {"path": path}), ("delete", {"path": path})):
        viewer.open_dialog(kind, **fields)
        yield f"{kind} dialog"
        viewer.close_dialog()
    device.finish_top()
    device.finish_top()
    main.open_dialog("all_files")
    yield "all files prompt"
