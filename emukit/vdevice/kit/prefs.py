"""Android SharedPreferences files: the XML that ``SharedPreferencesImpl`` reads and writes.

A preferences file is a ``<map>`` of typed entries (``int``, ``long``, ``float``, ``boolean``, ``string``
and ``set`` of strings). :class:`Prefs` keeps each value with its type so a file written by the app, by a
probe or by a driver round-trips unchanged. Files are written atomically (temporary file, then rename),
keys in sorted order so the bytes are deterministic, with the logical wall clock as modification time.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from functools import lru_cache
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

Value = int | float | bool | str | list[str]
HEADER = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>"
_ATTR_ESCAPES = {'"': "&quot;"}


class Prefs:
    """Typed key/value entries of one SharedPreferences file (``tag`` is the XML element name)."""

    def __init__(self, entries: dict[str, tuple[str, Value]] | None = None) -> None:
        self.entries: dict[str, tuple[str, Value]] = dict(entries or {})

    # ------------------------------------------------------------------ typed access
    def get_int(self, key: str, default: int = 0) -> int:
        entry = self.entries.get(key)
        if entry is None or entry[0] not in ("int", "long"):
            return default
        return int(entry[1])  # type: ignore[arg-type]

    def get_str(self, key: str, default: str = "") -> str:
        entry = self.entries.get(key)
        return str(entry[1]) if entry is not None and entry[0] == "string" else default

    def get_bool(self, key: str, default: bool = False) -> bool:
        entry = self.entries.get(key)
        return bool(entry[1]) if entry is not None and entry[0] == "boolean" else default

    def get_set(self, key: str) -> list[str]:
        entry = self.entries.get(key)
        return list(entry[1]) if entry is not None and entry[0] == "set" else []  # type: ignore[arg-type]

    def put(self, key: str, tag: str, value: Value) -> None:
        self.entries[key] = (tag, value)

    def put_int(self, key: str, value: int) -> None:
        self.put(key, "int", int(value))

    def put_long(self, key: str, value: int) -> None:
        self.put(key, "long", int(value))

    def put_str(self, key: str, value: str) -> None:
        self.put(key, "string", value)

    def put_bool(self, key: str, value: bool) -> None:
        self.put(key, "boolean", bool(value))

    def put_set(self, key: str, values: list[str]) -> None:
        self.put(key, "set", sorted(set(values), key=lambda s: (len(s), s)))

    def remove(self, *keys: str) -> None:
        for key in keys:
            self.entries.pop(key, None)

    # ------------------------------------------------------------------ XML
    @classmethod
    def parse(cls, data: bytes) -> Prefs:
        """Entries of a preferences file; an unreadable file counts as empty (Android starts over too).

        The same bytes are parsed once: the status bar reads the Clock's file on every frame. Each call gets
        its own entries (set values are copied), so a change to one result never reaches another."""
        return cls({k: (tag, list(v) if isinstance(v, list) else v)
                    for k, (tag, v) in _parse_entries(data).items()})

    def to_xml(self) -> str:
        """The file as ``XmlUtils.writeMapXml`` lays it out (4-space indent, one entry per line)."""
        lines = [HEADER, "<map>"]
        for key in sorted(self.entries):
            tag, value = self.entries[key]
            name = escape(key, _ATTR_ESCAPES)
            if tag == "string":
                lines.append(f'    <string name="{name}">{escape(str(value))}</string>')
            elif tag == "set":
                items = list(value)  # type: ignore[arg-type]
                if not items:
                    lines.append(f'    <set name="{name}" />')
                    continue
                lines.append(f'    <set name="{name}">')
                lines.extend(f"        <string>{escape(item)}</string>" for item in items)
                lines.append("    </set>")
            elif tag == "boolean":
                lines.append(f'    <boolean name="{name}" value="{"true" if value else "false"}" />')
            else:
                lines.append(f'    <{tag} name="{name}" value="{value}" />')
        lines.append("</map>")
        return "\n".join(lines) + "\n"


@lru_cache(maxsize=64)
def _parse_entries(data: bytes) -> dict[str, tuple[str, Value]]:
    """The typed entries in ``data`` (callers copy the result, which the cache shares)."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return {}
    entries: dict[str, tuple[str, Value]] = {}
    for node in root:
        name = node.get("name")
        if name is None:
            continue
        tag = node.tag
        try:
            if tag in ("int", "long"):
                entries[name] = (tag, int(node.get("value", "0")))
            elif tag == "float":
                entries[name] = (tag, float(node.get("value", "0")))
            elif tag == "boolean":
                entries[name] = (tag, node.get("value", "false") == "true")
            elif tag == "string":
                entries[name] = (tag, node.text or "")
            elif tag == "set":
                entries[name] = (tag, [child.text or "" for child in node if child.tag == "string"])
        except ValueError:
            continue
    return entries


def load(device: VirtualDevice, path: str) -> Prefs:
    """Read a preferences file from the device filesystem (missing file: no entries)."""
    try:
        return Prefs.parse(device.fs.read_bytes(path))
    except OSError:
        return Prefs()


def save(device: VirtualDevice, path: str, prefs: Prefs) -> None:
    """Write the file atomically (``rename`` over the old one), as ``SharedPreferences.commit`` does."""
    folder = path.rsplit("/", 1)[0]
    device.fs.makedirs(folder)
    host = device.fs.host(path)
    tmp = host.with_name(host.name + ".tmp")
    tmp.write_bytes(prefs.to_xml().encode())
    os.chmod(tmp, 0o660)
    when = device.wall_ms() // 1000  # the wall clock now (it runs in hardware mode)
    os.utime(tmp, (when, when))
    os.replace(tmp, host)
