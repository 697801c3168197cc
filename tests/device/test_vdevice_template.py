"""Virtual-device templates (``emukit vdevice template``, ``EMUKIT_VDEVICE_TEMPLATE``): a template written by
the CLI, a device started from it holding every snapshot without building one (its files hard links to the
template's, which the device's work leaves unchanged), and the base fingerprint it records being the one a device
that built the base records; bad template folders are named."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from pathlib import Path

import pytest

from emukit.cli import main
from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver
from emukit.device.virtual import read_template, seed_from_template
from emukit.errors import ConfigError
from emukit.snapshots import (
    CLEAN_SNAPSHOT,
    CONTENT_KEYS,
    content_fingerprint,
    ensure_snapshot,
    list_specs,
)


def tree_digest(root: Path) -> str:
    """A digest of every file under ``root``: relative path, mode and bytes."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(root)}\0{path.stat().st_mode:o}\0".encode() + path.read_bytes())
    return h.hexdigest()


def test_a_device_from_the_cli_template_holds_every_snapshot_and_records_the_built_fingerprint(
        vdevice_factory, adb_server, tmp_path, capsys):
    """Devices of their own: one from the template this test writes, one without any template (it builds)."""
    out = tmp_path / "template"
    assert main(["vdevice", "template", "--out", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    manifest = read_template(out)
    assert set(manifest["snapshots"]) == {CLEAN_SNAPSHOT, *list_specs()}
    assert manifest["mode"] == "deterministic" and manifest["screen"] == [1080, 2400, 420]

    before = tree_digest(out)
    seeded, built = vdevice_factory(template=out), vdevice_factory(template=False)
    meta = Path("snapshots", "files_base", "meta.json")
    assert os.stat(seeded.state_dir / meta).st_ino == os.stat(out / meta).st_ino  # linked, not copied
    with ConsoleClient.for_serial(seeded.serial) as console:
        assert set(console.snapshot_list()) == set(manifest["snapshots"])
    with ConsoleClient.for_serial(built.serial) as console:
        assert console.snapshot_list() == []
    fingerprints = {}
    for proc in (seeded, built):
        driver = Driver(proc.serial, adb_server.port)
        try:
            ensure_snapshot(driver, "files_base", tmp_path / "data")  # measured on one, built on the other
        finally:
            driver.close()
        fingerprints[proc.serial] = content_fingerprint(tmp_path / "data", proc.serial, "files_base")
    first, second = fingerprints.values()
    assert set(first) == set(CONTENT_KEYS) and first == second
    assert tree_digest(out) == before  # loading, using and fingerprinting the base changed no template file


def test_a_template_for_another_display_or_mode_is_not_copied(tmp_path):
    template = tmp_path / "t"
    (template / "snapshots" / "emukit_clean").mkdir(parents=True)
    (template / "snapshots" / "emukit_clean" / "meta.json").write_text("{}")
    (template / "template.json").write_text(json.dumps({"format": 1, "mode": "deterministic",
                                                        "screen": [1080, 2400, 420],
                                                        "snapshots": {"emukit_clean": None}}))
    assert seed_from_template(template, tmp_path / "a", mode="hardware", screen=None) == []
    assert seed_from_template(template, tmp_path / "b", mode="deterministic", screen=(720, 1280, 320)) == []
    assert seed_from_template(template, tmp_path / "c", mode="deterministic", screen=None) == ["emukit_clean"]
    assert (tmp_path / "c" / "snapshots" / "emukit_clean" / "meta.json").exists()
    assert seed_from_template(template, tmp_path / "c", mode="deterministic", screen=None) == []  # has it


def test_a_template_on_another_filesystem_is_copied(tmp_path, monkeypatch):
    """``os.link`` refused as across filesystems (EXDEV; this machine has one filesystem): the files are copied."""
    template = tmp_path / "t"
    (template / "snapshots" / "emukit_clean" / "fs").mkdir(parents=True)
    (template / "snapshots" / "emukit_clean" / "meta.json").write_text("{}")
    (template / "snapshots" / "emukit_clean" / "fs" / "a.txt").write_text("a")
    (template / "template.json").write_text(json.dumps({"format": 1, "mode": "deterministic",
                                                        "screen": [1080, 2400, 420],
                                                        "snapshots": {"emukit_clean": None}}))

    def refuse(src, dst, **kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    assert seed_from_template(template, tmp_path / "dev", mode="deterministic", screen=None) == ["emukit_clean"]
    copied = tmp_path / "dev" / "snapshots" / "emukit_clean" / "fs" / "a.txt"
    assert copied.read_text() == "a"
    assert copied.stat().st_ino != (template / "snapshots" / "emukit_clean" / "fs" / "a.txt").stat().st_ino


@pytest.mark.parametrize(("manifest", "message"), [
    (None, r"template\.json: not a virtual-device template .*emukit vdevice template"),
    ("{not json", r"template\.json: invalid JSON"),
    (json.dumps({"format": 9}), r"template\.json: format 9 is not 1"),
    (json.dumps({"format": 1, "mode": "deterministic", "screen": [1, 2, 3]}), r"field 'snapshots' is missing"),
    (json.dumps({"format": 1, "mode": "deterministic", "screen": [1080, 2400, 420],
                 "snapshots": {"files_base": "x"}}), r"snapshots/files_base: listed in .*template\.json but missing"),
], ids=["missing", "not-json", "other-format", "no-snapshots", "snapshot-missing"])
def test_a_bad_template_is_named(tmp_path: Path, manifest, message):
    template = tmp_path / "t"
    template.mkdir()
    if manifest is not None:
        (template / "template.json").write_text(manifest)
    with pytest.raises(ConfigError, match=message):
        seed_from_template(template, tmp_path / "dev", mode="deterministic", screen=None)


def test_a_bad_port_base_is_named(monkeypatch):
    from emukit.settings import vdevice_port_base

    monkeypatch.setenv("EMUKIT_VDEVICE_PORTS", "lots")
    with pytest.raises(ConfigError, match="EMUKIT_VDEVICE_PORTS='lots' is not a port number"):
        vdevice_port_base()
    monkeypatch.setenv("EMUKIT_VDEVICE_PORTS", "80")
    with pytest.raises(ConfigError, match="EMUKIT_VDEVICE_PORTS=80 is out of range"):
        vdevice_port_base()
