"""Player icons the shared set lacks (shuffle, repeat, queue, album, playlist), registered under ``music.*``.

They are added to the renderer's icon table with :func:`~emukit.vdevice.ui.icons.register_icon`, which refuses
to replace a shared icon.
"""

from __future__ import annotations

from emukit.vdevice.ui.icons import Pen, register_icon


def _shuffle(p: Pen) -> None:
    p.line((14, 26), (30, 26), (62, 70), (80, 70), w=7)
    p.line((14, 70), (30, 70), (62, 26), (80, 26), w=7)
    p.poly((74, 14), (90, 26), (74, 38))
    p.poly((74, 58), (90, 70), (74, 82))


def _repeat(p: Pen) -> None:
    p.line((18, 56), (18, 30), (76, 30), w=7)
    p.poly((70, 18), (86, 30), (70, 42))
    p.line((78, 40), (78, 66), (20, 66), w=7)
    p.poly((26, 54), (10, 66), (26, 78))


def _repeat_one(p: Pen) -> None:
    _repeat(p)
    p.line((46, 42), (50, 40), (50, 58), w=6)


def _queue(p: Pen) -> None:
    for y in (22, 42, 62):
        p.line((12, y), (58, y), w=7)
    p.poly((64, 50), (88, 66), (64, 82))


def _album(p: Pen) -> None:
    p.circle(48, 48, 38, w=7)
    p.circle(48, 48, 10)


def _playlist(p: Pen) -> None:
    for y in (22, 42):
        p.line((12, y), (62, y), w=7)
    p.line((12, 62), (40, 62), w=7)
    p.line((72, 28), (72, 70), w=6)
    p.line((72, 28), (86, 34), w=6)
    p.circle(64, 72, 10)


def _artist(p: Pen) -> None:
    p.circle(40, 32, 16)
    p.pie(40, 86, 34, 180, 360)
    p.line((74, 20), (74, 58), w=6)
    p.circle(68, 60, 8)


def register() -> None:
    """Add the ``music.*`` icons to the shared table (idempotent)."""
    for name, draw in (("music.shuffle", _shuffle), ("music.repeat", _repeat), ("music.repeat_one", _repeat_one),
                       ("music.queue", _queue), ("music.album", _album), ("music.playlist", _playlist),
                       ("music.artist", _artist)):
        register_icon(name)(draw)
