"""Run the client libraries' own device tests against a virtual device and compare the failures with the
expected list (``tools/client_suites_expected.yaml``).

    python tools/run_client_suites.py [--mode deterministic|hardware] [--keep DIR] [--sdist-dir DIR]
                                      [--u2-tests DIR]

* The suites come from the source distributions of the pinned versions (``pip download --no-binary``), or
  from ``--sdist-dir``: adbutils' sdist holds its end-to-end device tests (``e2etests/``); uiautomator2's
  holds none, so its device tests (``mobile_tests/``, ``demo_tests/`` of its source repository) run only
  when ``--u2-tests DIR`` points at a copy of them.
* The tests run with pytest against the *installed* libraries (the test folders are copied out of the
  sdist), on one virtual device behind a private adb server: ``ANDROID_ADB_SERVER_PORT`` and
  ``ANDROID_SERIAL`` point the suites' fixtures at it, and this file, loaded as a pytest plugin, points
  module-level clients built for the default server port (adbutils' ``test_adb.py``) at it too.
* Exit status 0 when the failures are exactly the expected ones for the mode; 1 on an unexpected failure
  or on an expected failure that now passes (take it off the list); 2 when the run itself failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "client_suites_expected.yaml"
MODES = ("deterministic", "hardware")
#: the first adb port tried for the suites' device: above the test suite's blocks (20001 and 30001, 300 per
#: worker: tests/conftest.py) and the quick start's (50001: .ci/quickstart), all three run side by side in CI
CLIENT_SUITES_PORT = 40001


# ---------------------------------------------------------------------------------- pytest plugin part
def pytest_collection_modifyitems(session, config, items) -> None:
    """Point module-level ``AdbClient`` objects made for another server port at the private server."""
    port = os.environ.get("ANDROID_ADB_SERVER_PORT")
    if not port:
        return
    import adbutils

    for module in {item.module for item in items if getattr(item, "module", None) is not None}:
        for name, value in list(vars(module).items()):
            if isinstance(value, adbutils.AdbClient) and str(getattr(value, "port", "")) != port:
                setattr(module, name, adbutils.AdbClient(host="127.0.0.1", port=int(port)))


# ---------------------------------------------------------------------------------- expected list
def load_expected(path: Path = EXPECTED) -> dict:
    """The expected-failures file, checked: every entry names a suite, a test, its modes and a reason;
    test names are unique."""
    import yaml

    doc = yaml.safe_load(path.read_text())
    if not isinstance(doc, dict) or not isinstance(doc.get("suites"), dict) or not isinstance(
            doc.get("expected_failures"), list):
        raise ValueError(f"{path}: a mapping with 'suites' and 'expected_failures'")  # noqa: TRY004
    seen: set[str] = set()
    for i, entry in enumerate(doc["expected_failures"]):
        where = f"{path}: expected_failures[{i}]"
        if not isinstance(entry, dict) or set(entry) - {"test", "modes", "needs", "reason"}:
            raise ValueError(f"{where}: keys are test, modes, needs, reason")
        test = entry.get("test")
        if not isinstance(test, str) or test.count("::") < 2 or test.split("::")[0] not in doc["suites"]:
            raise ValueError(f"{where}: test must be '<suite>::<file>::<name>' of a listed suite, got {test!r}")
        if test in seen:
            raise ValueError(f"{where}: {test} is listed twice")
        seen.add(test)
        modes = entry.get("modes")
        if not isinstance(modes, list) or not modes or set(modes) - set(MODES):
            raise ValueError(f"{where}: modes must be a non-empty list of {', '.join(MODES)}")
        if entry.get("needs") not in doc.get("needs", {}):
            raise ValueError(f"{where}: needs must be one of {', '.join(doc.get('needs', {}))}")
        reason = entry.get("reason")
        if not isinstance(reason, str) or len(reason.split()) < 5:
            raise ValueError(f"{where}: a reason of at least five words")
    return doc


def compare(expected: dict, mode: str, suites_run: set[str], failed: set[str], passed: set[str]
            ) -> tuple[list[str], list[str]]:
    """(unexpected failures, expected failures that passed) of one run."""
    wanted = {e["test"] for e in expected["expected_failures"]
              if mode in e["modes"] and e["test"].split("::")[0] in suites_run}
    return sorted(failed - wanted), sorted(t for t in wanted if t in passed)


# ---------------------------------------------------------------------------------- suites
def fetch_sdists(specs: dict[str, str], dest: Path, sdist_dir: Path | None) -> dict[str, Path]:
    """``{name: sdist path}``: from ``sdist_dir`` when given, else downloaded from the package index."""
    found: dict[str, Path] = {}
    for name, version in specs.items():
        stem = f"{name}-{version}"
        if sdist_dir is not None:
            path = sdist_dir / f"{stem}.tar.gz"
            if not path.is_file():
                raise SystemExit(f"{path}: not found (--sdist-dir must hold {stem}.tar.gz)")
        else:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                            "--quiet", f"{name}=={version}", "-d", str(dest)], check=True)
            path = dest / f"{stem}.tar.gz"
        found[name] = path
    return found


def extract_tests(sdist: Path, folders: list[str], dest: Path) -> list[Path]:
    """Copy the sdist's test folders (those of ``folders`` it has) to ``dest``; returns the copies."""
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers()
                   if len(Path(m.name).parts) > 1 and Path(m.name).parts[1] in folders]
        tar.extractall(dest / "sdist", members=members, filter="data")
    out: list[Path] = []
    if not members:
        return out
    for top in (dest / "sdist").iterdir():
        for folder in folders:
            src = top / folder
            if src.is_dir():
                shutil.copytree(src, dest / folder)
                out.append(dest / folder)
    return out


