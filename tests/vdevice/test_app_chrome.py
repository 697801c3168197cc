"""The virtual Chrome (com.android.chrome, the build shipped in the API 34 Google APIs image), driven in-process
through the window manager like a user would; ids, classes and strings come from its pinned selector table."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from emukit.apps.chrome import page_html
from emukit.apps.selectors import table, table_for
from emukit.vdevice.apps.chrome import ChromeApp
from emukit.vdevice.apps.chrome import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.shell import run_shell
from tests.hierarchy_match import FIXTURES, match_fixture
from tests.vdevice.views import exists, find, tap

T = table("com.android.chrome")
PKG = T.package
MAIN = "com.google.android.apps.chrome.Main"
TABBED = "org.chromium.chrome.browser.ChromeTabbedActivity"
FIRST_RUN = "org.chromium.chrome.browser.firstrun.FirstRunActivity"
GRANT = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
NOTIFY = "android.permission.POST_NOTIFICATIONS"
PERMS = table("com.google.android.permissioncontroller")
BACK, ENTER, DEL, MOVE_END = 4, 66, 67, 123
PAGE = "/data/local/tmp/capture.html"
URL = "file://" + PAGE
PARAGRAPHS = ["Alpha paragraph of the capture page.", "Beta line."]


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def shell(dev: VirtualDevice, command: str) -> str:
    out: list[bytes] = []
    assert run_shell(dev, command, out.append, out.append, b"", None) == 0, b"".join(out)
    return b"".join(out).decode()


def push_page(dev: VirtualDevice, path: str = PAGE, title: str = "Capture page",
              paragraphs: list[str] | None = None, inputs: list[str] | None = None) -> None:
    dev.fs.write_bytes(path, page_html(title, PARAGRAPHS if paragraphs is None else paragraphs,
                                       ["Your name"] if inputs is None else inputs).encode())


def omnibox(dev: VirtualDevice):
    return find(dev, resource_id=T.rid("url_bar"))


def open_url(dev: VirtualDevice, url: str) -> None:
    """The user's way: the New Tab Page's search box (or the omnibox), the URL, ENTER."""
    if exists(dev, resource_id=T.rid("search_box_text")):
        tap(dev, resource_id=T.rid("search_box_text"))
    else:
        tap(dev, resource_id=T.rid("url_bar"))
        dev.wm.key(MOVE_END)
        for _ in range(len(omnibox(dev).text)):
            dev.wm.key(DEL)
    assert omnibox(dev).focused and omnibox(dev).text == ""
    dev.wm.input_text(url)
    dev.wm.key(ENTER)


def web_root(dev: VirtualDevice):
    return find(dev, cls=T.cls("web_root"))


def page_input(dev: VirtualDevice):
    """The page's first text input (a descendant of the root web area: the omnibox is an EditText too)."""
    found = [v for v in web_root(dev).walk() if v.cls == T.cls("web_input")]
    assert found
    return found[0]


def page_nodes(dev: VirtualDevice) -> list[tuple[str, str]]:
    root = web_root(dev)
    return [(v.cls, v.text) for v in root.walk() if v is not root]


def hier(dev: VirtualDevice) -> str:
    return dev.hierarchy_xml()


# ---------------------------------------------------------------------------------------------- the table
def test_table_is_the_image_build_with_no_apk_pin() -> None:
    assert T.key == "api34" and T.build.sdk == 34 and T.build.version_code is None
    assert T.build.image == "system-images;android-34;google_apis;x86_64" and T.build.capture
    assert T.apk is None
    assert table_for(PKG, version_code=None, sdk=34) is T
    for name, entry in T.selectors.items():  # every entry cites a source or says what a capture must show
        assert entry.source or entry.capture, name
    ids = {T.rid(n) for n in ("toolbar", "home_button", "location_bar", "url_bar", "tab_switcher_button",
                              "menu_button", "search_box_text", "fre_title", "fre_continue", "fre_dismiss")}
    assert all(i.startswith("com.android.chrome:id/") for i in ids) and len(ids) == 10
    # Chromium's accessibility classes for web content (no ids: the table selects them by class)
    assert [T.cls(n) for n in ("web_root", "web_text", "web_input", "web_button")] == [
        "android.webkit.WebView", "android.widget.TextView", "android.widget.EditText", "android.widget.Button"]
    assert all(T.entry(n).resource_id is None for n in ("web_root", "web_text", "web_input"))
    # only Copy and Paste touch the clipboard; Share and Web search are look-alikes that do not
    roles = {n: T.entry(n).clipboard for n in ("text_copy", "text_paste", "text_share", "text_web_search")}
    assert roles == {"text_copy": "copy", "text_paste": "paste", "text_share": "none", "text_web_search": "none"}


