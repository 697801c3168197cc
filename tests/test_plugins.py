"""Registries of the things users add (emukit/plugins.py): a world-model format, a model adapter, an export
format and a trajectory reader each come from one file, inside emukit (a module of the registry's package)
or outside it (a module of another distribution named by an entry point), and nothing else is edited: the
CLI's choices, the builder's request hashes and the exporter take them from the registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from emukit.errors import ConfigError
from emukit.plugins import Registry

PLUGIN = '''
"""An outside distribution's one file: a format, an adapter, an export format and a trajectory reader."""
from pathlib import Path

from emukit.evaluate.adapters import Prediction, register
from emukit.evaluate.adapters.reference import ReferenceAdapter
from emukit.evaluate.trajectories.base import register as register_reader
from emukit.exporters import FORMATS as EXPORT_FORMATS
from emukit.wm.formats import register_format
from emukit.wm.formats.gworld import GWorldFormat


@register_format
class TinyWorld(GWorldFormat):
    name = "tinyworld"
    default_model = "TinyWorld"


@register("echo")
class Echo(ReferenceAdapter):
    def __init__(self, rest, **options):
        super().__init__("surface", **options)


@EXPORT_FORMATS.register("count")
def write(out: Path, rows, *, eval_seed=None):
    (out / "count.txt").write_text(str(len(rows)))
    return {"pairs": len(rows)}


@register_reader("nothing")
def read(folder, *, limit=None):
    return []
'''

CHECK = '''
import json, sys
from emukit.builder.pair import request_hashes
from emukit.actions import Action
from emukit.evaluate.adapters import create_adapter, registered_prefixes
from emukit.evaluate.trajectories.base import formats, read_trajectories
from emukit.exporters import FORMATS as EXPORT_FORMATS
from emukit.wm.formats import FORMATS, get_format

png = open(sys.argv[1], "rb").read()
print(json.dumps({
    "formats": list(FORMATS), "adapters": registered_prefixes(), "exporters": list(EXPORT_FORMATS),
    "readers": formats(), "hashes": sorted(request_hashes(png, Action(type="tap", x=10, y=10), "clipboard")),
    "recorded_only": sorted(request_hashes(png, Action(type="tap", x=10, y=10), "clipboard", ["gworld"])),
    "adapter": type(create_adapter("echo:anything")).__name__, "viewport": get_format("tinyworld").viewport.width,
    "read": read_trajectories(sys.argv[2], "nothing"),
}))
'''


def _plugin_dist(root: Path) -> dict[str, str]:
    """A distribution on a PYTHONPATH entry: ``tinyplug.py`` and its dist-info naming it in four groups."""
    root.mkdir()
    (root / "tinyplug.py").write_text(PLUGIN)
    info = root / "tinyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [emukit.wm_formats]
        tinyworld = tinyplug
        [emukit.model_adapters]
        echo = tinyplug
        [emukit.export_formats]
        count = tinyplug
        [emukit.trajectory_formats]
        nothing = tinyplug
        """))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *sys.path])}


def test_an_outside_module_named_by_entry_points_adds_a_format_an_adapter_an_exporter_and_a_reader(emukit_cli, tmp_path):
    from PIL import Image

    env = _plugin_dist(tmp_path / "site")
    Image.new("RGB", (1080, 2400), "white").save(tmp_path / "screen.png")
    (tmp_path / "dataset").mkdir()
    proc = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path / "screen.png"), str(tmp_path / "dataset")],
                          env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["formats"] == ["code2world", "gworld", "tinyworld"]
    assert got["hashes"] == ["code2world", "gworld", "tinyworld"]  # new pairs hash every registered format
    assert got["recorded_only"] == ["gworld"]  # the release audit recomputes what a stored pair recorded
    assert got["adapters"] == ["echo", "hf", "openai", "ref"] and got["adapter"] == "Echo"
    assert got["exporters"] == ["count", "episodes", "hf"] and got["readers"][-1] == "nothing"
    assert got["viewport"] == 360 and got["read"] == []
    for command, choice in ((["evaluate", "--help"], "tinyworld"), (["export", "--help"], "count")):
        out = subprocess.run([*emukit_cli, *command], env=env, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        assert out.returncode == 0 and choice in out.stdout, out.stdout + out.stderr


def test_the_shipped_entries_are_found_without_being_listed():
    """No package ``__init__`` lists its modules: the registry imports them."""
    from emukit.evaluate.adapters import registered_prefixes
    from emukit.evaluate.trajectories.base import formats
    from emukit.exporters import FORMATS as EXPORT_FORMATS
    from emukit.wm.formats import FORMATS

    init = (Path(__file__).parents[1] / "emukit" / "wm" / "formats" / "__init__.py").read_text()
    assert "code2world" not in init.split('"""')[-1] and "gworld" not in init.split('"""')[-1]
    assert list(FORMATS) == ["code2world", "gworld"]
    assert registered_prefixes() == ["hf", "openai", "ref"]
    assert list(EXPORT_FORMATS) == ["episodes", "hf"]
    assert formats() == ["androidcontrol", "androidworld-episodes", "guiodyssey"]


def test_a_name_registered_twice_and_an_unknown_name_are_errors_naming_them():
    registry: Registry[object] = Registry("thing", "emukit.exporters", "emukit.no_such_group")

    def one() -> None: ...

    def two() -> None: ...

    registry.register("x")(one)
    registry.register("x")(one)  # the same object again (a module imported twice): fine
    with pytest.raises(ConfigError, match="thing 'x' is registered twice: .*one and .*two"):
        registry.register("x")(two)
    with pytest.raises(ConfigError, match="unknown thing .y.; known: x$"):
        registry.get("y")