def run_pytest(test_dir: Path, suite: str, env: dict[str, str], junit: Path, timeout_s: int
               ) -> tuple[set[str], set[str]]:
    """Run one test folder, each test under ``timeout_s``; returns (failed, passed) as
    ``<suite>::<file>::<test>`` names (``<suite>::<folder>/<file>::<test>`` for uiautomator2's folders)."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "run_client_suites",
           "-o", "addopts=", "--rootdir", str(test_dir), f"--timeout={timeout_s}", f"--junitxml={junit}",
           str(test_dir)]
    subprocess.run(cmd, cwd=test_dir, env=env, check=False)
    if not junit.is_file():
        raise SystemExit(f"pytest wrote no report for {test_dir}")
    failed, passed = set(), set()
    prefix = f"{suite}::{test_dir.name}/" if suite == "uiautomator2" else f"{suite}::"
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        name = f"{prefix}{module}.py::{case.get('name')}"
        if case.find("skipped") is not None:
            continue
        (failed if case.find("failure") is not None or case.find("error") is not None else passed).add(name)
    return failed, passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, default="deterministic")
    parser.add_argument("--keep", type=Path, help="keep the work folder (sdists, tests, logs, reports) here")
    parser.add_argument("--sdist-dir", type=Path, help="take the sdists from here instead of downloading")
    parser.add_argument("--u2-tests", type=Path,
                        help="a folder with uiautomator2's device tests (mobile_tests/, demo_tests/)")
    args = parser.parse_args(argv)
    expected = load_expected()
    work = Path(tempfile.mkdtemp(prefix="emukit-client-suites-")) if args.keep is None else args.keep.resolve()
    work.mkdir(parents=True, exist_ok=True)
    home = work / "home"
    home.mkdir(exist_ok=True)
    os.environ["HOME"] = str(home)
    os.environ.setdefault("EMUKIT_HOME", str(home / ".emukit"))
    from emukit.device.adbserver import AdbServer, free_port
    from emukit.device.virtual import (
        VirtualDeviceProcess,
        free_adb_ports,
    )

    suites = expected["suites"]
    sdists = fetch_sdists({name: spec["version"] for name, spec in suites.items()}, work, args.sdist_dir)
    test_dirs: dict[str, list[Path]] = {}
    for name, spec in suites.items():
        dirs = extract_tests(sdists[name], list(spec["tests"]), work / name)
        if not dirs:
            print(f"{name} {spec['version']}: its sdist holds no device tests ({', '.join(spec['tests'])})")
        test_dirs[name] = dirs
    if args.u2_tests is not None:
        test_dirs["uiautomator2"] = [args.u2_tests.resolve() / d for d in suites["uiautomator2"]["tests"]
                                     if (args.u2_tests / d).is_dir()]
    started = time.monotonic()
    port = free_port()
    server = AdbServer(port, home=home)
    server.start()
    # above the test suite's port blocks (tests/conftest.py), which .ci/run runs beside this
    device = VirtualDeviceProcess(free_adb_ports(1, start=CLIENT_SUITES_PORT + 2 * (os.getpid() % 2000))[0],
                                  work / "device", server, mode=args.mode, log_path=work / "device.log")
    failed: set[str] = set()
    passed: set[str] = set()
    try:
        serial = device.start()
        env = dict(server.env)
        env.update(ANDROID_SERIAL=serial, PYTHONPATH=os.pathsep.join(
            [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))
        for name, dirs in test_dirs.items():
            for test_dir in dirs:
                f, p = run_pytest(test_dir, name, env, work / f"{name}-{test_dir.name}.xml",
                                  int(suites[name]["timeout_s"]))
                failed |= f
                passed |= p
    finally:
        device.stop()
        server.kill()
    suites_run = {name for name, dirs in test_dirs.items() if dirs}
    unexpected, now_passing = compare(expected, args.mode, suites_run, failed, passed)
    reasons = {e["test"]: e["reason"] for e in expected["expected_failures"]}
    print(f"\nclient suites on a {args.mode} virtual device: {len(passed)} passed, {len(failed)} failed "
          f"({len(failed) - len(unexpected)} expected) in {time.monotonic() - started:.0f} s")
    for test in sorted(failed - set(unexpected)):
        print(f"  expected  {test}: {reasons[test]}")
    for test in unexpected:
        print(f"  UNEXPECTED FAILURE  {test}")
    for test in now_passing:
        print(f"  NOW PASSES (take it off {EXPECTED.name})  {test}")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if unexpected or now_passing else 0


if __name__ == "__main__":
    sys.exit(main())
