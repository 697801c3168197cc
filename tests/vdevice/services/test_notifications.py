"""NotificationManager (``device.notification_manager``): the shade's notifications by package, none of a
stopped package's, and a package's recorded notifications cancelled together."""

from __future__ import annotations

from emukit.vdevice.services.notifications import NotificationManager
from tests.vdevice.services.conftest import PROBE


def test_the_shade_shows_the_apps_notifications_but_not_a_stopped_packages(det, probe):
    manager = det.notification_manager
    assert isinstance(manager, NotificationManager)
    assert [(n.package, n.key) for n in manager.active() if n.package == PROBE] == [(PROBE, "probe")]
    assert [n.key for n in det.notifications()] == [n.key for n in manager.active()]  # the device delegates
    det.force_stop(PROBE)
    assert all(n.package != PROBE for n in manager.active())
    det.start_activity(PROBE)
    assert any(n.package == PROBE for n in manager.active())


def test_cancel_all_drops_one_packages_recorded_notifications(det):
    det.state.notifications = [{"package": PROBE, "id": 1}, {"package": "other", "id": 2}, {"package": PROBE}]
    det.notification_manager.cancel_all(PROBE)
    assert det.state.notifications == [{"package": "other", "id": 2}]
