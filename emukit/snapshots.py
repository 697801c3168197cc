"""Base snapshots: declared in ``snapshots/*.yaml`` (how to build them), built on a device through adb and
the console, and verified by a fingerprint of their ground-truth state.

Every base snapshot is built from the device's **clean snapshot** (:data:`CLEAN_SNAPSHOT`): the state the
device had once it was set up (apps installed and onboarded, provisioned media, settings), before any base
snapshot, pair, task or stress trajectory touched it. Loading it first restores shared storage, app data,
settings, the clipboard and the media index together (an emulator snapshot holds the whole disk and RAM:
developer.android.com/studio/run/emulator-snapshots), so a base holds the clean state plus what its spec
says and nothing else, whatever the device did before; deleting files instead would leave MediaStore rows
and app caches behind on a real device. See docs/real-devices.md, "Hermetic base snapshots"."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver
from emukit.device.facts import MEDIA_PROVIDER_PACKAGES
from emukit.errors import ConfigError, DeviceError

#: the device's state right after set-up, saved once per device; every base snapshot is built from it
CLEAN_SNAPSHOT = "emukit_clean"


class FileSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    text: str | None = None
    size: int | None = None  # filled with deterministic bytes


class SettingSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    namespace: str = Field(pattern="^(global|system|secure)$")
    key: str
    value: str


def seed_sections() -> dict[str, Any]:
    """Every app's base snapshot section by its key (``songs``, ``notes``, ...): the ``seed`` of each registered
    app profile (:class:`emukit.apps.base.SeedSection`)."""
    from emukit.apps.registry import all_profiles

    sections: dict[str, Any] = {}
    for cls in all_profiles():
        if cls.seed is not None:
            other = sections.get(cls.seed.key)
            if other is not None and other is not cls.seed:
                raise ConfigError(f"seed section {cls.seed.key!r} is declared by two apps: "
                                  f"{other.__qualname__} and {cls.seed.__qualname__}")
            sections[cls.seed.key] = cls.seed
    return sections


class SnapshotSpec(BaseModel):
    """What a base snapshot contains and which screen it is saved on. Besides the fields below, a spec lists
    app data under each app's own key (``songs:``, ``notes:``, ``events:``: :func:`seed_sections`); they are
    kept in :attr:`seeds`, in the order the spec gives them, as the apps' item models."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    time_anchor: dt.datetime
    folders: list[str] = Field(default_factory=list)
    files: list[FileSpec] = Field(default_factory=list)
    seeds: dict[str, list[Any]] = Field(default_factory=dict)  # app section key -> its items
    settings: list[SettingSpec] = Field(default_factory=list)
    clear_apps: list[str] = Field(default_factory=list)
    warm_apps: list[str] = Field(default_factory=list)  # profiles launched once (e.g. to index media)
    start: str | None = None  # profile left in the foreground; None: the home screen
    source_path: str = ""

    @model_validator(mode="before")
    @classmethod
    def _app_sections(cls, data: Any) -> Any:
        """Move each app section (``songs: [...]``) into ``seeds``, its items validated by the app's model;
        a key that is neither a field nor a registered section is named with the sections there are."""
        if not isinstance(data, dict):
            return data
        sections = seed_sections()
        data = dict(data)
        seeds = dict(data.pop("seeds", None) or {})
        for key in list(data):
            if key in cls.model_fields:
                continue
            if key not in sections:
                raise ValueError(f"unknown key {key!r}: neither a spec field nor an app's seed section (sections: "
                                 f"{', '.join(sorted(sections)) or 'none'})")
            items = data.pop(key) or []
            if not isinstance(items, list):  # ValueError: pydantic reports it as this field's validation error
                raise ValueError(f"{key}: a list of {sections[key].item.__name__} items, "  # noqa: TRY004
                                 f"not {type(items).__name__}")
            model = sections[key].item
            parsed = []
            for i, item in enumerate(items):
                try:
                    parsed.append(item if isinstance(item, model) else model.model_validate(item))
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(map(str, (key, i, *first["loc"])))
                    raise ValueError(f"{where}: {first['msg']}") from None
            seeds[key] = parsed
        data["seeds"] = seeds
        return data

    def items(self, key: str) -> list[Any]:
        """The items of the app section ``key`` (empty when the spec has none)."""
        return list(self.seeds.get(key, []))

    def __getattr__(self, name: str) -> Any:
        """An app section read by its key, as the spec writes it: ``spec.songs``, ``spec.events``."""
        if not name.startswith("_") and name in seed_sections():
            return self.items(name)
        return super().__getattr__(name)  # type: ignore[misc]


