"""Selector tables: what each semantic name a profile uses is in one real build of an app, with its evidence.

One YAML file per app build, ``emukit/apps/tables/<package>/<key>.yaml``. A table names the build it was read
from (``build.version_code`` for an app installed from an APK; ``build.image`` for an app shipped in the
system image, matched by the device's API level), the source repositories at pinned commits (``repos``) and,
for every semantic name, the selector (resource id, text, content-desc, class) and where the real app defines
it::

    package: net.gsantner.markor
    build: {version_code: 146, version_name: "2.10.9"}
    repos:
      markor: {repo: gsantner/markor, commit: ab2175460680eb4a914b6006b9c962756b2067d2}
    selectors:
      editor:
        resource_id: net.gsantner.markor:id/document__fragment__edit__highlighting_editor
        class: android.widget.EditText
        source: markor:app/src/main/res/layout/document__fragment__edit.xml:27

A build installed from an APK also says which file it is installed from, in ``apk:`` (:class:`Apk`): the file
name, where it is published, its sha256 where one is published, the runtime permissions and app-ops
``emukit avd setup`` grants, and the digest of emukit's stand-in for it. These are the provisioning pins
(:mod:`emukit.provision.apks` reads them here, so a new app brings its own).

Tables are found under ``emukit/apps/tables/`` and under every folder an outside package names with an entry
point in the ``emukit.app_tables`` group (the entry point names a package; its folder holds
``<package>/<key>.yaml`` like this one).

Where the real app gives a view no id (React Native without a ``testID``, Compose, web content), an entry selects
by text, content-desc and class, and by structure:

* ``within: <entry>``: the element lies inside (is a descendant of) the element another entry of the same table
  selects; the driver sends it as a uiautomator child selector (``UiSelector.childSelector``, which searches the
  descendants of the nodes matched so far), so the device resolves it in one call. Chains are allowed
  (``within`` an entry that is itself ``within`` another), cycles are refused at load;
* ``instance: N``: the N-th (from 0) element matching the other fields, in the dump's document order
  (``UiSelector.instance``); with ``within`` it counts inside the container.

For example Joplin's note body editor, an ``EditText`` with no id inside the view whose ``testID`` is
``note-editor-root``, and the first word of Chrome's page, the first ``TextView`` inside the root web area::

      body_editor: {class: android.widget.EditText, within: editor_root, source: ...}
      page_first_text: {class: android.widget.TextView, within: web_root, instance: 0, source: ...}

``source`` is ``<repo alias>:<path>[:<line>]`` (or a list of them); an entry that no public source can confirm
(the closed-source Google Clock) gives ``capture:`` instead, saying what a dump of the pinned build must show.
An entry with neither does not load.

Profiles select only through :meth:`SelectorTable.query` (``AppProfile.sel``), and the virtual apps draw
their ids, strings and classes from the same tables (:func:`table`), so a selector that only the virtual
device knows cannot exist. ``tools/selector_coverage.py`` prints how many entries have a source.
"""

from __future__ import annotations

import functools
import importlib
import re
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emukit.errors import ConfigError
from emukit.yamlmodel import load_yaml_model

TABLES_DIR = Path(__file__).parent / "tables"
TABLES_GROUP = "emukit.app_tables"
_KEY_RE = re.compile(r"^(\d+|api\d+)$")
_SOURCE_RE = re.compile(r"^(?P<alias>[A-Za-z0-9_.-]+):(?P<path>[^:]+?)(?::(?P<line>\d+(?:-\d+)?))?$")
#: table field -> uiautomator2 UiSelector field
QUERY_FIELDS = {"resource_id": "resourceId", "text": "text", "description": "description",
                "description_starts_with": "descriptionStartsWith", "text_starts_with": "textStartsWith",
                "class_name": "className"}


class Repo(BaseModel):
    """A public repository at the commit its facts were read from."""

    model_config = ConfigDict(extra="forbid")

    repo: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    ref: str | None = None  # branch or tag the commit was taken from, for people reading the table


class Build(BaseModel):
    """The build a table describes."""

    model_config = ConfigDict(extra="forbid")

    version_code: int | None = None  # an APK build (third-party apps)
    version_name: str | None = None
    image: str | None = None  # an app shipped in this system image, e.g. system-images;android-34;google_apis;x86_64
    sdk: int | None = None  # the image's API level (``getprop ro.build.version.sdk``)
    capture: str | None = None  # what only a capture of the device can confirm about the build itself

    @model_validator(mode="after")
    def _one_key(self) -> Build:
        if (self.version_code is None) == (self.sdk is None):
            raise ValueError("give version_code (an APK build) or image + sdk (an app shipped in the image)")
        if self.sdk is not None and not self.image:
            raise ValueError("an image app's build names its image")
        return self


