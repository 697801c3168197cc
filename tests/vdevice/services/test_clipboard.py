"""ClipboardService (``device.clipboard``): the primary clip, kept in the state model."""

from __future__ import annotations

from emukit.vdevice.services.clipboard import ClipboardService
from emukit.vdevice.state import ClipState


def test_set_and_get_the_primary_clip(det):
    clipboard = det.clipboard
    assert isinstance(clipboard, ClipboardService)
    assert clipboard.get() is None
    clipboard.set("Kestrel7", label="text")
    assert clipboard.get() == ClipState(label="text", text="Kestrel7")
    assert det.state.clip == det.get_clip() == clipboard.get()  # the device delegates
    det.set_clip("again")
    assert clipboard.get() == ClipState(label="", text="again")


def test_a_snapshot_keeps_the_clip(det):
    det.clipboard.set("saved")
    det.snapshots.save("clip")
    det.clipboard.set("later")
    det.snapshots.load("clip")
    assert det.clipboard.get().text == "saved"
