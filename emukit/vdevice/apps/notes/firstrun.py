"""Markor's first start and its all-files access request, as the pinned build does them (hardware mode only;
the deterministic device's Markor starts past both).

Drawn from gsantner/markor@ab21754 and AppIntro 6.2.0 (AppIntro/AppIntro@c8f23fb):

* ``MainActivity.onCreate`` calls ``IntroActivity.optStart`` (MainActivity.java:237): while the default shared
  prefs (``shared_prefs/net.gsantner.markor_preferences.xml``) lack ``net.gsantner.markor.activity.
  IntroActivitywas_shown`` (IntroActivity.java:21-35) it starts IntroActivity on top. The intro has five slides
  (IntroActivity.java:44-48): "Main View", "View", "Share -> Markor", "To-Do", "QuickNote"; the arrow button
  ``next`` (content-desc "NEXT") moves on, the last slide shows ``done`` ("DONE") instead, whose
  onDonePressed writes the pref and finishes (IntroActivity.java:67-71). SKIP is off; BACK goes to the
  previous slide and, on the first, leaves without writing the pref (AppIntroBase.onBackPressed); a
  horizontal swipe changes the slide (setSwipeLock(false)).
* ``MainActivity.onResume`` (not the first start) calls ``StoragePermissionActivity.requestPermissions``
  (MainActivity.java:216-219): without all-files access (``Environment.isExternalStorageManager``, i.e. the
  app-op MANAGE_EXTERNAL_STORAGE in mode allow, GsContextUtils.java:2384-2390) it starts
  StoragePermissionActivity and finishes. That activity shows a dialog (StoragePermissionActivity.java:32-42)
  "Storage permission required to read and write files" with EXIT (finish) and OK, which opens Settings'
  page for ``ACTION_MANAGE_APP_ALL_FILES_ACCESS_PERMISSION`` with ``package:net.gsantner.markor``
  (GsContextUtils.java:2351-2367; the WRITE_EXTERNAL_STORAGE request made with it shows no dialog for an app
  targeting API 33). Back from Settings, processPermissionState (StoragePermissionActivity.java:44-57)
  opens MainActivity when access was given, else toasts "Permission not granted" and asks again.
* The first MainActivity created after the intro shows the license and changelog dialog
  (MainActivity.java:239-246) while ``shared_prefs/app.xml`` holds no
  ``pref_key__app_first_start_current_version`` = 146; showing it writes the value (AppSettings.java:274-280).
  The dialog has one button, OK (GsContextUtils.showDialogWithHtmlTextView); BACK also closes it.

Every flag lives in the app's shared prefs, so ``pm clear`` brings the screens back and a snapshot keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import storage
from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

INTRO = "net.gsantner.markor.activity.IntroActivity"
STORAGE_PERMISSION = "net.gsantner.markor.activity.StoragePermissionActivity"
MAIN = "net.gsantner.markor.activity.MainActivity"
DEFAULT_PREFS = f"/data/data/{storage.PACKAGE}/shared_prefs/{storage.PACKAGE}_preferences.xml"
INTRO_SHOWN = "net.gsantner.markor.activity.IntroActivitywas_shown"  # IntroActivity.java:21
FIRST_START_VERSION = "pref_key__app_first_start_current_version"  # string-not_translatable.xml:150
ALL_FILES_OP = "MANAGE_EXTERNAL_STORAGE"
# IntroActivity.java:44-48 with strings.xml:145, 310, 316, 41 and string-not_translatable.xml:41-42
SLIDES = (("Main View", ("Notebook is the folder that Markor loads in the file browser when the app is started. "
                         "It is the home folder of your files.")),
          ("View", ""),
          ("Share -> Markor", ""),
          ("To-Do", ("Manage your tasks with ToDo. It is a file in todo.txt format with default location "
                     ">Notebook/todo.txt<, you can set a custom filepath in the settings.")),
          ("QuickNote", ("QuickNote is the fastest option to write down notes. It is a file in Markdown format "
                         "with default location >Notebook/QuickNote.md<, you can set a custom filepath in the "
                         "settings.")))
# copyright_license_text_official (string-not_translatable.xml:64-69) as the TextView shows it, then the headings
CHANGELOG_TEXT = ("Copyright \u00a9 2017-2023\nGregor Santner\nOfficial project sources:\n"
                  "Project page | Source code | F-Droid\n\n\nChangelog")
PRIMARY = (0, 150, 136)
BAR_DP = 56


def is_first_start(device: VirtualDevice) -> bool:
    """IntroActivity.isFirstStart: the intro was never completed (hardware mode only)."""
    if not device.hardware:
        return False
    return not shared_prefs.load(device, DEFAULT_PREFS).get_bool(INTRO_SHOWN, False)


def has_storage_access(device: VirtualDevice) -> bool:
    return device.app_op_allowed(storage.PACKAGE, ALL_FILES_OP)


# ---------------------------------------------------------------------------------------------- MainActivity
def main_created(device: VirtualDevice, act: Activity) -> None:
    """MainActivity.onCreate: remember to start the intro on the first start; otherwise show the changelog
    dialog once per version."""
    if not device.hardware:
        return
    if is_first_start(device):
        act.state["intro"] = True
        return
    prefs = storage.load_prefs(device)
    code = device.version_code(storage.PACKAGE)
    if prefs.get_int(FIRST_START_VERSION, -1) != code:
        prefs.put_int(FIRST_START_VERSION, code)
        storage.save_prefs(device, prefs)
        act.state["changelog"] = True


def main_resumed(device: VirtualDevice, act: Activity) -> None:
    """MainActivity.onResume: the intro over it on the first start, else the all-files access request."""
    if not device.hardware:
        return
    if act.state.pop("intro", False):
        device.push_activity(storage.PACKAGE, INTRO, {"slide": 0})
        return
    if not is_first_start(device) and not has_storage_access(device):
        request_storage(device, act)


def request_storage(device: VirtualDevice, act: Activity) -> None:
    """StoragePermissionActivity.requestPermissions: start it and finish the caller."""
    if act in device.state.back_stack:
        device.state.back_stack.remove(act)
    device.push_activity(storage.PACKAGE, STORAGE_PERMISSION, {"dialog": True})


def changelog_dialog(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    from emukit.vdevice.apps.notes.notebook import _alert

    def close() -> None:
        act.state.pop("changelog", None)

    return _alert(frame, "", CHANGELOG_TEXT, None, 0, [("changelog_ok", T.text("changelog_ok"), close)], close)


# ---------------------------------------------------------------------------------------------- IntroActivity
def intro_back(device: VirtualDevice, act: Activity) -> bool:
    """BACK: the previous slide; on the first slide the intro finishes (the pref stays unset)."""
    slide = int(act.state.get("slide", 0))
    if slide > 0:
        act.state["slide"] = slide - 1
        return True
    return False


def _intro_done(device: VirtualDevice) -> None:
    prefs = shared_prefs.load(device, DEFAULT_PREFS)
    prefs.put_bool(INTRO_SHOWN, True)
    shared_prefs.save(device, DEFAULT_PREFS, prefs)
    device.finish_top()


def build_intro(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """appintro_intro_layout.xml: the pager with the current slide (appintro_fragment_intro.xml: title, image,
    description), the bottom bar with the indicator dots and NEXT (or DONE on the last slide)."""
    left, top, right, bottom = frame
    slide = max(0, min(int(act.state.get("slide", 0)), len(SLIDES) - 1))
    last = slide == len(SLIDES) - 1
    bar_h = theme.dp(BAR_DP)

    def go(delta: int) -> None:
        act.state["slide"] = max(0, min(slide + delta, len(SLIDES) - 1))

    def swipe(x1: int, y1: int, x2: int, y2: int) -> None:
        if abs(x2 - x1) > abs(y2 - y1):
            go(1 if x2 < x1 else -1)

    root = View(cls="android.view.ViewGroup", bounds=frame, resource_id=T.rid("intro_root"), style=Style(bg=PRIMARY))
    pager = View(cls="androidx.viewpager.widget.ViewPager", bounds=frame, resource_id=T.rid("intro_pager"),
                 scrollable=True, on_drag=swipe)
    title, text = SLIDES[slide]
    page = View(cls="android.view.ViewGroup", bounds=(left, top, right, bottom - bar_h),
                resource_id=f"{storage.PACKAGE}:id/main")
    height = bottom - bar_h - top
    y_title, y_image, y_text = top + height * 2 // 10, top + height * 7 // 10, bottom - bar_h
    page.add(View(cls=T.cls("intro_title"), bounds=(left + theme.dp(24), top, right - theme.dp(24), y_title),
                  text=title, resource_id=T.rid("intro_title"),
                  style=Style(fg=(255, 255, 255), font_size=theme.dp(28), bold=True, align="center")))
    page.add(View(cls="android.widget.ImageView", bounds=(left + theme.dp(48), y_title, right - theme.dp(48), y_image),
                  resource_id=f"{storage.PACKAGE}:id/image",
                  style=Style(icon="edit_note", icon_color=(255, 255, 255), icon_size=theme.dp(120))))
    if text:
        page.add(View(cls=T.cls("intro_description"), bounds=(left + theme.dp(32), y_image, right - theme.dp(32), y_text),
                      text=text, resource_id=T.rid("intro_description"),
                      style=Style(fg=(255, 255, 255), font_size=theme.dp(16), align="center", valign="top",
                                  max_lines=6)))
    pager.add(page)
    root.add(pager)
    bar_top = bottom - bar_h
    root.add(View(bounds=(left, bar_top, right, bottom), resource_id=f"{storage.PACKAGE}:id/bottom",
                  style=Style(bg=(0, 121, 107))))
    dots = View(cls="android.widget.FrameLayout", bounds=(left + (right - left) // 2 - theme.dp(60), bar_top,
                                                          left + (right - left) // 2 + theme.dp(60), bottom),
                resource_id=f"{storage.PACKAGE}:id/indicator_container")
    for i in range(len(SLIDES)):
        cx = dots.bounds[0] + theme.dp(12) + i * theme.dp(24)
        cy = bar_top + bar_h // 2
        r = theme.dp(4)
        dots.add(View(cls="android.widget.ImageView", bounds=(cx - r, cy - r, cx + r, cy + r),
                      style=Style(bg=(255, 255, 255), bg_alpha=255 if i == slide else 110, radius=r)))
    root.add(dots)
    size = theme.dp(48)
    box = (right - theme.dp(8) - size * 2, bar_top + (bar_h - size) // 2, right - theme.dp(8), bar_top + (bar_h + size) // 2)
    if last:
        root.add(View(cls=T.cls("intro_done"), bounds=box, text=T.text("intro_done"), resource_id=T.rid("intro_done"),
                      clickable=True, focusable=True, on_click=lambda: _intro_done(device),
                      style=Style(fg=(255, 255, 255), font_size=theme.dp(16), bold=True, align="center")))
    else:
        root.add(View(cls=T.cls("intro_next"), bounds=(box[2] - size, box[1], box[2], box[3]),
                      content_desc=T.desc("intro_next"), resource_id=T.rid("intro_next"), clickable=True,
                      focusable=True, on_click=lambda: go(1),
                      style=Style(icon="arrow_forward", icon_color=(255, 255, 255), icon_size=theme.dp(24))))
    return root


# ---------------------------------------------------------------------------------------------- StoragePermission
def storage_back(device: VirtualDevice, act: Activity) -> bool:
    """The dialog is not cancelable by touching outside; BACK cancels it and leaves the blank activity, as a
    second BACK leaves the app."""
    if act.state.get("dialog"):
        act.state["dialog"] = False
        return True
    return False


def storage_resumed(device: VirtualDevice, act: Activity) -> None:
    """processPermissionState when coming back from Settings (onActivityResult)."""
    if not act.state.pop("asked", False):
        return
    if has_storage_access(device):
        device.state.back_stack.remove(act)
        device.start_activity(storage.PACKAGE, MAIN)  # GsContextUtils.animateToActivity(MainActivity, finish)
        return
    device.state.ui.toast = T.text("storage_permission_denied")
    act.state["dialog"] = True


def build_storage(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """A blank MarkorBaseActivity under the AlertDialog (message, EXIT, OK)."""
    from emukit.vdevice.apps.notes.notebook import _alert

    root = View(bounds=frame, resource_id=f"{storage.PACKAGE}:id/storage_permission", style=Style(bg=theme.BACKGROUND))
    if not act.state.get("dialog"):
        return root

    def leave() -> None:
        device.finish_top()

    def ok() -> None:
        act.state["dialog"] = False
        act.state["asked"] = True
        settings = device.apps.get("com.android.settings")
        opener = getattr(settings, "open_all_files_access", None)
        if callable(opener):
            opener(device, storage.PACKAGE)

    buttons = [("storage_permission_exit", T.text("storage_permission_exit"), leave),
               ("storage_permission_ok", T.text("storage_permission_ok"), ok)]
    root.add(_alert(frame, "", T.text("storage_permission_message"), None, 0, buttons, lambda: None))
    return root
