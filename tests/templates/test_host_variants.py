"""Host variants: the Persistent Artifact family in Simple Gallery Pro and in Markor (seed 002 F.2's route) and the
Ordered Collection family in VLC (templates with a ``variant:`` block). Their selection rules, one strict pair of each on the test's virtual
device (re-read from the stored next observation as the release audit does), the suites' host move tables, and
``emukit probe --family ordered --app vlc`` as a user runs it."""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from emukit.apps.registry import device_table
from emukit.builder.outcomes import surface_outcome
from emukit.builder.pair import PairContext, build_pair
from emukit.builder.stress import LEVELS, plan, read_suite, table_for, validate_table
from emukit.builder.stress_tables import HOST_TABLES
from emukit.commands.suite import run_suite
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.families import unit
from emukit.templates import load_templates
from emukit.templates.loader import load_template
from emukit.templates.sampler import rng_for, sample_params
from emukit.workers import DeviceContext

VARIANTS = {"gallery_copy_twin": "gallery", "gallery_move_twin": "gallery", "gallery_delete_twin": "gallery",
            "vlc_playlist_order": "vlc", "vlc_playlist_reorder": "vlc",
            "markor_copy_twin": "notes", "markor_move_twin": "notes", "markor_delete_twin": "notes",
            **{f"{app}_copy_source": app for app in ("sms", "chrome", "tasks", "joplin", "calendar", "broccoli")}}


# ------------------------------------------------------------------------------------------- selection
def test_variants_are_left_out_unless_asked_for():
    default = {t.name for t in load_templates()}
    everything = {t.name for t in load_templates(variants=True)}
    assert len(default) == 25 and not default & set(VARIANTS)
    assert everything == default | set(VARIANTS)
    assert [t.name for t in load_templates(names=["vlc_playlist_order"])] == ["vlc_playlist_order"]
    for t in load_templates(variants=True):
        if t.name in VARIANTS:
            assert t.variant is not None and t.variant.app == VARIANTS[t.name]
            assert t.variant.of is None or t.variant.of in unit(t.family).table6_templates
            assert t.outcome.app == VARIANTS[t.name] and t.released_pairs is None


def test_variant_metadata_and_unset_outcome_app_leave_hashes_alone(tmp_path):
    (t,) = load_templates(names=["gallery_copy_twin"])
    data = yaml.safe_load(Path(t.source_path).read_text())
    data["variant"] = {"app": "gallery"}  # metadata only: not hashed
    (tmp_path / "gallery_copy_twin.yaml").write_text(yaml.safe_dump(data))
    assert load_template(tmp_path / "gallery_copy_twin.yaml").content_hash() == t.content_hash()
    (copy,) = load_templates(names=["copy_direct"])
    dumped = copy.model_dump(mode="json", by_alias=True)
    assert "app" in dumped["outcome"] and dumped["outcome"]["app"] is None
    data = yaml.safe_load(Path(copy.source_path).read_text())
    data["outcome"]["app"] = "files"  # set, it counts
    (tmp_path / "copy_direct.yaml").write_text(yaml.safe_dump(data))
    assert load_template(tmp_path / "copy_direct.yaml").content_hash() != copy.content_hash()


@pytest.mark.parametrize(("change", "message"), [
    ({"variant": {"app": "gallery", "of": "original_strict"}}, "not a Table 6 template of family persistent"),
    ({"variant": {"app": "Gallery"}}, "variant.app"),
    ({"name": "copy_direct", "variant": {"app": "gallery"}}, "needs a name of its own"),
])
def test_bad_variant_blocks_name_the_field(tmp_path, change, message):
    (t,) = load_templates(names=["gallery_copy_twin"])
    data = {**yaml.safe_load(Path(t.source_path).read_text()), **change}
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_template(path)


def test_a_suite_shares_a_family_count_among_its_hosts():
    # the suites plan the templates a move table covers (SuiteRunner reports Markor's as unsupported)
    templates = [t for t in load_templates(family="persistent", variants=True) if table_for(t) is not None]
    assert {t.variant.app for t in templates if t.variant} == {"gallery"}
    items = plan("d-stress", templates, 24)
    by_host = {}
    for item in items:
        host = item.template.variant.app if item.template.variant else "files"
        by_host[host] = by_host.get(host, 0) + 1
    assert by_host == {"files": 18, "gallery": 6}  # 9 : 3 templates
    assert {item.depth for item in items if item.template.variant} == {4, 8, 16, 32}


