"""Chrome's state on the virtual device: its first-run flag in its default shared preferences, the open tab
(process state) and the local pages it loads.

* ``shared_prefs/com.android.chrome_preferences.xml`` (Chrome's default SharedPreferences): ``first_run_flow``
  (ChromePreferenceKeys.FIRST_RUN_FLOW_COMPLETE) true once the first run is done, and
  ``Chrome.NotificationPermission.RequestCount`` (NOTIFICATION_PERMISSION_REQUEST_COUNT), how often Chrome asked
  for the notification permission; ``pm clear`` removes both, so the first run and the question come back.
* The open tab (URL, back history, what was typed into its inputs) is process state (``device.state.app_data``);
  its URL and title are also written to the same preferences under ``Chrome.MultiInstance.Url.0`` and
  ``Chrome.MultiInstance.Title.0`` (ChromePreferenceKeys MULTI_INSTANCE_URL / MULTI_INSTANCE_TITLE, instance 0),
  from which a restarted Chrome reopens that page (the real one restores its tabs from ``app_tabs/``, a binary
  format not modelled; the back history is not restored).
* Only ``file://`` URLs load (pages pushed to the device); anything else shows the network error page, since the
  device has no network.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.android.chrome"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
FIRST_RUN_KEY = T.text("first_run_pref")  # first_run_flow
NOTIFICATION_REQUESTS_KEY = T.text("notification_requests_pref")
URL_KEY = T.text("tab_url_pref")
TITLE_KEY = T.text("tab_title_pref")
NTP_URL = "chrome://newtab/"
NETWORK_ERROR_TITLE = "This site can\u2019t be reached"  # IDS_ERRORPAGES_HEADING_NOT_AVAILABLE
NETWORK_ERROR_TEXT = "ERR_INTERNET_DISCONNECTED"


def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def first_run_done(device: VirtualDevice) -> bool:
    return prefs(device).get_bool(FIRST_RUN_KEY)


def finish_first_run(device: VirtualDevice) -> None:
    p = prefs(device)
    p.put_bool(FIRST_RUN_KEY, True)
    shared_prefs.save(device, PREFS, p)


def notification_requests(device: VirtualDevice) -> int:
    return prefs(device).get_int(NOTIFICATION_REQUESTS_KEY)


def count_notification_request(device: VirtualDevice) -> None:
    p = prefs(device)
    p.put_int(NOTIFICATION_REQUESTS_KEY, p.get_int(NOTIFICATION_REQUESTS_KEY) + 1)
    shared_prefs.save(device, PREFS, p)


# ---------------------------------------------------------------------------------------------- the tab
def tab(device: VirtualDevice) -> dict[str, Any]:
    """The open tab: ``url``, ``history`` (earlier URLs), ``inputs`` (index -> typed value); a new process
    reopens the URL its preferences keep (the New Tab Page when there is none)."""
    data = device.state.app_data.setdefault(PACKAGE, {})
    if "tab" not in data:
        data["tab"] = {"url": prefs(device).get_str(URL_KEY) or NTP_URL, "history": [], "inputs": {}}
    return data["tab"]


def _remember(device: VirtualDevice, url: str) -> None:
    """Write the tab's URL and title to the preferences (the New Tab Page's title is "New tab")."""
    p = prefs(device)
    p.put_str(URL_KEY, url)
    p.put_str(TITLE_KEY, "New tab" if url == NTP_URL else load_page(device, url).title)
    shared_prefs.save(device, PREFS, p)


def navigate(device: VirtualDevice, url: str) -> None:
    current = tab(device)
    if current["url"] != url:
        current["history"].append(current["url"])
    current["url"], current["inputs"] = url, {}
    _remember(device, url)


def go_back(device: VirtualDevice) -> bool:
    current = tab(device)
    if not current["history"]:
        return False
    current["url"], current["inputs"] = current["history"].pop(), {}
    _remember(device, current["url"])
    return True


def fix_url(text: str) -> str:
    """What the omnibox makes of typed text: a scheme kept, a bare path as file://, else https://."""
    text = text.strip()
    if "://" in text or text.startswith(("chrome:", "about:", "data:")):
        return text
    if text.startswith("/"):
        return "file://" + text
    return "https://" + text


