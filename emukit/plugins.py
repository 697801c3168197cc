"""Registries of the things users add: world-model formats, model adapters, export formats, trajectory
readers, evaluation metrics and judge rubrics. Adding one is one new file:

* inside emukit, a module in the registry's package (``emukit/wm/formats/``, ``emukit/evaluate/adapters/``,
  ``emukit/exporters/``, ``emukit/evaluate/trajectories/``, ``emukit/evaluate/metric_defs/``,
  ``emukit/evaluate/judge/``) that registers itself with the registry's decorator; every module of the package
  is imported the first time the registry is read;
* outside emukit, a module of your own package named by an entry point in the registry's group
  (``emukit.wm_formats``, ``emukit.model_adapters``, ``emukit.export_formats``, ``emukit.trajectory_formats``,
  ``emukit.metrics``, ``emukit.judge_rubrics``); it is imported the same way, so its decorator registers it.

Nothing else is edited: the CLI's choices, the builder's request hashes and the exporter read the registry.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from emukit.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind, filled by :meth:`register` as their modules are imported.

    ``package``: the emukit package whose modules are imported on first use (its ``__init__`` must not import
    this registry's reader back); ``group``: the entry-point group naming outside modules."""

    def __init__(self, kind: str, package: str, group: str) -> None:
        self.kind = kind
        self.package = package
        self.group = group
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._lock = threading.RLock()

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@REGISTRY.register("gworld")`` on a class or function registers it under ``name``;
        a second entry under a name already taken by another object is an error naming both."""

        def deco(obj: T) -> T:
            with self._lock:
                old = self._entries.get(name)
                if old is not None and old is not obj and _qualname(old) != _qualname(obj):
                    raise ConfigError(f"{self.kind} {name!r} is registered twice: {_qualname(old)} and "
                                      f"{_qualname(obj)}")
                self._entries[name] = obj
            return obj

        return deco

    def load(self) -> None:
        """Import every module of the package and every entry point of the group, once."""
        with self._lock:
            if self._loaded:
                return
            self._loaded = True  # set first: a module that reads the registry while it is imported sees it
            package = importlib.import_module(self.package)
            for info in pkgutil.iter_modules(package.__path__):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{self.package}.{info.name}")
            for ep in entry_points(group=self.group):
                try:
                    ep.load()
                except Exception as exc:  # noqa: BLE001 - an outside plugin that fails to import is named
                    raise ConfigError(f"{self.kind} plugin {ep.name} = {ep.value} (entry point group "
                                      f"{self.group}) cannot be imported: {type(exc).__name__}: {exc}") from exc

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self.load()
        return sorted(self._entries)

    def get(self, name: str) -> T:
        """The entry called ``name``; ConfigError naming the known ones otherwise."""
        self.load()
        try:
            return self._entries[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._entries))}") from None

    # read-only mapping: ``name in R``, ``R[name]``, ``sorted(R)``, ``len(R)``
    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._entries

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self.load()
        return len(self._entries)


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"