def test_host_tables():
    assert set(HOST_TABLES) == {("persistent", "gallery"), ("ordered", "vlc")}
    for (family, app), table in HOST_TABLES.items():
        validate_table(table)
        assert table.family == family and table.app == app and set(table.levels) == set(LEVELS)
        for moves in table.levels.values():
            assert moves and all(m.length % 2 == 0 for m in moves)
        refs = {step["tap"]["sel"] for moves in (table.neutral, *table.levels.values()) for m in moves
                for step in m.steps if "tap" in step and "sel" in step["tap"]}
        assert refs and all(r.startswith(f"{app}:") for r in refs)  # the host's own table, nothing spelled here
    for t in load_templates(variants=True):
        assert table_for(t) is (HOST_TABLES.get((t.family, t.variant.app)) if t.variant else table_for(t))


# ------------------------------------------------------------------------------------------- on a device
@pytest.fixture(scope="module")
def device(vdevice, adb_server, tmp_path_factory):
    ctx = DeviceContext(vdevice.serial, adb_port=adb_server.port, data_dir=tmp_path_factory.mktemp("variants"),
                        default_timeout=10)
    yield ctx
    ctx.close()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_one_strict_pair(device, name):
    (t,) = load_templates(names=[name])
    device.ensure_snapshot(t.base_snapshot)
    ctx = PairContext(t, sample_params(t, rng_for(t.name, 0, 0, 0)), 0, 0, 0)
    record, artifacts = build_pair(device, ctx)
    a, b = record.branches["A"], record.branches["B"]
    assert a.boundary_observation == b.boundary_observation  # the same screen before the shared action
    expected = {k: ctx.sub(v.model_dump()) for k, v in t.expect.items()}
    for branch, role in ((a, record.roles["A"]), (b, record.roles["B"])):
        want = expected[role]
        assert {k: branch.state[k] for k in want["state"]} == want["state"]
        assert {k: branch.outcome[k] for k in want["outcome"]} == want["outcome"]
        # the release audit's reading of the stored next observation gives the same outcome
        xml = artifacts.blobs[branch.next_observation.hierarchy][0].decode()
        spec = ctx.sub(t.outcome.model_dump(exclude_none=True))
        again, evidence = surface_outcome(t.family, spec, xml, lambda app: device_table(device.driver, app))
        if t.family == "persistent":
            assert again["result"] == branch.outcome["result"] and evidence["consistent"], evidence
        elif t.family == "clipboard":  # the focused field of the host's window holds the paste
            assert again["pasted_text"] == branch.outcome["pasted_text"] == branch.state["clipboard_text"]
        else:
            assert again["ordered_items"] == branch.outcome["ordered_items"] == branch.state["ordered_items"]


@pytest.mark.parametrize(("family", "template", "level"), [
    ("persistent", "gallery_move_twin", "high"), ("persistent", "gallery_copy_twin", "medium"),
    ("ordered", "vlc_playlist_order", "high"), ("ordered", "vlc_playlist_reorder", "medium")])
def test_interference_in_the_host(vdevice, tmp_path, family, template, level):
    args = argparse.Namespace(suite="interference", family=family, template=[template], count=1, seed=0,
                              data_dir=tmp_path / "data", db=None, devices=None, device=[vdevice.serial],
                              max_attempts=2, quiet=True, level=[level])
    assert run_suite(args, Console(file=io.StringIO(), width=200)) == 0
    (row,) = read_suite(tmp_path / "data", "interference", family)
    assert row["template"] == template and row["level"] == level and all(row["validation"].values())
    (t,) = load_templates(names=[template])
    level_moves = {m.name for m in table_for(t).levels[level]}
    names = [re.sub(r"\(.*\)$", "", m) for m in row["segment"]["moves"]]
    assert row["segment"]["interfering"] >= 1 and sum(n in level_moves for n in names) == row["segment"]["interfering"]
    assert row["target"] == row["state_after_setting"]


def test_probe_cli_reads_a_vlc_playlist(emukit_cli, device, adb_server):
    (t,) = load_templates(names=["vlc_playlist_order"])
    device.ensure_snapshot(t.base_snapshot)
    device.load_base(t.base_snapshot)
    driver: Driver = device.driver
    from emukit.apps.registry import profile_for

    profile_for(driver, "vlc").create_playlist("Probe check", ["scene_40_HD", "clip_12_HD"])

    def probe(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([*emukit_cli, "probe", driver.serial, "--family", "ordered", *extra],
                              check=False, env=adb_server.env, capture_output=True, text=True, timeout=120)

    out = probe("--app", "vlc", "--playlist", "Probe check")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"collection_type": "playlist", "ordered_items": ["scene_40_HD", "clip_12_HD"]}
    missing = probe("--app", "vlc")
    assert missing.returncode == 2 and "--playlist" in missing.stderr
