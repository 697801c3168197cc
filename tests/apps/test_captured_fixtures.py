"""Profile selectors against captured dumps: every ``<app>/<screen>.capture.xml`` under tests/fixtures/real/
(captured on a real AVD with tools/capture_real_fixtures.py, first-run screens included with ``--first-run``,
and copied there) and the capture this module makes from a virtual device with the same tool (every fixture's
screen but the first-run ones, which the deterministic device never shows), each matched against its structure
fixture (:func:`emukit.apps.structure.match_fixture`) and checked for the table entries the fixture's screen
relies on. The virtual capture always runs, so this module never collects zero cases."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from emukit.apps.registry import all_profiles
from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from tests.hierarchy_match import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("capture_real_fixtures", ROOT / "tools" / "capture_real_fixtures.py")
TOOL = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(TOOL)
#: fixture folder -> package of the app whose table the screen is drawn from
PACKAGES = {"markor": "net.gsantner.markor", "music": "code.name.monkey.retromusic",
            "clock": "com.google.android.deskclock", "settings": "com.android.settings",
            "launcher": "com.google.android.apps.nexuslauncher", "files": "com.google.android.documentsui",
            "systemui": "com.android.systemui", "permissions": "com.google.android.permissioncontroller",
            **{cls.name: cls.package for cls in all_profiles() if cls.fixture_screens}}
#: the screens the capture tool drives on a device past its first run (app/screen), each with a fixture
VIRTUAL = list(TOOL.SCREENS)
REAL = sorted(str(p.relative_to(FIXTURES).with_suffix("").with_suffix("")) for p in FIXTURES.glob("*/*.capture.xml"))


@pytest.fixture(scope="module")
def virtual_capture(vdevice, adb_server, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("virtual-capture")
    TOOL.main([vdevice.serial, "--out", str(out)])
    return out / "hierarchy"


def test_profiles_reach_the_fixture_screens_they_list() -> None:
    """An app that lists ``fixture_screens`` reaches each (``capture_screens``) and has its fixture file."""
    listed = [cls for cls in all_profiles() if cls.fixture_screens]
    assert "calendar" in {cls.name for cls in listed}
    for cls in listed:
        profile = cls(None, table=table(cls.package))  # type: ignore[arg-type]  # walks are built, not run
        assert tuple(profile.capture_screens()) == cls.fixture_screens, cls.name
        for screen in cls.fixture_screens:
            assert (FIXTURES / cls.name / f"{screen}.yaml").exists(), f"{cls.name}/{screen}"


def test_the_virtual_capture_has_every_listed_screen(virtual_capture: Path) -> None:
    import json

    index = json.loads((virtual_capture.parent / "index.json").read_text())
    assert index["screens"] == VIRTUAL, index["failures"]
    fixtures = {str(p.relative_to(FIXTURES).with_suffix("")) for p in FIXTURES.glob("*/*.yaml")}
    assert set(VIRTUAL) == fixtures - set(TOOL.FIRST_RUN)
    assert all(screen in fixtures for screen in REAL), REAL  # a real capture is named after its fixture


def _check(xml: str, screen: str) -> list[str]:
    app = screen.split("/")[0]
    problems = match_fixture(xml, FIXTURES / f"{screen}.yaml")
    rids = {e.resource_id for e in table(PACKAGES[app]).selectors.values() if e.resource_id}
    if rids and not any(f'resource-id="{r}"' in xml for r in rids):
        problems.append(f"no resource id of the {PACKAGES[app]} table appears in the capture")
    return problems


@pytest.mark.parametrize("screen", VIRTUAL)
def test_virtual_capture_matches_its_fixture(virtual_capture: Path, screen: str) -> None:
    """The virtual device's capture, made once by this module."""
    assert _check((virtual_capture / f"{screen}.capture.xml").read_text(), screen) == []


def test_real_captures_match_their_fixtures() -> None:
    """Every real device's capture in tests/fixtures/real/hierarchy (no device; none are checked in yet)."""
    assert {screen: problems for screen in REAL
            if (problems := _check((FIXTURES / f"{screen}.capture.xml").read_text(), screen))} == {}