def snapshots_dir() -> Path:
    """The base snapshot specs shipped with emukit (:func:`emukit.resources.shipped_dir`)."""
    from emukit import resources

    return resources.shipped_dir("snapshots")


def spec_files(folder: Path | None = None) -> dict[str, Path]:
    """Spec name -> file, in ``folder`` alone or on the search path (``$EMUKIT_SNAPSHOTS``, then the
    shipped specs); ConfigError when a name is in two folders."""
    from emukit import resources

    return resources.files_by_stem("snapshot spec",
                                   [folder] if folder is not None else resources.search_path("snapshots"))


def load_spec(name: str, folder: Path | None = None) -> SnapshotSpec:
    files = spec_files(folder)
    if name not in files:
        where = folder or snapshots_dir()
        raise ConfigError(f"{where / (name + '.yaml')}: no such snapshot spec (known: "
                          f"{', '.join(sorted(files)) or 'none'})")
    path = files[name]
    try:
        data = yaml.safe_load(path.read_text())
        spec = SnapshotSpec.model_validate({**(data or {}), "source_path": str(path)})
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    except ValidationError as exc:
        raise ConfigError("\n".join(f"{path}: {'.'.join(map(str, e['loc']))}: {e['msg']}"
                                     for e in exc.errors())) from None
    if spec.name != name:
        raise ConfigError(f"{path}: name {spec.name!r} must match the file name {name!r}")
    return spec


def list_specs(folder: Path | None = None) -> list[str]:
    return sorted(spec_files(folder))


