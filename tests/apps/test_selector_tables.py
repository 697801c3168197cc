"""Profiles select only through the selector tables, and every table entry carries its evidence.

Reads the profiles' source with ``ast`` (no device): a selector keyword given as a string literal, a resource
id spelled in a profile, a ``**`` selector that does not come from ``self.sel``, or a ``sel``/``rid`` name
missing from the app's table fails the test, naming the file and line.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import pytest

from emukit.apps.base import OTHER_APPS
from emukit.apps.registry import all_profiles
from emukit.apps.selectors import (
    SelectorTable,
    all_tables,
    load_table,
    table_files,
    tables_of,
)
from emukit.device.driver import SELECTOR_KEYS, Driver
from emukit.errors import ConfigError
from emukit.yamlmodel import validate_yaml

APPS = Path(__file__).resolve().parents[2] / "emukit" / "apps"
#: driver methods that take a selector
SELECTING = {"tap", "long_press", "element", "find", "exists", "drag"}
DATA_KEYS = {"instance", "index"}  # positions, not selectors


def _profile_files() -> dict[Path, str]:
    """Each profile module and the package its profile drives."""
    out = {}
    for cls in all_profiles():
        module = __import__(cls.__module__, fromlist=["_"])
        out[Path(module.__file__)] = cls.package
    return out


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr)


def _is_self_call(node: ast.expr, name: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "self")


def violations(source: str, filename: str, package: str) -> list[str]:
    """Every way ``source`` (a profile module) selects without its table."""
    tree = ast.parse(source)
    problems: list[str] = []
    own = tables_of(package)
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ":id/" in node.value:
            problems.append(f"{where}: resource id {node.value!r} spelled in the profile (put it in the table)")
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.Constant) and ":id/" in str(v.value)
                                                   for v in node.values):
            problems.append(f"{where}: a resource id built in the profile (put it in the table)")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in SELECTING:
            for kw in node.keywords:
                if kw.arg is None:
                    if not _is_self_call(kw.value, "sel"):
                        problems.append(f"{where}: **{ast.unparse(kw.value)} is not a table selector "
                                        f"(use **self.sel(name))")
                elif kw.arg in SELECTOR_KEYS - DATA_KEYS and _literal(kw.value):
                    problems.append(f"{where}: {func.attr}({kw.arg}={ast.unparse(kw.value)}) is a literal selector "
                                    f"(use **self.sel(name))")
        for method in ("sel", "rid", "scroll_into_view"):
            if _is_self_call(node, method):
                if not node.args or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    problems.append(f"{where}: self.{method}() needs a literal name the tables can be checked for")
                    continue
                name = node.args[0].value
                tables: list[SelectorTable] = own
                if ":" in name:
                    short, _, name = name.partition(":")
                    if short not in OTHER_APPS:
                        problems.append(f"{where}: {short!r} is not an app short name ({', '.join(OTHER_APPS)})")
                        continue
                    tables = tables_of(OTHER_APPS[short])
                if not tables:
                    problems.append(f"{where}: no selector table for the app of {node.args[0].value!r}")
                for t in tables:
                    if name not in t.selectors:
                        problems.append(f"{where}: {name!r} is not in {t.path}")
                    elif method == "rid" and t.selectors[name].resource_id is None:
                        problems.append(f"{where}: {name!r} has no resource_id in {t.path}")
    return problems


def test_every_profile_selects_through_its_table() -> None:
    problems = []
    for path, package in _profile_files().items():
        problems += violations(path.read_text(), str(path.relative_to(APPS.parent.parent)), package)
    assert problems == []


def test_every_profile_has_a_table() -> None:
    missing = sorted({cls.package for cls in all_profiles() if not tables_of(cls.package)})
    assert missing == []


def test_every_table_loads_with_evidence() -> None:
    tables = all_tables()
    assert tables
    for t in tables:
        assert t.selectors, t.path
        for name in t.selectors:
            assert t.evidence(name), (t.path, name)


@pytest.mark.parametrize("code, expected", [
    ('self.driver.tap(resourceId="p:id/x")', "spelled in the profile"),
    ('self.driver.tap(text="OK")', "literal selector"),
    ('self.driver.tap(description=f"{verb} to")', "literal selector"),
    ('self.driver.tap(**query)', "not a table selector"),
    ('self.driver.tap(**self.sel("no_such_name"))', "'no_such_name' is not in"),
    ('self.driver.tap(**self.sel("nowhere:x"))', "not an app short name"),
])
def test_the_scan_catches_each_kind(code: str, expected: str) -> None:
    package = all_profiles()[0].package
    source = textwrap.dedent(f"""
        class P:
            def op(self, name):
                {code}
    """)
    found = violations(source, "p.py", package)
    assert any(expected in p for p in found), found


def test_dynamic_data_is_allowed() -> None:
    t = all_tables()[0]
    name = next(iter(t.selectors))
    source = f"def op(self, title):\n    self.driver.tap(**self.sel({name!r}), text=title, instance=2)\n"
    assert violations(source, "p.py", t.package) == []


def test_an_entry_without_evidence_does_not_load(tmp_path: Path) -> None:
    raw = {"package": "a.b", "app": "A", "build": {"version_code": 1},
           "repos": {"r": {"repo": "o/r", "commit": "0" * 40}},
           "selectors": {"x": {"resource_id": "a.b:id/x"}}}
    with pytest.raises(ConfigError, match="selectors.x: .*evidence"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    raw["selectors"]["x"]["source"] = "q:res/layout/x.xml:3"
    with pytest.raises(ConfigError, match="names repo 'q'"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    raw["selectors"]["x"]["source"] = "r:res/layout/x.xml:3"
    table = validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    assert table.evidence("x") == ["o/r@000000000000:res/layout/x.xml:3"]
    raw["selectors"]["x"]["clipboard"] = "maybe"
    with pytest.raises(ConfigError, match="selectors.x.clipboard"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)


def test_table_references_in_templates_and_move_tables_are_checked() -> None:
    """``sel: app:name`` in a template or a stress move names an entry of that app's table; a wrong one is a
    load error naming it (checked before any device runs it)."""
    from emukit.apps.registry import check_ref
    from emukit.builder.stress import validate_table
    from emukit.builder.stress_tables import STRESS_TABLES
    from emukit.templates.schema import SharedAction

    check_ref("notes:text_paste")
    check_ref("systemui:notification_row")
    with pytest.raises(ConfigError, match="has no entry 'no_such_entry'"):
        check_ref("clock:no_such_entry")
    with pytest.raises(ConfigError, match="unknown app 'nowhere'"):
        check_ref("nowhere:x")
    with pytest.raises(ValueError, match="has no entry 'pasta'"):
        SharedAction(type="tap", target={"sel": "notes:pasta"})
    for family in STRESS_TABLES:
        validate_table(STRESS_TABLES[family])


def test_structural_entries_load_checked_and_query_as_child_selectors(tmp_path: Path) -> None:
    """``within`` names another entry (missing names and cycles are load errors naming the entry); the query
    carries the container's selector, which the driver sends as a uiautomator child selector; ``instance``
    counts inside the container."""
    raw: dict[str, Any] = {
        "package": "a.b", "app": "A", "build": {"version_code": 1},
        "repos": {"r": {"repo": "o/r", "commit": "0" * 40}},
        "selectors": {"root": {"resource_id": "editor-root", "source": "r:x.tsx:1"},
                      "web": {"class": "android.webkit.WebView", "within": "root", "source": "r:x.tsx:2"},
                      "field": {"class": "android.widget.EditText", "within": "web", "instance": 1,
                                "source": "r:x.tsx:3"}}}
    table = validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    assert table.query("field") == {"className": "android.widget.EditText", "instance": 1,
                                    "within": {"className": "android.webkit.WebView",
                                               "within": {"resourceId": "editor-root"}}}
    sel = Driver.selector(**table.query("field"))  # uiautomator2's chain: outermost first, then each child
    assert sel["resourceId"] == "editor-root" and sel["childOrSibling"] == ["child", "child"]
    web, field = sel["childOrSiblingSelector"]
    assert web["className"] == "android.webkit.WebView"
    assert field["className"] == "android.widget.EditText" and field["instance"] == 1
    raw["selectors"]["web"]["within"] = "nowhere"
    with pytest.raises(ConfigError, match="selectors.web: within 'nowhere' names no entry"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    raw["selectors"]["web"]["within"] = "field"
    with pytest.raises(ConfigError, match="within makes a cycle"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    raw["selectors"]["web"]["within"] = "root"
    raw["selectors"]["field"]["instance"] = -1
    with pytest.raises(ConfigError, match="selectors.field.instance"):
        validate_yaml(tmp_path / "1.yaml", raw, SelectorTable)
    with pytest.raises(TypeError, match="within must be a selector mapping"):
        Driver.selector(className="x", within="root")


def test_the_shipped_structural_entries_name_real_containers() -> None:
    """Every shipped ``within`` chain ends at an entry with a resource id or a class (a container a dump
    shows), and the apps without ids use them: Joplin's body editor and rendered paragraphs, Chrome's page
    nodes."""
    used: dict[str, list[str]] = {}
    for path in table_files():
        tbl = load_table(path)
        for name, entry in tbl.selectors.items():
            if entry.within is not None:
                used.setdefault(tbl.package, []).append(name)
                outer = tbl.entry(entry.within)
                assert outer.resource_id or outer.class_name, f"{path}: {name} within {entry.within}"
    assert {"body_editor", "view_paragraph"} <= set(used["net.cozic.joplin"])
    assert {"web_text", "web_input", "web_button"} <= set(used["com.android.chrome"])
