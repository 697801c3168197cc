"""What OpenTracks' screens share: the BottomAppBar with its navigation arrow and menu (the support action bar of
TrackRecordedActivity, TrackEditActivity and TrackRecordingActivity), forwarding to another activity while
finishing this one, and the "Delete track?" confirmation (ConfirmDeleteDialogFragment, DialogUtils.java:45-53)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from emukit.vdevice.apps.opentracks.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
BAR_H = dp(80)
LIST = ".TrackListActivity"
DETAIL = ".TrackRecordedActivity"
EDIT = ".TrackEditActivity"
RECORDING = ".TrackRecordingActivity"
STOPPED = ".TrackStoppedActivity"


def forward(ctx: Ctx, activity: str, extras: dict[str, str] | None = None) -> None:
    """``startActivity(...)`` then ``finish()``: the new activity on top, this one gone from the task."""
    me = ctx.act
    ctx.start(activity, extras)
    stack = ctx.device.state.back_stack
    if me in stack:
        stack.remove(me)


def bottom_bar(ctx: Ctx, items: Sequence[parts.MenuItem] = (), *, on_up: Callable[[], Any] | None = None) -> View:
    """bottomappbar.xml's BottomAppBar at the bottom of the frame: the navigation arrow (back) and the menu's
    action items, the rest behind "More options"."""
    left, _, right, bottom = ctx.frame
    sub = ctx.app.ctx(ctx.device, ctx.act, (left, bottom - BAR_H, right, bottom))
    bar = parts.toolbar(sub, "detail_bottom_bar", "", items, on_up=on_up or ctx.device.finish_top,
                        up_desc=T.desc("navigate_up"))
    bar.style = Style(bg=theme.SURFACE_VARIANT)
    return bar


def bottom_overflow(ctx: Ctx, items: Sequence[parts.MenuItem]) -> View | None:
    """The bottom bar's overflow popup, opened upwards from the bar."""
    if ctx.state.get("menu") != "overflow:detail_bottom_bar":
        return None

    def dismiss() -> None:
        ctx.state.pop("menu", None)

    def choose(item: parts.MenuItem) -> Callable[[], None]:
        def run() -> None:
            dismiss()
            item.on_click()
        return run

    hidden = [i for i in items if not i.always]
    top = ctx.frame[3] - BAR_H - dp(8) - dp(56) * len(hidden) - dp(16)
    return w.popup_menu(ctx.frame, (ctx.frame[2] - dp(8), top), [(T.text(i.entry), choose(i)) for i in hidden],
                        dismiss, T.rid("overflow_title"))


def confirm_delete(ctx: Ctx, count: int, on_ok: Callable[[], Any]) -> View:
    """ConfirmDeleteDialogFragment: "Delete track?" (or "Delete selected?"), its message, Cancel / OK."""
    one = count == 1
    return parts.confirm(ctx, T.text("delete_message" if one else "delete_message_many"), on_ok,
                         title=T.text("delete_title" if one else "delete_title_many"), yes="OK", no="Cancel",
                         title_rid=T.rid("delete_title"), message_rid=T.rid("delete_message"))
