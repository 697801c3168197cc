"""Chrome over adb (the virtual app, driven as an emulator would be): open it from All Apps, push local pages and
open them through the omnibox, copy a word with the selection popup and paste it into the omnibox and into a
page's input; the screen probe and the saved-tab probe read the open page and report their empty states; the
``pages:`` seed and a hardware-like device's first run."""

from __future__ import annotations

import pytest

from emukit.apps.chrome import PageSeed, PageSpec, page_url, read_saved_tab, read_tab
from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.probes.clipboard import probe_clipboard

PACKAGE = "com.android.chrome"
PARAGRAPHS = ["Alpha notes on the harbour ferries.", "Bravo 42 is the reference."]


@pytest.fixture
def chrome(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "chrome")
    d.close()


def test_pages_copy_paste_and_the_probes_through_the_real_ui(chrome):
    d = chrome.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    saved = read_saved_tab(d)
    assert saved.url is None and saved.reason is not None  # cleared: no page kept
    d.home()
    shown = read_tab(d)
    assert shown.url is None and shown.title is None and "not in front" in (shown.reason or "")

    chrome.open_from_all_apps()
    assert chrome.first_run_screen() == "main"
    ntp = read_tab(d)
    assert ntp.activity == "org.chromium.chrome.browser.ChromeTabbedActivity"
    assert ntp.url is None and ntp.reason == "Chrome shows the New Tab Page"

    chrome.open_page("ferries", "Ferry notes", PARAGRAPHS, ["Reference"])
    tab = read_tab(d)
    assert tab.reason is None and tab.url == page_url("ferries") == "file:///data/local/tmp/ferries.html"
    assert tab.title == "Ferry notes" and tab.texts == ["Ferry notes", *PARAGRAPHS] and tab.inputs == [""]
    assert d.shell("stat -c %a /data/local/tmp/ferries.html").text.strip() == "644"  # Chrome reads it
    saved = read_saved_tab(d)
    assert (saved.url, saved.title, saved.first_run_done, saved.reason) == (page_url("ferries"), "Ferry notes",
                                                                           True, None)

    chrome.copy_word("Bravo")
    assert probe_clipboard(d).canonical["clipboard_text"] == "Bravo"
    chrome.paste_into_input(0)
    assert read_tab(d).inputs == ["Bravo"]

    # paste a URL into the omnibox and go: a second page
    chrome.push_page("second", "Second page", ["Charlie text."])
    chrome.open_url(page_url("ferries"), title="Ferry notes")
    chrome.select_word("Alpha")
    chrome.driver.tap(**chrome.sel("text_select_all"))
    chrome.driver.tap(**chrome.sel("text_copy"))
    assert probe_clipboard(d).canonical["clipboard_text"].startswith("Ferry notes\nAlpha notes")
    d.shell(f"am start -n {PACKAGE}/com.google.android.apps.chrome.Main", check=True)
    chrome.open_url(page_url("second"), title="Second page")
    chrome.copy_word("Charlie")
    chrome.paste_into_omnibox()
    omnibox = d.element(**chrome.sel("url_bar"))
    assert omnibox.text == "Charlie"
    d.key(4)  # the first BACK hides the keyboard, the second ends editing: the omnibox shows the URL again
    d.key(4)
    assert read_tab(d).url == page_url("second")

    # delete a page: the file is gone; a reload shows Chrome's file error page
    chrome.delete_page("second")
    assert d.shell("ls /data/local/tmp/second.html 2>&1; true").text.strip().endswith("No such file or directory")
    chrome.open_url(page_url("second"))
    assert "ERR_FILE_NOT_FOUND" in read_tab(d).texts


def test_the_pages_seed_pushes_pages_and_opens_the_marked_one(chrome):
    d = chrome.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    pages = [PageSpec(name="one", title="Page one", paragraphs=["First words."]),
             PageSpec(name="two", title="Page two", paragraphs=["Second words."], inputs=["Name"], open=True)]
    PageSeed.apply(d, pages)
    assert read_tab(d).title == "Page two" and read_tab(d).inputs == [""]
    assert "Page one" in d.shell("cat /data/local/tmp/one.html").text
    assert read_saved_tab(d).url == page_url("two")
    with pytest.raises(Exception, match="at most one page"):
        PageSeed.apply(d, [p.model_copy(update={"open": True}) for p in pages])


def test_hardware_first_run_is_walked_by_the_profile(vdevice_factory, adb_server):
    proc = vdevice_factory(mode="hardware")
    d = Driver(proc.serial, adb_server.port, default_timeout=8)
    try:
        chrome = profile_for(d, "chrome")
        assert not read_saved_tab(d).first_run_done
        chrome.launch()
        assert chrome.first_run_screen() == "fre_dismiss_button"
        assert read_tab(d).reason == "Chrome shows its first run"
        actions = chrome.complete_first_run()
        taps = [a.element.text for a in actions if a.type == "tap" and a.element is not None]
        assert taps == ["Use without an account", "Don\u2019t allow"], taps
        assert chrome.first_run_screen() == "main" and read_saved_tab(d).first_run_done
        assert "android.permission.POST_NOTIFICATIONS: granted=false" in d.shell(
            f"dumpsys package {PACKAGE}").text
        again = chrome.complete_first_run()  # done: nothing to tap
        assert [a for a in again if a.type == "tap"] == [] and chrome.first_run_screen() == "main"
        rows = dict(chrome.doctor_checks(rooted=True))
        ok, detail, _fix = rows["chrome first run"]()
        assert ok and detail == "first_run_flow true"
        d.shell(f"pm clear {PACKAGE}", check=True)
        ok, detail, fix = rows["chrome first run"]()  # cleared: the first run shows again, and doctor says so
        assert not ok and detail.startswith("no preferences") and "emukit avd setup" in fix
        chrome.launch(fresh=True)
        assert chrome.first_run_screen() == "fre_dismiss_button"
    finally:
        d.close()
        proc.stop()
