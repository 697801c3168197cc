"""TrackEditActivity (track_edit.xml over track_edit_fields.xml): the Name, Activity type and Description fields
filled from the track, Cancel / Save at the bottom and the BottomAppBar whose arrow goes back; Save stores the
three fields (TrackUtils.updateTrack: name, category, activity_type, description) and finishes, Cancel and BACK
finish without writing (TrackEditActivity.java:52-112). The fields are editable EditTexts, so the framework's
selection and floating text toolbar (Cut / Copy / Paste / Select all) work on them."""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.common import BAR_H, bottom_bar
from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
#: the table entry of each field, its state key and its TextInputLayout hint (strings.xml:225, 520, 223)
FIELD_KEYS = {"name_field": ("name", "Name"), "activity_type_field": ("category", "Activity type"),
              "description_field": ("description", "Description"),
              "stopped_name_field": ("name", "Name"), "stopped_activity_type_field": ("category", "Activity type"),
              "stopped_description_field": ("description", "Description")}


def fields_form(ctx: Ctx, box: Bounds, entries: tuple[str, str, str], *, scroll_rid: str) -> View:
    """track_edit_fields.xml: a ScrollView > LinearLayout (8dp padding) of the name field, a row of the activity
    type field and its icon, and the description field."""
    name, activity, description = entries
    form = N(cls="android.widget.ScrollView", entry="edit_fields" if scroll_rid else "", children=(
        N(cls="android.widget.LinearLayout", pad=8, children=(
            N(cls="android.widget.FrameLayout", h=72, children=(N(entry=name, h=56),)),
            N(row=True, h=72, children=(N(entry=activity), N(entry="activity_type_icon", w=48))),
            N(cls="android.widget.FrameLayout", h=72, children=(N(entry=description, h=56),)),
        )),
    ))

    def setter(key: str) -> Any:
        def put(text: str) -> None:
            ctx.state[key] = text
        return put

    bind: dict[str, dict[str, Any]] = {}
    for entry in entries:
        key, hint = FIELD_KEYS[entry]
        bind[entry] = {"text": ctx.state.get(key, ""), "hint": hint, "on_text": setter(key)}
        if T.cls(entry) != "android.widget.EditText":  # MaterialAutoCompleteTextView: an editable EditText too
            bind[entry].update(editable=True, focusable=True, clickable=True, long_clickable=True,
                               key=T.rid(entry), style={"border": theme.OUTLINE, "border_width": max(1, dp(1))})
    bind["activity_type_icon"] = {"style": {"icon": "opentracks.app", "icon_color": theme.TEXT_SECONDARY,
                                            "icon_size": dp(24)}}
    return inflate(form, box, T, bind)


class EditScreen(Screen):
    activity = ".TrackEditActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if ctx.state.get("loaded"):
            return
        track_id = int(extras.get("track_id") or 0)
        row = D.track(ctx.device, track_id)
        if row is None:  # "No track for <id>": finish (TrackEditActivity.java:63-69)
            ctx.state.update(missing=True, loaded=True)
            return
        ctx.state.update(track_id=track_id, name=row.get("name") or "", category=row.get("category") or "",
                         description=row.get("description") or "", loaded=True)

    def on_resume(self, ctx: Ctx) -> None:
        if ctx.state.get("missing"):
            ctx.device.finish_top()

    def save(self, ctx: Ctx) -> None:
        D.update_track(ctx.device, int(ctx.state["track_id"]), ctx.state["name"], ctx.state["category"],
                       ctx.state["description"])
        ctx.device.finish_top()

    def build(self, ctx: Ctx) -> View:
        left, top, right, bottom = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                    style=Style(bg=theme.BACKGROUND))
        column = View(cls="android.widget.LinearLayout", bounds=(left, top, right, bottom - BAR_H))
        column.add(fields_form(ctx, (left, top, right, top + dp(240)),
                               ("name_field", "activity_type_field", "description_field"), scroll_rid="fields"))
        y = bottom - BAR_H - dp(56)
        buttons = View(cls="android.widget.LinearLayout", bounds=(left, y, right, y + dp(56)))
        for entry, bounds, action in (("edit_cancel", (left + dp(8), y + dp(4), left + dp(120), y + dp(52)),
                                       ctx.device.finish_top),
                                      ("edit_save", (right - dp(120), y + dp(4), right - dp(8), y + dp(52)),
                                       lambda: self.save(ctx))):
            button = w.button(bounds, T.text(entry), action, kind="text", rid=T.rid(entry))
            button.cls = T.cls(entry)
            buttons.add(button)
        column.add(buttons)
        root.add(column)
        root.add(bottom_bar(ctx))
        return root
