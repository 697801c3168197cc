"""Gallery scenes of the Files app: demo files are seeded, then every screen, menu, dialog, picker and empty
state is reached through the window manager (taps, long presses, typing) as a user would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.files import nav
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.apps.files.parts import PACKAGE, T, rid, root_title

if TYPE_CHECKING:
    from emukit.vdevice.apps.files.app import FilesApp
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.view import View

DAY_MS = 24 * 3600 * 1000
DEMO = (  # (path under shared storage, content, age in days)
    ("Download/Invoices/invoice_2025_03.pdf", b"%PDF-1.4 demo invoice\n" * 40, 40),
    ("Download/Invoices/invoice_2025_04.pdf", b"%PDF-1.4 demo invoice\n" * 44, 12),
    ("Download/meeting_notes.txt", b"Agenda\n- budget review\n- hiring plan\n- launch date\n", 0),
    ("Download/holiday_photo.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 1230, 3),
    ("Download/podcast_episode.mp3", b"ID3" + b"\x00" * 48000, 20),
    ("Download/quarterly_report.pdf", b"%PDF-1.4 report\n" * 2100, 400),
    ("Documents/plan.md", b"# Plan\n\n1. Draft\n2. Review\n", 5),
)


def seed(device: VirtualDevice) -> None:
    """Write the demo files with fixed ages relative to the device clock."""
    import os

    now = device.wall_ms()
    for rel, data, age in DEMO:
        path = f"{st.SHARED}/{rel}"
        device.fs.makedirs(st.parent(path))
        device.fs.write_bytes(path, data)
        ns = (now - age * DAY_MS) * 1_000_000
        os.utime(device.fs.host(path), ns=(ns, ns))
    device.fs.makedirs(f"{st.SHARED}/Download/Empty folder")
    for folder in ("Download/Invoices", "Download/Empty folder", "Download", "Documents"):
        ns = (now - 2 * DAY_MS) * 1_000_000
        os.utime(device.fs.host(f"{st.SHARED}/{folder}"), ns=(ns, ns))


def _find(device: VirtualDevice, **attrs: object) -> View:
    view = device.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    if view is None:
        raise LookupError(f"no view with {attrs}")
    return view


def _tap(device: VirtualDevice, **attrs: object) -> None:
    device.wm.tap(*_find(device, **attrs).center)


def _hold(device: VirtualDevice, **attrs: object) -> None:
    device.wm.long_press(*_find(device, **attrs).center)


def scenes(app: FilesApp, device: VirtualDevice) -> Iterator[str]:
    seed(device)
    storage = root_title(device, "storage")
    more = T.desc("more_options")
    device.start_activity(PACKAGE, nav.FILES_ACTIVITY)
    yield "downloads"
    _tap(device, content_desc="Show roots")
    yield "roots_drawer"
    _tap(device, text=storage, resource_id=T.rid("root_title"))
    yield "internal_storage"
    _tap(device, text="Download", resource_id="android:id/title")
    _tap(device, text="Invoices", resource_id="android:id/title")
    yield "subfolder"
    device.wm.key(4)  # up to Download (DocumentsUI has no "Navigate up": BACK goes up)
    _tap(device, content_desc=more)
    yield "overflow_menu"
    _tap(device, text="New folder")
    device.wm.input_text("Receipts")
    yield "new_folder_dialog"
    device.wm.key(4)
    device.wm.key(4)
    _tap(device, resource_id=rid("sort_dimen_dropdown"))
    yield "sort_menu"
    device.wm.key(4)
    _hold(device, text="meeting_notes.txt")
    yield "selection_one"
    _tap(device, content_desc=more)
    yield "selection_menu"
    _tap(device, text="Rename")
    yield "rename_dialog"
    device.wm.key(4)
    device.wm.key(4)
    _tap(device, resource_id=T.rid("action_delete"))
    yield "delete_dialog_one"
    _tap(device, text="Cancel")
    _tap(device, text="holiday_photo.jpg")
    _tap(device, text="Invoices")
    yield "selection_multi"
    _tap(device, resource_id=T.rid("action_delete"))
    yield "delete_dialog_many"
    _tap(device, text="Cancel")
    _tap(device, content_desc=more)
    _tap(device, text="Copy to\u2026")
    yield "picker_copy"
    _tap(device, content_desc=T.desc("show_roots"))
    yield "picker_drawer"
    _tap(device, text=storage, resource_id=T.rid("root_title"))
    _tap(device, text="Documents", resource_id="android:id/title")
    yield "picker_in_documents"
    _tap(device, text=T.text("cancel_text"))
    device.wm.key(4)
    _hold(device, text="Download")
    _tap(device, content_desc=more)
    _tap(device, text="Move to\u2026")
    yield "picker_move_disabled"
    _tap(device, text="Cancel")
    _tap(device, content_desc="Show roots")
    _tap(device, text="Downloads", resource_id="android:id/title")
    _tap(device, content_desc="Search")
    yield "search_open"
    device.wm.input_text("invoice")
    yield "search_results"
    device.wm.set_text(nav.SEARCH_KEY, "budget")
    yield "search_no_matches"
    device.wm.key(66)
    _tap(device, content_desc=T.desc("search_clear"))
    device.wm.key(4)
    _tap(device, text="Images")
    yield "search_chip_images"
    _tap(device, content_desc=T.desc("search_collapse"))
    _tap(device, text="meeting_notes.txt")
    yield "text_viewer"
    device.wm.key(4)
    _tap(device, text="podcast_episode.mp3")
    yield "cant_open_toast"
    _tap(device, text="Empty folder")
    yield "empty_folder"
