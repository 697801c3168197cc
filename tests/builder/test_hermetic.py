"""Hermetic base snapshots and reproducible pairs (issue "Dataset quality", item 1), on real virtual devices
behind the real adb server.

Every base snapshot is built from the device's clean snapshot, so a base's content, and every pair built on
it, depends only on its spec and the (template, seed, slot): not on which snapshots, pairs, families or
devices came before. Before the clean snapshot existed, both tests below failed (a base built after another
carried the other's files and the last clip; `--family all` on 3 devices gave different persistent pairs
than `--family persistent` on 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver
from emukit.device.emulator_grpc import EmulatorControllerClient
from emukit.errors import ConfigError
from emukit.snapshots import CLEAN_SNAPSHOT, build_snapshot, load_spec, save_clean

BASES = ["files_base", "notes_base", "music_base", "clock_base"]
CONTENT = ("files", "file_count", "clipboard", "foreground", "spec")


def _dirty(driver: Driver, tag: str) -> None:
    """What a previous pair leaves behind: a stray file in shared storage and a clip."""
    driver.adbutils().sync.push(b"left over\n", f"/storage/emulated/0/Download/stray_{tag}.txt")
    client = EmulatorControllerClient.for_serial(driver.serial)
    try:
        client.set_clipboard(f"Leftover{tag}")
    finally:
        client.close()


def test_a_base_holds_its_spec_and_nothing_else_whatever_came_before(vdevice_factory, adb_server):
    """Two devices of their own, without the session's template: each builds its clean snapshot and bases."""
    one, two = vdevice_factory(template=False), vdevice_factory(template=False)
    d1, d2 = Driver(one.serial, adb_server.port), Driver(two.serial, adb_server.port)
    try:
        first = {name: build_snapshot(d1, load_spec(name)) for name in BASES}
        _dirty(d2, "clean")
        assert save_clean(d2) is True  # a fresh device: its present state becomes its clean snapshot
        second = {}
        for name in reversed(BASES):
            _dirty(d2, name)  # the state a pair built on the previous base leaves
            second[name] = build_snapshot(d2, load_spec(name))
        assert all(set(CONTENT) <= set(first[n]) for n in BASES)
        # device two's clean state has the stray file and clip of its first _dirty; one's has neither
        assert all(first[n]["file_count"] + 1 == second[n]["file_count"] for n in BASES)
        assert all(first[n]["clipboard"] != second[n]["clipboard"] for n in BASES)
        # and nothing of what came between: every base equals a rebuild of itself on the same device
        again = {}
        for name in BASES:
            _dirty(d2, f"{name}_again")
            again[name] = build_snapshot(d2, load_spec(name))
        for name in BASES:
            assert {k: again[name][k] for k in CONTENT} == {k: second[name][k] for k in CONTENT}, name
        assert save_clean(d2) is False
    finally:
        d1.close()
        d2.close()


def test_a_device_with_bases_but_no_clean_snapshot_is_refused(vdevice_factory, adb_server):
    """A device of its own without the session's template: it must have no clean snapshot."""
    proc = vdevice_factory(template=False)
    driver = Driver(proc.serial, adb_server.port)
    try:
        with ConsoleClient.for_serial(driver.serial) as console:
            console.snapshot_save("files_base")  # a base saved before clean snapshots existed
        with pytest.raises(ConfigError, match=f"no clean snapshot '{CLEAN_SNAPSHOT}'.*save-clean --force"):
            build_snapshot(driver, load_spec("notes_base"))
        assert save_clean(driver, force=True) is True
        build_snapshot(driver, load_spec("notes_base"))
    finally:
        driver.close()