def test_the_virtual_app_takes_its_identity_from_the_table(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, ChromeApp) and not app.downloaded
    assert app.version_name.endswith("-emukit-virtual")
    assert app.launcher_activity == MAIN and set(app.activities) == {MAIN, FIRST_RUN, TABBED}
    assert app.label == T.text("launcher_icon")


# ---------------------------------------------------------------------------------------------- launch, NTP
def test_launch_forwards_to_the_tabbed_activity_on_the_new_tab_page(device: VirtualDevice) -> None:
    device.start_activity(PKG, MAIN)
    assert device.current_focus() == (PKG, TABBED)
    assert [a.activity for a in device.state.back_stack if a.package == PKG] == [TABBED]  # the alias is gone
    box = find(device, resource_id=T.rid("search_box_text"))
    assert box.cls == T.cls("search_box_text") and box.hint == T.text("omnibox_hint") and box.text == ""
    assert find(device, resource_id=T.rid("compositor_view_holder")).cls == T.cls("compositor_view_holder")
    assert not exists(device, cls=T.cls("web_root"))
    assert D.first_run_done(device)  # the deterministic device's Chrome is past its first run
    assert match_fixture(hier(device), FIXTURES / "chrome" / "new_tab.yaml") == []


def test_the_search_box_focuses_the_omnibox_and_back_ends_editing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("search_box_text"))
    bar = omnibox(device)
    assert bar.focused and bar.text == "" and bar.hint == T.text("omnibox_hint")
    assert bar.cls == T.cls("url_bar")
    device.wm.key(BACK)  # the first BACK hides the keyboard (the field loses focus), the second ends editing
    assert not omnibox(device).focused
    device.wm.key(BACK)
    assert not exists(device, resource_id=T.rid("url_bar"))
    assert exists(device, resource_id=T.rid("search_box_text"))


