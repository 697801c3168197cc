"""The offline renderer against real headless Chromium: C.4 visibility evidence, per-format viewports, network
isolation (a local TCP server that must never see a connection), pinned CDN assets, the hard per-page
timeout, the source-text fallback and document isolation between predictions."""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

from emukit.evaluate.cdn import CdnMirror
from emukit.evaluate.parsers import parse
from emukit.evaluate.render import RenderJob, missing_html_close, viewport_for
from emukit.evaluate.fallback import fallback_evidence
from tests.evaluate.render_support import CODE2WORLD, GWORLD, fixture_html, needs_chromium, rendered, shared_renderer

pytestmark = needs_chromium


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def by_text(result, text: str):
    matches = [n for n in result.evidence.nodes if n.text == text]
    assert matches, f"no node {text!r} in {[n.text for n in result.evidence.nodes]}"
    return matches[0]


# ---------------------------------------------------------------------------------------------- viewports
def test_format_viewports_give_1080x2400_screenshots():
    assert viewport_for("gworld") == GWORLD
    assert viewport_for("code2world") == CODE2WORLD
    g = rendered("visibility.html", *GWORLD)
    c = rendered("visibility.html", *CODE2WORLD)
    assert g.ok and c.ok
    assert png_size(g.png) == (1080, 2400) == png_size(c.png)
    assert g.evidence.viewport == (360, 800) and c.evidence.viewport == (1080, 2400)
    # At 1080 CSS px nothing is below the fold; at 360x800 it is.
    assert by_text(c, "below the fold").visible
    assert not by_text(g, "below the fold").visible


# ---------------------------------------------------------------------------------------------- C.4 visibility
@pytest.mark.parametrize("text, reason", [
    ("plain visible", None),
    ("display none", "display"),
    ("visibility hidden", "visibility"),
    ("ancestor near zero opacity", "opacity"),
    ("half opacity", None),
    ("zero font size", "no_geometry"),
    ("hidden attribute", "display"),
    ("below the fold", "outside_viewport"),
    ("straddles the fold", "outside_viewport"),
    ("just inside the fold", None),
    ("clipped right edge text", "outside_viewport"),
    ("covered by an opaque box", "occluded"),
    ("covered by a transparent box", None),
    ("under pointer-events none", "occluded"),
    ("slightly covered edge", None),
    ("clipped by its parent box", "occluded"),
])
def test_visibility_rules(text, reason):
    node = by_text(rendered("visibility.html"), text)
    assert node.hidden == reason, (node.hidden, node.in_viewport, node.unoccluded)
    assert node.visible is (reason is None)


def test_visibility_thresholds_are_the_seed_values():
    res = rendered("visibility.html")
    just = by_text(res, "just inside the fold")
    assert 0.98 <= just.in_viewport < 1.0  # 98 % of the area inside the initial viewport is enough
    edge = by_text(res, "slightly covered edge")
    assert 0.8 <= edge.unoccluded < 1.0  # 80 % of the 5x5 grid unoccluded is enough
    assert by_text(res, "straddles the fold").in_viewport < 0.98


def test_regions_values_controls_and_normalisation():
    res = rendered("visibility.html")
    texts = {n.text: n for n in res.evidence.nodes}
    # Inline elements of one block form one region; the title element is never evidence.
    assert texts["Time's up"].norm == "time's up"
    assert "title text is not evidence" not in texts
    assert texts["line one\nline two"].norm == "line one line two"
    assert by_text(res, "Files & folders\xa0\xa0 here").norm == "files & folders here"
    # Values of fields, placeholders, editable text, icon-only controls.
    assert by_text(res, "typed value").kind == "value"
    assert by_text(res, "search placeholder").kind == "placeholder"
    assert by_text(res, "area value").kind == "value"
    assert by_text(res, "editable body").editable
    pause = by_text(res, "Pause")
    assert pause.kind == "label" and pause.control and pause.visible
    assert by_text(res, "Stop").kind == "control"
    assert "hidden input" not in texts
    # Text colour is recorded but does not hide (C.4 lists display, visibility and opacity only).
    ink = by_text(res, "transparent ink")
    assert ink.transparent_text and ink.visible
    assert res.evidence.offline_ok and res.diagnostics["missing_html_close"] is False


