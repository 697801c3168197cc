"""The first run (OnBoardingConfigFragment, frag_onboard_config.xml): "Hello! Welcome to Pro Expense", a ViewPager2
whose first page lists the languages (frag_choose_language.xml) and whose second the currencies
(frag_choose_currency.xml), and one button: NEXT turns to the currencies and becomes CONTINUE; CONTINUE writes
``isFirstTime`` false and restarts the activity, which opens on Home (OnBoardingConfigFragment.kt:50-89,
OnBoardingConfigViewModel.kt:23-27). A tap on a language or a currency stores it at once
(ChooseLanguageViewModel.selectLang, ChooseCurrencyViewModel.selectCurrency); the chosen row shows its check.

The virtual device keeps the chosen ids; it draws every screen in English and amounts in US dollars whatever is
chosen (the real app restarts into the chosen locale). Only the first six of the 151 currencies are listed.
"""

from __future__ import annotations

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense.data import T
from emukit.vdevice.apps.expense.views import RID
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
LANGUAGE_IDS = ("my", "en", "cn")  # LanguageProviderImpl.kt:24-26
#: (name, symbol, number) of currencies.json's first rows (pe:app/src/main/assets/currencies.json:1-43)
CURRENCIES = (("United State Dollar", "$", "840"), ("Euro", "\u20ac", "978"), ("United Kingdom Pound", "\u00a3", "826"),
              ("India Rupees", "INR", "356"), ("Australia Dollar", "AUD", "036"), ("Canada Dollar", "CAD", "124"))


def start(ctx: Ctx) -> None:
    ctx.state["onboarding"] = {"page": 0}


def _choose(ctx: Ctx, key: str, value: str) -> None:
    p = D.prefs(ctx.device)
    p.put_str(key, value)
    shared_prefs.save(ctx.device, D.PREFS, p)


def _finish(ctx: Ctx) -> None:
    """finishedConfig, then the activity restarts: a fresh MainActivity past the first run."""
    D.finish_onboarding(ctx.device)
    ctx.state.clear()
    ctx.state["stack"] = ["home"]
    D.open_database(ctx.device)


def build(ctx: Ctx) -> View:
    frame = ctx.frame
    left, top, right, bottom = frame
    st = ctx.state["onboarding"]
    page = int(st["page"])
    root = View(cls="android.view.ViewGroup", bounds=frame, style=Style(bg=theme.SURFACE))
    mid = (left + right) // 2
    root.add(View(cls="android.widget.ImageView", bounds=(mid - dp(50), top + dp(24), mid + dp(50), top + dp(124)),
                  resource_id=RID + "imv_app", style=Style(icon="note", icon_color=theme.PRIMARY, icon_size=dp(72))))
    root.add(w.label((left, top + dp(140), right, top + dp(172)), T.text("onboard_welcome"),
                     rid=T.rid("onboard_welcome"), size=theme.TEXT_TITLE, align="center"))
    pager_box = (left, top + dp(180), right, bottom - dp(80))
    pager = View(cls="android.view.ViewGroup", bounds=pager_box, resource_id=T.rid("onboard_pager"))
    pager.add(_page(ctx, pager_box, page))
    root.add(pager)

    def next_page() -> None:
        st["page"] = 1

    if page == 0:
        button = w.button((left + dp(24), bottom - dp(72), right - dp(24), bottom - dp(24)), T.text("onboard_next"),
                          next_page, rid=T.rid("onboard_next"))
    else:
        button = w.button((left + dp(24), bottom - dp(72), right - dp(24), bottom - dp(24)),
                          T.text("onboard_continue"), lambda: _finish(ctx), rid=T.rid("onboard_continue"))
    root.add(button)
    return root


def _page(ctx: Ctx, box: tuple[int, int, int, int], page: int) -> View:
    left, top, right, bottom = box
    body = View(cls="android.view.ViewGroup", bounds=box)
    head = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + dp(120)),
                resource_id=RID + "linear_search")
    title = "onboard_language_title" if page == 0 else "onboard_currency_title"
    head.add(w.label((left + dp(24), top + dp(24), right, top + dp(48)), T.text(title), rid=T.rid(title)))
    search = View(cls="androidx.cardview.widget.CardView", bounds=(left + dp(24), top + dp(60), right - dp(24),
                                                                  top + dp(110)),
                  resource_id=RID + "search_box", style=Style(bg=theme.SURFACE_VARIANT, radius=dp(8)))
    search.add(w.text_field((left + dp(40), top + dp(60), right - dp(80), top + dp(110)),
                            str(ctx.state["onboarding"].get("search", "")),
                            lambda t: ctx.state["onboarding"].__setitem__("search", t), key=RID + "search_box",
                            hint="Search", outlined=False))
    head.add(search)
    body.add(head)
    query = str(ctx.state["onboarding"].get("search", "")).lower()
    prefs = D.prefs(ctx.device)
    rows: list[tuple[str, str, bool, str, str]] = []
    if page == 0:
        chosen = prefs.get_str("selected_language", "en")
        rows = [(name, "", lid == chosen, "selected_language", lid) for lid, name in zip(LANGUAGE_IDS, D.LANGUAGES,
                                                                                       strict=True)]
    else:
        chosen = prefs.get_str("selected_currency_number", "840")
        rows = [(name, symbol, number == chosen, "selected_currency_number", number)
                for name, symbol, number in CURRENCIES]
    rows = [r for r in rows if query in f"{r[0]} {r[1]}".lower()]
    lst = View(cls="androidx.recyclerview.widget.RecyclerView", bounds=(left, top + dp(120), right, bottom),
               resource_id=T.rid("onboard_languages" if page == 0 else "onboard_currencies"))
    y = top + dp(128)
    for name, symbol, on, key, value in rows:
        card = View(cls="androidx.cardview.widget.CardView", bounds=(left + dp(16), y, right - dp(16), y + dp(56)),
                    resource_id=RID + ("cd_language" if page == 0 else "cv_currency"), clickable=True,
                    on_click=lambda key=key, value=value: _choose(ctx, key, value),
                    style=Style(bg=theme.BACKGROUND, radius=dp(8)))
        if symbol:
            card.add(w.label((left + dp(40), y, left + dp(100), y + dp(56)), symbol, rid=RID + "tv_symbol", bold=True))
        card.add(w.label((left + dp(104), y, right - dp(72), y + dp(56)), name,
                         rid=T.rid("language_name" if page == 0 else "currency_name")))
        if on:
            card.add(View(cls="android.widget.ImageView", bounds=(right - dp(64), y + dp(13), right - dp(34), y + dp(43)),
                          resource_id=RID + ("imv_checked" if page == 0 else "imv_selected"),
                          style=Style(icon="check", icon_color=theme.PRIMARY, icon_size=dp(24))))
        lst.add(card)
        y += dp(60)
    body.add(lst)
    return body