# ---------------------------------------------------------------------------------------------- pages
def test_a_local_page_opens_as_chromium_accessibility_nodes(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    root = web_root(device)
    assert root.text == "Capture page"
    assert page_nodes(device) == [("android.widget.TextView", "Capture page"),
                                  ("android.widget.TextView", PARAGRAPHS[0]),
                                  ("android.widget.TextView", PARAGRAPHS[1]),
                                  ("android.widget.EditText", "")]
    field = page_input(device)
    assert field.editable and field.hint == "Your name" and not field.resource_id
    bar = omnibox(device)
    assert bar.text == URL and not bar.focused
    for entry in ("toolbar", "location_bar", "tab_switcher_button", "menu_button", "home_button"):
        assert exists(device, resource_id=T.rid(entry)), entry
    assert match_fixture(hier(device), FIXTURES / "chrome" / "page.yaml") == []
    # the preferences keep the active tab (read by the saved-tab probe)
    p = shared_prefs.load(device, D.PREFS)
    assert (p.get_str(T.text("tab_url_pref")), p.get_str(T.text("tab_title_pref"))) == (URL, "Capture page")


def test_a_page_that_is_not_there_and_a_network_url_show_error_pages(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_url(device, "file:///data/local/tmp/missing.html")
    assert "ERR_FILE_NOT_FOUND" in [t for _, t in page_nodes(device)]
    open_url(device, "example.com")  # no scheme: https://, and the device has no network
    assert omnibox(device).text == "https://example.com"
    assert [t for _, t in page_nodes(device)] == [D.NETWORK_ERROR_TITLE, D.NETWORK_ERROR_TEXT]


def test_back_goes_back_in_the_tab_then_leaves_chrome(device: VirtualDevice) -> None:
    push_page(device)
    push_page(device, "/data/local/tmp/second.html", "Second page", ["Gamma text."], [])
    device.start_activity(PKG)
    open_url(device, URL)
    open_url(device, "file:///data/local/tmp/second.html")
    assert web_root(device).text == "Second page"
    device.wm.key(BACK)
    assert web_root(device).text == "Capture page"
    device.wm.key(BACK)
    assert exists(device, resource_id=T.rid("search_box_text"))
    device.wm.key(BACK)
    assert device.current_focus()[0] != PKG


def test_a_restart_reopens_the_saved_page_and_pm_clear_forgets_it(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    shell(device, f"am force-stop {PKG}")
    assert PKG not in device.state.app_data
    shell(device, f"am start -n {PKG}/{MAIN}")
    assert device.current_focus() == (PKG, TABBED) and web_root(device).text == "Capture page"
    shell(device, f"pm clear {PKG}")
    assert shared_prefs.load(device, D.PREFS).get_str(D.URL_KEY) == ""
    assert D.first_run_done(device)  # the deterministic mode stays past the first run
    shell(device, f"am start -n {PKG}/{MAIN}")
    assert exists(device, resource_id=T.rid("search_box_text"))


# ---------------------------------------------------------------------------------------------- selection, copy, paste
def _press_first_word(dev: VirtualDevice, text: str) -> None:
    block = find(dev, cls=T.cls("web_text"), text=text)
    left, top, _, _ = block.bounds
    dev.wm.long_press(left + 10, top + 12)


def _toolbar_titles(dev: VirtualDevice) -> list[str]:
    root = ET.fromstring(hier(dev))
    return [n.get("text") for n in root.iter("node")
            if n.get("resource-id") == "android:id/floating_toolbar_menu_item_text"]


def test_long_press_selects_a_word_and_copy_puts_it_on_the_clipboard(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    _press_first_word(device, PARAGRAPHS[0])
    assert _toolbar_titles(device) == [T.text(n) for n in ("text_copy", "text_share", "text_select_all",
                                                           "text_web_search")]
    assert match_fixture(hier(device), FIXTURES / "chrome" / "selection.yaml") == []
    before = device.state.clip
    tap(device, content_desc=T.text("text_share"))  # a look-alike: the clipboard is left alone
    assert device.state.clip == before and _toolbar_titles(device) == []
    _press_first_word(device, PARAGRAPHS[0])
    tap(device, content_desc=T.text("text_copy"))
    assert (device.state.clip.text, device.state.clip.mime_type) == ("Alpha", "text/html")
    assert _toolbar_titles(device) == []


def test_select_all_copies_the_page_text(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    _press_first_word(device, PARAGRAPHS[1])
    tap(device, content_desc=T.text("text_select_all"))
    assert T.text("text_select_all") not in _toolbar_titles(device)
    tap(device, content_desc=T.text("text_copy"))
    assert device.state.clip.text == "\n".join(["Capture page", *PARAGRAPHS])


def test_a_long_press_on_empty_page_space_selects_nothing(device: VirtualDevice) -> None:
    push_page(device, paragraphs=["Short."], inputs=[])
    device.start_activity(PKG)
    open_url(device, URL)
    root = web_root(device)
    device.wm.long_press(root.bounds[0] + 20, root.bounds[3] - 20)
    assert _toolbar_titles(device) == []


def test_paste_into_the_omnibox_and_go(device: VirtualDevice) -> None:
    push_page(device)
    push_page(device, "/data/local/tmp/second.html", "Second page", ["Gamma text."], [])
    device.start_activity(PKG)
    open_url(device, URL)
    from emukit.vdevice.state import ClipState

    device.state.clip = ClipState(label="t", text="file:///data/local/tmp/second.html")
    tap(device, resource_id=T.rid("url_bar"))
    device.wm.key(MOVE_END)
    for _ in range(len(URL)):
        device.wm.key(DEL)
    bar = omnibox(device)
    device.wm.long_press(*bar.center)
    tap(device, content_desc=T.text("text_paste"))
    assert omnibox(device).text == "file:///data/local/tmp/second.html"
    device.wm.key(ENTER)
    assert web_root(device).text == "Second page"


def test_copy_a_word_then_paste_it_into_a_page_input(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    _press_first_word(device, PARAGRAPHS[1])
    tap(device, content_desc=T.text("text_copy"))
    field = page_input(device)
    device.wm.tap(*field.center)
    device.wm.long_press(*field.center)
    tap(device, content_desc=T.text("text_paste"))
    assert page_input(device).text == "Beta"
    assert D.tab(device)["inputs"] == {"3": "Beta"}


# ---------------------------------------------------------------------------------------------- hardware: first run
def test_hardware_fresh_chrome_shows_its_first_run_then_asks_for_notifications(hardware: VirtualDevice) -> None:
    dev = hardware
    assert not dev.permission_granted(PKG, NOTIFY) and not D.first_run_done(dev)
    dev.start_activity(PKG, MAIN)
    assert dev.current_focus() == (PKG, FIRST_RUN)
    assert find(dev, resource_id=T.rid("fre_title")).text == T.text("fre_title")
    assert find(dev, resource_id=T.rid("fre_continue")).text == T.text("fre_continue")
    assert exists(dev, resource_id=T.rid("fre_footer"))
    tap(dev, resource_id=T.rid("fre_continue"))  # adding an account is not modelled: nothing happens
    assert dev.current_focus() == (PKG, FIRST_RUN)
    tap(dev, resource_id=T.rid("fre_dismiss"), text=T.text("fre_dismiss"))
    assert D.first_run_done(dev)
    assert dev.current_focus()[1] == GRANT  # the permission controller asks over the browser
    assert exists(dev, resource_id=PERMS.rid("deny_button"))
    tap(dev, resource_id=PERMS.rid("deny_button"))
    assert dev.current_focus() == (PKG, TABBED) and not dev.permission_granted(PKG, NOTIFY)
    assert exists(dev, resource_id=T.rid("search_box_text"))
    assert shared_prefs.load(dev, D.PREFS).get_int(D.NOTIFICATION_REQUESTS_KEY) == 1
    shell(dev, f"am force-stop {PKG}")
    dev.start_activity(PKG, MAIN)  # asked once: no second question
    assert dev.current_focus() == (PKG, TABBED)


def test_hardware_back_on_the_first_run_leaves_it_pending(hardware: VirtualDevice) -> None:
    dev = hardware
    dev.start_activity(PKG, MAIN)
    dev.wm.key(BACK)
    assert dev.current_focus()[0] != PKG and not D.first_run_done(dev)
    dev.start_activity(PKG, MAIN)
    assert dev.current_focus() == (PKG, FIRST_RUN)


def test_hardware_pm_clear_brings_the_first_run_back(hardware: VirtualDevice) -> None:
    dev = hardware
    dev.start_activity(PKG, MAIN)
    tap(dev, resource_id=T.rid("fre_dismiss"))
    tap(dev, resource_id=PERMS.rid("allow_button"))
    assert dev.permission_granted(PKG, NOTIFY)
    shell(dev, f"pm clear {PKG}")
    assert not D.first_run_done(dev) and not dev.permission_granted(PKG, NOTIFY)
    assert not dev.fs.host(D.PREFS).exists() or D.prefs(dev).get_int(D.NOTIFICATION_REQUESTS_KEY) == 0
    dev.start_activity(PKG, MAIN)
    assert dev.current_focus() == (PKG, FIRST_RUN)


# ---------------------------------------------------------------------------------------------- the page parser
def test_page_html_round_trips_through_the_parser() -> None:
    html = page_html("T & co", ["One <two>", "Three"], ["Name"])
    page = D.parse_html(html)
    assert page.title == "T & co"
    assert [(n.kind, n.text, n.hint) for n in page.nodes] == [
        ("h1", "T & co", ""), ("p", "One <two>", ""), ("p", "Three", ""), ("input", "", "Name")]
    other = D.parse_html("<html><head><style>p{}</style><script>x()</script></head><body>Loose <b>text</b>"
                         "<div>Block</div><button>Go</button><ul><li>Item</li></ul></body></html>")
    assert [(n.kind, n.text) for n in other.nodes] == [("p", "Loose text"), ("p", "Block"), ("button", "Go"),
                                                       ("li", "Item")]


def test_a_wrong_fixture_is_caught(device: VirtualDevice) -> None:
    push_page(device)
    device.start_activity(PKG)
    open_url(device, URL)
    bad = {"screen": "invented", "sources": [{"capture": "none"}],
           "nodes": [{"class": "android.webkit.WebView", "children": [{"resource_id": "com.android.chrome:id/para"}]}]}
    assert match_fixture(hier(device), bad) != []
