"""The permission controller (``com.google.android.permissioncontroller``): the runtime permission dialog.

An app's ``requestPermissions`` (:func:`request_permissions`) starts GrantPermissionsActivity over the app
when one of the asked permissions is not granted yet. The dialog asks one permission group at a time, as
GrantPermissionsActivity does (grant_permissions.xml: the question ``permission_message``, then the buttons
``permission_allow_button`` "Allow" and ``permission_deny_button`` "Don't allow"; AOSP Permission module at
android-14.0.0_r29, the ids and strings in this app's selector table). "Allow" grants the group's asked
permissions, "Don't allow" and BACK leave them denied; after the last group the activity finishes and the
requesting activity gets the results (its app's ``on_permissions_result(device, act, code, results)``,
onRequestPermissionsResult).

The dialog is a translucent activity: the requesting app stays visible, dimmed, beneath it, and cannot be
touched while it shows. Storage permissions asked by an app that targets API 33 or later never show a dialog
(READ/WRITE_EXTERNAL_STORAGE are denied without asking there). Not modelled: the "don't ask again" state
after two denials (every request asks again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.apps.base import App
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.google.android.permissioncontroller"
T = table(PACKAGE)
GRANT = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
# permission -> the table entry of its group's question (Permission module's permgrouprequest_* strings)
GROUP_MESSAGE = {"android.permission.READ_MEDIA_AUDIO": "message_read_media_aural",
                 "android.permission.POST_NOTIFICATIONS": "message_notifications",
                 "android.permission.BLUETOOTH_CONNECT": "message_nearby_devices",
                 "android.permission.BLUETOOTH_SCAN": "message_nearby_devices",
                 "android.permission.RECORD_AUDIO": "message_microphone",
                 "android.permission.CAMERA": "message_camera",
                 "android.permission.READ_MEDIA_IMAGES": "message_read_media_visual",
                 "android.permission.READ_MEDIA_VIDEO": "message_read_media_visual",
                 "android.permission.ACCESS_FINE_LOCATION": "message_location",
                 "android.permission.ACCESS_COARSE_LOCATION": "message_location",
                 "android.permission.READ_SMS": "message_sms", "android.permission.SEND_SMS": "message_sms",
                 "android.permission.RECEIVE_SMS": "message_sms", "android.permission.RECEIVE_MMS": "message_sms",
                 "android.permission.ACCESS_MEDIA_LOCATION": "message_read_media_visual",
                 "android.permission.READ_CONTACTS": "message_contacts",
                 "android.permission.WRITE_CONTACTS": "message_contacts",
                 "android.permission.READ_CALENDAR": "message_calendar",
                 "android.permission.WRITE_CALENDAR": "message_calendar",
                 "android.permission.READ_PHONE_STATE": "message_phone", "android.permission.CALL_PHONE": "message_phone"}
SILENTLY_DENIED = {"android.permission.READ_EXTERNAL_STORAGE", "android.permission.WRITE_EXTERNAL_STORAGE"}


def request_permissions(device: VirtualDevice, act: Activity, permissions: list[str], code: int = 0) -> None:
    """``ActivityCompat.requestPermissions(activity, permissions, code)`` from ``act``: the dialog for what is
    not granted yet, or the result at once when nothing needs asking."""
    pkg = act.package
    app = device.app(pkg)
    results: dict[str, bool] = {}
    ask: list[str] = []
    for perm in permissions:
        if perm not in app.runtime_permissions or (perm in SILENTLY_DENIED and getattr(app, "target_sdk", 34) >= 33):
            results[perm] = False
        elif device.permission_granted(pkg, perm):
            results[perm] = True
        else:
            ask.append(perm)
    if not ask:
        _deliver(device, act, code, results)
        return
    device.push_activity(PACKAGE, GRANT, {"pkg": pkg, "ask": ask, "code": code, "results": results})


def _deliver(device: VirtualDevice, act: Activity, code: int, results: dict[str, bool]) -> None:
    hook = getattr(device.apps.get(act.package), "on_permissions_result", None)
    if callable(hook):
        hook(device, act, code, dict(results))


@register_virtual_app
class PermissionControllerApp(App):
    """GrantPermissionsActivity over the requesting app."""

    install_order = 3

    package = PACKAGE
    label = T.app
    launcher_activity = GRANT
    activities = (GRANT,)
    icon = "info"
    show_in_launcher = False
    system = True

    def _answer(self, device: VirtualDevice, act: Activity, granted: bool) -> None:
        """Answer the group in front; after the last one finish and hand the results to the requester."""
        ask: list[str] = list(act.state.get("ask", []))
        results: dict[str, bool] = dict(act.state.get("results", {}))
        if ask:
            perm = ask.pop(0)
            results[perm] = granted
            if granted:
                device.grant_permission(act.state["pkg"], perm)
        act.state.update(ask=ask, results=results)
        if ask:
            return
        self._finish(device, act, results)

    def _finish(self, device: VirtualDevice, act: Activity, results: dict[str, bool]) -> None:
        device.finish_top()
        below = device.top
        if below.package == act.state.get("pkg"):
            _deliver(device, below, int(act.state.get("code", 0)), results)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        """BACK denies everything still asked (the dialog is cancelled)."""
        results = dict(act.state.get("results", {}))
        for perm in act.state.get("ask", []):
            results[perm] = False
        self._finish(device, act, results)
        return True

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        root = View(bounds=frame, style=Style(bg=theme.BACKGROUND))
        stack = device.state.back_stack
        below = stack[-2] if len(stack) > 1 else None
        if below is not None and below.package in device.apps and below.package != PACKAGE:
            under = device.apps[below.package].build(device, below, frame)
            under.fill_package(below.package)
            root.add(under)
        ask = act.state.get("ask", [])
        if not ask:
            return root
        requester = device.apps.get(act.state.get("pkg", ""))
        label = requester.label if requester is not None else act.state.get("pkg", "")
        if ask[0] not in GROUP_MESSAGE:  # a dialog with another group's question would mislead a capture
            raise KeyError(f"the permission controller has no question for {ask[0]} (add its group's "
                           "permgrouprequest_* string to its table and GROUP_MESSAGE)")
        question = T.text(GROUP_MESSAGE[ask[0]], app=label)
        layer = w.scrim(frame)
        left, top, right, bottom = frame
        margin, pad = px(72), px(64)
        width = right - left - 2 * margin
        height = px(560)
        x0, y0 = left + margin, (top + bottom - height) // 2
        card = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x0 + width, y0 + height),
                    resource_id=T.rid("dialog"), style=Style(bg=theme.SURFACE, radius=px(70), elevation=px(16)))
        card.add(View(cls="android.widget.ImageView", bounds=(x0 + width // 2 - px(36), y0 + pad,
                                                              x0 + width // 2 + px(36), y0 + pad + px(72)),
                      resource_id="com.android.permissioncontroller:id/permission_icon",
                      style=Style(icon="info", icon_color=theme.PRIMARY, icon_size=px(66))))
        card.add(View(cls=T.cls("message"), bounds=(x0 + pad, y0 + pad + px(96), x0 + width - pad, y0 + px(330)),
                      text=question, resource_id=T.rid("message"),
                      style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE - px(4), align="center", max_lines=4)))
        bw = width - 2 * pad
        for i, (name, granted) in enumerate((("allow_button", True), ("deny_button", False))):
            by = y0 + px(350) + i * px(96)
            card.add(View(cls=T.cls(name), bounds=(x0 + pad, by, x0 + pad + bw, by + px(84)), text=T.text(name),
                          resource_id=T.rid(name), clickable=True, focusable=True,
                          on_click=lambda g=granted: self._answer(device, act, g),
                          style=Style(bg=theme.PRIMARY_CONTAINER if granted else None, fg=theme.PRIMARY,
                                      radius=px(42), font_size=theme.TEXT_LABEL, bold=True, align="center")))
        layer.add(card)
        layer.fill_package(PACKAGE)
        root.add(layer)
        return root
