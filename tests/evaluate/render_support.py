"""One warm Chromium shared by the rendering and parser tests (real Chromium, real Playwright).

The tests need Debian's ``chromium`` (``.ci/run`` installs it); where it is missing they fail with the
reason (they are never skipped). The CDN tests also need the pinned CSS assets (``python -m emukit.evaluate.cdn install``); the shared
test ``conftest`` points ``HOME`` at a temporary folder, so the asset cache is looked up in the real user's
cache folder unless ``EMUKIT_CDN_DIR`` or ``XDG_CACHE_HOME`` says otherwise.
"""

from __future__ import annotations

import atexit
import os
import pwd
from functools import lru_cache
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"
GWORLD = ((360, 800), 3.0)
CODE2WORLD = ((1080, 2400), 1.0)

if not os.environ.get("EMUKIT_CDN_DIR") and not os.environ.get("XDG_CACHE_HOME"):
    os.environ["EMUKIT_CDN_DIR"] = str(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "emukit" / "cdn")


# The tests that render in Chromium use the session's ``chromium`` fixture (tests/conftest.py), which puts them
# in the ``chromium`` lane. They are never skipped: without Chromium the renderer raises a RenderError naming
# what is missing, and the test fails.
needs_chromium = pytest.mark.usefixtures("chromium")


@lru_cache(maxsize=1)
def shared_renderer():
    """The session's renderer (started on first use, closed at exit)."""
    from emukit.evaluate.render import Renderer

    renderer = Renderer(pool_size=2, timeout_s=6.0).start()
    atexit.register(renderer.close)
    return renderer


def fixture_html(name: str) -> str:
    return (FIXTURES / name).read_text("utf-8")


def render_many_fixtures(names: list[str], viewport: tuple[int, int] = GWORLD[0], scale: float = GWORLD[1]) -> None:
    """Render several fixtures concurrently and fill the cache (one call per test module keeps it quick)."""
    from emukit.evaluate.render import RenderJob

    todo = list(dict.fromkeys(n for n in names if (n, tuple(viewport), float(scale)) not in _warm))
    results = shared_renderer().render_many(RenderJob(fixture_html(n), tuple(viewport), float(scale)) for n in todo)
    for n, r in zip(todo, results, strict=True):
        _warm[(n, tuple(viewport), float(scale))] = r


_warm: dict = {}


def rendered(name: str, viewport: tuple[int, int] = GWORLD[0], scale: float = GWORLD[1]):
    """The render result of ``tests/fixtures/html/<name>`` (cached per session: fixtures are static)."""
    key = (name, tuple(viewport), float(scale))
    if key not in _warm:
        _warm[key] = shared_renderer().render(fixture_html(name), tuple(viewport), float(scale))
    return _warm[key]
