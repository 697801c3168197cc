"""App profiles (page objects): semantic operations on one app, executed as low-level driver actions.

A profile method such as ``files.copy_to(path, dest, confirm=True)`` drives the UI the way a person would
and returns the list of :class:`~emukit.actions.Action` records it executed (type, coordinates, text,
element description). Profiles are chosen by installed package (:mod:`emukit.apps.registry`) and select only
through the selector table of the installed build (:mod:`emukit.apps.selectors`): ``self.sel("name")`` gives
the driver fields of one semantic name, ``self.sel("systemui:name")`` one of another app's table (the
``OTHER_APPS`` short names). ``verified`` says whether the installed build is one this profile has been
exercised against in this project's tests.

Profiles are registered, not listed: a module in ``emukit/apps/`` (or an outside module named by an entry point
in the ``emukit.app_profiles`` group) decorates its class with :func:`register_app`, and everything that needs
the apps (the table selectors' short names, provisioning, ``emukit doctor``, the base snapshot specs' seed
sections) reads :data:`APP_PROFILES`. What an app brings besides its operations is declared on the class:
``seed`` (the section of a base snapshot spec that seeds its data, :class:`SeedSection`), ``main_screens`` (the
``first_run_screen`` names that mean "past the first run"), :meth:`AppProfile.doctor_checks` (rows of its own
for ``emukit doctor``).
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable
from typing import Any, ClassVar, ParamSpec, TypeVar

from pydantic import BaseModel, ValidationError

from emukit.actions import Action, Element
from emukit.apps.selectors import SelectorTable, table_for
from emukit.device.driver import Driver
from emukit.errors import ConfigError, DeviceError
from emukit.plugins import Registry

P = ParamSpec("P")
#: short names a profile may prefix a selector with to use another app's table (``sel("systemui:...")``)
OTHER_APPS = {"systemui": "com.android.systemui", "launcher": "com.google.android.apps.nexuslauncher",
              "framework": "android", "permissions": "com.google.android.permissioncontroller",
              "settings": "com.android.settings"}
R = TypeVar("R")


class _Collect:
    """A recorder that keeps the actions of one operation, chained to the driver's own recorder."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.actions: list[Action] = []

    def before(self, driver: Driver, action: Action) -> None:
        if self.inner is not None:
            self.inner.before(driver, action)

    def after(self, driver: Driver, action: Action) -> None:
        self.actions.append(action)
        if self.inner is not None:
            self.inner.after(driver, action)


