"""Every screen the notes profile touches has the structure of the real Markor 2.10.9 screen.

The profile drives the virtual Markor (over adb and uiautomator2, as on an emulator) to each screen; the
dump is matched against the fixture written from the real layout sources
(``tests/fixtures/real/hierarchy/markor/<screen>.yaml``): the notebook list, the new file dialog, the delete
confirmation, the editor with its paste toolbar, and view mode's WebView with a word selected.
"""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES, match_fixture

NOTEBOOK = "/storage/emulated/0/Documents/Markor"
SCREENS = ["notebook", "new_file_dialog", "delete_confirm", "editor_paste", "view_selection"]


@pytest.fixture(scope="module")
def notes(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    profile = profile_for(d, "notes")
    yield profile
    d.close()


@pytest.fixture
def fresh(notes):
    notes.driver.shell(f"rm -rf {NOTEBOOK} /data/data/net.gsantner.markor/shared_prefs/app.xml; mkdir -p {NOTEBOOK}; "
                       f"printf '# Codes\\n\\nKestrel43\\n\\nMarble13\\n' > {NOTEBOOK}/Codes.md; "
                       f": > {NOTEBOOK}/Draft.md; : > {NOTEBOOK}/Scratch.md", check=True)
    notes.launch(fresh=True)
    return notes


def _drive(n, screen: str) -> None:
    """Bring the app to ``screen`` with the profile's operations (and its table's selectors)."""
    if screen == "new_file_dialog":
        n.driver.tap(**n.sel("fab_new"))
        n.driver.element(**n.sel("new_file_name"))
    elif screen == "delete_confirm":
        n.driver.long_press(**n.sel("notebook_row_title"), text="Scratch.md")
        n.driver.tap(**n.sel("selection_delete"))
        n.driver.element(**n.sel("confirm_delete_title"))
    elif screen == "editor_paste":
        n.open_document("Codes.md")
        n.view_mode()
        n.copy("Kestrel43")
        n.up()
        n.open_document("Draft.md")
        n.paste_menu()
    elif screen == "view_selection":
        n.open_document("Codes.md")
        n.view_mode()
        n.select_word("Kestrel43")


@pytest.mark.parametrize("screen", SCREENS)
def test_screen_matches_the_real_layout(fresh, screen):
    _drive(fresh, screen)
    problems = match_fixture(fresh.driver.hierarchy(), FIXTURES / "markor" / f"{screen}.yaml")
    assert problems == []


def test_a_wrong_fixture_is_caught(fresh):
    """The matcher is not lenient: the old invented view-mode line id is reported missing."""
    fresh.open_document("Codes.md")
    fresh.view_mode()
    bad = {"screen": "invented", "sources": [{"capture": "none"}],
           "nodes": [{"resource_id": "net.gsantner.markor:id/source_line", "text": "Kestrel43"}]}
    assert match_fixture(fresh.driver.hierarchy(), bad) != []
