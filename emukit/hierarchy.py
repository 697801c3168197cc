"""Reading a uiautomator hierarchy dump: node bounds and every node as an :class:`~emukit.actions.Element`.
Ground floor: the driver, the probes, the audits and the evaluator read hierarchies the same way."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from emukit.actions import Element

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def parse_bounds(text: str) -> tuple[int, int, int, int]:
    m = _BOUNDS_RE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad bounds {text!r}")
    return tuple(int(v) for v in m.groups())  # type: ignore[return-value]


def elements_of(xml: str) -> list[Element]:
    """Every node of a hierarchy dump as an Element (document order)."""
    root = ET.fromstring(xml)
    return [Element(text=n.get("text", ""), resource_id=n.get("resource-id", ""),
                    content_desc=n.get("content-desc", ""), cls=n.get("class", ""),
                    bounds=parse_bounds(n.get("bounds", "[0,0][0,0]"))) for n in root.iter("node")]
