"""The nightly rebuild with AVDs: a real ``emukit nightly`` launches an AVD through the fake SDK's ``emulator``
script (the real binary cannot run here; behind it a virtual device keeps its snapshots across launches as an
AVD does) and checks the base snapshots its config names night after night. In a module of its own so that it
runs beside the other nightly tests, not after them (the workers take whole modules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emukit.device.adbserver import free_port
from emukit.device.virtual import free_adb_ports
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports
from tests.device.fake_sdk import make_fake_sdk
from tests.nightly.helpers import lean_checks
from tests.nightly.helpers import nightly as _nightly
from tests.nightly.helpers import state as _state


AVD_CONFIG = """\
reports: reports
devices:
  avds: [Fake_AVD]
  first_console_port: {console}
  first_grpc_port: {grpc}
build:
  families:
    persistent: 1
  templates: [copy_direct]
audits:
  release: true
  stability: null
tasks:
  verify: [file_delete_then_note_01]
snapshots:
  check: [files_base, notes_base, "extra_*"]  # every base is checked alike: two shipped ones and this test's own
thresholds:
  max_time_per_pair_increase: 20  # one pair's build time is mostly device start: too noisy to gate on here
"""

#: nights 2 and 3 are about the snapshot steps: the build, and none of the audits or task checks night 1 ran
AVD_LEAN = AVD_CONFIG.replace("""audits:
  release: true
  stability: null
tasks:
  verify: [file_delete_then_note_01]
""", lean_checks(" null"))

EXTRA_SPEC = """\
name: extra_base
description: a base of this test's own
time_anchor: 2026-01-15T09:00:00Z
files:
  - {{path: /storage/emulated/0/Download/{name}, text: "hello"}}
"""


def _steps(folder: Path) -> dict[str, dict]:
    return _state(folder)["steps"]


@pytest.mark.timeout(600)  # three nights of emukit subprocesses, beside other workers
def test_avd_nights_check_base_snapshots_and_rebuild_what_changed(emukit_cli, adb_server, tmp_path):
    """``devices.avds``: the night launches the AVD (the fake SDK's ``emulator`` script mocks the real binary,
    which cannot run here; behind it a virtual device keeps its snapshots across launches as an AVD does)
    and stops it at the end. Night 1 builds every base it checks; night 2 verifies the unchanged ones against their
    fingerprints, rebuilds a base whose fingerprint no longer matches, and builds a spec that is new (matched by
    a glob of ``snapshots.check``); night 3 rebuilds the spec that changed."""
    sdk = make_fake_sdk(tmp_path / "sdk")
    specs = tmp_path / "specs"
    specs.mkdir()
    env = {"ANDROID_SDK_ROOT": str(sdk), "FAKE_EMU_STATE_DIR": str(tmp_path / "avd-state"),
           "EMUKIT_SNAPSHOTS": str(specs)}
    console = free_adb_ports(1, start=TEST_PORT_BASE + 200)[0] - 1
    config = tmp_path / "nightly.yaml"
    config.write_text(AVD_CONFIG.format(console=console, grpc=free_port()))
    reports = tmp_path / "reports"
    serial = f"emulator-{console}"

    one = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-01", env=env)
    assert one.returncode == 0, one.stdout
    steps = _steps(reports / "2026-12-01")
    shipped = {"files_base", "notes_base"}  # the ones checked (`snapshots.check: all` is tested in test_nightly)
    assert {k for k in steps if k.startswith("snapshot-")} == {f"snapshot-build-{n}-{serial}" for n in shipped}
    assert adb_server.state(serial) != "device"  # the night stopped its AVD
    assert "tasks-verify" in steps  # on bases built from the clean snapshot, as every base is

    fp = reports / "2026-12-01" / "data" / "snapshots" / serial / "files_base.json"
    fp.write_text(fp.read_text().replace('"files": "', '"files": "0', 1))  # a fingerprint that will not match
    (specs / "extra_base.yaml").write_text(EXTRA_SPEC.format(name="one.txt"))
    assert AVD_LEAN != AVD_CONFIG
    config.write_text(AVD_LEAN.format(console=console, grpc=free_port()))
    two = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-02", env=env)
    assert two.returncode == 0, two.stdout
    steps = _steps(reports / "2026-12-02")
    assert {k for k in steps if k.startswith("snapshot-")} == (
        {f"snapshot-verify-{n}-{serial}" for n in shipped} | {f"snapshot-build-extra_base-{serial}"})
    log = (reports / "2026-12-02" / "logs" / f"snapshot-verify-files_base-{serial}.log").read_text()
    assert "$ emukit snapshots build files_base" in log  # the mismatch was rebuilt
    assert steps[f"snapshot-verify-files_base-{serial}"]["rebuilt"] is True
    assert "rebuilt" not in steps[f"snapshot-verify-notes_base-{serial}"]
    clean = (reports / "2026-12-02" / "logs" / f"snapshot-verify-notes_base-{serial}.log").read_text()
    assert "fingerprint matches" in clean and "snapshots build" not in clean
    report = json.loads((reports / "2026-12-02" / "report.json").read_text())
    assert {"kind": "snapshot specs", "template": "", "detail": "changed: extra_base", "regression": False} \
        in report["findings"]

    (specs / "extra_base.yaml").write_text(EXTRA_SPEC.format(name="two.txt"))
    three = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-03", env=env)
    assert three.returncode == 0, three.stdout
    steps = _steps(reports / "2026-12-03")
    assert f"snapshot-build-extra_base-{serial}" in steps and f"snapshot-verify-files_base-{serial}" in steps
