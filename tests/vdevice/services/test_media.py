"""MediaProvider (``device.media``): shared storage's standard folders on a fresh device and the media scan
that reaches the apps indexing media."""

from __future__ import annotations

from emukit.vdevice.services.media import (
    SHARED_STORAGE,
    STANDARD_FOLDERS,
    MediaProvider,
)


def test_a_fresh_device_has_the_standard_folders(det):
    assert isinstance(det.media, MediaProvider)
    listing = set(det.fs.listdir(SHARED_STORAGE))
    assert set(STANDARD_FOLDERS) <= listing
    det.media.make_standard_folders()  # again: nothing changes
    assert set(det.fs.listdir(SHARED_STORAGE)) == listing


def test_a_scan_reaches_the_apps_that_index_media(det, probe):
    det.media.scan("/sdcard/Music/a.mp3")
    det.media_scan("/sdcard/Music/b.mp3")  # the device delegates
    assert probe.seen("media_scan") == [("media_scan", "/sdcard/Music/a.mp3"), ("media_scan", "/sdcard/Music/b.mp3")]
