"""``emukit vdevice gallery``: every screen and dialog of every virtual app rendered to PNG, with an index.

Each app walks a fresh in-process device through its own scenes (:meth:`App.gallery_scenes`); after every
scene the screen is rendered exactly as ``screencap -p`` would return it.
"""

from __future__ import annotations

import html
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from emukit.vdevice.device import VirtualDevice


@dataclass(frozen=True)
class Scene:
    app: str
    package: str
    name: str
    path: str  # relative to the gallery folder


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "scene"


def render_gallery(out: Path) -> list[Scene]:
    """Render all scenes into ``out`` (PNG per scene, ``index.html`` and ``index.md``); returns them."""
    out.mkdir(parents=True, exist_ok=True)
    scenes: list[Scene] = []
    with tempfile.TemporaryDirectory(prefix="emukit-gallery-") as tmp:
        probe = VirtualDevice(Path(tmp) / "probe", wipe=True)
        packages = [probe.launcher_package] + sorted(p for p in probe.apps if p != probe.launcher_package)
        for package in packages:
            device = VirtualDevice(Path(tmp) / package, wipe=True)
            app = device.apps[package]
            folder = out / _slug(app.label)
            folder.mkdir(exist_ok=True)
            for i, name in enumerate(app.gallery_scenes(device), 1):
                rel = f"{folder.name}/{i:02d}-{_slug(name)}.png"
                (out / rel).write_bytes(device.screenshot_png())
                scenes.append(Scene(app.label, package, name, rel))
    _write_index(out, scenes)
    return scenes


def _write_index(out: Path, scenes: list[Scene]) -> None:
    md = ["# Virtual device gallery", "", f"{len(scenes)} scenes.", ""]
    cards = []
    current = None
    for scene in scenes:
        if scene.app != current:
            current = scene.app
            md += ["", f"## {scene.app} (`{scene.package}`)", ""]
            cards.append(f"<h2>{html.escape(scene.app)} <code>{html.escape(scene.package)}</code></h2>")
        md.append(f"- [{scene.name}]({scene.path})")
        cards.append(f'<figure><a href="{html.escape(scene.path)}"><img src="{html.escape(scene.path)}" '
                     f'loading="lazy"></a><figcaption>{html.escape(scene.name)}</figcaption></figure>')
    (out / "index.md").write_text("\n".join(md) + "\n")
    (out / "index.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>emukit virtual device gallery</title>"
        "<style>body{font-family:sans-serif;margin:24px}figure{display:inline-block;margin:8px;width:216px;"
        "vertical-align:top}img{width:216px;border:1px solid #ccc;border-radius:12px}"
        "figcaption{font-size:13px;margin-top:4px}</style>"
        f"<h1>Virtual device gallery</h1><p>{len(scenes)} scenes.</p>" + "\n".join(cards) + "\n")