def display_url(url: str) -> str:
    """The omnibox's text for the open page (local files show their full URL)."""
    return "" if url == NTP_URL else url


# ---------------------------------------------------------------------------------------------- pages
@dataclass
class PageNode:
    """One accessibility node of a page: ``kind`` p / h1..h6 / li (text), input (EditText), button."""

    kind: str
    text: str = ""
    hint: str = ""


@dataclass
class Page:
    title: str
    nodes: list[PageNode] = field(default_factory=list)


_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "div", "pre", "td", "th", "label", "span", "body"}
_SKIP = {"script", "style", "head"}
_TEXT_INPUTS = {"", "text", "number", "search", "email", "url", "tel", "password"}


class _Parser(HTMLParser):
    """The page's blocks in document order: text gathered into the innermost open block; inputs and buttons
    as nodes of their own."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.nodes: list[PageNode] = []
        self.stack: list[str] = []
        self.text: list[str] = []
        self.skip = 0
        self.in_title = False
        self.in_button = False

    def _flush(self, kind: str) -> None:
        text = " ".join("".join(self.text).split())
        self.text = []
        if text:
            self.nodes.append(PageNode("p" if kind in ("div", "td", "th", "label", "span", "body", "pre") else kind,
                                       text))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "title":
            self.in_title = True
        elif tag in _SKIP:
            self.skip += 1
        elif tag == "input" and a.get("type", "").lower() in _TEXT_INPUTS:
            self._flush(self.stack[-1] if self.stack else "p")
            self.nodes.append(PageNode("input", a.get("value", ""), a.get("placeholder", "")))
        elif tag == "textarea":
            self._flush(self.stack[-1] if self.stack else "p")
            self.nodes.append(PageNode("input", "", a.get("placeholder", "")))
            self.skip += 1
        elif tag == "button":
            self._flush(self.stack[-1] if self.stack else "p")
            self.in_button = True
        elif tag == "br":
            self.text.append(" ")
        elif tag in _BLOCKS:
            self._flush(self.stack[-1] if self.stack else "p")
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in _SKIP or tag == "textarea":
            self.skip = max(0, self.skip - 1)
        elif tag == "button":
            text = " ".join("".join(self.text).split())
            self.text = []
            self.nodes.append(PageNode("button", text))
            self.in_button = False
        elif tag in _BLOCKS and tag in self.stack:
            self._flush(tag)
            while self.stack:  # close the block and whatever it left open inside it
                if self.stack.pop() == tag:
                    break

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
        elif not self.skip:
            self.text.append(data)

    def close(self) -> None:
        super().close()
        self._flush(self.stack[-1] if self.stack else "p")


def parse_html(html: str) -> Page:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    return Page(" ".join(parser.title.split()), parser.nodes)


def load_page(device: VirtualDevice, url: str) -> Page:
    """The page at ``url``: a local file read from the device, else the network error page."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        path = urllib.parse.unquote(parsed.path)
        try:
            html = device.fs.read_bytes(path).decode("utf-8", "replace")
        except OSError:
            name = path.rsplit("/", 1)[-1]
            return Page(name, [PageNode("h1", "Your file couldn\u2019t be accessed"),
                               PageNode("p", "It may have been moved, edited, or deleted."),
                               PageNode("p", "ERR_FILE_NOT_FOUND")])
        page = parse_html(html)
        if not page.title:
            page.title = path.rsplit("/", 1)[-1]
        return page
    host = parsed.netloc or url
    return Page(host, [PageNode("h1", NETWORK_ERROR_TITLE), PageNode("p", NETWORK_ERROR_TEXT)])
