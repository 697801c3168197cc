"""Input dispatch: taps, focus and the soft keyboard, keys, swipes, drags, raw touch events, toasts, crashes."""

from __future__ import annotations

import time

import pytest

from emukit.vdevice.apps.base import App
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.input import ACTION_DOWN, ACTION_MOVE, ACTION_UP
from emukit.vdevice.ui.view import Bounds, Style, View

PKG = "com.example.input"
IME = "com.android.inputmethod.latin"


class InputApp(App):
    """A screen with one of everything input can reach; events are recorded in ``act.state['log']``."""

    package = PKG
    label = "Input Test"
    icon_color = (200, 80, 80)

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        st = act.state
        log = st.setdefault("log", [])
        left, top, right, _ = frame
        root = w.screen(frame)
        root.add(w.button((60, top + 40, 500, top + 160), "Press", lambda: log.append("click"),
                          rid=f"{PKG}:id/press"))
        root.add(View(bounds=(560, top + 40, 1020, top + 160), text="Hold", long_clickable=True,
                      on_long_click_at=lambda x, y: log.append(("long", x, y))))
        root.add(w.text_field((60, top + 200, 1020, top + 330), st.get("name", ""), lambda t: st.update(name=t),
                              key="name", hint="Name", on_submit=lambda: log.append("submit"),
                              rid=f"{PKG}:id/name"))
        root.add(w.text_field((60, top + 360, 1020, top + 600), st.get("body", ""), lambda t: st.update(body=t),
                              key="body", hint="Body", max_lines=4, rid=f"{PKG}:id/body"))
        root.add(View(bounds=(60, top + 640, 200, top + 760), content_desc="Drag handle",
                      on_drag=lambda *pts: log.append(("drag", *pts)), style=Style(icon="drag_handle")))
        root.add(View(cls="android.widget.ScrollView", bounds=(0, top + 800, right, top + 1400), scrollable=True,
                      on_scroll=lambda dy: log.append(("scroll", dy)), children=[
                          View(bounds=(0, top + 800, right, top + 1000), text="Row inside the list",
                               on_click=lambda: log.append("row"))]))
        if st.get("dialog"):
            root.add(w.dialog(frame, "Dialog", "Blocks the screen", buttons=[("OK", lambda: st.pop("dialog"))]))
        if st.get("boom"):
            raise RuntimeError("build failed")
        return root

    def on_key(self, device: VirtualDevice, act: Activity, keycode: int) -> bool:
        act.state.setdefault("log", []).append(("key", keycode))
        return True


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.apps[PKG] = InputApp()
    dev.start_activity(PKG)
    return dev


def view(dev: VirtualDevice, **attrs: object) -> View:
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def log(dev: VirtualDevice) -> list:
    return dev.top.state.get("log", [])


def keyboard_shown(dev: VirtualDevice) -> bool:
    return any(win.package == IME for win in dev.wm.windows())


def test_tap_clicks_the_deepest_clickable(device: VirtualDevice) -> None:
    device.wm.tap(*view(device, text="Press").center)
    device.wm.tap(*view(device, text="Row inside the list").center)
    assert log(device) == ["click", "row"]


def test_long_press_gets_coordinates(device: VirtualDevice) -> None:
    target = view(device, text="Hold")
    device.wm.long_press(*target.center)
    assert log(device) == [("long", *target.center)]


def test_focus_shows_keyboard_and_keys_type(device: VirtualDevice) -> None:
    wm = device.wm
    assert not keyboard_shown(device)
    wm.tap(*view(device, hint="Name").center)
    assert device.state.ui.focused_id == "name"
    assert keyboard_shown(device)
    assert f'package="{IME}"' in device.hierarchy_xml()
    field = view(device, hint="Name")
    assert field.focused and field.bounds[3] <= 2400 - 126 - 800  # resized above the keyboard
    wm.tap(*view(device, content_desc="Shift").center)
    for key in ("H", "i"):
        wm.tap(*view(device, content_desc=key).center)
    assert device.top.state["name"] == "Hi"
    wm.tap(*view(device, content_desc="Space").center)
    wm.input_text("there!")
    assert device.top.state["name"] == "Hi there!"
    wm.tap(*view(device, content_desc="Delete").center)
    wm.key(67)
    wm.key(32)  # KEYCODE_D
    assert device.top.state["name"] == "Hi therd"
    wm.key(21)  # caret left, then type in the middle
    wm.input_text("X")
    assert device.top.state["name"] == "Hi therXd" and device.state.ui.cursor == 8
    wm.tap(*view(device, content_desc="?123").center)
    wm.tap(*view(device, content_desc="@").center)
    assert device.top.state["name"] == "Hi therX@d"
    wm.key(66)  # single-line ENTER submits
    assert "submit" in log(device)
    wm.key(4)
    assert not keyboard_shown(device) and device.state.ui.focused_id is None
    assert device.top.package == PKG  # BACK only hid the keyboard


