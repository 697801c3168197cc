"""Joplin's gallery: the empty list android_world's setup leaves, a notebook with notes, the side menu, the action
button open, a note's rendered body with a word selected, the editor and the Actions menu."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.joplin import data as D
from emukit.vdevice.apps.joplin.main import navigate, open_note

if TYPE_CHECKING:
    from emukit.vdevice.apps.joplin import JoplinApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: JoplinApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "no notebooks"
    main = device.top
    ctx = app.ctx(device, main)
    folder_id = D.create_folder(device, "Recipes")
    D.save_new_note(device, folder_id, title="Pancakes", body="Flour and milk\nTwo eggs\n\nMix well.")
    D.save_new_note(device, folder_id, title="Soup", body="# Soup\n\n- Leek\n- Potato", tick=1)
    navigate(ctx, {"name": "Notes", "folder": folder_id})
    yield "notebook"
    main.state["side"] = True
    yield "side menu"
    main.state.pop("side")
    main.state["fab"] = True
    yield "action button open"
    main.state.pop("fab")
    pancakes = next(n for n in D.notes(device, folder_id) if n["title"] == "Pancakes")
    open_note(ctx, pancakes["id"])
    yield "note view"
    main.state["sel"] = {"block": 0, "start": 0, "end": 5}
    yield "word selected"
    main.state.pop("sel")
    main.state["menu"] = True
    yield "actions menu"
    main.state.pop("menu")
    main.state["route"] = {**main.state["route"], "mode": "edit"}
    yield "note editor"
