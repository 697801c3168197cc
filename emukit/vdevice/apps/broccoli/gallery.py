"""Broccoli's gallery: the empty and filled recipe list, the drawer, a recipe's details, its overflow menu,
the editor and the delete confirmation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.apps.broccoli.main import DETAILS, EDITOR

if TYPE_CHECKING:
    from emukit.vdevice.apps.broccoli import BroccoliApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: BroccoliApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "recipe list (empty)"
    first = D.save_recipe(device, {"title": "Pancakes", "description": "Fluffy breakfast #sweet",
                                   "servings": "4", "preparationTime": "20 min",
                                   "ingredients": "200 g flour\n2 eggs\n300 ml milk",
                                   "directions": "1. Whisk everything\n2. Fry in a pan"}, None)
    D.save_recipe(device, {"title": "Tomato soup", "source": "grandma", "ingredients": "1 kg tomatoes"}, None)
    yield "recipe list"
    main = device.top
    main.state["drawer"] = True
    yield "navigation drawer"
    main.state.pop("drawer")
    main.state["searching"], main.state["query"] = True, "tom"
    yield "search"
    main.state.pop("searching")
    main.state.pop("query")
    ctx = app.ctx(device, main)
    ctx.start(DETAILS, {"recipe_id": str(first)})
    yield "recipe details"
    details = device.top
    details.state["menu"] = "overflow:details_toolbar"
    yield "details overflow menu"
    details.state.pop("menu")
    app.ctx(device, details).open_dialog("delete")
    yield "delete confirmation"
    app.ctx(device, details).close_dialog()
    app.ctx(device, details).start(EDITOR, {"recipe_id": str(first)})
    yield "recipe editor"
