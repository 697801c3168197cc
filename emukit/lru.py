"""A least-recently-used map bounded twice: by entries and by the bytes its values hold.

The virtual device keeps several caches of screen data (encoded screenshots, compressed PNG bands, rendered
masks) whose values range from a few hundred bytes to megabytes; a bound on entries alone lets such a cache
grow with the screens a long build happens to show. Every cache of that kind is a :class:`SizedLRU` with
both bounds, so a device's memory is the sum of fixed budgets however long it runs
(``tests/vdevice/test_memory_bounds.py`` checks each one). Each cache has a name, and :func:`live_caches` lists
the process's caches, so a long run can report what each holds (``tools/bench_memory.py --caches``).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


_LIVE: weakref.WeakSet[SizedLRU] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


def live_caches() -> list[SizedLRU]:
    """The process's caches still in use, by name."""
    with _LIVE_LOCK:
        caches = list(_LIVE)
    return sorted(caches, key=lambda cache: cache.name)


class SizedLRU(Generic[K, V]):
    """At most ``max_entries`` values holding at most ``max_bytes`` together (``size_of(value)``, default
    ``len``); the least recently used go first. A value larger than ``max_bytes`` on its own is not kept.
    Thread-safe; ``hits`` and ``misses`` count :meth:`get`; ``name`` says what it holds in reports."""

    def __init__(self, max_entries: int, max_bytes: int, size_of: Callable[[V], int] = len,  # type: ignore[assignment]
                 name: str = "") -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError(f"SizedLRU bounds must be positive, got {max_entries} entries, {max_bytes} bytes")
        self.name = name or type(self).__name__
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._size_of = size_of
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0
        with _LIVE_LOCK:
            _LIVE.add(self)

    def get(self, key: K) -> V | None:
        """The value under ``key`` (now the most recently used), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[0]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used until both bounds hold."""
        size = self._size_of(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            if size > self.max_bytes:
                return
            self._items[key] = (value, size)
            self.nbytes += size
            while len(self._items) > self.max_entries or self.nbytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.nbytes -= dropped

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0


def sized_cache(max_entries: int, max_bytes: int, size_of: Callable[[V], int] = len  # type: ignore[assignment]
                ) -> Callable[[Callable[..., V]], Callable[..., V]]:
    """``functools.lru_cache`` for functions of hashable positional arguments whose results vary in size
    (images, masks): a :class:`SizedLRU` with both bounds, reachable as the wrapper's ``cache``."""

    def wrap(fn: Callable[..., V]) -> Callable[..., V]:
        cache: SizedLRU[tuple, V] = SizedLRU(max_entries, max_bytes, size_of, f"{fn.__module__}.{fn.__qualname__}")

        @functools.wraps(fn)
        def cached(*args: Hashable) -> V:
            value = cache.get(args)
            if value is None:
                value = fn(*args)
                cache.put(args, value)
            return value

        cached.cache = cache  # type: ignore[attr-defined]
        return cached

    return wrap


def image_bytes(image: object) -> int:
    """Bytes a Pillow image's pixels take (4 per pixel for RGB/RGBA, 1 for L and P; ``image.size``)."""
    width, height = image.size  # type: ignore[attr-defined]
    return width * height * (1 if image.mode in ("1", "L", "P") else 4)  # type: ignore[attr-defined]
