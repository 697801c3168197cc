"""Chrome (``com.android.chrome``, the build shipped in the API 34 Google APIs image; no APK is installed):
local pages pushed to the device and opened through the omnibox, a word of a page copied with Chromium's selection
popup, pasted into the omnibox or a page's input; the open tab read from the screen; the ``pages:`` section of a
base snapshot spec.

Selects only through the pinned table (``tables/com.android.chrome/api34.yaml``, ids and strings from Chromium at
the commits it names). What the operations rely on:

* pages are LOCAL: :func:`page_html` writes a page from given paragraphs and inputs, :meth:`ChromeProfile.push_page`
  puts it in ``/data/local/tmp`` (mode 644; apps may read files there: untrusted_app_all.te lets every untrusted
  app domain, Chrome included, read shell_data_file, lineage private/untrusted_app_all.te:51-56) and it is opened
  as ``file:///data/local/tmp/<name>.html`` typed into the omnibox (``url_bar``, actionGo: ENTER loads it). No
  network is ever used. (android_world's browser tasks put task.html in Download and have the Files app open it
  with Chrome, browser.py:45-46, 73-85.) Not ``am start -a android.intent.action.VIEW -d file://...``: Chrome's
  IntentDispatcher alias takes VIEW intents for http, https and about URLs, content URLs of HTML or text, and
  file URLs only of MHTML snapshots (its intent filters in chromium/chromium@00f60aca8ea1546e8a10c96d576355906f13285a
  chrome/android/java/AndroidManifest.xml), so a local ``.html`` file is not routed to it by its type; the
  omnibox works the same on every build.
* a page's text shows as Chromium accessibility nodes under the root web area (``web_root``, class
  android.webkit.WebView, text = the page title): text-only blocks as android.widget.TextView, inputs as
  android.widget.EditText (``web_text`` / ``web_input``);
* a long press on a word selects it and shows the selection popup (Copy, Share, Select all, Web search); only Copy
  touches the clipboard. The profile presses the *first* word of a block (a block's bounds give where its text
  starts; a later word's position depends on the font);
* a long press on a focused, empty omnibox or on a page input offers "Paste".

Two read-only probes, each with an explicit empty state: :func:`read_tab` reads the screen (the foreground
activity, the omnibox's text, the root web area's title, the page's text and input nodes; empty when Chrome is not
in front, shows its first run or the New Tab Page) and :func:`read_saved_tab` reads, as root, Chrome's default
preferences (``Chrome.MultiInstance.Url.0`` / ``Title.0``: the active tab's URL and title, and ``first_run_flow``;
empty when the file does not exist or keeps no page).
"""

from __future__ import annotations

import html
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from emukit.actions import Element
from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.android.chrome"
MAIN_ACTIVITY = "com.google.android.apps.chrome.Main"  # android_world adb_utils.py:36-37
PAGES_FOLDER = "/data/local/tmp"
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
KEYCODE_ENTER, KEYCODE_DEL, KEYCODE_MOVE_END = 66, 67, 123  # android.view.KeyEvent
PRESS_IN_DP = 8  # how far into a block's first word the long press lands (from its left edge)
FIRST_LINE_DP = 9  # the middle of a block's first line
FIRST_RUN_STEPS = 6
_NAME_RE = r"^[A-Za-z0-9_.-]+$"


def page_url(name: str) -> str:
    return f"file://{PAGES_FOLDER}/{name}.html"


def page_html(title: str, paragraphs: list[str], inputs: list[str] | None = None) -> str:
    """A small local page: the title as <title> and <h1>, one <p> per paragraph, then one text <input> per
    entry of ``inputs`` (the entry is its placeholder)."""
    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>"] + [f"<p>{esc(p)}</p>" for p in paragraphs]
    body += [f'<p><input type="text" placeholder="{esc(hint)}"></p>' for hint in inputs or []]
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


