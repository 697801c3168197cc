"""The fixture matcher itself: what it accepts and what it reports (no device)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hierarchy_match import FIXTURES, load_fixture, match_fixture

DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node class="android.widget.FrameLayout" resource-id="" text="" content-desc="" package="p" bounds="[0,0][10,10]">
    <node class="androidx.recyclerview.widget.RecyclerView" resource-id="p:id/list" text="" content-desc=""
          package="p" bounds="[0,0][10,10]">
      <node class="android.widget.LinearLayout" resource-id="" text="" content-desc="" package="p" bounds="[0,0][5,5]">
        <node class="android.widget.TextView" resource-id="p:id/title" text="Alpha" content-desc="" package="p"
              bounds="[0,0][5,2]"/>
        <node class="android.widget.ImageView" resource-id="p:id/menu" text="" content-desc="More options"
              package="p" bounds="[4,0][5,2]"/>
      </node>
      <node class="android.widget.LinearLayout" resource-id="" text="" content-desc="" package="p" bounds="[5,0][10,5]">
        <node class="android.widget.TextView" resource-id="p:id/title" text="Beta" content-desc="" package="p"
              bounds="[5,0][10,2]"/>
      </node>
    </node>
  </node>
</hierarchy>"""


def fixture(*nodes: dict, ordered: bool = False) -> dict:
    return {"screen": "s", "sources": [{"repo": "o/r", "commit": "0" * 40, "path": "x.xml"}],
            "nodes": list(nodes), "ordered": ordered}


def test_matches_descendants_and_fields() -> None:
    card = {"class": "android.widget.LinearLayout", "min_count": 2,
            "children": [{"resource_id": "p:id/title", "text_re": "Alpha|Beta"}]}
    tree = {"resource_id": "p:id/list", "class": "androidx.recyclerview.widget.RecyclerView",
            "children": [card, {"resource_id": "p:id/menu", "description": "More options"}]}
    assert match_fixture(DUMP, fixture(tree)) == []


@pytest.mark.parametrize("node, why", [
    ({"resource_id": "p:id/list", "class": "android.widget.ListView"}, "no element"),
    ({"resource_id": "p:id/list", "children": [{"text": "Gamma"}]}, "descendants do not match"),
    ({"class": "android.widget.LinearLayout", "min_count": 3}, "at least 3 wanted"),
])
def test_reports_what_differs(node: dict, why: str) -> None:
    problems = match_fixture(DUMP, fixture(node))
    assert any(why in p for p in problems), problems


def test_order_and_distinct_elements() -> None:
    alpha, beta = {"text": "Alpha"}, {"text": "Beta"}
    assert match_fixture(DUMP, fixture(alpha, beta, ordered=True)) == []
    assert match_fixture(DUMP, fixture(beta, alpha, ordered=True)) != []
    assert match_fixture(DUMP, fixture(alpha, alpha)) != []  # two nodes cannot take one element


def test_fixture_files_are_well_formed() -> None:
    paths = sorted(FIXTURES.glob("*/*.yaml"))
    for path in paths:
        load_fixture(path)


def test_a_fixture_without_sources_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("screen: x\nnodes:\n  - {text: A}\n")
    with pytest.raises(ValueError, match="sources"):
        load_fixture(path)


def test_check_captures_reports_a_capture_that_differs(tmp_path: Path) -> None:
    import subprocess
    import sys

    import yaml

    app = tmp_path / "app"
    app.mkdir()
    (app / "list.yaml").write_text(yaml.safe_dump(fixture({"resource_id": "p:id/list"})))
    (app / "list.capture.xml").write_text(DUMP)
    (app / "grid.yaml").write_text(yaml.safe_dump(fixture({"resource_id": "p:id/grid"})))
    (app / "grid.capture.xml").write_text(DUMP)
    (app / "other.yaml").write_text(yaml.safe_dump(fixture({"text": "Alpha"})))
    tool = Path(__file__).resolve().parents[2] / "tools" / "check_captures.py"
    run = subprocess.run([sys.executable, str(tool), str(tmp_path)], capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "3 fixtures" in run.stdout and "2 with a capture" in run.stdout
    assert "ok  app/list.yaml" in run.stdout and "DIFF app/grid.yaml" in run.stdout
    assert "not captured yet: app/other.yaml" in run.stdout
