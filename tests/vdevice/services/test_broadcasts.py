"""The broadcast queue (``device.broadcasts``): manifest receivers by action, explicit components, one
package, the Android 8 implicit-broadcast limits and the stopped state."""

from __future__ import annotations

from emukit.vdevice.services.broadcasts import (
    ACTION_BOOT_COMPLETED,
    ACTION_TIME_SET,
    IMPLICIT_EXEMPT,
    BroadcastQueue,
)
from tests.vdevice.services.conftest import PING, PROBE, RECEIVER

DESKCLOCK_RECEIVER = "com.google.android.deskclock/com.android.deskclock.AlarmInitReceiver"


def test_an_exempt_implicit_broadcast_reaches_every_receiver_in_package_order(det, probe):
    queue = det.broadcasts
    assert isinstance(queue, BroadcastQueue) and ACTION_TIME_SET in IMPLICIT_EXEMPT
    assert queue.send(ACTION_TIME_SET, extras={"k": "v"}) == [DESKCLOCK_RECEIVER, RECEIVER]
    assert probe.seen("broadcast") == [("broadcast", ".Receiver", ACTION_TIME_SET, {"k": "v"})]


def test_a_non_exempt_implicit_broadcast_needs_a_package(det, probe):
    assert det.broadcasts.send(PING) == []
    assert det.broadcasts.send(PING, package=PROBE) == [RECEIVER]
    assert det.broadcasts.send(PING, package="com.google.android.deskclock") == []


def test_an_explicit_component_reaches_its_receiver_whatever_the_action(det, probe):
    assert det.broadcasts.send("org.emukit.OTHER", component=(PROBE, ".Receiver")) == [RECEIVER]
    assert det.broadcasts.send("org.emukit.OTHER", component=(PROBE, f"{PROBE}.Receiver")) == [RECEIVER]
    assert det.broadcasts.send("org.emukit.OTHER", component=(PROBE, ".Nope")) == []
    assert [c[2] for c in probe.seen("broadcast")] == ["org.emukit.OTHER", "org.emukit.OTHER"]


def test_the_stopped_state_skips_a_package_unless_the_intent_includes_it(det, probe):
    det.force_stop(PROBE)
    assert det.package_stopped(PROBE)
    assert det.broadcasts.send(ACTION_BOOT_COMPLETED) == [DESKCLOCK_RECEIVER]
    assert det.send_broadcast(ACTION_BOOT_COMPLETED, include_stopped=True) == [DESKCLOCK_RECEIVER, RECEIVER]
    # delivering started the process, which took the package out of the stopped state
    assert not det.package_stopped(PROBE) and PROBE in det.state.running
    assert probe.calls.index(("process_start",)) < probe.calls.index(probe.seen("broadcast")[0])
