"""IntroductionActivity, the launcher activity: while ``showIntroduction`` is true (its default) a two-page
ViewPager2, the welcome text (welcome.xml) and the OSMDashboard hint (osm_dashboard.xml), under the ``next_button``
FAB; the last page's FAB clears the flag and opens TrackListActivity (IntroductionActivity.java:26-48). Once the
flag is false the activity forwards to TrackListActivity at once (:31-34)."""

from __future__ import annotations

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.common import LIST, forward
from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
PAGES = ("intro_welcome_text", "intro_osm_text")


class IntroScreen(Screen):
    activity = ".introduction.IntroductionActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.process_start(ctx.device)
        ctx.state.setdefault("page", 0)

    def on_resume(self, ctx: Ctx) -> None:
        if not D.show_introduction(ctx.device):
            forward(ctx, LIST)

    def _next(self, ctx: Ctx) -> None:
        page = int(ctx.state.get("page", 0)) + 1
        if page < len(PAGES):
            ctx.state["page"] = page
            return
        D.introduction_done(ctx.device)
        forward(ctx, LIST)

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="android.widget.RelativeLayout", bounds=ctx.frame, style=Style(bg=theme.BACKGROUND))
        pager = View(cls=T.cls("intro_pager"), bounds=ctx.frame, resource_id=T.rid("intro_pager"))
        page = View(cls="android.widget.LinearLayout", bounds=ctx.frame)
        logo_top = top + dp(75)
        page.add(View(cls="android.widget.ImageView", bounds=(left, logo_top, right, logo_top + dp(200)),
                      style=Style(icon="opentracks.app", icon_color=theme.PRIMARY, icon_size=dp(160))))
        entry = PAGES[int(ctx.state.get("page", 0))]
        page.add(w.label((left + dp(16), logo_top + dp(210), right - dp(16), bottom - dp(120)), T.text(entry),
                         size=theme.TEXT_TITLE_L, align="center", valign="top", max_lines=8))
        pager.add(page)
        root.add(pager)
        size = dp(56)
        x1, y1 = right - dp(20), bottom - dp(90)
        root.add(View(cls=T.cls("intro_next"), bounds=(x1 - size, y1 - size, x1, y1), resource_id=T.rid("intro_next"),
                      clickable=True, focusable=True, on_click=lambda: self._next(ctx),
                      style=Style(bg=theme.PRIMARY_CONTAINER, radius=dp(16), elevation=dp(6), icon="play",
                                  icon_color=theme.ON_PRIMARY_CONTAINER, icon_size=dp(24))))
        return root
