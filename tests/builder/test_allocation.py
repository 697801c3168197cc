"""``--allocation table6``: a family's count spread over its templates in the proportions of seed 002's
released strict split (Table 6); the default stays even."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from emukit.builder.run import plan_counts
from emukit.errors import ConfigError
from emukit.store import Store
from emukit.templates import load_templates

# seed 002, Appendix C.1.1, Table 6, "Released support" (written out here by hand, not read from the templates)
TABLE6 = {"copy_direct": 20, "move_direct": 20, "delete_direct": 20, "copy_interference": 34,
          "move_interference": 33, "delete_interference": 33, "copy_delete_source": 14,
          "copy_delete_destination": 13, "move_delete_destination": 13,
          "original_strict": 40, "copy_cancel_control": 40, "same_page_partial_selection": 40,
          "copy_then_mutate_source": 40, "paste_non_consuming": 40,
          "playing_queue": 40, "queue_mixed_insertion": 40, "identical_prefix_hidden_suffix": 40,
          "reset_boundary": 40, "multi_playlist_interleaved": 40,
          "start_time_shift": 34, "duration_shift": 34, "run_pause_contrast": 33, "pause_reset_contrast": 33,
          "pause_resume_control": 33, "pause_delete_restart": 33}


def test_table6_at_200_per_family_is_the_released_split():
    templates = load_templates()
    assert plan_counts(templates, 200, "table6") == TABLE6
    assert set(plan_counts(templates, 200).values()) == {22, 23, 40, 33, 34}  # even: 200/9, /5, /6


@pytest.mark.parametrize("count", [1, 7, 40, 123])
def test_table6_keeps_each_family_total_and_each_share_within_one_of_its_quota(count):
    templates = load_templates()
    wanted = plan_counts(templates, count, "table6")
    for family in ("persistent", "clipboard", "ordered", "temporal"):
        group = [t.name for t in templates if t.family == family]
        assert sum(wanted[n] for n in group) == count
        total = sum(TABLE6[n] for n in group)
        assert all(abs(wanted[n] - count * TABLE6[n] / total) < 1 for n in group)


def test_a_template_without_released_pairs_is_named(tmp_path):
    templates = load_templates(family="persistent")
    mine = templates[0].model_copy(update={"released_pairs": None, "source_path": str(tmp_path / "mine.yaml")})
    with pytest.raises(ConfigError, match=r"mine\.yaml: released_pairs: not set"):
        plan_counts([mine, *templates[1:]], 10, "table6")
    with pytest.raises(ConfigError, match="--allocation 'paper'"):
        plan_counts(templates, 10, "paper")


def test_build_pairs_allocation_table6(emukit_cli, adb_server, tmp_path):
    """Two persistent pairs in Table 6 proportions go to the two largest quotas (copy_interference 0.34,
    then delete_interference 0.33, which ties with move_interference and comes first by name)."""
    data = tmp_path / "data"
    proc = subprocess.run([*emukit_cli, "build-pairs", "--family", "persistent", "--count", "2",
                           "--allocation", "table6", "--devices", "1", "--data-dir", str(data), "--quiet"],
                          env=adb_server.env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with Store(data_dir=data) as store:
        assert sorted(p.template for p in store.pairs()) == ["copy_interference", "delete_interference"]
    own = tmp_path / "own"
    own.mkdir()
    src = Path(load_templates(names=["copy_direct"])[0].source_path).read_text()
    (own / "copy_plain.yaml").write_text(src.replace("name: copy_direct", "name: copy_plain")
                                         .replace("released_pairs: 20", "released_pairs: null"))
    proc = subprocess.run([*emukit_cli, "build-pairs", "--templates", str(own), "--template",
                           "copy_plain", "--count", "1", "--allocation", "table6", "--devices", "1", "--data-dir",
                           str(tmp_path / "d2"), "--quiet"], env=adb_server.env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and "copy_plain.yaml: released_pairs: not set" in proc.stdout + proc.stderr
    shutil.rmtree(tmp_path / "d2", ignore_errors=True)
