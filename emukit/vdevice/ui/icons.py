"""Simple vector icons drawn with PIL on a 96-unit design grid, antialiased by 4x supersampling.

``icon_mask(name, size)`` returns a cached greyscale mask; the renderer pastes a colour through it. Unknown
names give the generic ``app`` icon (a rounded square), so an app can never crash the renderer with a typo.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PIL import Image, ImageDraw

from emukit.lru import image_bytes, sized_cache

SUPERSAMPLE = 4
W = 8  # default stroke width in design units


class Pen:
    """Draws in 96x96 design units onto a supersampled mask."""

    def __init__(self, draw: ImageDraw.ImageDraw, px: int) -> None:
        self.d = draw
        self.k = px / 96

    def _p(self, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * self.k, y * self.k) for x, y in pts]

    def _b(self, box: tuple[float, float, float, float]) -> list[float]:
        return [v * self.k for v in box]

    def line(self, *pts: tuple[float, float], w: float = W) -> None:
        self.d.line(self._p(list(pts)), fill=255, width=max(1, round(w * self.k)), joint="curve")
        r = w / 2  # round caps
        for x, y in (pts[0], pts[-1]):
            self.d.ellipse(self._b((x - r, y - r, x + r, y + r)), fill=255)

    def poly(self, *pts: tuple[float, float], fill: int = 255) -> None:
        self.d.polygon(self._p(list(pts)), fill=fill)

    def outline(self, *pts: tuple[float, float], w: float = W) -> None:
        self.line(*pts, pts[0], w=w)

    def circle(self, cx: float, cy: float, r: float, w: float | None = None, fill: int = 255) -> None:
        box = self._b((cx - r, cy - r, cx + r, cy + r))
        if w is None:
            self.d.ellipse(box, fill=fill)
        else:
            self.d.ellipse(box, outline=fill, width=max(1, round(w * self.k)))

    def rect(self, x0: float, y0: float, x1: float, y1: float, r: float = 0, w: float | None = None,
             fill: int = 255) -> None:
        box = self._b((x0, y0, x1, y1))
        rad = round(r * self.k)
        if w is None:
            self.d.rounded_rectangle(box, rad, fill=fill)
        else:
            self.d.rounded_rectangle(box, rad, outline=fill, width=max(1, round(w * self.k)))

    def arc(self, cx: float, cy: float, r: float, start: float, end: float, w: float = W) -> None:
        self.d.arc(self._b((cx - r, cy - r, cx + r, cy + r)), start, end, fill=255,
                   width=max(1, round(w * self.k)))

    def pie(self, cx: float, cy: float, r: float, start: float, end: float, fill: int = 255) -> None:
        self.d.pieslice(self._b((cx - r, cy - r, cx + r, cy + r)), start, end, fill=fill)


def _back(p: Pen) -> None:
    p.outline((66, 20), (66, 76), (22, 48), w=7)


def _home(p: Pen) -> None:
    p.circle(48, 48, 28, w=7)


def _recents(p: Pen) -> None:
    p.rect(22, 22, 74, 74, r=6, w=7)


def _battery(p: Pen) -> None:
    p.rect(38, 8, 58, 16, r=2)
    p.rect(28, 14, 68, 90, r=6)


def _wifi(p: Pen) -> None:
    p.pie(48, 84, 66, 225, 315)


def _signal(p: Pen) -> None:
    p.poly((86, 10), (86, 86), (10, 86))


def _search(p: Pen) -> None:
    p.circle(40, 40, 24, w=9)
    p.line((58, 58), (84, 84), w=10)


def _folder(p: Pen) -> None:
    p.poly((10, 22), (38, 22), (46, 30), (86, 30), (86, 78), (10, 78))


def _file(p: Pen) -> None:
    p.poly((20, 8), (58, 8), (78, 28), (78, 88), (20, 88))
    p.poly((58, 8), (58, 28), (78, 28), fill=0)
    p.poly((62, 14), (72, 24), (62, 24), fill=255)


def _music(p: Pen) -> None:
    p.circle(32, 72, 14)
    p.rect(40, 14, 48, 72)
    p.poly((40, 12), (74, 22), (74, 36), (48, 28))


def _clock(p: Pen) -> None:
    p.circle(48, 48, 36, w=8)
    p.line((48, 26), (48, 50), (64, 60), w=7)


def _alarm(p: Pen) -> None:
    p.circle(48, 54, 30, w=8)
    p.line((48, 38), (48, 56), (60, 64), w=6)
    p.line((14, 24), (28, 12), w=8)
    p.line((82, 24), (68, 12), w=8)


def _timer(p: Pen) -> None:
    p.circle(48, 54, 32, w=8)
    p.line((48, 54), (48, 34), w=7)
    p.line((38, 10), (58, 10), w=8)
    p.line((74, 26), (80, 20), w=7)


def _gear(p: Pen) -> None:
    for i in range(8):
        a = math.radians(i * 45)
        cx, cy = 48 + 34 * math.cos(a), 48 + 34 * math.sin(a)
        p.circle(cx, cy, 9)
    p.circle(48, 48, 32)
    p.circle(48, 48, 12, fill=0)


def _pencil(p: Pen) -> None:
    p.poly((16, 68), (62, 22), (74, 34), (28, 80), (14, 82))
    p.poly((66, 18), (72, 12), (84, 24), (78, 30))


def _notes(p: Pen) -> None:
    p.rect(16, 10, 80, 86, r=8, w=8)
    for y in (32, 48, 64):
        p.line((30, y), (66, y), w=6)


def _play(p: Pen) -> None:
    p.poly((28, 16), (80, 48), (28, 80))


def _pause(p: Pen) -> None:
    p.rect(22, 16, 40, 80, r=3)
    p.rect(56, 16, 74, 80, r=3)


def _stop(p: Pen) -> None:
    p.rect(20, 20, 76, 76, r=4)


def _skip_next(p: Pen) -> None:
    p.poly((18, 18), (62, 48), (18, 78))
    p.rect(66, 18, 78, 78)


def _skip_prev(p: Pen) -> None:
    p.poly((78, 18), (34, 48), (78, 78))
    p.rect(18, 18, 30, 78)


def _plus(p: Pen) -> None:
    p.line((48, 16), (48, 80), w=9)
    p.line((16, 48), (80, 48), w=9)


def _more_vert(p: Pen) -> None:
    for y in (20, 48, 76):
        p.circle(48, y, 8)


def _drag_handle(p: Pen) -> None:
    for y in (32, 48, 64):
        p.line((18, y), (78, y), w=6)


def _menu(p: Pen) -> None:
    for y in (24, 48, 72):
        p.line((14, y), (82, y), w=8)


def _delete(p: Pen) -> None:
    p.line((14, 22), (82, 22), w=8)
    p.rect(36, 10, 60, 22, r=3)
    p.poly((22, 28), (74, 28), (68, 88), (28, 88))
    for x in (40, 56):
        p.line((x, 40), (x, 76), w=6)


def _copy(p: Pen) -> None:
    p.rect(32, 26, 82, 88, r=6, w=8)
    p.line((14, 72), (14, 14), (62, 14), w=8)


def _cut(p: Pen) -> None:
    p.circle(28, 74, 14, w=7)
    p.circle(68, 74, 14, w=7)
    p.line((36, 62), (74, 10), w=7)
    p.line((60, 62), (22, 10), w=7)


def _paste(p: Pen) -> None:
    p.rect(16, 16, 80, 88, r=6, w=8)
    p.rect(32, 8, 64, 26, r=5)


def _check(p: Pen) -> None:
    p.line((16, 50), (38, 72), (82, 26), w=10)


def _close(p: Pen) -> None:
    p.line((20, 20), (76, 76), w=9)
    p.line((76, 20), (20, 76), w=9)


def _arrow_back(p: Pen) -> None:
    p.line((82, 48), (16, 48), w=8)
    p.line((44, 20), (16, 48), (44, 76), w=8)


def _arrow_forward(p: Pen) -> None:
    p.line((14, 48), (80, 48), w=8)
    p.line((52, 20), (80, 48), (52, 76), w=8)


def _chevron_right(p: Pen) -> None:
    p.line((36, 18), (66, 48), (36, 78), w=9)


def _expand_more(p: Pen) -> None:
    p.line((18, 34), (48, 64), (78, 34), w=9)


def _expand_less(p: Pen) -> None:
    p.line((18, 62), (48, 32), (78, 62), w=9)


def _bell(p: Pen) -> None:
    p.pie(48, 44, 28, 180, 360)
    p.poly((20, 44), (76, 44), (80, 72), (16, 72))
    p.rect(10, 68, 86, 76, r=3)
    p.circle(48, 84, 9)


def _app(p: Pen) -> None:
    p.rect(14, 14, 82, 82, r=20)


def _shift(p: Pen) -> None:
    p.outline((48, 12), (84, 50), (64, 50), (64, 82), (32, 82), (32, 50), (12, 50), w=7)


def _shift_on(p: Pen) -> None:
    p.poly((48, 12), (84, 50), (64, 50), (64, 82), (32, 82), (32, 50), (12, 50))


def _backspace(p: Pen) -> None:
    p.outline((30, 16), (88, 16), (88, 80), (30, 80), (6, 48), w=7)
    p.line((46, 34), (72, 62), w=7)
    p.line((72, 34), (46, 62), w=7)


def _enter(p: Pen) -> None:
    p.line((78, 14), (78, 56), (20, 56), w=8)
    p.line((40, 36), (20, 56), (40, 76), w=8)


def _keyboard_hide(p: Pen) -> None:
    p.rect(10, 10, 86, 58, r=6, w=6)
    for x in (24, 40, 56, 72):
        p.circle(x, 26, 4)
    p.line((28, 44), (68, 44), w=5)
    p.line((34, 70), (48, 84), (62, 70), w=7)


def _bluetooth(p: Pen) -> None:
    p.line((22, 28), (70, 66), (48, 84), (48, 12), (70, 30), (22, 68), w=7)


def _apps(p: Pen) -> None:
    for x in (16, 52):
        for y in (16, 52):
            p.rect(x, y, x + 28, y + 28, r=6)


def _volume(p: Pen) -> None:
    p.poly((12, 36), (30, 36), (52, 14), (52, 82), (30, 60), (12, 60))
    p.arc(52, 48, 18, -50, 50, w=7)
    p.arc(52, 48, 32, -50, 50, w=7)


def _sun(p: Pen) -> None:
    p.circle(48, 48, 18)
    for i in range(8):
        a = math.radians(i * 45)
        p.line((48 + 28 * math.cos(a), 48 + 28 * math.sin(a)), (48 + 40 * math.cos(a), 48 + 40 * math.sin(a)),
               w=7)


def _image(p: Pen) -> None:
    p.rect(10, 14, 86, 82, r=8, w=7)
    p.poly((18, 72), (40, 44), (54, 60), (64, 50), (78, 72))
    p.circle(64, 32, 7)


def _person(p: Pen) -> None:
    p.circle(48, 30, 18)
    p.pie(48, 88, 36, 180, 360)


def _lock(p: Pen) -> None:
    p.arc(48, 38, 20, 180, 360, w=8)
    p.line((28, 38), (28, 46), w=8)
    p.line((68, 38), (68, 46), w=8)
    p.rect(16, 44, 80, 88, r=6)
    p.circle(48, 66, 7, fill=0)


def _location(p: Pen) -> None:
    p.circle(48, 38, 28)
    p.poly((24, 52), (72, 52), (48, 90))
    p.circle(48, 38, 10, fill=0)


def _info(p: Pen) -> None:
    p.circle(48, 48, 38)
    p.rect(43, 42, 53, 72, fill=0)
    p.circle(48, 30, 6, fill=0)


def _phone(p: Pen) -> None:
    p.rect(24, 6, 72, 90, r=8, w=7)
    p.line((40, 78), (56, 78), w=6)


def _storage(p: Pen) -> None:
    for y in (14, 40, 66):
        p.rect(10, y, 86, y + 18, r=4)
        p.circle(22, y + 9, 4, fill=0)


def _star(p: Pen) -> None:
    pts = []
    for i in range(10):
        r = 42 if i % 2 == 0 else 17
        a = math.radians(-90 + i * 36)
        pts.append((48 + r * math.cos(a), 50 + r * math.sin(a)))
    p.poly(*pts)


def _share(p: Pen) -> None:
    p.line((70, 20), (26, 48), (70, 76), w=6)
    for x, y in ((70, 20), (26, 48), (70, 76)):
        p.circle(x, y, 12)


def _download(p: Pen) -> None:
    p.line((48, 10), (48, 60), w=8)
    p.line((26, 40), (48, 62), (70, 40), w=8)
    p.line((16, 82), (80, 82), w=8)


def _sort(p: Pen) -> None:
    p.line((14, 26), (82, 26), w=7)
    p.line((14, 48), (60, 48), w=7)
    p.line((14, 70), (38, 70), w=7)


def _refresh(p: Pen) -> None:
    p.arc(48, 48, 30, 30, 330, w=8)
    p.poly((62, 18), (84, 20), (78, 42))


def _mic(p: Pen) -> None:
    p.rect(34, 8, 62, 58, r=14)
    p.arc(48, 40, 26, 20, 160, w=6)
    p.line((48, 66), (48, 86), w=6)


def _edit_note(p: Pen) -> None:
    _notes(p)


ICONS: dict[str, Callable[[Pen], None]] = {
    "back": _back, "home": _home, "recents": _recents, "battery": _battery, "wifi": _wifi,
    "signal": _signal, "search": _search, "folder": _folder, "file": _file, "music": _music,
    "clock": _clock, "alarm": _alarm, "timer": _timer, "stopwatch": _timer, "gear": _gear,
    "settings": _gear, "pencil": _pencil, "edit": _pencil, "notes": _notes, "note": _notes,
    "play": _play, "pause": _pause, "stop": _stop, "skip_next": _skip_next, "skip_previous": _skip_prev,
    "plus": _plus, "add": _plus, "more_vert": _more_vert, "drag_handle": _drag_handle, "menu": _menu,
    "delete": _delete, "trash": _delete, "copy": _copy, "cut": _cut, "paste": _paste, "check": _check,
    "close": _close, "arrow_back": _arrow_back, "arrow_forward": _arrow_forward,
    "chevron_right": _chevron_right, "expand_more": _expand_more, "expand_less": _expand_less,
    "bell": _bell, "notifications": _bell, "app": _app, "shift": _shift, "shift_on": _shift_on,
    "backspace": _backspace, "enter": _enter, "keyboard_hide": _keyboard_hide, "bluetooth": _bluetooth,
    "apps": _apps, "volume": _volume, "sound": _volume, "sun": _sun, "display": _sun, "image": _image,
    "person": _person, "lock": _lock, "location": _location, "info": _info, "phone": _phone,
    "storage": _storage, "star": _star, "share": _share, "download": _download, "sort": _sort,
    "refresh": _refresh, "mic": _mic, "edit_note": _edit_note,
}


def register_icon(name: str) -> Callable[[Callable[[Pen], None]], Callable[[Pen], None]]:
    """Decorator: an app's own icon, drawn on the 96-unit :class:`Pen` grid, under ``name`` (by convention
    ``<app>.<icon>``, e.g. ``music.shuffle``). An app keeps its icons in its own module; a name already taken by
    another drawing is an error, so an app never replaces a shared icon."""

    def deco(draw: Callable[[Pen], None]) -> Callable[[Pen], None]:
        old = ICONS.get(name)
        if old is not None and old is not draw and old.__qualname__ != draw.__qualname__:
            raise ValueError(f"icon {name!r} is drawn twice: {old.__module__}.{old.__qualname__} and "
                             f"{draw.__module__}.{draw.__qualname__}")
        ICONS[name] = draw
        return draw

    return deco


def has_icon(name: str) -> bool:
    return name in ICONS


@sized_cache(512, 8 * 2**20, image_bytes)
def icon_mask(name: str, size: int) -> Image.Image:
    """An antialiased ``L`` mask of ``size`` x ``size`` px (255 = ink) for the icon ``name``."""
    size = max(1, size)
    big = size * SUPERSAMPLE
    img = Image.new("L", (big, big), 0)
    ICONS.get(name, _app)(Pen(ImageDraw.Draw(img), big))
    return img.reduce(SUPERSAMPLE)