def test_multiline_enter_inserts_newline_and_hide_key(device: VirtualDevice) -> None:
    wm = device.wm
    wm.tap(*view(device, hint="Body").center)
    wm.input_text("a")
    wm.tap(*view(device, content_desc="Enter").center)
    wm.input_text("b")
    assert device.top.state["body"] == "a\nb"
    wm.tap(*view(device, content_desc="Hide keyboard").center)
    assert not keyboard_shown(device)


def test_tap_on_nothing_clears_focus_and_text_without_focus_is_dropped(device: VirtualDevice) -> None:
    wm = device.wm
    wm.tap(*view(device, hint="Name").center)
    wm.tap(1000, 1300)  # empty app area (above the keyboard)
    assert device.state.ui.focused_id is None
    wm.input_text("lost")
    assert "name" not in device.top.state
    wm.key(29)  # a letter with no field goes to the app
    assert ("key", 29) in log(device)


def test_set_text(device: VirtualDevice) -> None:
    assert device.wm.set_text("name", "direct")
    assert device.top.state["name"] == "direct"
    assert device.wm.set_text(f"{PKG}:id/body", "by id")
    assert device.top.state["body"] == "by id"
    assert not device.wm.set_text("missing", "x")


def test_swipe_and_drag_dispatch(device: VirtualDevice) -> None:
    wm = device.wm
    handle = view(device, content_desc="Drag handle")
    x, y = handle.center
    wm.swipe(x, y, x, y + 400, 300)
    wm.drag(x, y, x + 10, y - 300, 1000)
    wm.swipe(540, 1300, 540, 1000, 300)  # up on the list: content moves up
    wm.swipe(540, 1000, 540, 1250, 300)
    wm.swipe(100, 1200, 900, 1210, 300)  # horizontal: no vertical scroll
    assert log(device) == [("drag", x, y, x, y + 400), ("drag", x, y, x + 10, y - 300), ("scroll", 300),
                           ("scroll", -250)]


def test_swipe_without_movement_is_a_tap_or_long_press(device: VirtualDevice) -> None:
    wm = device.wm
    wm.swipe(*view(device, text="Press").center, *view(device, text="Press").center, 100)
    hold = view(device, text="Hold")
    wm.swipe(*hold.center, *hold.center, 1000)
    assert log(device) == ["click", ("long", *hold.center)]


def test_raw_touch_events_are_classified(device: VirtualDevice) -> None:
    wm = device.wm
    press = view(device, text="Press").center
    wm.touch(ACTION_DOWN, *press)
    wm.touch(ACTION_UP, *press)
    hold = view(device, text="Hold").center
    wm.touch(ACTION_DOWN, *hold)
    wm._touch.t_down -= 0.8  # held for 800 ms
    wm.touch(ACTION_UP, *hold)
    wm.touch(ACTION_DOWN, 540, 1300)
    wm.touch(ACTION_MOVE, 540, 1200)
    wm.touch(ACTION_UP, 540, 1100)
    handle = view(device, content_desc="Drag handle").center
    wm.touch(ACTION_DOWN, *handle)
    wm._touch.t_down = time.monotonic() - 1.0  # long press, then move: a drag
    wm.touch(ACTION_MOVE, handle[0], handle[1] + 200)
    wm.touch(ACTION_UP, handle[0], handle[1] + 300)
    assert log(device) == ["click", ("long", *hold), ("scroll", 200),
                           ("drag", *handle, handle[0], handle[1] + 300)]


