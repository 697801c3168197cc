"""Ordered Collection: a playlist's or the playing queue's items in their stored order, read by opening the
collection (seed 002 Tables 6, 10, 20)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.actions import Action
from emukit.families.base import FamilyUnit, is_items, register_family


def numbered(items: list[str]) -> list[str]:
    """``1. "first"``, ``2. "second"``, ...: a list written once, in order."""
    return [f"{i}. {json.dumps(item, ensure_ascii=False)}" for i, item in enumerate(items, 1)]


@register_family
class Ordered(FamilyUnit):
    name = "ordered"
    order = 30
    title = "Ordered Collection"
    schema: ClassVar = {"collection_type": (lambda v: v in ("playlist", "playing_queue"),
                                            "'playlist' or 'playing_queue'"),
                        "ordered_items": (is_items, "a list of strings")}
    contract = (
        "Collection contract: the action opens a playlist or the playing queue. Its rows are the collection's "
        "current items in their stored order: do not sort, deduplicate, drop or invent items."
    )
    instruction = ("Infer the current ordered contents of the specified playlist or playing queue while "
                   "preserving the exact effective item order.")
    outcome_kinds = frozenset({"list"})
    outcome_keys = ("ordered_items",)
    target_key = "ordered_items"
    table6_templates = ("playing_queue", "queue_mixed_insertion", "identical_prefix_hidden_suffix",
                        "reset_boundary", "multi_playlist_interleaved")
    specialist_epochs = 2

    def consequence(self, z: dict[str, Any], action: Action, context: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"collection_type": z["collection_type"], "items": z["ordered_items"],
                "count": len(z["ordered_items"])}

    def state_lines(self, z: dict[str, Any], *, with_action: bool) -> list[str]:
        kind = "Playlist" if z["collection_type"] == "playlist" else "Playing queue"
        n = len(z["ordered_items"])
        if n == 0:
            return [f"{kind}: empty (0 items)."]
        if with_action:
            return [f"{kind}: {n} item{'s' if n != 1 else ''} (listed once, below)."]
        return [f"{kind}: {n} item{'s' if n != 1 else ''}, in this order:", *numbered(z["ordered_items"])]

    def result_lines(self, d: dict[str, Any]) -> list[str]:
        view = "the playlist detail view" if d["collection_type"] == "playlist" else "the compact playing-queue view"
        if d["count"] == 0:
            return [f"Opening it shows {view} with no item rows."]
        return [(f"Opening it shows {view} with exactly {d['count']} primary row{'s' if d['count'] != 1 else ''}, "
                "in this order:"), *numbered(d["items"])]

    def check_branch(self, state: dict[str, Any], outcome: dict[str, Any], evidence: dict[str, Any],
                     spec: dict[str, Any], wait_seconds: float) -> list[str]:
        problems: list[str] = []
        if outcome.get("ordered_items") != state.get("ordered_items"):
            problems.append(f"screen order {outcome.get('ordered_items')} differs from the stored order "
                            f"{state.get('ordered_items')}")
        if outcome.get("ordered_items") != evidence.get("database_order"):
            problems.append("screen order differs from the database after the action")
        return problems

    def training_context(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"playlist": params["playlist"]} if isinstance(params.get("playlist"), str) else {}
