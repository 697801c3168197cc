"""Baseline rules of Ordered Collection: "Add to playlist" / "Add to playing queue" on a song appends the
song (the title on the row whose menu was opened) to the chosen collection; drags on a visible list move the
dragged row; the last visible listing of the tracked playlist, when one was shown, is taken as the starting
point."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from emukit.actions import Action
from emukit.apps.music import PACKAGE as MUSIC
from emukit.apps.music import list_titles
from emukit.apps.selectors import table
from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import label, norm, row_text_at
from emukit.evaluate.estimator import HistoryStep, visible_nodes


def listing_of(xml: str, playlist: str) -> list[str] | None:
    """The row titles of a playlist detail screen titled ``playlist`` (None when another screen shows): Retro
    Music's detail header names the playlist (``playlist_header_title``) above the list of its rows."""
    music = table(MUSIC)
    try:
        lists = [n for n in ET.fromstring(xml).iter("node")
                 if n.get("resource-id") == music.rid("playlist_detail_list")]
    except ET.ParseError:
        return None
    if not lists:
        return None
    box = _bounds(lists[0].get("bounds", ""))
    nodes = visible_nodes(xml)
    heads = [n for n in nodes if n.text == playlist and n.resource_id == music.rid("playlist_header_title")
             and n.bounds[3] <= box[1]]
    if not heads:
        return None
    return list_titles(xml, music)


def _bounds(text: str) -> tuple[int, int, int, int]:
    nums = [int(v) for v in re.findall(r"-?\d+", text)]
    return (nums[0], nums[1], nums[2], nums[3]) if len(nums) == 4 else (0, 0, 0, 0)


def is_row_menu(action: Action) -> bool:
    """A tap on a list row's menu button (Retro's ``menu``, an icon without text; older builds said "More
    options")."""
    el = action.element
    menu = table(MUSIC).rid("row_menu")
    # an exported pair describes the element as ``ImageView #menu``: the id's last part only
    return action.type == "tap" and el is not None and (
        el.resource_id in (menu, menu.rsplit("/", 1)[-1]) or norm(label(action)) == "more options")


@BASELINE_RULES.register("ordered")
def ordered(history: Sequence[HistoryStep], final_xml: str, task: Mapping[str, Any]) -> dict[str, Any]:
    """``collection_type`` / ``ordered_items`` of the task's collection (``playlist``, ``collection_type``;
    the playing queue without them)."""
    playlist = task.get("playlist")
    kind = task.get("collection_type") or ("playlist" if playlist else "playing_queue")
    items: list[str] = []
    song: str | None = None
    adding = False
    for xml, action in history:
        said = norm(label(action))
        shown = listing_of(xml, playlist) if kind == "playlist" and playlist else None
        if shown is not None:  # the tracked playlist is on screen: its rows are the current order
            items = shown
        if is_row_menu(action):
            song = row_text_at(xml, action.y or 0)
        elif action.type == "tap" and said == "add to playlist":
            adding = song is not None
        elif action.type == "tap" and said == "add to playing queue" and kind == "playing_queue" and song:
            items.append(song)
            song = None
        elif action.type == "tap" and adding and playlist and label(action) == playlist:
            items.append(song)  # type: ignore[arg-type]
            song, adding = None, False
        elif action.type == "tap" and said == "cancel":
            adding = False
        elif action.type == "drag" and action.y is not None and action.y2 is not None:
            src = row_text_at(xml, action.y)
            dst = row_text_at(xml, action.y2)
            if src in items and dst in items:
                items.remove(src)
                items.insert(items.index(dst) + (1 if action.y2 > action.y else 0), src)
    return {"collection_type": kind, "ordered_items": items}