def operation(fn: Callable[P, Any]) -> Callable[P, list[Action]]:
    """Decorate a profile method: it returns the actions it executed (nested operations included once)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> list[Action]:
        profile: AppProfile = args[0]  # type: ignore[assignment]
        driver = profile.driver
        collect = _Collect(driver.recorder)
        driver.recorder = collect
        try:
            fn(*args, **kwargs)
        except DeviceError as exc:
            raise DeviceError(f"{profile.name}.{fn.__name__}: {exc}") from exc
        finally:
            driver.recorder = collect.inner
        return collect.actions

    return run


#: a doctor row: () -> (ok, detail, fix)
DoctorCheck = Callable[[], tuple[bool, str, str]]


class SeedSection(abc.ABC):
    """One app's section of a base snapshot spec (``snapshots/*.yaml``): the key it is listed under (``songs``,
    ``notes``, ``events``), the model of one item, and how :func:`emukit.snapshots.build_snapshot` puts the
    items on a device (over adb, after the clean snapshot is loaded and the spec's files are pushed).
    ``device_files`` names the files the items become, when they are plain files (``emukit avd setup`` pushes
    them ahead of the first build, e.g. the songs a media scan must index)."""

    key: ClassVar[str] = ""
    item: ClassVar[type[BaseModel]]
    #: ``emukit avd setup`` pushes the items' ``device_files`` before it saves the clean snapshot (files a
    #: system indexer must have seen, e.g. songs for the MediaStore)
    provision: ClassVar[bool] = False

    @classmethod
    @abc.abstractmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        """Put ``items`` (instances of :attr:`item`) on the device."""

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        return {}


class AppProfile:
    """Base class: ``package`` and ``name`` pick the profile for a device; the installed build's table its
    selectors."""

    package: ClassVar[str] = ""
    name: ClassVar[str] = ""
    activity: ClassVar[str | None] = None
    #: the selector-table entry whose text is the app's launcher label (the manifest's label of its launcher
    #: activity, cited in the table): what GUI-CC's ``open_app`` names the app by; None: not in All Apps
    label_entry: ClassVar[str | None] = "launcher_icon"
    #: versionName suffixes of the builds this profile has been exercised against in emukit's own tests
    verified_builds: ClassVar[tuple[str, ...]] = ("-emukit-virtual",)
    #: the app's own SQLite database that milestone tasks' ``database`` checks query (an
    #: :class:`emukit.apps.dataspec.AppDatabase`; None: it has none)
    database: ClassVar[Any] = None
    #: the base snapshot spec section that seeds this app's data (None: it has none)
    seed: ClassVar[type[SeedSection] | None] = None
    #: ``first_run_screen()`` results that mean the app opened on its main screen (its first run is over)
    main_screens: ClassVar[tuple[str, ...]] = ()
    #: the structure fixtures of this app (``tests/fixtures/real/hierarchy/<name>/<screen>.yaml``) that
    #: :meth:`capture_screens` brings up; the capture tool (``tools/capture_real_fixtures.py``) walks them
    fixture_screens: ClassVar[tuple[str, ...]] = ()

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """How to bring up each of :attr:`fixture_screens` from anywhere on a device past the app's first run
        (the capture walk presses BACK after each)."""
        return {}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """Rows this app adds to ``emukit doctor`` after the generic ones (package, permissions, app-ops,
        first run); ``rooted``: whether the doctor's shell is root."""
        return []

    def __init__(self, driver: Driver, version: str = "", table: SelectorTable | None = None,
                 *, version_code: int | None = None, sdk: int | None = None) -> None:
        self.driver = driver
        self.version = version
        self.sdk = sdk
        self.table = table if table is not None else table_for(self.package, version_code=version_code, sdk=sdk)

    @property
    def verified(self) -> bool:
        """True when the installed build is one this profile was tested against; real apps: False."""
        return any(self.version.endswith(suffix) for suffix in self.verified_builds)

    def other_table(self, short: str) -> SelectorTable:
        """The table of another app on this device (``OTHER_APPS`` short name), for the installed build (read
        once per driver, :func:`emukit.apps.registry.device_table`)."""
        from emukit.apps.registry import device_table

        return device_table(self.driver, short)

    def sel(self, name: str, **fmt: Any) -> dict[str, Any]:
        """The driver selector fields of ``name`` in this build's table (``short:name``: another app's);
        ``{placeholders}`` in the table's values are filled from ``fmt``."""
        if ":" in name:
            short, _, rest = name.partition(":")
            return self.other_table(short).query(rest, **fmt)
        return self.table.query(name, **fmt)

    def rid(self, name: str) -> str:
        """The resource id of ``name`` in this build's table."""
        return self.table.rid(name)

    def keyboard_shown(self) -> bool:
        """Whether the soft keyboard shows: ``dumpsys input_method`` prints ``mInputShown=true`` (Android 14's
        ImeVisibilityStateComputer.dump)."""
        return "mInputShown=true" in self.driver.shell("dumpsys input_method").text

    # the framework's floating text toolbar over an EditText (every app's table has text_select_all,
    # text_copy and text_paste for it)
    def select_all_and_copy(self, field: Element) -> None:
        """Long-press ``field``, then the text toolbar's "Select all" and "Copy"."""
        self.driver.long_press(*field.center)
        self.driver.tap(**self.sel("text_select_all"))
        self.driver.tap(**self.sel("text_copy"))

    def show_paste_menu(self, field: Element) -> None:
        """Long-press ``field`` and wait for the text toolbar's "Paste": the query context of a paste, with
        nothing on screen that depends on what the clipboard holds."""
        self.driver.long_press(*field.center)
        self.driver.element(**self.sel("text_paste"))

    def paste_at(self, field: Element) -> None:
        """Long-press ``field``, then the text toolbar's "Paste" (at the caret)."""
        self.driver.long_press(*field.center)
        self.driver.tap(**self.sel("text_paste"))

    def switch_is_on(self, name: str) -> bool | None:
        """Whether the switch row titled by entry ``name`` (``sel`` syntax, another app's table allowed) is on;
        None when no such row shows. The state is read where either kind of settings page keeps it: on the
        titled node itself (a Compose row merges its switch's toggleable state into one node) or on a
        checkable view inside the nearest clickable ancestor (a SwitchPreference row's ``switch_widget``)."""
        import xml.etree.ElementTree as ET

        query = self.sel(name)
        root = ET.fromstring(self.driver.hierarchy())
        parents = {child: parent for parent in root.iter() for child in parent}
        for node in root.iter("node"):
            if "text" in query and node.get("text") != query["text"]:
                continue
            if "description" in query and node.get("content-desc") != query["description"]:
                continue
            row = node
            while row is not None and row.get("clickable") != "true":
                row = parents.get(row)
            for candidate in (node, *(row.iter("node") if row is not None else ())):
                if candidate.get("checkable") == "true":
                    return candidate.get("checked") == "true"
            return None
        return None

    def scroll_into_view(self, container: str, find: Callable[[], Element | None], max_swipes: int) -> None:
        """Swipe the scrolling view ``container`` (a table name) across its own bounds until ``find()`` gives an
        element wholly inside it: towards it when it shows cut off at the top or the bottom; while it is not in
        the dump at all, down for up to ``max_swipes`` swipes, then up for as many (it may be above the part
        shown). Gives up after that or without the container; a missing element is left to the tap that follows
        to report."""
        for direction in ("down", "up"):
            for _ in range(max_swipes):
                box = self.driver.find(**self.sel(container))
                if box is None:
                    return
                left, top, right, bottom = box.bounds
                found = find()
                if found is not None and top <= found.bounds[1] and found.bounds[3] <= bottom:
                    return
                x, span = (left + right) // 2, (bottom - top) * 3 // 5
                above = found.bounds[1] < top if found is not None else direction == "up"
                if above:  # bring the content down
                    self.driver.swipe(x, top + span // 3, x, top + span // 3 + span, 400)
                else:
                    self.driver.swipe(x, bottom - span // 3, x, bottom - span // 3 - span, 400)

    @classmethod
    def query_rows(cls, driver: Driver, sql: str) -> Any:
        """Rows of one read-only ``sql`` on a host copy of the app's database (a
        :class:`emukit.apps.dataspec.DbReading`; its ``reason`` says why there are none when the app never created
        it). ConfigError when the app declares no database."""
        if cls.database is None:
            raise ConfigError(f"app {cls.name!r} has no database to query (apps with one: "
                              f"{', '.join(n for n in APP_PROFILES.names() if APP_PROFILES[n].database is not None)})")
        return cls.database.read(driver, sql)

    @operation
    def launch(self, *, fresh: bool = False) -> None:
        """Bring the app to the foreground (``fresh``: force-stop first)."""
        self.driver.start_app(self.package, self.activity, stop_first=fresh)
        self.driver.wait_stable()

    @operation
    def seed_items(self, items: list[dict[str, Any]]) -> None:
        """Write ``items`` onto the device as this app's section of a base snapshot spec writes them (the same
        :attr:`seed` and item model: database rows written with the app stopped, files pushed, ...): a setup step
        for data that varies per pair, which no model sees being made."""
        if self.seed is None:
            raise ConfigError(f"{self.name}.seed_items: the app has no seed section to write items with")
        try:
            models = [self.seed.item.model_validate(item) for item in items]
        except ValidationError as exc:
            raise ConfigError(f"{self.name}.seed_items: {exc}") from None
        self.seed.apply(self.driver, models)


#: every app profile by name (``emukit.app_profiles`` entry points add outside ones)
APP_PROFILES: Registry[type[AppProfile]] = Registry("app profile", "emukit.apps", "emukit.app_profiles")


def register_app(cls: type[AppProfile]) -> type[AppProfile]:
    """Class decorator: register a profile under its ``name`` (which, like ``package``, it must set)."""
    if not cls.name or not cls.package:
        raise TypeError(f"{cls.__qualname__}: an app profile sets name and package before it is registered")
    return APP_PROFILES.register(cls.name)(cls)