def _build(emukit_cli, adb_server, data: Path, *args: str) -> list[str]:
    proc = subprocess.run([*emukit_cli, "build-pairs", "--data-dir", str(data), "--seed", "3",
                           "--quiet", *args], env=adb_server.env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = data / "export"
    proc = subprocess.run([*emukit_cli, "export", "--data-dir", str(data), "--out", str(out)],
                          env=adb_server.env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (out / "pairs.jsonl").read_text().splitlines()


@pytest.fixture(scope="module")
def mixed(emukit_cli, adb_server, tmp_path_factory) -> Path:
    """``--family all --count 4`` on three devices (16 pairs, every family), exported: its data dir."""
    data = tmp_path_factory.mktemp("mixed")
    _build(emukit_cli, adb_server, data, "--family", "all", "--count", "4", "--devices", "3")
    return data


def test_pairs_are_byte_identical_whatever_else_the_run_built(emukit_cli, adb_server, tmp_path, mixed):
    """``--family persistent`` on one device against ``--family all`` on three: every pair both runs built
    has the same exported line (history, boundary, state, outcome, next observation: every artifact by its
    sha256), and the artifacts are the same files."""
    alone = _build(emukit_cli, adb_server, tmp_path / "alone", "--family", "persistent", "--count", "9", "--devices", "1")
    mixed_lines = (mixed / "export" / "pairs.jsonl").read_text().splitlines()
    by_id = {json.loads(line)["pair_id"]: line for line in alone}
    common = [line for line in mixed_lines if json.loads(line)["pair_id"] in by_id]
    assert len(alone) == 9 and len(mixed_lines) == 16 and len(common) == 4
    _check_provenance([json.loads(line) for line in mixed_lines])
    for line in common:
        pair_id = json.loads(line)["pair_id"]
        assert line == by_id[pair_id], pair_id
        for ref in _refs(json.loads(line)):
            assert (tmp_path / "alone" / "export" / ref).read_bytes() == \
                (mixed / "export" / ref).read_bytes(), ref


def _replay(emukit_cli, adb_server, export: Path, data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*emukit_cli, "audit", "replay", "--pairs", str(export), "--data-dir",
                           str(data), "--quiet", *args], env=adb_server.env, capture_output=True, text=True,
                          timeout=600)


def test_exported_branches_replayed_on_fresh_snapshots_reproduce_every_pair(emukit_cli, adb_server, tmp_path, mixed):
    """``emukit audit replay``: two fresh devices build each base snapshot from its spec, run the recorded
    hidden setup and then only the exported actions; all 16 pairs (32 branches, every family) give the exported
    observations byte for byte, the same state and the same outcome. A tampered export fails, naming what
    differs."""
    proc = _replay(emukit_cli, adb_server, mixed / "export", tmp_path / "replay", "--devices", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "16/16 pairs reproduced (every observation, state and outcome): PASS" in proc.stdout

    rows = [json.loads(line) for line in (mixed / "export" / "pairs.jsonl").read_text().splitlines()]
    clip = next(r for r in rows if r["template"] == "original_strict")
    files = next(r for r in rows if r["template"] == "copy_direct")
    clip["branches"]["A"]["state"]["clipboard_text"] = "Forged01"   # a ground truth the actions do not give
    step = files["branches"]["B"]["history"][-1]["action"]          # an action the device never saw
    step["x"], step["y"] = 5, 5
    shutil.copytree(mixed / "export", tmp_path / "forged")
    (tmp_path / "forged" / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = _replay(emukit_cli, adb_server, tmp_path / "forged", tmp_path / "replay2", "--devices", "1",
                   "--pair", clip["pair_id"], "--pair", files["pair_id"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "0/2 pairs reproduced" in proc.stdout
    out = " ".join(proc.stdout.split())
    assert f"{clip['pair_id']}/A: state" in out and "!= exported" in out and "Forged01" in out
    assert f"{files['pair_id']}/B: observations:" in out  # the screens after the moved tap differ


def test_export_fills_in_the_entity_of_older_rows_from_an_unchanged_template(emukit_cli, adb_server, tmp_path):
    """Rows stored before pairs kept their provenance (``pairs.provenance`` NULL) are exported with the entity
    and hidden setup taken from their template, only while its content hash is the pair's."""
    import sqlite3

    lines = _build(emukit_cli, adb_server, tmp_path / "d", "--family", "persistent", "--template", "copy_direct",
                   "--template", "delete_direct", "--count", "2", "--devices", "1")
    with sqlite3.connect(tmp_path / "d" / "emukit.db") as conn:
        conn.execute("UPDATE pairs SET provenance = NULL")
        conn.execute("UPDATE pairs SET template_hash = ? WHERE template = 'delete_direct'", ("0" * 64,))
    proc = subprocess.run([*emukit_cli, "export", "--data-dir", str(tmp_path / "d"), "--out",
                           str(tmp_path / "again")], env=adb_server.env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    before = {r["pair_id"]: r for r in map(json.loads, lines)}
    after = {r["pair_id"]: r for r in map(json.loads, (tmp_path / "again" / "pairs.jsonl").read_text().splitlines())}
    copy, delete = after["copy_direct-3-0"], after["delete_direct-3-0"]
    assert copy["entity"] == before["copy_direct-3-0"]["entity"] and copy["entity"]["state_probe"]
    assert copy["hidden_setup"] == before["copy_direct-3-0"]["hidden_setup"]
    assert copy["base_snapshot"]["fingerprint"] == {}  # not recorded then, and not invented now
    assert delete["entity"] == {} and delete["hidden_setup"] == []  # its template is not the one that built it


def _check_provenance(rows: list[dict]) -> None:
    """What docs/pair-format.md promises every exported pair carries (item 4 of the issue)."""
    from emukit.snapshots import CONTENT_KEYS

    assert {r["family"] for r in rows} == {"persistent", "clipboard", "ordered", "temporal"}
    for r in rows:
        where = r["pair_id"]
        assert len(r["template_hash"]) == 64, where
        assert r["base_snapshot"]["name"].endswith("_base") and set(r["base_snapshot"]["fingerprint"]) == \
            set(CONTENT_KEYS), where
        assert isinstance(r["entity"]["state_probe"], dict) and r["entity"]["outcome_probe"]["kind"], where
        assert isinstance(r["hidden_setup"], list), where
        if r["family"] == "persistent":
            assert r["entity"]["state_probe"]["source"].startswith("/storage/emulated/0/"), where
            assert any("shell" in step for step in r["hidden_setup"]), where  # the target file is made
        if r["family"] == "ordered":  # a playlist template names its playlist; a queue template probes the queue
            queue = r["template"] in ("playing_queue", "queue_mixed_insertion")
            assert queue or r["entity"]["state_probe"]["playlist"] == r["entity"]["outcome_probe"]["playlist"], where
        assert len(r["branches"]["A"]["history"]) == len(r["branches"]["B"]["history"]), where  # padded
        assert set(r["padding"]) == {"A", "B"} and min(r["padding"].values()) == 0, where
        assert sorted(r["roles"].items()) in ([("A", "A"), ("B", "B")], [("A", "B"), ("B", "A")]), where
        for name, b in r["branches"].items():
            assert b["state_evidence"] and b["outcome_evidence"], (where, name)
            assert b["shared_steps"][0] == r["shared_action"], (where, name)
            if r["family"] == "temporal":
                assert [s["type"] for s in b["shared_steps"]] == ["wait", "swipe"], (where, name)
                assert b["warp"]["seconds"] * 1000 == r["shared_action"]["duration_ms"], (where, name)
            else:
                assert len(b["shared_steps"]) == 1, (where, name)


def _refs(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj] if obj.startswith("artifacts/") else []
    if isinstance(obj, dict):
        return [r for v in obj.values() for r in _refs(v)]
    if isinstance(obj, list):
        return [r for v in obj for r in _refs(v)]
    return []
