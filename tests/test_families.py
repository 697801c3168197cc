"""A state family is a unit: every layer finds its piece of a family through a registry keyed by the family's
name, every piece registry covers every registered family, and a family added from outside (an installed
package naming its unit by an ``emukit.state_families`` entry point) appears in the CLI's choices, the state
interface and the request contracts without an edit to emukit, while each piece it still lacks is named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from emukit.builder.readings import OUTCOME_READINGS
from emukit.builder.stress_tables import STRESS_TABLES
from emukit.errors import ConfigError
from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.parsers import READERS
from emukit.evaluate.surfaces import SURFACES
from emukit.families import FAMILIES, FAMILY_CHOICES, FAMILY_UNITS, check_family, unit
from emukit.probes import PROBES

ROOT = Path(__file__).resolve().parents[1]
PIECES = {"probe": PROBES, "outcome reading": OUTCOME_READINGS, "parser": READERS, "baseline rules": BASELINE_RULES, "stress table": STRESS_TABLES,
          "reference surface": SURFACES}


def test_the_seed_families_in_the_seed_order_come_from_the_registry():
    assert FAMILIES == ("persistent", "clipboard", "ordered", "temporal")
    assert FAMILY_CHOICES == (*FAMILIES, "all")
    assert [unit(f).title for f in FAMILIES] == ["Persistent Artifact", "Clipboard", "Ordered Collection",
                                                "Temporal Deadline"]
    assert sum(len(unit(f).table6_templates) for f in FAMILIES) == 25  # seed 002 Table 6
    with pytest.raises(ConfigError, match="unknown family 'lamp'; expected one of persistent, clipboard"):
        check_family("lamp")


@pytest.mark.parametrize("piece", sorted(PIECES))
def test_every_piece_registry_covers_every_family(piece):
    registry = PIECES[piece]
    assert registry.missing() == []
    assert sorted(registry) == sorted(FAMILY_UNITS)


def test_a_state_outside_its_schema_is_named_by_field():
    from emukit.families import StateValidationError

    with pytest.raises(StateValidationError, match=r"temporal.remaining_seconds: must be an int >= 0, got -1"):
        unit("temporal").validate_state({"timer_active": True, "remaining_seconds": -1})
    with pytest.raises(StateValidationError, match=r"clipboard.clipboard_text: must be empty exactly when"):
        unit("clipboard").validate_state({"clipboard_type": "empty", "clipboard_text": "x"})


LAMP = '''
from emukit.families.base import FamilyUnit, is_bool, register_family


@register_family
class Lamp(FamilyUnit):
    name = "lamp"
    order = 50
    title = "Lamp"
    schema = {"lit": (is_bool, "a bool")}
    contract = "Lamp contract: the action looks at the lamp; it is lit exactly when the state says so."
    instruction = "Infer whether the lamp is lit."
    outcome_kinds = frozenset({"shade"})
    outcome_keys = ("status",)
    target_key = "status"

    def consequence(self, z, action, context):
        return {"lit": z["lit"]}

    def state_lines(self, z, *, with_action):
        return ["Lamp: lit." if z["lit"] else "Lamp: dark."]

    def result_lines(self, d):
        return ["The lamp glows."] if d["lit"] else ["The lamp stays dark."]

    def check_branch(self, state, outcome, evidence, spec, wait_seconds):
        return [] if (outcome.get("status") == "lit") == state["lit"] else ["lamp disagrees"]
'''

CHECK = '''
import json
from emukit.actions import Action
from emukit.builder.validate import outcomes_differ, validate_branch
from emukit.families import FAMILIES, FAMILY_CHOICES
from emukit.probes import PROBES
from emukit.templates.schema import Template
from emukit.wm.contracts import contract_for
from emukit.wm.state_interface import render_state
from emukit.errors import ConfigError

out = {"families": list(FAMILIES), "choices": list(FAMILY_CHOICES),
       "rendered": render_state("lamp", {"lit": True}, action=Action(type="wait", duration_ms=1000)),
       "contract": contract_for("lamp"),
       "validator": validate_branch("lamp", {"lit": True}, {"status": "dark"}, {}, {}, {}),
       "differ": outcomes_differ("lamp", {"status": "lit"}, {"status": "dark"}),
       "probes_missing": PROBES.missing()}
try:
    PROBES.get("lamp")
except ConfigError as exc:
    out["probe_error"] = str(exc)
print(json.dumps(out))
'''


def test_a_family_from_an_installed_package_joins_without_editing_emukit(emukit_cli, tmp_path):
    (tmp_path / "lamp_family.py").write_text(textwrap.dedent(LAMP))
    dist = tmp_path / "lamp_family-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lamp-family\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[emukit.state_families]\nlamp = lamp_family\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-c", CHECK], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["families"] == ["persistent", "clipboard", "ordered", "temporal", "lamp"]
    assert out["choices"][-2:] == ["lamp", "all"]
    assert "Lamp: lit.\nRequired result of the action:\nThe lamp glows." in out["rendered"]
    assert out["contract"].startswith("Lamp contract:")
    assert out["validator"] == ["lamp disagrees"] and out["differ"] is True
    # the pieces it has not added yet are named, not hit as a KeyError in the middle of a build
    assert out["probes_missing"] == ["lamp"]
    assert "family 'lamp' has no probe" in out["probe_error"]
    # and the CLI offers it
    help_text = subprocess.run([*emukit_cli, "export", "--help"], check=False, cwd=tmp_path, capture_output=True,
                               text=True, timeout=120, env=env)
    assert "lamp" in help_text.stdout, help_text.stdout + help_text.stderr