def _fill(size: int, seed: str) -> bytes:
    block = hashlib.sha256(seed.encode()).digest()
    return (block * (size // len(block) + 1))[:size]


@contextlib.contextmanager
def console_of(driver: Driver, console: ConsoleClient | None = None) -> Iterator[ConsoleClient]:
    """``console`` when the caller holds one (a :class:`emukit.workers.DeviceContext` keeps its device's
    connection open), else a connection to the driver's device for this block only."""
    if console is not None:
        yield console
        return
    with ConsoleClient.for_serial(driver.serial) as fresh:
        yield fresh


def prepare_device(driver: Driver, anchor: dt.datetime) -> None:
    """Post-boot setup shared by every kind of device (root, animations off, automatic time off, 24-hour
    clock, time pinned to ``anchor``): :func:`emukit.device.boot.post_boot_setup`."""
    from emukit.device.adbserver import AdbServer
    from emukit.device.boot import PostBootConfig, post_boot_setup

    post_boot_setup(AdbServer(driver.adb_port), driver.serial, PostBootConfig(clock_anchor=anchor))


def save_clean(driver: Driver, *, force: bool = False, console: ConsoleClient | None = None) -> bool:
    """Save the device's present state as its clean snapshot unless it has one; True when saved now.

    Refused (``ConfigError``) on a device that already holds base snapshots but no clean one: its present
    state is whatever the last pair left, not a clean one. Such a device (set up before clean snapshots
    existed) is wiped and set up again (``emukit avd setup``), or, when its owner knows its state is clean,
    given one with ``emukit snapshots save-clean --force`` (``force``: save over any clean snapshot too)."""
    with console_of(driver, console) as console:
        present = console.snapshot_list()
        if CLEAN_SNAPSHOT in present and not force:
            return False
        bases = sorted(set(present) & set(list_specs()))
        if bases and not force:
            raise ConfigError(
                f"{driver.serial}: has base snapshots ({', '.join(bases)}) but no clean snapshot "
                f"{CLEAN_SNAPSHOT!r} to build new ones from; its present state is not known to be clean. Wipe "
                f"and set the device up again (emukit avd setup), or, if it is clean, run "
                f"`emukit snapshots save-clean --force --device {driver.serial}`")
        console.snapshot_save(CLEAN_SNAPSHOT)
    return True


def load_clean(driver: Driver, timeout: float = 60.0, *, console: ConsoleClient | None = None) -> None:
    """Load the clean snapshot (saving it first on a device that has none: :func:`save_clean`) and wait
    until the device answers again."""
    save_clean(driver, console=console)
    _load_and_wait(driver, CLEAN_SNAPSHOT, timeout, console)


def spec_digest(spec: SnapshotSpec) -> str:
    """sha256 of the spec's content (not where it was read from)."""
    body = spec.model_dump(mode="json", exclude={"source_path"})
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def build_snapshot(driver: Driver, spec: SnapshotSpec, *, console: ConsoleClient | None = None) -> dict[str, Any]:
    """Build ``spec`` on the device from its clean snapshot and save it as a console snapshot; returns its
    fingerprint."""
    from emukit.apps.registry import profile_for

    load_clean(driver, console=console)
    prepare_device(driver, spec.time_anchor)
    script = [f"am force-stop {shlex.quote(p)}" for p in spec.clear_apps]
    script += [f"pm clear {shlex.quote(p)}" for p in spec.clear_apps]
    script += [f"mkdir -p {shlex.quote(f)}" for f in spec.folders]
    if script:
        driver.shell("; ".join(script), check=True)
    from emukit.provision.onboard import onboard_if_pinned

    for package in spec.clear_apps:  # pm clear revoked its permissions and brought its first-run screens back
        onboard_if_pinned(driver, package)
    sync = driver.adbutils().sync
    for f in spec.files:
        data = f.text.encode() if f.text is not None else _fill(f.size or 0, f.path)
        sync.push(data, f.path)
    sections = seed_sections()
    for key, items in spec.seeds.items():
        if items:
            sections[key].apply(driver, items)
    for s in spec.settings:
        driver.shell(f"settings put {s.namespace} {shlex.quote(s.key)} {shlex.quote(s.value)}", check=True)
    # files pushed over adb carry host mtimes: stamp everything at the anchor so listings are deterministic
    stamp = spec.time_anchor.astimezone(dt.UTC).strftime("%Y%m%d%H%M.%S")
    driver.shell(f"find /storage/emulated/0 -exec touch -t {stamp} {{}} +; true")
    for name in spec.warm_apps:
        profile_for(driver, name).launch(fresh=True)
    if spec.start:
        profile_for(driver, spec.start).launch(fresh=True)
    else:
        driver.home()
    driver.wait_stable()
    with console_of(driver, console) as console:
        console.snapshot_save(spec.name)
    return {**fingerprint(driver), "spec": spec_digest(spec)}


#: the media provider's data (its MediaStore index, ``external.db``) under each name the module is installed by
#: (:data:`emukit.device.facts.MEDIA_PROVIDER_PACKAGES`): derived from shared storage, which the fingerprint
#: covers file by file, and stamped with the time each scan ran, so a rebuild of the same base (on an AVD as on
#: the virtual device) never reproduces its bytes; left out of :func:`fingerprint`
MEDIA_PROVIDER_DATA = tuple(f"/data/data/{package}/" for package in MEDIA_PROVIDER_PACKAGES)


def fingerprint(driver: Driver) -> dict[str, Any]:
    """A digest of the ground-truth state: shared storage and app data files with their content hashes (not the
    media provider's index, :data:`MEDIA_PROVIDER_DATA`), the clipboard (sha256 of its text), the wall clock and
    the foreground app."""
    from emukit.probes.clipboard import probe_clipboard

    # the clock first, as close to the save or the load as the read can be: on a device whose clock runs, the
    # reads below take seconds on a busy machine (WALL_CLOCK_TOLERANCE_S)
    wall_clock = driver.shell("date +%s").text.strip()
    files = [f for f in driver.shell("find /storage/emulated/0 /data/data -type f | sort").text.split()
             if not f.startswith(MEDIA_PROVIDER_DATA)]
    digests = driver.shell("md5sum " + " ".join(shlex.quote(f) for f in files)).text if files else ""
    clip = probe_clipboard(driver).canonical["clipboard_text"]
    return {
        "files": hashlib.sha256(digests.encode()).hexdigest(),
        "file_count": len(files),
        "clipboard": hashlib.sha256(clip.encode()).hexdigest(),
        "wall_clock": wall_clock,
        "foreground": driver.current_app()[0],
    }


#: the fingerprint keys that say what a snapshot holds (the wall clock is when it was read)
CONTENT_KEYS = ("spec", "files", "file_count", "clipboard", "foreground")


def content_fingerprint(data_dir: Path, serial: str, name: str) -> dict[str, Any]:
    """The content keys of the fingerprint recorded when ``name`` was built on ``serial`` ({} if none)."""
    path = fingerprint_path(data_dir, serial, name)
    try:
        recorded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {k: recorded[k] for k in CONTENT_KEYS if k in recorded}


def fingerprint_path(data_dir: Path, serial: str, name: str) -> Path:
    return data_dir / "snapshots" / serial / f"{name}.json"


def save_fingerprint(data_dir: Path, serial: str, name: str, fp: dict[str, Any]) -> Path:
    path = fingerprint_path(data_dir, serial, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(fp, indent=1, sort_keys=True))
    return path


#: how far the wall clock read after a snapshot load may be from the one recorded after its save: on a device
#: whose clock runs (an AVD, the hardware-like virtual device) each is read a moment after the event
WALL_CLOCK_TOLERANCE_S = 5


def fingerprint_differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The fingerprint keys that differ; the wall clock only when it is more than
    :data:`WALL_CLOCK_TOLERANCE_S` away (shown with both values)."""
    out = []
    for key in sorted(set(expected) | set(actual)):
        a, b = expected.get(key), actual.get(key)
        if key == "wall_clock" and str(a).isdigit() and str(b).isdigit():
            if abs(int(a) - int(b)) > WALL_CLOCK_TOLERANCE_S:  # type: ignore[arg-type]
                out.append(f"wall_clock {a} vs {b}")
        elif a != b:
            out.append(key)
    return out


def verify_snapshot(driver: Driver, name: str, data_dir: Path, *,
                    console: ConsoleClient | None = None) -> tuple[bool, dict[str, Any], dict[str, Any]]:
    """Load ``name`` and compare its fingerprint with the one recorded at build time
    (:func:`fingerprint_differences`)."""

    path = fingerprint_path(data_dir, driver.serial, name)
    if not path.exists():
        raise ConfigError(f"{path}: no recorded fingerprint; build the snapshot with `emukit snapshots build {name}`")
    expected = json.loads(path.read_text())
    actual = measure_base(driver, name, console=console)
    return not fingerprint_differences(expected, actual), expected, actual


def measure_base(driver: Driver, name: str, *, console: ConsoleClient | None = None) -> dict[str, Any]:
    """Load base ``name`` and read its fingerprint (with its spec's digest), as its build records it."""
    load_base(driver, name, console=console)
    return {**fingerprint(driver), "spec": spec_digest(load_spec(name))}


def load_base(driver: Driver, snapshot: str, timeout: float = 60.0, *, spec: str | None = None,
              console: ConsoleClient | None = None) -> None:
    """Load the base snapshot, wait until the device answers again, then re-root and re-pin the clock to
    the snapshot's time anchor when the load did not restore them (a real emulator's load can roll the guest
    clock back and restores adbd's user). ``spec``: the snapshot spec that holds the time anchor, for
    snapshots saved on top of a base (a task's initial state); default ``snapshot`` itself."""
    _load_and_wait(driver, snapshot, timeout, console)
    _repin(driver, spec or snapshot)


def _load_and_wait(driver: Driver, snapshot: str, timeout: float, console: ConsoleClient | None = None) -> None:
    """Load ``snapshot`` through the console and poll until the device answers a shell command again."""
    with console_of(driver, console) as console:
        console.snapshot_load(snapshot)
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(DeviceError):
            if driver.shell("echo ok").text.strip() == "ok":
                return
        if time.monotonic() > deadline:
            raise DeviceError(f"{driver.serial}: not usable {timeout:.0f} s after loading snapshot {snapshot}")
        time.sleep(0.05)


def _repin(driver: Driver, snapshot: str) -> None:
    anchor = _anchor(snapshot)
    state = driver.shell("id; date +%s").text.split()
    if "uid=0(" in state[0] and state[-1] == str(int(anchor.timestamp())):
        return
    prepare_device(driver, anchor)


_ANCHORS: dict[str, dt.datetime] = {}


def _anchor(snapshot: str) -> dt.datetime:
    """The time anchor of a snapshot spec (read once per process)."""
    if snapshot not in _ANCHORS:
        _ANCHORS[snapshot] = load_spec(snapshot).time_anchor
    return _ANCHORS[snapshot]


def ensure_snapshot(driver: Driver, name: str, data_dir: Path, *, console: ConsoleClient | None = None) -> None:
    """Build the base snapshot on this device unless it already has it, and record its fingerprint under
    ``data_dir``. A device that brings the base with it (an AVD keeping its bases between nights, a virtual
    device started from a template) but whose fingerprint this data dir has not recorded gets it measured
    once, right after loading the base (the fingerprint a build records is the same state, read right after
    its save), so the pairs built on it carry the base's content fingerprint all the same."""
    with console_of(driver, console) as console:
        present = name in console.snapshot_list()
        if not present:
            save_fingerprint(data_dir, driver.serial, name, build_snapshot(driver, load_spec(name),
                                                                            console=console))
        elif not fingerprint_path(data_dir, driver.serial, name).exists():
            save_fingerprint(data_dir, driver.serial, name, measure_base(driver, name, console=console))


def _build_share(proc: Any, server: Any, specs: list[SnapshotSpec]) -> None:
    """Start ``proc`` (a fresh virtual device), save its clean snapshot and build ``specs`` on it."""
    proc.start()
    driver = Driver(proc.serial, server.port)
    try:
        save_clean(driver)
        for spec in specs:
            build_snapshot(driver, spec)
    finally:
        driver.close()


def build_template(out: Path, server: Any, *, names: list[str] | None = None,
                   screen: tuple[int, int, int] | None = None, devices: int = 2) -> dict[str, Any]:
    """Write a virtual-device template to ``out`` (:func:`emukit.device.virtual.seed_from_template`): fresh
    deterministic virtual devices are started on private ports of ``server`` (an
    :class:`~emukit.device.adbserver.AdbServer`), each saves its clean snapshot right after boot and builds
    its share of the base snapshots in ``names`` (default: every spec on the search path) from it, on
    ``devices`` devices at once (a base's build waits on the device much of its time; a clean snapshot is the
    same on every device, so each base is what one device alone would build); the first device's snapshots
    and the others' bases are then copied to ``out/snapshots`` beside ``template.json``, which names the mode,
    the display and the spec digest of each base. Returns the manifest. ``out`` is replaced only once the new
    template is complete."""
    from emukit import __version__
    from emukit.device.virtual import (
        TEMPLATE_FORMAT,
        TEMPLATE_MANIFEST,
        VirtualDeviceProcess,
        free_adb_ports,
    )
    from emukit.provenance import DEFAULT_VIRTUAL_MODE
    from emukit.screens import DEFAULT_SCREEN
    from emukit.settings import vdevice_port_base

    out = Path(out)
    specs = [load_spec(n) for n in (names if names is not None else list_specs())]
    shares = [specs[i::max(1, devices)] for i in range(max(1, min(devices, len(specs))))]
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        ports = free_adb_ports(len(shares), start=vdevice_port_base())
        procs = [VirtualDeviceProcess(port, work / f"device{i}", server, screen=screen, template=False)
                 for i, port in enumerate(ports)]
        try:
            with ThreadPoolExecutor(len(procs)) as pool:
                for done in [pool.submit(_build_share, proc, server, share) for proc, share in zip(procs, shares)]:
                    done.result()
        finally:
            for proc in procs:
                proc.stop()
        shutil.copytree(work / "device0" / "snapshots", work / "template" / "snapshots", symlinks=True)
        for i, share in enumerate(shares[1:], start=1):
            for spec in share:
                shutil.copytree(work / f"device{i}" / "snapshots" / spec.name,
                                work / "template" / "snapshots" / spec.name, symlinks=True)
        manifest = {"format": TEMPLATE_FORMAT, "mode": DEFAULT_VIRTUAL_MODE, "screen": list(screen or DEFAULT_SCREEN),
                    "snapshots": {CLEAN_SNAPSHOT: None, **{s.name: spec_digest(s) for s in specs}},
                    "emukit": __version__}
        (work / "template" / TEMPLATE_MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
        if out.exists():
            os.replace(out, work / "old")  # removed with the work folder
        os.replace(work / "template", out)
        return manifest
    finally:
        shutil.rmtree(work, ignore_errors=True)
