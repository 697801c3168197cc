"""`emukit vdevice gallery` renders every app's scenes to PNG with an index (in-process, real rendering)."""

from __future__ import annotations

from PIL import Image

from emukit.cli import main


def test_gallery_renders_every_app(tmp_path):
    out = tmp_path / "gallery"
    assert main(["vdevice", "gallery", "--out", str(out)]) == 0
    index = (out / "index.md").read_text()
    pngs = sorted(out.rglob("*.png"))
    assert len(pngs) >= 20
    for label in ("Pixel Launcher", "Settings", "Files", "Markor", "Retro Music", "Clock"):
        assert f"## {label}" in index
    for png in pngs[:3]:
        assert Image.open(png).size == (1080, 2400)
    assert "index.html" in {p.name for p in out.iterdir()}
    # distinct scenes are distinct pictures
    assert len({p.read_bytes() for p in pngs}) > len(pngs) * 0.8