class PageSpec(BaseModel):
    """A local page of a base snapshot: ``/data/local/tmp/<name>.html`` made by :func:`page_html`; ``open``: the
    page left open in Chrome's tab (at most one)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=_NAME_RE)
    title: str
    paragraphs: list[str] = Field(default_factory=list)
    inputs: list[str] = Field(default_factory=list)
    open: bool = False

    def path(self) -> str:
        return f"{PAGES_FOLDER}/{self.name}.html"


class PageSeed(SeedSection):
    """``pages:`` in a base snapshot spec: the pages are pushed (readable by Chrome), then the one marked
    ``open`` is opened through the omnibox (Chrome's first run is walked first when it shows)."""

    key = "pages"
    item = PageSpec

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        return {p.path(): page_html(p.title, p.paragraphs, p.inputs).encode() for p in items}

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        opened = [p for p in items if p.open]
        if len(opened) > 1:
            raise DeviceError(f"{driver.serial}: pages: at most one page can be left open, not "
                              f"{', '.join(p.name for p in opened)}")
        push_files(driver, cls.device_files(items))
        if opened:
            from emukit.apps.registry import profile_for

            profile = profile_for(driver, "chrome")
            profile.complete_first_run()
            profile.open_url(page_url(opened[0].name), title=opened[0].title)


def push_files(driver: Driver, files: dict[str, bytes]) -> None:
    """Push each file and make it world-readable (Chrome reads it as its own uid)."""
    sync = driver.adbutils().sync
    for path, data in files.items():
        sync.push(data, path, mode=0o644)
        driver.shell(f"chmod 644 {shlex.quote(path)}", check=True)


@dataclass(frozen=True)
class TabReading:
    """Chrome's open tab as the screen shows it, or why there is none (``reason`` None: a page is open)."""

    activity: str = ""
    url: str | None = None
    title: str | None = None
    omnibox: str | None = None
    texts: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    reason: str | None = None


def read_tab(driver: Driver, xml: str | None = None) -> TabReading:
    """The foreground activity, the omnibox text, the page title (root web area) and the page's text and input
    nodes; read-only (one hierarchy dump). Empty, with its reason, when Chrome is not in front, shows its first
    run, or shows the New Tab Page."""
    from emukit.apps.selectors import table_for

    try:
        package, activity = driver.current_app()
    except DeviceError:
        package, activity = "", ""
    if package != PACKAGE:
        return TabReading(activity=activity, reason=f"Chrome is not in front ({package or 'no app'} is)")
    tbl = table_for(PACKAGE, version_code=None, sdk=34)
    root = ET.fromstring(xml or driver.hierarchy())
    nodes = [n for n in root.iter("node") if n.get("package") == PACKAGE]
    by_id = {n.get("resource-id"): n for n in nodes}
    if by_id.get(tbl.rid("fre_dismiss_button")) is not None or by_id.get(tbl.rid("fre_title")) is not None:
        return TabReading(activity=activity, reason="Chrome shows its first run")
    url_bar = by_id.get(tbl.rid("url_bar"))
    omnibox = url_bar.get("text") if url_bar is not None else None
    web = [n for n in nodes if n.get("class") == tbl.cls("web_root")]
    if not web:
        reason = ("Chrome shows the New Tab Page" if by_id.get(tbl.rid("search_box_text")) is not None
                  else "no page is shown")
        return TabReading(activity=activity, omnibox=omnibox, reason=reason)
    page = web[-1]
    texts = [n.get("text", "") for n in page.iter("node") if n.get("class") == tbl.cls("web_text")]
    inputs = [n.get("text", "") for n in page.iter("node") if n.get("class") == tbl.cls("web_input")]
    focused = url_bar is not None and url_bar.get("focused") == "true"
    return TabReading(activity=activity, url=None if focused else omnibox, title=page.get("text", ""),
                      omnibox=omnibox, texts=texts, inputs=inputs)


@dataclass(frozen=True)
class SavedTab:
    """The active tab's URL and title as Chrome's preferences keep them (read as root), or why there are none."""

    url: str | None = None
    title: str | None = None
    first_run_done: bool = False
    reason: str | None = None


def _pref_strings(xml: str) -> dict[str, str]:
    root = ET.fromstring(xml)
    return {n.get("name", ""): n.text or "" for n in root if n.tag == "string"}


def read_saved_tab(driver: Driver) -> SavedTab:
    """``Chrome.MultiInstance.Url.0`` / ``.Title.0`` and ``first_run_flow`` from
    ``shared_prefs/com.android.chrome_preferences.xml`` (``cat`` as root; nothing is written). Empty, with its
    reason, when the file does not exist (a fresh or cleared Chrome) or keeps no tab (only the New Tab Page has
    shown)."""
    from emukit.apps.selectors import table_for

    tbl = table_for(PACKAGE, version_code=None, sdk=34)
    out = driver.shell(f"cat {shlex.quote(PREFS)} 2>/dev/null; true").text
    if not out.strip():
        return SavedTab(reason=f"{PREFS} does not exist: Chrome was cleared or never opened")
    try:
        strings = _pref_strings(out)
        root = ET.fromstring(out)
    except ET.ParseError as exc:
        raise DeviceError(f"{driver.serial}: {PREFS} is not a preferences file: {exc}") from None
    done = any(n.tag == "boolean" and n.get("name") == tbl.text("first_run_pref") and n.get("value") == "true"
               for n in root)
    url = strings.get(tbl.text("tab_url_pref"))
    if not url:
        return SavedTab(first_run_done=done, reason="Chrome keeps no open page (none was opened since it was cleared)")
    return SavedTab(url=url, title=strings.get(tbl.text("tab_title_pref")), first_run_done=done)


@register_app
class ChromeProfile(AppProfile):
    package = PACKAGE
    name = "chrome"
    activity = MAIN_ACTIVITY
    seed = PageSeed
    main_screens = ("main",)
    fixture_screens = ("new_tab", "page", "selection")

    # ------------------------------------------------------------------ first run
    def first_run_screen(self) -> str | None:
        """The control that leaves the first-run screen in front ("fre_dismiss_button", "fre_accept",
        "fre_no_thanks", "notifications"), "main" on the browser (toolbar or New Tab Page), None meanwhile."""
        if self.driver.exists(**self.sel("fre_dismiss_button")):
            return "fre_dismiss_button"
        if self.driver.exists(**self.sel("fre_accept")):
            return "fre_accept"
        if self.driver.exists(**self.sel("fre_no_thanks")):
            return "fre_no_thanks"
        if self.driver.exists(**self.sel("permissions:deny_button")):
            return "notifications"
        if self.driver.exists(**self.sel("toolbar")) or self.driver.exists(**self.sel("search_box_text")):
            return "main"
        return None

    @operation
    def complete_first_run(self) -> None:
        """Launch Chrome and walk its first run: "Use without an account" (or "Accept & continue" and "No thanks"
        on the older first run android_world's setup walks, apps.py:160-173), then decline notifications (android_world
        answers Chrome's question with "No thanks"; its browser tasks grant the permission themselves). Taps nothing
        that is not there."""
        self.launch()
        for _ in range(FIRST_RUN_STEPS):
            screen = self.driver.wait_until(self.first_run_screen, "Chrome or one of its first-run screens")
            if screen == "main":
                self.driver.wait_stable()
                if self.first_run_screen() == "main":  # the notification question may follow the first page
                    return
                continue
            if screen == "notifications":
                self.driver.tap(**self.sel("permissions:deny_button"))
            elif screen == "fre_accept":
                self.driver.tap(**self.sel("fre_accept"))
            elif screen == "fre_no_thanks":
                self.driver.tap(**self.sel("fre_no_thanks"))
            else:
                self.driver.tap(**self.sel("fre_dismiss_button"))
            self.driver.wait_idle()
        raise DeviceError(f"{self.driver.serial}: Chrome still shows a first-run screen after {FIRST_RUN_STEPS} steps")

    @operation
    def open_from_all_apps(self) -> None:
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Chrome")

    # ------------------------------------------------------------------ pages
    @operation
    def push_page(self, name: str, title: str, paragraphs: list[str], inputs: list[str] | None = None) -> None:
        """Write a local page (:func:`page_html`) to ``/data/local/tmp/<name>.html`` (its URL: :func:`page_url`)."""
        if not re.match(_NAME_RE, name):
            raise DeviceError(f"{self.driver.serial}: {name!r} is not a page name ({_NAME_RE})")
        push_files(self.driver, {f"{PAGES_FOLDER}/{name}.html": page_html(title, paragraphs, inputs).encode()})

    @operation
    def delete_page(self, name: str) -> None:
        """Remove a pushed page from the device (an open tab keeps showing it until it is reloaded)."""
        self.driver.shell(f"rm -f {shlex.quote(f'{PAGES_FOLDER}/{name}.html')}", check=True)

    def _omnibox(self) -> Element:
        """Focus the omnibox (through the New Tab Page's search box when that shows) and empty it."""
        box = self.driver.find(**self.sel("search_box_text"))
        if box is not None:
            self.driver.tap(*box.center)
        else:
            self.driver.tap(**self.sel("url_bar"))
        field_ = self.driver.element(**self.sel("url_bar"))
        if field_.text:
            self.driver.key(KEYCODE_MOVE_END)
            for _ in range(len(field_.text)):
                self.driver.key(KEYCODE_DEL)
        return self.driver.element(**self.sel("url_bar"))

    @operation
    def open_url(self, url: str, *, title: str | None = None) -> None:
        """Type ``url`` into the omnibox and go (ENTER); waits for the page (its title on the root web area when
        ``title`` is given)."""
        if self.first_run_screen() != "main":
            self.launch()
            self.driver.wait_until(lambda: self.first_run_screen() == "main", "Chrome's browser")
        self._omnibox()
        self.driver.type_text(url)
        self.driver.key(KEYCODE_ENTER)
        if title is None:
            self.driver.element(**self.sel("web_root"))
        else:
            self.driver.element(**self.sel("web_root"), text=title)

    @operation
    def open_page(self, name: str, title: str, paragraphs: list[str], inputs: list[str] | None = None) -> None:
        """Push a page and open it (the profile's "create")."""
        self.push_page(name, title, paragraphs, inputs)
        self.open_url(page_url(name), title=title)

    # ------------------------------------------------------------------ selection, copy, paste
    def _block(self, word: str) -> Element:
        """The page's text node (the table's ``web_text``, a TextView inside the root web area) whose text is
        ``word`` or starts with ``word`` and a space."""
        starts = f"(?s){re.escape(word)}(?: .*)?"
        found = self.driver.find(**self.sel("web_text"), textMatches=starts)
        if found is None:
            raise DeviceError(f"{self.driver.serial}: no text block of the page starts with the word {word!r}")
        return found

    def _selection_toolbar(self) -> bool:
        return self.driver.exists(**self.sel("text_copy"))

    @operation
    def select_word(self, word: str) -> None:
        """Long-press ``word`` (the first word of a block); waits for the selection popup."""
        block = self._block(word)
        left, top, _right, bottom = block.bounds
        y = top + min(self.driver.dp(FIRST_LINE_DP), (bottom - top) // 2)
        self.driver.long_press(left + self.driver.dp(PRESS_IN_DP), y)
        self.driver.element(**self.sel("text_copy"))

    @operation
    def copy_word(self, word: str) -> None:
        """Select ``word`` and tap Copy (the popup closes)."""
        self.select_word(word)
        self.driver.tap(**self.sel("text_copy"))
        self.driver.wait_until(lambda: not self._selection_toolbar(), "the selection popup to close")

    @operation
    def copy_page(self, word: str) -> None:
        """Select ``word``, then Select all, then Copy: the page's whole text."""
        self.select_word(word)
        self.driver.tap(**self.sel("text_select_all"))
        self.driver.tap(**self.sel("text_copy"))
        self.driver.wait_until(lambda: not self._selection_toolbar(), "the selection popup to close")

    @operation
    def paste_menu(self) -> None:
        """The New Tab Page's empty omnibox long-pressed: the text toolbar's "Paste" shows (the query context of
        a paste). From a page, the toolbar's home button opens the New Tab Page (the home page of Google builds)
        first, whose search box focuses the omnibox empty (a loaded page's address would stay in it)."""
        if self.driver.find(**self.sel("search_box_text")) is None:
            self.driver.tap(**self.sel("home_button"))
        self.driver.tap(**self.sel("search_box_text"))
        self.show_paste_menu(self.driver.element(**self.sel("url_bar")))

    @operation
    def paste_into_omnibox(self) -> None:
        """Focus and empty the omnibox, long-press it, Paste."""
        field_ = self._omnibox()
        self.paste_at(field_)

    @operation
    def paste_into_input(self, index: int = 0) -> None:
        """Tap the page's ``index``-th text input (the table's ``web_input``: an EditText inside the root web
        area, so never the omnibox), long-press it, Paste."""
        found = self.driver.find(**self.sel("web_input"), instance=index)
        if found is None:
            raise DeviceError(f"{self.driver.serial}: the page has no text input #{index}")
        self.driver.tap(*found.center)
        self.paste_at(found)

    @operation
    def go(self) -> None:
        """ENTER in the omnibox (actionGo): load what it holds (the profile's "save")."""
        self.driver.key(KEYCODE_ENTER)
        self.driver.wait_stable()

    def tab(self) -> TabReading:
        return read_tab(self.driver)

    def saved_tab(self) -> SavedTab:
        return read_saved_tab(self.driver)

    # ------------------------------------------------------------------ capture, doctor
    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The New Tab Page after ``pm clear`` and the first-run walk, a local page opened, a word of it selected
        (the selection popup). (The first-run screen itself shows only on a device whose Chrome is not past it; the
        capture walks the first run but keeps no fixture of it.)"""
        sample = ("capture", "Capture page", ["Alpha paragraph of the capture page.", "Beta line."], ["Your name"])

        def new_tab() -> None:
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            self.complete_first_run()

        def page() -> None:
            new_tab()
            self.open_page(*sample)

        def selection() -> None:
            page()
            self.select_word("Alpha")

        return {"new_tab": new_tab, "page": page, "selection": selection}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``chrome first run``: Chrome's preferences say its first run is done (``first_run_flow``). No
        preferences file means Chrome was never opened or was cleared: its first run will show, so the row
        fails too."""
        fix = "run emukit avd setup (its step 'first run chrome' walks it: the chrome profile's complete_first_run)"

        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read Chrome's preferences", "fix the root row first"
            out = self.driver.shell(f"cat {shlex.quote(PREFS)} 2>/dev/null; true").text
            if not out.strip():
                return False, "no preferences (never opened or cleared): the first run will show", fix
            key = self.table.text("first_run_pref")
            done = re.search(rf'<boolean name="{re.escape(key)}" value="true"', out) is not None
            return done, f"{key} {'true' if done else 'not set'}", fix

        return [("chrome first run", row)]