def test_shade_by_swipe_and_api(device: VirtualDevice) -> None:
    wm = device.wm
    wm.swipe(540, 20, 540, 900, 300)
    assert device.state.ui.shade_open
    assert 'resource-id="com.android.systemui:id/notification_panel"' in device.hierarchy_xml()
    wm.swipe(540, 1500, 540, 300, 300)
    assert not device.state.ui.shade_open
    wm.swipe(540, 20, 540, 150, 300)  # too short
    assert not device.state.ui.shade_open
    wm.expand_notifications()
    wm.key(4)
    assert not device.state.ui.shade_open and device.top.package == PKG
    wm.expand_notifications()
    wm.collapse_notifications()
    assert not device.state.ui.shade_open


def test_toast_shows_and_clears_on_next_input(device: VirtualDevice) -> None:
    device.state.ui.toast = "Saved"
    assert device.wm.find_view(lambda v: v.text == "Saved") is not None
    device.wm.tap(1000, 1600)
    assert device.state.ui.toast is None


def test_dialog_scrim_swallows_taps(device: VirtualDevice) -> None:
    device.top.state["dialog"] = True
    device.wm.tap(*view(device, text="Press").center)  # under the scrim
    assert log(device) == []
    device.wm.tap(*view(device, text="OK").center)
    assert "dialog" not in device.top.state


def test_navigation_keys(device: VirtualDevice) -> None:
    wm = device.wm
    wm.tap(*view(device, content_desc="Home").center)
    assert device.top.package == device.launcher_package
    device.start_activity(PKG)
    wm.key(187)
    assert wm.overview_open
    wm.tap(*view(device, content_desc="Input Test", resource_id="com.android.systemui:id/snapshot").center)
    assert not wm.overview_open and device.top.package == PKG
    wm.key(26)  # power: harmless
    wm.key(4)
    assert device.top.package == device.launcher_package
    wm.key(4)  # BACK on the home screen stays home
    assert device.top.package == device.launcher_package


def test_app_exception_crashes_the_app(device: VirtualDevice) -> None:
    device.top.state["boom"] = True
    assert device.wm.windows()[0].package == device.launcher_package
    assert device.state.ui.toast == "Input Test has stopped"
    assert PKG not in device.state.running


def test_long_press_on_a_field_offers_select_all_copy_and_paste(device: VirtualDevice) -> None:
    wm = device.wm
    device.wm.set_text("name", "copy me")
    wm.long_press(*view(device, hint="Name").center)
    assert device.state.ui.focused_id == "name" and keyboard_shown(device)
    assert device.wm.find_view(lambda v: v.text == "Paste") is None  # empty clipboard
    wm.tap(*view(device, text="Select all").center)
    wm.tap(*view(device, text="Copy").center)
    assert device.get_clip().text == "copy me"
    assert device.wm.find_view(lambda v: v.text == "Cut") is None  # the toolbar closed
    wm.long_press(*view(device, hint="Body").center)
    wm.tap(*view(device, text="Paste").center)
    assert device.top.state["body"] == "copy me"
    wm.long_press(*view(device, hint="Name").center)
    wm.tap(*view(device, text="Select all").center)
    wm.input_text("new")  # typing replaces the selection
    assert device.top.state["name"] == "new"
    wm.long_press(*view(device, hint="Name").center)
    wm.tap(*view(device, text="Select all").center)
    wm.tap(*view(device, text="Cut").center)
    assert device.top.state["name"] == "" and device.get_clip().text == "new"


def test_del_after_select_all_deletes_the_selection(tmp_path) -> None:
    """Select all in the text toolbar, then DEL: the whole text goes, as on Android."""
    from emukit.vdevice.device import VirtualDevice

    device = VirtualDevice(tmp_path / "dev", wipe=True)
    device.start_activity("com.android.settings")
    bar = device.wm.find_view(lambda v: v.resource_id == "com.android.settings:id/search_action_bar")
    device.wm.tap(*bar.center)  # the homepage's search bar opens the search page with its field focused
    field = device.wm.find_view(lambda v: v.resource_id.endswith("search_src_text"))
    device.wm.tap(*field.center)
    device.wm.input_text("date time")
    device.wm.long_press(*field.center)
    select_all = device.wm.find_view(lambda v: v.text == "Select all")
    assert select_all is not None
    device.wm.tap(*select_all.center)
    device.wm.key(67)
    field = device.wm.find_view(lambda v: v.resource_id.endswith("search_src_text"))
    assert field.text == ""
