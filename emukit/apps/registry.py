"""Which profile drives which installed app: by package, with the selector table of the installed build
(versionCode; apps shipped in the system image by the API level). The profiles are those registered in
:data:`emukit.apps.base.APP_PROFILES`."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

from emukit.actions import Action
from emukit.apps.base import APP_PROFILES, OTHER_APPS, AppProfile
from emukit.apps.selectors import SelectorTable, table_for
from emukit.device import facts
from emukit.device.driver import Driver
from emukit.errors import ConfigError, DeviceError



def all_profiles() -> list[type[AppProfile]]:
    """Every registered profile class, by name."""
    return [APP_PROFILES[name] for name in APP_PROFILES.names()]


def profile_class(name: str) -> type[AppProfile]:
    """The registered profile called ``name``; KeyError naming the known ones otherwise."""
    if name not in APP_PROFILES:
        raise KeyError(f"no app profile named {name!r} (known: {', '.join(APP_PROFILES.names())})")
    return APP_PROFILES[name]


def installed_version(driver: Driver, package: str) -> str | None:
    """The installed versionName of ``package`` (``dumpsys package``), or None when not installed."""
    return installed_build(driver, package)[0]


def installed_build(driver: Driver, package: str) -> tuple[str | None, int | None]:
    """(versionName, versionCode) of the installed ``package`` from ``dumpsys package``; (None, None) when it
    is not installed."""
    build = facts.installed_build(driver, package)
    return build.version_name, build.version_code


def device_sdk(driver: Driver) -> int | None:
    """The device's API level (``ro.build.version.sdk``)."""
    out = driver.shell("getprop ro.build.version.sdk").text.strip()
    return int(out) if out.isdigit() else None


def profile_for(driver: Driver, name: str) -> AppProfile:
    """The profile called ``name`` (one registered in :data:`APP_PROFILES`: files, notes, music, clock,
    settings, launcher, calendar, ...) with the selector table of the installed build."""
    cls = profile_class(name)
    package = cls.package
    version, code = installed_build(driver, package)
    if version is None:
        raise DeviceError(f"{driver.serial}: {package} is not installed")
    sdk = device_sdk(driver)
    try:
        table = table_for(package, version_code=code, sdk=sdk)
    except ConfigError as exc:
        raise DeviceError(f"{driver.serial}: {package} {version}: {exc}") from None
    return cls(driver, version, table, version_code=code, sdk=sdk)


def package_of(app: str) -> str:
    """The package of an app named as templates and move tables name it: a profile name (``clock``) or a
    short name of another app's table (``systemui``)."""
    for cls in all_profiles():
        if cls.name == app:
            return cls.package
    if app in OTHER_APPS:
        return OTHER_APPS[app]
    known = sorted({c.name for c in all_profiles()} | set(OTHER_APPS))
    raise ConfigError(f"unknown app {app!r} in a table selector (known: {', '.join(known)})")


_TABLES: weakref.WeakKeyDictionary[Driver, dict[str, SelectorTable]] = weakref.WeakKeyDictionary()


def device_table(driver: Driver, app: str) -> SelectorTable:
    """The selector table of ``app``'s installed build on ``driver`` (read once per driver)."""
    tables = _TABLES.setdefault(driver, {})
    if app not in tables:
        package = package_of(app)
        _name, code = installed_build(driver, package)
        try:
            tables[app] = table_for(package, version_code=code, sdk=device_sdk(driver))
        except ConfigError as exc:
            raise DeviceError(f"{driver.serial}: {exc}") from None
    return tables[app]


def resolve_query(driver: Driver, query: dict[str, Any]) -> dict[str, Any]:
    """A raw step's selector with a table reference resolved: ``{"sel": "clock:timer_add"}`` becomes the
    table entry's driver fields for the device's build; other fields (``text``, ``instance``...) are kept and
    ``fmt`` fills the entry's ``{placeholders}``. A query without ``sel`` is returned as it is."""
    if "sel" not in query:
        return query
    rest = dict(query)
    ref = str(rest.pop("sel"))
    fmt = rest.pop("fmt", None) or {}
    app, sep, name = ref.partition(":")
    if not sep or not name:
        raise ConfigError(f"table selector {ref!r} is not <app>:<name> (e.g. clock:timer_add)")
    fields = device_table(driver, app).query(name, **fmt)
    clash = set(fields) & set(rest)
    if clash:
        raise ConfigError(f"table selector {ref!r} already sets {', '.join(sorted(clash))}")
    return {**fields, **rest}


def _launcher_label_entries() -> Iterator[tuple[type[AppProfile], str]]:
    """(profile, launcher label) for every selector table with a launcher-label entry
    (:attr:`AppProfile.label_entry`: the manifest's label of the launcher activity, cited in the table)."""
    from emukit.apps.selectors import all_tables

    labelled = {cls.package: cls for cls in all_profiles() if cls.label_entry is not None}
    for table in all_tables():
        cls = labelled.get(table.package)
        if cls is not None and cls.label_entry in table.selectors:
            yield cls, table.text(cls.label_entry)  # type: ignore[arg-type]


def label_candidates(label: str) -> list[type[AppProfile]]:
    """The profiles with a selector table whose launcher label is ``label`` (from the tables alone, no device)."""
    return list(dict.fromkeys(cls for cls, text in _launcher_label_entries() if text == label))


def launcher_labels() -> dict[str, str]:
    """Every launcher label the selector tables know, to its package."""
    out: dict[str, str] = {}
    for cls, text in _launcher_label_entries():
        out.setdefault(text, cls.package)
    return out


def package_for_label(driver: Driver, label: str) -> str:
    """The package of the app whose launcher icon on this device reads ``label`` (GUI-CC's ``open_app`` names an
    app by its label, as a person reads it in All Apps): the app whose installed build's table gives that label.
    ConfigError naming the known labels when no table has it; DeviceError when its app is not installed."""
    candidates = label_candidates(label)
    if not candidates:
        raise ConfigError(f"open_app: no app has the launcher label {label!r} (known: "
                          f"{', '.join(sorted(launcher_labels()))})")
    for cls in candidates:
        if installed_build(driver, cls.package)[0] is None:
            continue
        table = device_table(driver, cls.name)
        if cls.label_entry in table.selectors and table.text(cls.label_entry) == label:  # type: ignore[arg-type]
            return cls.package
    raise DeviceError(f"{driver.serial}: open_app {label!r}: "
                      f"{', '.join(c.package for c in candidates)} not installed (or its build has another label)")


def open_app(driver: Driver, label: str) -> Action:
    """GUI-CC's ``open_app`` action on ``driver``: one recorded action (:meth:`Driver.open_app`, returned), then
    the UI settles."""
    done = driver.open_app(package_for_label(driver, label), label)
    driver.wait_stable()
    return done


def check_ref(ref: str) -> None:
    """ConfigError unless ``app:name`` names an entry of every selector table of that app (a template or move
    table is checked before any device runs it)."""
    from emukit.apps.selectors import tables_of

    app, sep, name = str(ref).partition(":")
    if not sep or not name:
        raise ConfigError(f"table selector {ref!r} is not <app>:<name> (e.g. clock:timer_add)")
    tables = tables_of(package_of(app))
    if not tables:
        raise ConfigError(f"table selector {ref!r}: no selector table for {package_of(app)}")
    for t in tables:
        if name not in t.selectors:
            raise ConfigError(f"table selector {ref!r}: {t.path} has no entry {name!r}")
