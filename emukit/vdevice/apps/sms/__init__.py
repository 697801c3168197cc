"""The virtual Simple SMS Messenger (``com.simplemobiletools.smsmessenger``, versionCode 85), made of the kit and
drawn from its pinned selector table: MainActivity (:mod:`.main`), NewConversationActivity
(:mod:`.new_conversation`) and ThreadActivity (:mod:`.thread`); its messages in the device's Telephony provider,
its cache in ``databases/conversations.db`` and its prefs in ``shared_prefs/Prefs.xml`` (:mod:`.data`).

The launcher entry is the activity-alias ``.activities.SplashActivity.Orange``, a splash that forwards to
MainActivity (sms:app/src/main/AndroidManifest.xml:456-467, SplashActivity.kt:6-10); the device starts
MainActivity for it. A fresh install asks to be the default SMS app (the permission controller's role request) on
every start until it is, and closes when that is cancelled; holding the role it asks READ_SMS, SEND_SMS,
READ_CONTACTS and POST_NOTIFICATIONS, which the role has already granted (MainActivity.kt:215-271). The
deterministic device's SMS Messenger holds the role, as after android_world's setup (which sets
``sms_default_application``, then taps "SMS Messenger" and "Set as default", android_world apps.py:406-433).

An incoming SMS (the console's ``sms send``) reaches the app as ``SMS_DELIVER`` reaches its ``SmsReceiver``
(AndroidManifest.xml:188-195): :meth:`SmsApp.on_sms_delivered` caches it (SmsReceiver.kt:57-120); the provider row
itself is written by the Telephony service.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.apps.sms import data as D
from emukit.vdevice.apps.sms.main import MainScreen
from emukit.vdevice.apps.sms.new_conversation import NewConversationScreen
from emukit.vdevice.apps.sms.thread import ThreadScreen
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["SmsApp"]


@register_icon("sms.app")
def _icon(p: Pen) -> None:
    p.rect(12, 18, 84, 70, r=14)
    p.line((30, 70), (22, 86), w=7)
    p.line((30, 38), (66, 38), w=6)
    p.line((30, 52), (56, 52), w=6)


@register_icon("sms.send")
def _send_icon(p: Pen) -> None:
    p.line((14, 20), (84, 48), w=7)
    p.line((84, 48), (14, 76), w=7)
    p.line((14, 20), (28, 48), w=7)
    p.line((28, 48), (14, 76), w=7)


@register_virtual_app
class SmsApp(KitApp):
    """Simple SMS Messenger: the conversation list, a new conversation, a conversation's messages."""

    table = D.T
    screens = (MainScreen, ThreadScreen, NewConversationScreen)
    label = "SMS Messenger"  # app_launcher_name (sms:app/src/main/res/values/strings.xml:4)
    icon = "sms.app"
    icon_color = (255, 152, 0)
    downloaded = True
    # the manifest's runtime permissions (sms:app/src/main/AndroidManifest.xml:6-22)
    runtime_permissions = ("android.permission.READ_SMS", "android.permission.SEND_SMS",
                           "android.permission.RECEIVE_SMS", "android.permission.RECEIVE_MMS",
                           "android.permission.READ_PHONE_STATE", "android.permission.POST_NOTIFICATIONS",
                           "android.permission.READ_CONTACTS")
    min_sdk, target_sdk = 23, 34  # gradle/libs.versions.toml:22-24

    def install(self, device: VirtualDevice) -> None:
        """The deterministic device's SMS Messenger is the default SMS app (role held, secure setting set)."""
        if device.hardware:
            return
        D.set_role_holder(device, self.package)

    def on_sms_delivered(self, device: VirtualDevice, message: dict[str, Any]) -> None:
        """``SmsReceiver.onReceive`` for SMS_DELIVER: the message and its conversation into the app's cache."""
        if D.STORE.exists(device):
            D.cache_message(device, message)
            D.cache_conversations(device)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.sms.gallery import scenes

        yield from scenes(self, device)