class Apk(BaseModel):
    """The APK file a downloaded build is installed from (the provisioning pin of that build)."""

    model_config = ConfigDict(extra="forbid")

    file: str
    url: str
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")  # None: no digest is published for the file
    permissions: list[str] = Field(default_factory=list)  # runtime permissions granted at setup
    app_ops: list[str] = Field(default_factory=list)  # app-ops set to allow at setup
    #: sha256 of emukit's deterministic stand-in APK for this build (emukit.provision.standin), which only the
    #: hardware-like virtual device accepts
    standin_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")


class Entry(BaseModel):
    """One semantic name: its selector fields and the evidence for them."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    resource_id: str | None = None
    text: str | None = None
    description: str | None = None
    description_starts_with: str | None = None
    text_starts_with: str | None = None
    class_name: str | None = Field(None, alias="class")
    #: structure: the name of the entry whose element contains this one, and which match to take (from 0)
    within: str | None = None
    instance: int | None = Field(None, ge=0)
    source: list[str] = Field(default_factory=list)
    capture: str | None = None
    note: str | None = None
    #: what tapping this control does to the clipboard: ``copy`` / ``cut`` (sets the primary clip), ``paste``
    #: (reads it), ``none`` (a look-alike that leaves it alone: a "Copy" that duplicates an item or copies a
    #: file, a "Share"); unset for controls that have nothing to do with it. State estimators read it
    #: (:mod:`emukit.apps.clipboard_roles`) so an app's own "copy" command is not taken for a clipboard copy.
    clipboard: Literal["copy", "cut", "paste", "none"] | None = None

    @field_validator("source", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _evidence(self) -> Entry:
        if not any(getattr(self, f) for f in QUERY_FIELDS):
            raise ValueError("an entry needs at least one of resource_id, text, description, "
                             "description_starts_with, text_starts_with, class")
        if not self.source and not self.capture:
            raise ValueError("an entry needs its evidence: source (repo:path[:line]) or capture (what a device "
                             "dump must confirm)")
        for ref in self.source:
            if not _SOURCE_RE.match(ref):
                raise ValueError(f"source {ref!r} is not <repo alias>:<path>[:<line>]")
        return self

    def query(self, **fmt: Any) -> dict[str, Any]:
        """The uiautomator2 selector fields, ``{placeholders}`` filled from ``fmt``."""
        out: dict[str, Any] = {}
        for field, key in QUERY_FIELDS.items():
            value = getattr(self, field)
            if value is not None:
                out[key] = value.format(**fmt) if fmt else value
        if self.instance is not None:
            out["instance"] = self.instance
        return out


class SelectorTable(BaseModel):
    """Every selector one build of one app is driven through."""

    model_config = ConfigDict(extra="forbid")

    package: str
    app: str
    build: Build
    repos: dict[str, Repo] = Field(default_factory=dict)
    apk: Apk | None = None  # an APK build's file (None: an app shipped in the image)
    selectors: dict[str, Entry]
    path: Path | None = None  # where it was loaded from

    @model_validator(mode="after")
    def _aliases(self) -> SelectorTable:
        if self.apk is not None and self.build.version_code is None:
            raise ValueError("apk: only a build installed from an APK (build.version_code) names its file")
        for name, entry in self.selectors.items():
            for ref in entry.source:
                alias = ref.split(":", 1)[0]
                if alias not in self.repos:
                    raise ValueError(f"selectors.{name}: source {ref!r} names repo {alias!r}, which repos does "
                                     f"not list ({', '.join(sorted(self.repos)) or 'none'})")
        for name in self.selectors:
            seen = [name]
            outer = self.selectors[name].within
            while outer is not None:
                if outer not in self.selectors:
                    raise ValueError(f"selectors.{seen[-1]}: within {outer!r} names no entry of this table")
                if outer in seen:
                    raise ValueError(f"selectors.{name}: within makes a cycle ({' -> '.join([*seen, outer])})")
                seen.append(outer)
                outer = self.selectors[outer].within
        return self

    @property
    def key(self) -> str:
        return str(self.build.version_code) if self.build.version_code is not None else f"api{self.build.sdk}"

    def entry(self, name: str) -> Entry:
        try:
            return self.selectors[name]
        except KeyError:
            raise KeyError(f"{self.path or self.package}: no selector named {name!r}") from None

    def query(self, name: str, **fmt: Any) -> dict[str, Any]:
        """The driver selector for ``name`` (``{placeholders}`` in its values filled from ``fmt``); an entry
        ``within`` another carries that entry's selector under ``within`` (the driver turns it into a child
        selector)."""
        entry = self.entry(name)
        out = entry.query(**fmt)
        if entry.within is not None:
            out["within"] = self.query(entry.within, **fmt)
        return out

    def rid(self, name: str) -> str:
        """The resource id of ``name`` (ConfigError when that entry has none)."""
        value = self.entry(name).resource_id
        if value is None:
            raise ConfigError(f"{self.path}: selector {name!r} has no resource_id")
        return value

    def text(self, name: str, **fmt: Any) -> str:
        """The text (else the content-desc) of ``name``."""
        entry = self.entry(name)
        value = entry.text if entry.text is not None else entry.description
        if value is None:
            raise ConfigError(f"{self.path}: selector {name!r} has neither text nor description")
        return value.format(**fmt) if fmt else value

    def desc(self, name: str, **fmt: Any) -> str:
        """The content-desc of ``name``."""
        value = self.entry(name).description
        if value is None:
            raise ConfigError(f"{self.path}: selector {name!r} has no description")
        return value.format(**fmt) if fmt else value

    def cls(self, name: str) -> str:
        value = self.entry(name).class_name
        if value is None:
            raise ConfigError(f"{self.path}: selector {name!r} has no class")
        return value

    def evidence(self, name: str) -> list[str]:
        """``repo@commit:path[:line]`` for each source of ``name`` (``capture: ...`` when it has none)."""
        entry = self.entry(name)
        out = []
        for ref in entry.source:
            alias, rest = ref.split(":", 1)
            repo = self.repos[alias]
            out.append(f"{repo.repo}@{repo.commit[:12]}:{rest}")
        return out or [f"capture: {entry.capture}"]


@functools.cache
def table_dirs() -> tuple[Path, ...]:
    """Where tables are looked for: emukit's own folder, then each ``emukit.app_tables`` entry point's."""
    dirs = [TABLES_DIR]
    for ep in entry_points(group=TABLES_GROUP):
        try:
            module = importlib.import_module(ep.value.split(":")[0])
        except Exception as exc:  # an outside plugin that fails to import is named
            raise ConfigError(f"selector tables {ep.name} = {ep.value} (entry point group {TABLES_GROUP}) cannot "
                              f"be imported: {type(exc).__name__}: {exc}") from exc
        folders = list(getattr(module, "__path__", None) or [Path(str(module.__file__)).parent])
        dirs += [Path(f) for f in folders if Path(f) not in dirs]
    return tuple(dirs)


def table_files() -> list[Path]:
    """Every table file (``<package>/<versionCode or apiNN>.yaml``) of every table folder."""
    return sorted((p for d in table_dirs() for p in d.glob("*/*.yaml") if _KEY_RE.match(p.stem)),
                  key=lambda p: (p.parent.name, p.stem, str(p)))


@functools.cache
def load_table(path: Path) -> SelectorTable:
    table_ = load_yaml_model(path, SelectorTable, "a selector table")
    table_.path = path
    if table_.package != path.parent.name:
        raise ConfigError(f"{path}: package {table_.package!r} must match its folder {path.parent.name!r}")
    if table_.key != path.stem:
        raise ConfigError(f"{path}: a table of build {table_.key} must be called {table_.key}.yaml")
    return table_


def all_tables() -> list[SelectorTable]:
    return [load_table(p) for p in table_files()]


def tables_of(package: str) -> list[SelectorTable]:
    return [t for t in all_tables() if t.package == package]


def table_for(package: str, *, version_code: int | None, sdk: int | None) -> SelectorTable:
    """The table of the installed build: by versionCode, else (apps shipped in the image) by API level."""
    tables = tables_of(package)
    for t in tables:
        if version_code is not None and t.build.version_code == version_code:
            return t
    for t in tables:
        if sdk is not None and t.build.sdk == sdk:
            return t
    known = ", ".join(f"versionCode {t.build.version_code}" if t.build.version_code is not None
                      else f"API {t.build.sdk} ({t.build.image})" for t in tables) or "none"
    where = ", ".join(str(d / package) for d in table_dirs())
    raise ConfigError(f"no selector table for {package} versionCode {version_code} on API {sdk} "
                      f"(tables under {where}: {known}); a new build needs its own table")


def table(package: str) -> SelectorTable:
    """The pinned table of ``package`` (the only one there is); the virtual apps are drawn from it."""
    tables = tables_of(package)
    if len(tables) != 1:
        raise ConfigError(f"{package}: expected one pinned selector table, found {len(tables)} under "
                          f"{TABLES_DIR / package}")
    return tables[0]
