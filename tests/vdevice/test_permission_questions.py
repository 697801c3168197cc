"""The permission controller's question names the group of the permission asked (the Permission module's
permgrouprequest_* strings), for every runtime permission a virtual app declares; a permission without a known
group is an error, never another group's question. In-process devices; the dialog is built as the device
draws it."""

from __future__ import annotations

import pytest

from emukit.vdevice.apps.permissions import (
    GRANT,
    GROUP_MESSAGE,
    PACKAGE,
    SILENTLY_DENIED,
)
from emukit.vdevice.device import VirtualDevice


@pytest.fixture
def det(tmp_path) -> VirtualDevice:
    return VirtualDevice(tmp_path / "d", wipe=True)


def ask(device: VirtualDevice, package: str, permission: str) -> str:
    device.push_activity(PACKAGE, GRANT, {"pkg": package, "ask": [permission], "code": 0, "results": {}})
    return device.hierarchy_xml()


@pytest.mark.parametrize(("package", "permission", "question"), [
    ("com.simplemobiletools.gallery.pro", "android.permission.READ_MEDIA_IMAGES",
     "Allow Gallery to access photos and videos on this device?"),
    ("de.dennisguse.opentracks", "android.permission.ACCESS_FINE_LOCATION",
     "Allow OpenTracks to access this device\u2019s location?"),
    ("com.simplemobiletools.smsmessenger", "android.permission.READ_SMS",
     "Allow SMS Messenger to send and view SMS messages?"),
    ("com.simplemobiletools.smsmessenger", "android.permission.READ_CONTACTS",
     "Allow SMS Messenger to access your contacts?"),
    ("com.simplemobiletools.calendar.pro", "android.permission.READ_CALENDAR",
     "Allow Calendar to access your calendar?"),
    ("code.name.monkey.retromusic", "android.permission.READ_MEDIA_AUDIO",
     "Allow Retro Music to access music and audio on this device?"),
    ("net.cozic.joplin", "android.permission.CAMERA", "Allow Joplin to take pictures and record video?"),
])
def test_the_question_is_the_groups(det, package, permission, question):
    assert f'text="{question}"' in ask(det, package, permission)


def test_every_declared_runtime_permission_has_its_groups_question(det):
    declared = {(a.package, p) for a in det.packages() for p in a.runtime_permissions}
    dialogless = {"android.permission.ACCESS_BACKGROUND_LOCATION"}  # asked on Settings' page, not in a dialog
    assert {p for _, p in declared} - set(GROUP_MESSAGE) - SILENTLY_DENIED - dialogless == set()


def test_an_unknown_group_is_an_error_not_another_question(det):
    det.wm.crash_on_error = False
    with pytest.raises(KeyError, match="no question for android.permission.BODY_SENSORS"):
        det.push_activity(PACKAGE, GRANT, {"pkg": "org.tasks", "ask": ["android.permission.BODY_SENSORS"],
                                           "code": 0, "results": {}})
        det.wm.windows()  # the dialog is drawn