# ---------------------------------------------------------------------------------------------- network
class Listener:
    """A TCP server on 127.0.0.1 that records every connection (HTTP, WebSocket, anything)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits: list[bytes] = []
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(0.5)
            try:
                self.hits.append(conn.recv(1024))
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                self.hits.append(b"")
            finally:
                conn.close()

    def close(self) -> None:
        self._stop = True
        self.thread.join(2)
        self.sock.close()


def test_no_request_reaches_a_local_server():
    server = Listener()
    try:
        base = f"http://127.0.0.1:{server.port}"
        html = fixture_html("network.html").replace("__BASE__", base).replace("__WS__", f"ws://127.0.0.1:{server.port}")
        res = shared_renderer().render(html, *GWORLD)
        time.sleep(0.5)  # anything late (beacons, sockets) would have arrived by now
        assert server.hits == []
        assert res.ok, res.error
        assert by_text(res, "network probe page").visible
        blocked = {r.url for r in res.evidence.external if r.status == "blocked"}
        assert f"{base}/style.css" in blocked and f"{base}/app.js" in blocked
        assert not res.evidence.offline_ok  # a stylesheet and a script were structural and unavailable
        kinds = {r.kind for r in res.evidence.unavailable}
        assert {"stylesheet", "script"} <= kinds
        # The listener itself works: a plain connection from here is recorded.
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(b"ping")
        time.sleep(0.3)
        assert server.hits == [b"ping"]
    finally:
        server.close()


def test_offline_check_ignores_cosmetic_resources_and_flags_relative_stylesheets():
    r = shared_renderer()
    cosmetic = ('<!DOCTYPE html><html><head><link rel="preconnect" href="https://fonts.gstatic.com"></head><body>'
                '<img src="https://example.com/a.png" alt="">'
                '<div style="background:url(https://example.com/bg.png)">hello</div></body></html>')
    structural = '<!DOCTYPE html><html><head><link rel="stylesheet" href="styles/app.css"></head><body>x</body></html>'
    a, b = r.render_many([RenderJob(cosmetic, *GWORLD), RenderJob(structural, *GWORLD)])
    assert a.ok and a.evidence.offline_ok
    assert any(x.kind == "media" and x.status == "blocked" for x in a.evidence.external)
    assert b.ok and not b.evidence.offline_ok
    assert [x.url.endswith("/styles/app.css") for x in b.evidence.unavailable] == [True]


def test_cdn_frameworks_are_served_from_pinned_local_copies():
    res = rendered("cdn.html")
    assert res.ok, res.error
    assert res.evidence.offline_ok, res.evidence.unavailable
    served = {x.url for x in res.evidence.external if x.status == "served"}
    assert "https://cdn.tailwindcss.com/" in served
    assert any("bootstrap" in u for u in served)
    # Tailwind's utilities and Bootstrap's classes took effect.
    assert by_text(res, "tailwind big").font_size == 30.0
    assert by_text(res, "tailwind hidden").hidden == "display"
    assert by_text(res, "bootstrap hidden").hidden == "display"
    assert by_text(res, "bootstrap bold").font_weight == 700


# ---------------------------------------------------------------------------------------------- timeouts
def test_infinite_loop_is_abandoned_and_scored_invalid_without_stalling():
    r = shared_renderer()
    looping = "<!DOCTYPE html><html><body><h1>Time's up</h1><script>while (true) {}</script></body></html>"
    late = ("<!DOCTYPE html><html><body><p>Stop</p><script>setTimeout(() => { for (;;) {} }, 0)</script>"
            "</body></html>")
    good = "<!DOCTYPE html><html><body><p>still fine</p></body></html>"
    t = time.monotonic()
    results = r.render_many([RenderJob(looping, *GWORLD, timeout_s=1.5), RenderJob(good, *GWORLD),
                             RenderJob(late, *GWORLD, timeout_s=1.5), RenderJob(good, *GWORLD)])
    elapsed = time.monotonic() - t
    assert elapsed < 20, elapsed
    assert [x.status for x in results] == ["timeout", "ok", "timeout", "ok"]
    assert results[0].evidence is None and results[0].png is None and "timed out" in results[0].error
    parsed = parse("temporal", results[0], {})
    assert not parsed.valid and parsed.outcome["status"] == "invalid"
    # The renderer keeps working afterwards.
    again = r.render(good, *GWORLD)
    assert again.ok and by_text(again, "still fine").visible


# ---------------------------------------------------------------------------------------------- fallback
def test_navigation_away_is_refused_and_the_page_is_scored():
    html = ("<!DOCTYPE html><html><head><style>p{color:red}</style><script>var s='script text'</script></head>"
            "<body><p>Time&#39;s up</p><button>Stop</button>"
            "<script>location.href = 'https://example.com/elsewhere'</script></body></html>")
    res = shared_renderer().render(html, *GWORLD)
    assert res.ok and res.status == "ok" and not res.fallback_used
    assert [n.norm for n in res.evidence.nodes if n.visible] == ["time's up", "stop"]
    assert res.diagnostics["navigations_blocked"] == ["https://example.com/elsewhere"]


def test_renderer_crash_keeps_the_sample_and_recovers():
    import asyncio
    import contextlib

    from emukit.evaluate.render import Renderer

    with Renderer(pool_size=1, timeout_s=5) as r:
        assert r.render("<!DOCTYPE html><html><body><p>one</p></body></html>", *GWORLD).ok

        async def crash_idle_pages():
            for slot in r._idle[(GWORLD[1], True)]:
                with contextlib.suppress(Exception):  # a crashing target does not answer
                    await asyncio.wait_for(slot.cdp.send("Page.crash"), 2)

        r._call(crash_idle_pages(), 10)
        res = r.render("<!DOCTYPE html><html><body><p>Time's up</p><button>Stop</button></body></html>", *GWORLD)
        assert res.status == "fallback" and "crash" in res.error.lower()
        assert parse("temporal", res, {}).outcome["status"] == "fired"  # scored from the source text
        after = r.render("<!DOCTYPE html><html><body><p>three</p></body></html>", *GWORLD)
        assert after.ok and [n.text for n in after.evidence.nodes] == ["three"]


def test_fallback_evidence_strips_markup():
    ev = fallback_evidence("<html><head><title>T</title><style>.a{}</style></head><body><div>One <b>two</b></div>"
                           "<script>x()</script><input value='typed'><textarea>area</textarea><p>three</p>",
                           (360, 800))
    assert [(n.norm, n.kind) for n in ev.nodes] == [("one two", "text"), ("typed", "value"), ("area", "value"),
                                                    ("three", "text")]
    assert ev.fallback and all(n.visible and n.box is None for n in ev.nodes)


def test_missing_html_close_is_a_diagnostic_only():
    assert missing_html_close("<html><body>x</body>")
    assert not missing_html_close("<html><body>x</body></html>\n<!-- end -->\n")
    res = shared_renderer().render("<!DOCTYPE html><html><body><p>Clear all</p>", *GWORLD)
    assert res.ok and res.diagnostics["missing_html_close"] is True
    assert by_text(res, "Clear all").visible


# ---------------------------------------------------------------------------------------------- isolation
def test_each_prediction_gets_a_fresh_document():
    r = shared_renderer()
    writer = ("<!DOCTYPE html><html><body><p>writer</p><script>window.leak = 1; const shared = 2;"
              "try { localStorage.setItem('leak', '1') } catch (e) {}</script></body></html>")
    reader = ("<!DOCTYPE html><html><body><p id='out'>?</p><script>const shared = 3;"
              "let stored = null; try { stored = localStorage.getItem('leak') } catch (e) {}"
              "document.getElementById('out').textContent = (window.leak || stored) ? 'leaked' : 'clean';"
              "</script></body></html>")
    for _ in range(2):
        results = r.render_many([RenderJob(writer, *GWORLD), RenderJob(reader, *GWORLD)] * 2)
        for res in results[1::2]:
            assert [n.text for n in res.evidence.nodes] == ["clean"]


def test_requests_of_the_previous_document_are_not_blamed_on_the_next():
    """A document that keeps requesting after its load (a timer firing fetches, an EventSource reconnecting)
    does not go back to the pool: its page is closed, and the next prediction gets a page of its own. Before,
    it was frozen in the pool and woke when the page was reused: what it requested before the next prediction
    was handed over once made a self-contained page fail the offline check in a full run, and its flood of
    requests made the next render time out on a loaded machine. A document that ran scripts but stopped
    requesting is still frozen and reused."""
    from emukit.evaluate.render import Renderer

    poller = ("<!DOCTYPE html><html><body><p>poller</p><script>"
              "setInterval(() => { fetch('https://example.com/poll').catch(() => {}); }, 1);"
              "try { new EventSource('https://example.com/events'); } catch (e) {}</script></body></html>")
    plain = "<!DOCTYPE html><html><body><p>plain</p></body></html>"
    # one page: every render reuses the poller's page; a generous timeout, for the poller keeps a core busy
    quiet = "<!DOCTYPE html><html><body><p id=q>quiet</p><script>q.textContent = 'scripted';</script></body></html>"
    with Renderer(pool_size=1, timeout_s=20) as r:
        for i in range(3):
            first = r.render(poller, *GWORLD)
            assert first.ok, first.error
            assert not first.evidence.offline_ok  # its own polling is its own
            assert r.pages_discarded == i + 1  # the poller's page is closed, not pooled
            time.sleep(0.2)
            after = r.render(plain, *GWORLD)
            assert after.ok, after.error
            assert after.evidence.external == () and after.evidence.offline_ok, after.evidence.external
        assert r.render(quiet, *GWORLD).ok and r.render(plain, *GWORLD).ok
        assert r.pages_discarded == 3  # a script that stopped: its page was frozen and reused


def test_rendering_is_deterministic_across_reused_pages():
    r = shared_renderer()
    html = fixture_html("visibility.html")
    results = r.render_many([RenderJob(html, *GWORLD)] * 4)
    first = [n.to_dict() for n in results[0].evidence.nodes]
    for res in results[1:]:
        assert [n.to_dict() for n in res.evidence.nodes] == first
        assert res.png == results[0].png


# ---------------------------------------------------------------------------------------------- CDN mapping
def test_cdn_cache_dir_precedence(monkeypatch, tmp_path):
    from emukit.evaluate.cdn import default_cache_dir

    monkeypatch.setenv("EMUKIT_CDN_DIR", str(tmp_path / "a"))
    assert default_cache_dir() == tmp_path / "a"
    monkeypatch.delenv("EMUKIT_CDN_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "emukit" / "cdn"
    empty = CdnMirror(tmp_path / "nothing")
    assert not empty.available and len(empty.missing) == 4
    assert empty.resolve("https://cdn.tailwindcss.com") is None  # not installed: blocked
    assert empty.resolve("https://fonts.googleapis.com/css2?family=Inter").source == "empty-css"


@pytest.mark.parametrize("url, source", [
    ("https://cdn.tailwindcss.com/3.4.5?plugins=forms", "@tailwindcss/browser@4.3.4/dist/index.global.js"),
    ("https://unpkg.com/@tailwindcss/browser@4", "@tailwindcss/browser@4.3.4/dist/index.global.js"),
    ("https://stackpath.bootstrapcdn.com/bootstrap/4.5.2/css/bootstrap.min.css",
     "bootstrap@5.3.9/dist/css/bootstrap.min.css"),
    ("https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js",
     "bootstrap@5.3.9/dist/js/bootstrap.bundle.min.js"),
    ("https://use.fontawesome.com/releases/v5.15.4/css/all.css", "@fortawesome/fontawesome-free@6.7.2/css/all.min.css"),
    ("https://maxcdn.bootstrapcdn.com/font-awesome/4.7.0/css/font-awesome.min.css",
     "@fortawesome/fontawesome-free@6.7.2/css/all.min.css+css/v4-shims.min.css"),
    ("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/webfonts/fa-solid-900.woff2",
     "@fortawesome/fontawesome-free@6.7.2/webfonts/fa-solid-900.woff2"),
    ("https://fonts.googleapis.com/icon?family=Material+Icons", "material-icons@1.13.14/iconfont/material-icons.css"),
    ("https://fonts.googleapis.com/css2?family=Roboto:wght@400;500", "empty-css"),
    ("https://example.com/site.css", None),
    ("https://fonts.gstatic.com/s/roboto/v30/abc.woff2", None),
])
def test_cdn_url_mapping(url, source):
    asset = CdnMirror().resolve(url)
    assert (asset.source if asset else None) == source
