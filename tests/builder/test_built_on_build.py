"""A store that mixes device kinds only when told, end to end through the CLI: pairs of one request built on a
deterministic virtual device, then on a hardware-mode one (refused; accepted with ``--allow-mixed``); every
export format carries where each pair was built; export and the release audit select by kind and app build;
the replay audit compares observations only for the deterministic pair.

The commands start their own embedded virtual devices (``--devices 1``): the point is the device kind each
command reads from the devices it started, in both modes. Nothing is mocked.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

FILES = "com.google.android.documentsui"


def _run(emukit_cli, adb_server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*emukit_cli, *args], env=adb_server.env, capture_output=True, text=True, timeout=600)


def _build(emukit_cli, adb_server, data: Path, count: int, *extra: str) -> subprocess.CompletedProcess:
    return _run(emukit_cli, adb_server, "build-pairs", "--family", "persistent", "--template", "copy_direct",
                "--count", str(count), "--devices", "1", "--data-dir", str(data), "--quiet", *extra)


@pytest.fixture(scope="module")
def mixed(emukit_cli, adb_server, tmp_path_factory) -> dict:
    data = tmp_path_factory.mktemp("mixed") / "data"
    first = _build(emukit_cli, adb_server, data, 1)
    assert first.returncode == 0, first.stdout + first.stderr
    refused = _build(emukit_cli, adb_server, data, 2, "--vdevice-mode", "hardware")
    allowed = _build(emukit_cli, adb_server, data, 2, "--vdevice-mode", "hardware", "--allow-mixed")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    return {"data": data, "refused": refused}


def test_a_second_device_kind_is_refused_then_allowed(mixed):
    from emukit.store import Store

    refused = mixed["refused"]
    text = refused.stdout + refused.stderr
    assert refused.returncode == 1, text
    assert ("copy_direct (seed 0): this device" in text and "is device kind virtual-hardware (the stored pairs "
            "were built on virtual-deterministic)" in text and "--allow-mixed" in text), text
    with Store(data_dir=mixed["data"]) as store:
        pairs = sorted(store.pairs(), key=lambda p: p.pair_id)
    assert [p.built_on.kind for p in pairs] == ["virtual-deterministic", "virtual-hardware"]
    for p in pairs:  # read on the device, not assumed
        b = p.built_on
        assert b.api_level == 34 and b.abi == "x86_64" and b.fingerprint and b.fingerprint.endswith("dev-keys")
        assert b.display is not None and (b.display.width, b.display.height, b.display.density) == (1080, 2400, 420)
        assert list(b.apps) == [FILES] and b.apps[FILES].version_code is not None and b.emukit_version


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf", "episodes"])
def test_every_export_format_carries_where_a_pair_was_built(mixed, emukit_cli, adb_server, tmp_path, fmt):
    out = tmp_path / fmt
    done = _run(emukit_cli, adb_server, "export", "--data-dir", str(mixed["data"]), "--out", str(out),
                "--format", fmt)
    assert done.returncode == 0, done.stdout + done.stderr
    if fmt == "jsonl":
        kinds = [json.loads(line)["built_on"]["kind"] for line in (out / "pairs.jsonl").read_text().splitlines()]
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        kinds = [json.loads(v)["kind"] for v in pq.read_table(out / "pairs.parquet").column("built_on").to_pylist()]
    elif fmt == "hf":
        import datasets

        rows = datasets.load_from_disk(str(out / "hf" / "pairs"))["test"]
        kinds = list(rows["device_kind"])
        assert [json.loads(p)["built_on"]["kind"] for p in rows["provenance"]] == kinds
    else:
        index = [json.loads(line) for line in (out / "episodes" / "index.jsonl").read_text().splitlines()]
        kinds = sorted({r["device_kind"] for r in index})
        episode = json.loads((out / "episodes" / index[0]["path"]).read_text())
        assert episode["built_on"]["kind"] == index[0]["device_kind"] and FILES in episode["built_on"]["apps"]
    assert sorted(kinds) == ["virtual-deterministic", "virtual-hardware"]


def test_export_and_the_release_audit_select_by_kind_and_build(mixed, emukit_cli, adb_server, tmp_path):
    from emukit.store import Store

    with Store(data_dir=mixed["data"]) as store:
        code = next(iter(store.pairs())).built_on.apps[FILES].version_code
    out = tmp_path / "hardware"
    done = _run(emukit_cli, adb_server, "export", "--data-dir", str(mixed["data"]), "--out", str(out),
                "--device-kind", "virtual-hardware", "--app-build", f"{FILES}={code}")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
    assert [r["built_on"]["kind"] for r in rows] == ["virtual-hardware"]
    none = _run(emukit_cli, adb_server, "export", "--data-dir", str(mixed["data"]), "--out", str(tmp_path / "none"),
                "--app-build", f"{FILES}={code + 1}")
    assert none.returncode == 0 and "0 pairs" in none.stdout + none.stderr
    bad = _run(emukit_cli, adb_server, "export", "--data-dir", str(mixed["data"]), "--out", str(tmp_path / "bad"),
               "--app-build", "markor")
    assert bad.returncode == 2 and "is not PACKAGE=VERSIONCODE" in bad.stderr

    audit = _run(emukit_cli, adb_server, "audit", "release", "--data-dir", str(mixed["data"]), "--family",
                 "persistent", "--template", "copy_direct")
    text = " ".join((audit.stdout + audit.stderr).split())
    assert audit.returncode == 0, text
    assert "built on" in text and "virtual-deterministic" in text and "virtual-hardware" in text
    assert "built on more than one kind of device: select one with --device-kind" in text
    one = _run(emukit_cli, adb_server, "audit", "release", "--data-dir", str(mixed["data"]), "--family",
               "persistent", "--template", "copy_direct", "--device-kind", "virtual-deterministic")
    text = " ".join((one.stdout + one.stderr).split())
    assert one.returncode == 0 and "1/1 pairs pass" in text and "virtual-hardware" not in text, text


def test_the_replay_compares_observations_only_where_no_clock_runs(mixed, emukit_cli, adb_server, tmp_path):
    """Each pair replayed on a device of the kind it was built on: the deterministic one observation by
    observation; the hardware one by state and outcome only (its clocks run), decided from the recorded kind.
    (A hardware-mode base snapshot rebuilt on a fresh device has other file contents than the one the pair was
    built from, so that replay reports its base; the comparison it makes is what is checked here.)"""
    export = tmp_path / "export"
    done = _run(emukit_cli, adb_server, "export", "--data-dir", str(mixed["data"]), "--out", str(export))
    assert done.returncode == 0, done.stdout + done.stderr
    det = _run(emukit_cli, adb_server, "audit", "replay", "--pairs", str(export), "--pair", "copy_direct-0-0",
               "--devices", "1", "--data-dir", str(tmp_path / "det"), "--quiet")
    text = " ".join((det.stdout + det.stderr).split())
    assert det.returncode == 0, text
    assert "1/1 pairs reproduced (every observation, state and outcome)" in text and "16/16" in text, text
    hw = _run(emukit_cli, adb_server, "audit", "replay", "--pairs", str(export), "--pair", "copy_direct-0-1",
              "--devices", "1", "--vdevice-mode", "hardware", "--data-dir", str(tmp_path / "hw"), "--quiet")
    text = " ".join((hw.stdout + hw.stderr).split())
    assert text.count("- (recorded on a virtual-hardware device) │ same │ same") == 2, text
    assert "(state and outcome)" in text and "observations:" not in text, text


def test_whether_observations_are_compared_comes_from_both_kinds():
    from emukit.audit.replay import compares_observations
    from emukit.provenance import BuiltOn

    det, hw, avd = (BuiltOn(kind=k) for k in ("virtual-deterministic", "virtual-hardware", "emulator"))
    assert compares_observations(det, det) is None
    assert compares_observations(BuiltOn.unknown(), det) is None  # exported before kinds were kept: as before
    assert compares_observations(hw, det) == "recorded on a virtual-hardware device"
    assert compares_observations(det, avd) == "replayed on an emulator device"
