"""Retro Music's first start, as the pinned build does it (hardware mode only; the deterministic device's app
starts with its permissions granted and the changelog read).

From RetroMusicPlayer@f41a800 (10603):

* ``AbsSlidingMusicPanelActivity.onCreate`` starts PermissionActivity and finishes MainActivity while
  ``hasPermissions()`` is false (AbsSlidingMusicPanelActivity.kt:205-209); on API 33+ the permissions are
  READ_MEDIA_AUDIO and POST_NOTIFICATIONS, both required (AbsMusicServiceActivity.kt:184-196,
  AbsBaseActivity.kt:98-107).
* PermissionActivity (activity_permission.xml, PermissionActivity.kt): "Hello there! / Welcome to Retro Music",
  then four PermissionItems (number, title, summary, "Grant access" button, a check mark once granted):
  1 Storage Access (requestPermissions of both permissions at once, the permission controller asking one
  after the other), 2 Nearby devices (BLUETOOTH_CONNECT), 3 Ringtone (Optional) (Settings' Modify system
  settings page, ACTION_MANAGE_WRITE_SETTINGS, while it is not allowed), 4 Alarm (Optional)
  (ACTION_REQUEST_SCHEDULE_EXACT_ALARM; shown here as the package's Alarms & reminders page); and "Let's go",
  enabled while both required permissions are granted, which opens MainActivity in a new task. BACK leaves
  the app (finishAffinity).
* ``MainActivity.onCreate`` calls ``WhatsNewFragment.showChangeLog`` (MainActivity.kt:56): the What's New
  bottom sheet while the default prefs' ``last_changelog_version`` (Constants.kt:127, PreferenceUtil.kt:410-420)
  is below the installed versionCode; the sheet writes the version as soon as it shows (WhatsNewFragment.kt:99,
  134-142; its "View on Telegram" button opens a browser, not modelled). It has no close button: BACK or a tap on ``touch_outside`` above the sheet cancels it
  (BottomSheetDialog.java:325-336). It opens at the auto peek height, parentHeight - parentWidth * 9 / 16
  (BottomSheetBehavior.calculatePeekHeight).

The flag lives in the app's shared prefs and the grants in the package manager, so ``pm clear`` brings the
screens back and a snapshot keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.apps.music.const import PKG, PREFS_XML, T
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import dp, px
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PERMISSION_ACTIVITY = f"{PKG}.activities.PermissionActivity"
READ_MEDIA_AUDIO = "android.permission.READ_MEDIA_AUDIO"
POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"
BLUETOOTH_CONNECT = "android.permission.BLUETOOTH_CONNECT"
REQUIRED = (READ_MEDIA_AUDIO, POST_NOTIFICATIONS)
LAST_CHANGELOG_VERSION = "last_changelog_version"
PERMISSION_REQUEST, BLUETOOTH_PERMISSION_REQUEST = 100, 101  # AbsBaseActivity.kt:182-183
WELCOME = "Hello there! \nWelcome to Retro Music"  # message_welcome (strings.xml:260) parsed as HTML
# activity_permission.xml:45-93 with strings.xml:96-97, 303-304, 457-460: (id, number, title, summary)
ITEMS = (("storage_permission", "1", "Storage Access",
          "The app needs permission to access your device storage for playing music"),
         ("bluetooth_permission", "2", "Nearby devices",
          "The app needs nearby devices permission to check for bluetooth devices"),
         ("audio_permission", "3", "Ringtone (Optional)",
          "The app needs permission to access your device settings in order to set music as Ringtone"),
         ("alarm_permission", "4", "Alarm (Optional)",
          "The app needs permission to schedule exact alarms to set sleep timers"))
ACCENT = (98, 0, 238)


def has_permissions(device: VirtualDevice) -> bool:
    return all(device.permission_granted(PKG, perm) for perm in REQUIRED)


def main_created(device: VirtualDevice, act: Activity) -> None:
    """MainActivity.onCreate: redirect to PermissionActivity, else the changelog sheet once per version."""
    if not device.hardware:
        return
    if not has_permissions(device):
        act.state["redirect"] = True
        return
    prefs = shared_prefs.load(device, PREFS_XML)
    code = device.version_code(PKG)
    if prefs.get_int(LAST_CHANGELOG_VERSION, 0) < code:
        prefs.put_long(LAST_CHANGELOG_VERSION, code)
        shared_prefs.save(device, PREFS_XML, prefs)
        act.state["changelog"] = True


def main_resumed(device: VirtualDevice, act: Activity) -> bool:
    """The redirect (startActivity(PermissionActivity); finish()); True when MainActivity went away."""
    if not act.state.pop("redirect", False):
        return False
    if act in device.state.back_stack:
        device.state.back_stack.remove(act)
    device.push_activity(PKG, PERMISSION_ACTIVITY)
    return True


def on_permissions_result(device: VirtualDevice, act: Activity, code: int, results: dict[str, bool]) -> None:
    """onRequestPermissionsResult: a denial shows the "Permissions denied." snackbar (AbsBaseActivity.kt:109-155);
    the screen itself is refreshed in onResume."""
    if code == PERMISSION_REQUEST and not all(results.values()):
        device.state.ui.toast = "Permissions denied."


def _open_settings(device: VirtualDevice, op: str) -> None:
    settings = device.apps.get("com.android.settings")
    opener = getattr(settings, "open_special_access", None)
    if callable(opener):
        opener(device, op, PKG)


def build_permission(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """activity_permission.xml: the welcome text, a divider, the four items and "Let's go"."""
    from emukit.vdevice.apps.permissions import request_permissions

    left, top, right, bottom = frame
    root = w.screen(frame)
    head_h = dp(32) * 2 + dp(64)
    root.add(View(cls="android.widget.TextView", bounds=(left, top, right, top + head_h), text=WELCOME,
                  resource_id=T.rid("permission_welcome"),
                  style=Style(fg=theme.TEXT, font_size=dp(24), padding=dp(32), max_lines=2, valign="center")))
    root.add(View(bounds=(left, top + head_h, right, top + head_h + dp(1)), resource_id=f"{PKG}:id/divider",
                  style=Style(bg=theme.DIVIDER)))
    granted = {
        "storage_permission": has_permissions(device),
        "bluetooth_permission": device.permission_granted(PKG, BLUETOOTH_CONNECT),
        "audio_permission": device.app_op_allowed(PKG, "WRITE_SETTINGS"),
        "alarm_permission": device.app_op_allowed(PKG, "SCHEDULE_EXACT_ALARM"),
    }
    actions = {
        "storage_permission": lambda: request_permissions(device, act, list(REQUIRED), PERMISSION_REQUEST),
        "bluetooth_permission": lambda: request_permissions(device, act, [BLUETOOTH_CONNECT],
                                                            BLUETOOTH_PERMISSION_REQUEST),
        "audio_permission": lambda: None if granted["audio_permission"] else _open_settings(device, "WRITE_SETTINGS"),
        "alarm_permission": lambda: _open_settings(device, "SCHEDULE_EXACT_ALARM"),
    }
    finish_h = dp(48) + dp(24)
    scroll = View(cls="android.widget.ScrollView", bounds=(left, top + head_h + dp(1), right, bottom - finish_h - dp(16)))
    item_h = dp(150)
    y = scroll.bounds[1]
    for rid, number, title, summary in ITEMS:
        item = View(cls="android.widget.FrameLayout", bounds=(left, y, right, y + item_h), resource_id=f"{PKG}:id/{rid}")
        x = left + dp(72)
        item.add(View(cls="android.widget.TextView", bounds=(left + dp(16), y + dp(16), left + dp(56), y + dp(48)),
                      text=number, resource_id=f"{PKG}:id/number",
                      style=Style(fg=(255, 255, 255), bg=ACCENT, radius=dp(16), align="center", bold=True)))
        item.add(View(cls="android.widget.TextView", bounds=(x, y + dp(16), right - dp(16), y + dp(48)), text=title,
                      resource_id=T.rid("permission_item_title"), style=Style(fg=theme.TEXT, font_size=dp(16), bold=True)))
        item.add(View(cls="android.widget.TextView", bounds=(x, y + dp(48), right - dp(16), y + dp(92)), text=summary,
                      resource_id=T.rid("permission_item_summary"),
                      style=Style(fg=theme.TEXT_SECONDARY, font_size=dp(14), max_lines=2, valign="top")))
        button = (x, y + dp(96), x + dp(160), y + dp(136))
        item.add(View(cls=T.cls("permission_grant_audio"), bounds=button, text=T.text("permission_grant_audio"),
                      resource_id=T.rid("permission_grant_audio"), clickable=True, focusable=True,
                      on_click=actions[rid],
                      style=Style(fg=ACCENT, border=ACCENT, border_width=px(3), radius=dp(20), align="center",
                                  font_size=dp(14), bold=True)))
        if granted[rid]:
            item.add(View(cls=T.cls("permission_check"), bounds=(button[2] + dp(8), button[1], button[2] + dp(48),
                                                                 button[3]),
                          resource_id=T.rid("permission_check"),
                          style=Style(icon="check", icon_color=ACCENT, icon_size=dp(24))))
        scroll.add(item)
        y += item_h
    root.add(scroll)
    enabled = has_permissions(device)

    def finish() -> None:
        if not has_permissions(device):
            return
        device.state.back_stack = [a for a in device.state.back_stack if a.package != PKG]
        device.start_activity(PKG)  # FLAG_ACTIVITY_NEW_TASK | FLAG_ACTIVITY_CLEAR_TASK, then finish()

    root.add(View(cls=T.cls("permission_finish"), bounds=(left + dp(16), bottom - finish_h, right - dp(16),
                                                          bottom - dp(16)),
                  text=T.text("permission_finish"), resource_id=T.rid("permission_finish"), clickable=True,
                  focusable=True, enabled=enabled, on_click=finish if enabled else None,
                  style=Style(bg=ACCENT if enabled else theme.DIVIDER, fg=(255, 255, 255), radius=dp(24),
                              align="center", font_size=dp(16), bold=True)))
    return root


def permission_back(device: VirtualDevice, act: Activity) -> bool:
    """finishAffinity(): every activity of the task goes."""
    device.state.back_stack = [a for a in device.state.back_stack if a.package != PKG] or device.state.back_stack
    device.state.ui.focused_id = None
    return True


def changelog_sheet(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """design_bottom_sheet_dialog.xml: ``touch_outside`` over the whole window (a tap cancels) and the sheet
    (fragment_whats_new.xml: the WebView with the changelog and "View on Telegram") at the auto peek height."""
    left, top, right, bottom = frame

    def close() -> None:
        act.state.pop("changelog", None)

    layer = View(cls="android.widget.FrameLayout", bounds=frame, resource_id=f"{PKG}:id/container")
    layer.add(View(bounds=frame, resource_id=T.rid("changelog_dismiss"), clickable=True, on_click=close,
                   style=Style(bg=(0, 0, 0), bg_alpha=theme.SCRIM_ALPHA)))
    width = right - left
    sheet_top = top + width * 9 // 16  # parentHeight - peekHeight, peekHeight = parentHeight - parentWidth * 9 / 16
    sheet = View(cls="android.widget.FrameLayout", bounds=(left, sheet_top, right, bottom),
                 resource_id=T.rid("changelog_sheet"),
                 style=Style(bg=theme.SURFACE, radius=dp(28)))
    sheet.add(View(cls="android.webkit.WebView", bounds=(left, sheet_top + dp(8), right, bottom),
                   resource_id=T.rid("changelog_webview"), text="What's New",
                   style=Style(fg=theme.TEXT, font_size=dp(20), bold=True, valign="top", padding=dp(24))))
    fab_w, fab_h = dp(200), dp(56)
    sheet.add(View(cls="android.widget.Button", bounds=(right - dp(16) - fab_w, bottom - dp(16) - fab_h,
                                                        right - dp(16), bottom - dp(16)),
                   text=T.text("changelog_telegram"), resource_id=T.rid("changelog_telegram"), clickable=True,
                   style=Style(bg=ACCENT, fg=(255, 255, 255), radius=dp(16), align="center", font_size=dp(14))))
    layer.add(sheet)
    return layer
