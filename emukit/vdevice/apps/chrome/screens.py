"""Chrome's activities: the launcher alias that forwards, the first run and the tabbed browser.

* ``com.google.android.apps.chrome.Main`` (the launcher entry android_world starts, adb_utils.py:36-37) is an
  alias that hands over at once: to FirstRunActivity while the first run is not done (hardware mode on a fresh
  install or after ``pm clear``), else to ChromeTabbedActivity.
* FirstRunActivity: the signin first-run page (signin_first_run_portrait_view.xml, its bottom group
  signin_first_run_bottom_group_view.xml): "Welcome to Chrome", "Add account to device" (no account on a fresh
  AVD; adding one is not modelled and the button does nothing) and "Use without an account", which ends the first
  run (``first_run_flow`` true) and opens the browser. BACK leaves Chrome with the first run still pending.
* ChromeTabbedActivity: the toolbar (toolbar_phone.xml: home button, location bar with the omnibox ``url_bar``,
  tab switcher and menu buttons) over the content area: the New Tab Page (its fake search box
  ``search_box_text``) or the open page (:mod:`.page`). Tapping the fake box or the omnibox starts editing; ENTER
  (actionGo) loads the typed URL; BACK ends editing, then goes back in the tab, then leaves. After the first run,
  the first time the browser shows it asks for POST_NOTIFICATIONS through the permission controller's dialog.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.chrome import data as D
from emukit.vdevice.apps.chrome import page
from emukit.vdevice.apps.permissions import request_permissions
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Style, View

MAIN = "com.google.android.apps.chrome.Main"
FIRST_RUN = "org.chromium.chrome.browser.firstrun.FirstRunActivity"
TABBED = "org.chromium.chrome.browser.ChromeTabbedActivity"
NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"
NOTIFICATION_REQUEST = 1
OMNIBOX_KEY = "com.android.chrome:id/url_bar"


def _hand_over(ctx: Ctx, activity: str) -> None:
    """Start ``activity`` over this one and drop this one from the task (a trampoline's finish())."""
    ctx.device.push_activity(D.PACKAGE, activity)
    state = ctx.device.state
    state.back_stack = [a for a in state.back_stack if a is not ctx.act]


class MainAlias(Screen):
    """The launcher alias: never drawn for long, it forwards on resume."""

    activity = MAIN

    def on_resume(self, ctx: Ctx) -> None:
        _hand_over(ctx, TABBED if D.first_run_done(ctx.device) else FIRST_RUN)

    def build(self, ctx: Ctx) -> View:
        return View(cls="android.widget.FrameLayout", bounds=ctx.frame, style=Style(bg=theme.BACKGROUND))


FRE = N(cls="android.widget.RelativeLayout", children=(
    N(cls="android.widget.ScrollView", children=(
        N(cls="android.widget.LinearLayout", children=(
            N(cls="android.view.View", h=96),
            N(cls="android.widget.ImageView", h=96),
            N(entry="fre_title", h=72),
            N(cls="android.view.View", h=120),
            N(entry="fre_continue", h=56, pad=4),
            N(entry="fre_dismiss", h=56, pad=4),
        )),
    )),
    N(cls="android.widget.FrameLayout", children=(N(entry="fre_footer", h=64),)),
))


class FirstRunScreen(Screen):
    activity = FIRST_RUN

    def build(self, ctx: Ctx) -> View:
        def dismiss() -> None:
            D.finish_first_run(ctx.device)
            _hand_over(ctx, TABBED)

        bind: dict[str, dict[str, Any]] = {
            "fre_title": {"style": {"align": "center", "font_size": theme.TEXT_TITLE_L, "bold": True}},
            "fre_continue": {"cls": "android.widget.Button", "clickable": True, "on_click": lambda: None,
                             "style": {"bg": theme.PRIMARY, "fg": theme.ON_PRIMARY, "align": "center",
                                       "radius": theme.dp(20)}},
            "fre_dismiss": {"cls": "android.widget.Button", "clickable": True, "on_click": dismiss,
                            "style": {"fg": theme.PRIMARY, "align": "center"}},
            "fre_footer": {"cls": "android.widget.TextView",
                           "text": "By continuing, you agree to the Google Terms of Service.",
                           "style": {"fg": theme.TEXT_SECONDARY, "font_size": theme.TEXT_SMALL, "align": "center"}},
        }
        return inflate(FRE, ctx.frame, D.T, bind)


TOOLBAR = N(entry="toolbar", row=True, h=56, children=(
    N(entry="home_button", w=48),
    N(entry="location_bar", children=(N(entry="url_bar", h=56),)),
    N(cls="android.widget.LinearLayout", w=96, row=True, children=(
        N(entry="tab_switcher_button", w=48),
        N(cls="org.chromium.chrome.browser.toolbar.menu_button.MenuButton", w=48,
          children=(N(entry="menu_button", h=56),)),
    )),
))


class TabbedScreen(Screen):
    activity = TABBED

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        ctx.state["editing"] = False
        ctx.state["omnibox"] = ""

    def on_resume(self, ctx: Ctx) -> None:
        device = ctx.device
        if (device.hardware and D.notification_requests(device) == 0
                and not device.permission_granted(D.PACKAGE, NOTIFICATIONS)):
            D.count_notification_request(device)
            request_permissions(device, ctx.act, [NOTIFICATIONS], NOTIFICATION_REQUEST)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("sel"):
            ctx.state.pop("sel", None)
            return True
        if ctx.state.get("editing"):
            self._stop_editing(ctx)
            return True
        if D.go_back(ctx.device):
            ctx.state["vscroll"] = 0
            return True
        return False

    def _stop_editing(self, ctx: Ctx) -> None:
        ctx.state["editing"], ctx.state["omnibox"] = False, ""
        if ctx.device.state.ui.focused_id == OMNIBOX_KEY:
            ctx.device.state.ui.focused_id = None

    def _start_editing(self, ctx: Ctx) -> None:
        if not ctx.state.get("editing"):
            ctx.state["editing"] = True
            ctx.state["omnibox"] = D.display_url(D.tab(ctx.device)["url"])
        ui = ctx.device.state.ui
        if ui.focused_id != OMNIBOX_KEY:
            ui.focused_id, ui.cursor = OMNIBOX_KEY, None  # the caret at the end of the text

    def _go(self, ctx: Ctx) -> None:
        text = str(ctx.state.get("omnibox", "")).strip()
        self._stop_editing(ctx)
        if text:
            D.navigate(ctx.device, D.fix_url(text))
            ctx.state["vscroll"] = 0
            ctx.state.pop("sel", None)

    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        device = ctx.device
        url = D.tab(device)["url"]
        editing = bool(ctx.state.get("editing"))
        ntp = url == D.NTP_URL
        root = View(cls="android.widget.FrameLayout", bounds=frame, style=Style(bg=theme.BACKGROUND))

        def put(text: str) -> None:
            ctx.state["editing"], ctx.state["omnibox"] = True, text

        omnibox = ctx.state.get("omnibox", "") if editing else D.display_url(url)
        bind: dict[str, dict[str, Any]] = {
            "toolbar": {"style": {"bg": theme.SURFACE}},
            "home_button": {"clickable": True, "content_desc": "Open the home page", "on_click": lambda: self._home(ctx),
                            "style": {"icon": "home", "icon_color": theme.TEXT_SECONDARY}},
            "url_bar": {"text": omnibox, "hint": D.T.text("omnibox_hint"), "key": OMNIBOX_KEY, "on_text": put,
                        "on_submit": lambda: self._go(ctx), "on_click": lambda: self._start_editing(ctx),
                        "style": {"radius": theme.dp(24), "bg": theme.SURFACE_VARIANT, "border": None,
                                  "font_size": theme.TEXT_BODY_L}},
            "tab_switcher_button": {"clickable": True, "content_desc": "Switch or close tabs",
                                    "on_click": lambda: None, "style": {"icon": "chrome.tabs", "icon_color": theme.TEXT}},
            "menu_button": {"cls": "android.widget.ImageButton", "clickable": True,
                            "content_desc": "Customize and control Google Chrome", "on_click": lambda: None,
                            "style": {"icon": "more_vert", "icon_color": theme.TEXT}},
        }
        top = frame[1]
        if not ntp or editing:
            bar = inflate(TOOLBAR, (frame[0], top, frame[2], top + theme.dp(56)), D.T, bind)
            root.add(bar)
            top += theme.dp(56)
        area = (frame[0], top, frame[2], frame[3])
        if ntp:
            root.add(self._ntp(ctx, area, editing))
        else:
            root.add(page.build(ctx, area, url))
        return root

    def _home(self, ctx: Ctx) -> None:
        D.navigate(ctx.device, D.NTP_URL)
        ctx.state.pop("sel", None)

    def _ntp(self, ctx: Ctx, area: tuple[int, int, int, int], editing: bool) -> View:
        left, top, right, _bottom = area
        holder = View(cls="android.widget.FrameLayout", bounds=area, resource_id=D.T.rid("compositor_view_holder"),
                      style=Style(bg=theme.BACKGROUND))
        if editing:
            return holder
        y = top + theme.dp(160)
        box = (left + theme.dp(16), y, right - theme.dp(16), y + theme.dp(52))
        holder.add(View(cls=D.T.cls("search_box_text"), bounds=box, resource_id=D.T.rid("search_box_text"),
                        hint=D.T.text("omnibox_hint"), clickable=True, focusable=True,
                        on_click=lambda: self._start_editing(ctx),
                        style=Style(bg=theme.SURFACE_VARIANT, radius=theme.dp(26), fg=theme.TEXT_SECONDARY,
                                    font_size=theme.TEXT_BODY_L, padding=theme.dp(20))))
        return holder
