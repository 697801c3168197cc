"""Predictions written to steer their own score, rendered in real headless Chromium: navigation of every kind
is refused and the page stays the prediction; the source-text fallback keeps hidden text out and applies the
offline check; C.4 visibility through ``filter: opacity()``, occlusion by a descendant or by an ancestor's
background, the dense occlusion sampler, shadow DOM, ``srcdoc`` frames and modal scrims; a 5 MB page."""

from __future__ import annotations

import pytest

from emukit.evaluate.cdn import CdnMirror
from emukit.evaluate.fallback import fallback_evidence
from emukit.evaluate.render import Renderer
from tests.evaluate.render_support import GWORLD, needs_chromium, shared_renderer

pytestmark = needs_chromium

PAGE = ("<!DOCTYPE html><html><head>{head}</head><body style='margin:0'><main><h1>KEEP ME</h1>"
        "<p style='display:none'>PAYLOAD</p>{body}</main></body></html>")


def page(body: str = "", head: str = "") -> str:
    return PAGE.format(head=head, body=body)


def node(result, text: str):
    matches = [n for n in result.evidence.nodes if n.text == text]
    assert matches, f"no node {text!r} in {[n.text for n in result.evidence.nodes]} ({result.error})"
    return matches[0]


def assert_still_the_prediction(result) -> None:
    assert result.ok and result.status == "ok" and not result.fallback_used, result.error
    assert node(result, "KEEP ME").visible
    assert not node(result, "PAYLOAD").visible
    assert result.evidence.source == "render"


# ------------------------------------------------------------------------------------------------ navigation
NAVIGATIONS = {
    "meta refresh elsewhere": page(head="<meta http-equiv='refresh' content='0; url=https://example.com/x'>"),
    "meta refresh to itself": page(head="<meta http-equiv='refresh' content='0'>"),
    "link through a base href": page(
        "<a id=a href='next.html'>go</a><script>document.getElementById('a').click()</script>",
        head="<base href='https://elsewhere.example/'>"),
    "location.href": page("<script>location.href = 'https://example.com/elsewhere'</script>"),
    "location.replace": page("<script>location.replace('/other')</script>"),
    "location.reload": page("<script>setTimeout(() => location.reload(), 0)</script>"),
    "form submit GET": page("<form id=f action='https://example.com/s'><input name=q value=1></form>"
                            "<script>document.getElementById('f').submit()</script>"),
    "form submit POST to itself": page("<form id=f method=post><input name=q value=1></form>"
                                       "<script>document.getElementById('f').requestSubmit()</script>"),
    "window.open _self": page("<script>window.open('https://example.com/', '_self')</script>"),
    "window.open popup": page("<script>window.open('https://example.com/popup')</script>"),
    "top-level data URL": page("<script>location.href = 'data:text/html,<p>PAYLOAD visible</p>'</script>"),
    "about:blank": page("<script>location.href = 'about:blank'</script>"),
}


@pytest.mark.parametrize("name", list(NAVIGATIONS))
def test_a_navigating_prediction_is_scored_as_itself(name: str):
    result = shared_renderer().render(NAVIGATIONS[name], *GWORLD)
    assert_still_the_prediction(result)
    assert "PAYLOAD visible" not in [n.text for n in result.evidence.nodes]


EXTERNAL = "<link rel=stylesheet href='https://example.com/x.css'>"
UNREFUSABLE = {  # navigations that are no request the renderer can refuse: the page is rendered again, scripts off
    "about:blank": page("<script>location.href = 'about:blank'</script>", head=EXTERNAL),
    "a blob document": page("<script>location.href = URL.createObjectURL(new Blob(['<p>PAYLOAD visible</p>'], "
                            "{type: 'text/html'}))</script>", head=EXTERNAL),
    "a frame moving the top page": page("<iframe srcdoc=\"<script>top.location = 'about:blank'</script>\">"
                                        "</iframe>", head=EXTERNAL),
}


@pytest.mark.parametrize("name", list(UNREFUSABLE))
def test_an_unrefusable_navigation_is_scored_on_the_prediction_with_both_guarantees(name: str):
    result = shared_renderer().render(UNREFUSABLE[name], *GWORLD)
    assert "the page navigated away" in result.diagnostics["navigated_away"]
    assert_still_the_prediction(result)  # the hidden payload stays hidden: visibility is applied, not text
    assert "PAYLOAD visible" not in [n.text for n in result.evidence.nodes]
    assert not result.offline_ok  # and the external stylesheet still fails the offline check


@pytest.mark.parametrize("name, html", [
    ("meta refresh to a data document", page(head=EXTERNAL + "<meta http-equiv='refresh' "
                                                             "content='0; url=data:text/html,<p>PAYLOAD visible</p>'>")),
    ("link to a data document", page(head=EXTERNAL, body="<a id=a href='data:text/html,<p>PAYLOAD visible</p>'>x</a>"
                                                         "<script>document.getElementById('a').click()</script>")),
])
def test_a_refused_navigation_keeps_the_offline_check(name: str, html: str):
    result = shared_renderer().render(html, *GWORLD)
    assert_still_the_prediction(result)
    assert "PAYLOAD visible" not in [n.text for n in result.evidence.nodes]
    assert not result.offline_ok


def test_a_javascript_url_document_is_scored_as_rendered():
    """A ``javascript:`` URL whose value is a document replaces the page like any script writing the DOM (no
    request exists to refuse, and CSP cannot forbid it without forbidding the inline scripts predictions
    use): what it renders is what is scored, under the same visibility rule."""
    result = shared_renderer().render(page("<script>location.href = 'javascript:\"<p>SHOWN</p><p "
                                           "style=display:none>PAYLOAD</p>\"'</script>"), *GWORLD)
    assert result.ok and node(result, "SHOWN").visible and not node(result, "PAYLOAD").visible


def test_blocked_navigations_are_recorded():
    result = shared_renderer().render(NAVIGATIONS["location.href"], *GWORLD)
    assert result.diagnostics["navigations_blocked"] == ["https://example.com/elsewhere"]
    assert result.offline_ok  # a refused navigation is not a resource the page depends on


def test_history_navigation_to_the_previous_prediction_is_refused():
    with Renderer(pool_size=1, timeout_s=5) as r:  # one page: the previous prediction is in its history
        first = r.render(page("<p>FIRST</p><script>1</script>"), *GWORLD)
        assert first.ok and node(first, "FIRST").visible
        second = r.render(page("<p>SECOND</p><script>setTimeout(() => history.back(), 0);"
                               "history.go(-1)</script>"), *GWORLD)
        assert_still_the_prediction(second)
        assert node(second, "SECOND").visible
        assert "FIRST" not in [n.text for n in second.evidence.nodes]


def test_push_state_is_not_a_navigation():
    result = shared_renderer().render(page("<script>history.pushState({}, '', '/elsewhere/path')</script>"), *GWORLD)
    assert_still_the_prediction(result)


# ------------------------------------------------------------------------------------------------ fallback
@pytest.mark.parametrize("html, text", [
    ("<style>.x{display:none}</style><p class=x>PAYLOAD</p>", "PAYLOAD"),
    ("<style>#a > p{visibility:hidden}</style><div id=a><p>PAYLOAD</p></div>", "PAYLOAD"),
    ("<style>@media (min-width: 1px) { .x { opacity: 0 } }</style><p class=x>PAYLOAD</p>", "PAYLOAD"),
    ("<style>p.x:hover{display:none}</style><p class=x>PAYLOAD</p>", "PAYLOAD"),
    ("<p style='filter: opacity(0%)'>PAYLOAD</p>", "PAYLOAD"),
    ("<p hidden>PAYLOAD</p>", "PAYLOAD"),
    ("<div style='position:absolute;left:-9999px'>PAYLOAD</div>", "PAYLOAD"),
    ("<p style='font-size:0'>PAYLOAD</p>", "PAYLOAD"),
    ("<details><summary>Sum</summary>PAYLOAD</details>", "PAYLOAD"),
    ("<dialog><p>PAYLOAD</p></dialog>", "PAYLOAD"),
    ("<div style='display:none'><span><b>PAYLOAD</b></span></div>", "PAYLOAD"),
])
def test_fallback_never_counts_text_the_page_hides(html: str, text: str):
    ev = fallback_evidence(f"<!DOCTYPE html><html><body><p>shown</p>{html}</body></html>", (360, 800))
    assert "shown" in ev.texts()
    assert text.lower() not in " ".join(ev.texts())
    assert any(n.text == text and n.hidden for n in ev.nodes)  # kept, marked hidden, for the report


@pytest.mark.parametrize("head, ok", [
    ("<link rel=stylesheet href='https://example.com/site.css'>", False),
    ("<base href='https://elsewhere.example/'><link rel=stylesheet href='app.css'>", False),
    ("<script src='app.js'></script>", False),
    ("<style>@import url('https://example.com/a.css');</style>", False),
    ("<link rel=preconnect href='https://example.com'>", True),
    ("<link rel=stylesheet href='data:text/css,p{}'>", True),
    ("<link rel=stylesheet href='https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css'>", True),
])
def test_fallback_applies_the_offline_check(head: str, ok: bool):
    html = f"<!DOCTYPE html><html><head>{head}</head><body><p>x</p></body></html>"
    ev = fallback_evidence(html, (360, 800), CdnMirror())
    assert ev.offline_ok is ok, [vars(r) for r in ev.external]


def test_a_crashed_render_falls_back_with_both_guarantees():
    import asyncio
    import contextlib

    with Renderer(pool_size=1, timeout_s=5) as r:
        assert r.render(page(), *GWORLD).ok

        async def crash_idle_pages():
            for slot in r._idle[(GWORLD[1], True)]:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(slot.cdp.send("Page.crash"), 2)

        r._call(crash_idle_pages(), 10)
        res = r.render(page(head="<link rel=stylesheet href='https://example.com/x.css'>"), *GWORLD)
        assert res.status == "fallback"
        assert "keep me" in res.evidence.texts() and "payload" not in res.evidence.texts()
        assert not res.offline_ok


# ------------------------------------------------------------------------------------------------ visibility
def vis(body: str, head: str = ""):
    return shared_renderer().render(f"<!DOCTYPE html><html><head><style>body{{margin:0;font:16px sans-serif}}"
                                    f"</style>{head}</head><body>{body}</body></html>", *GWORLD)


@pytest.mark.parametrize("style, visible", [
    ("filter: opacity(0)", False),
    ("filter: opacity(3%)", False),
    ("filter: blur(0px) opacity(0.02)", False),
    ("filter: opacity(50%)", True),
    ("opacity: 0.2; filter: opacity(0.2)", False),  # 0.04 in all
])
def test_filter_opacity_counts(style: str, visible: bool):
    res = vis(f"<p style='{style}'>SUBJECT</p>")
    assert node(res, "SUBJECT").visible is visible, node(res, "SUBJECT")
    if not visible:
        assert node(res, "SUBJECT").hidden == "opacity"


def test_an_ancestors_filter_opacity_hides_its_text():
    res = vis("<div style='filter:opacity(0)'><section><p>SUBJECT</p></section></div>")
    assert node(res, "SUBJECT").hidden == "opacity"


@pytest.mark.parametrize("cover", [
    "<span style='position:absolute;inset:0;background:#fff'></span>",
    "<img style='position:absolute;left:0;top:0;width:100%;height:100%' src='data:image/gif;base64,"
    "R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw=='>",
    "<i style='position:absolute;inset:0;background:rgba(255,255,255,.9)'></i>",
])
def test_text_covered_by_its_own_child_is_occluded(cover: str):
    res = vis(f"<p style='position:relative;width:300px'>SUBJECT TEXT HERE{cover}</p>")
    assert node(res, "SUBJECT TEXT HERE").hidden == "occluded"


@pytest.mark.parametrize("body", [
    "<div style='background:#fff'><p style='position:relative;z-index:-1'>SUBJECT</p></div>",
    "<div style='background:linear-gradient(#fff,#eee)'><p style='position:relative;z-index:-1'>SUBJECT</p></div>",
    "<section style='background:#fafafa;padding:8px'><div><p style='position:relative;z-index:-5'>SUBJECT</p>"
    "</div></section>",
])
def test_text_behind_an_ancestors_background_is_occluded(body: str):
    assert node(vis(body), "SUBJECT").hidden == "occluded"


def test_text_above_its_ancestors_background_is_visible():
    res = vis("<div style='background:#fff;position:relative;z-index:0'><p style='position:relative;z-index:-1'>"
              "SUBJECT</p></div>")  # the ancestor is a stacking context: its background paints first
    assert node(res, "SUBJECT").visible


@pytest.mark.parametrize("covered, visible", [(27, False), (24, False), (15, True), (0, True)])
def test_the_dense_sampler_decides_partial_cover(covered: int, visible: bool):
    res = vis("<div style='position:relative;width:300px'><p style='margin:0;width:300px;font:20px monospace;"
              "white-space:nowrap;overflow:hidden'>MMMMMMMMMMMMMMMMMMMMMMMMM</p>"
              f"<b style='position:absolute;left:0;top:0;height:100%;width:{covered}%;background:#000'></b></div>")
    subject = node(res, "MMMMMMMMMMMMMMMMMMMMMMMMM")
    assert subject.visible is visible, subject
    if covered:
        assert abs(subject.unoccluded - (1 - covered / 100)) < 0.08, subject


def test_open_shadow_roots_are_read():
    res = vis("<div id=host></div><script>const r = document.getElementById('host').attachShadow({mode:'open'});"
              "r.innerHTML = '<style>.h{display:none}</style><p>SHADOW TEXT</p><p class=h>SHADOW HIDDEN</p>';"
              "</script>")
    assert node(res, "SHADOW TEXT").visible
    assert node(res, "SHADOW HIDDEN").hidden == "display"
    assert res.diagnostics["shadow_roots"] == 1


def test_declarative_shadow_dom_is_read_with_slots():
    res = vis("<div><template shadowrootmode='open'><h2>DSD HEADING</h2><slot></slot></template>"
              "<p>SLOTTED TEXT</p></div>")
    assert node(res, "DSD HEADING").visible
    assert node(res, "SLOTTED TEXT").visible


def test_text_in_a_shadow_root_can_be_covered():
    res = vis("<div id=host></div><div style='position:absolute;left:0;top:0;width:360px;height:200px;"
              "background:#fff'></div><script>document.getElementById('host').attachShadow({mode:'open'})"
              ".innerHTML = '<p>UNDER COVER</p>';</script>")
    assert node(res, "UNDER COVER").hidden == "occluded"


def test_srcdoc_frames_are_read_in_page_coordinates():
    res = vis("<div style='height:100px'></div><iframe style='border:0;width:360px;height:200px' "
              "srcdoc=\"<body style='margin:0'><p style='margin:0'>FRAME TEXT</p>"
              "<p style='margin-top:400px'>FRAME CLIPPED</p></body>\"></iframe>")
    text = node(res, "FRAME TEXT")
    assert text.visible and 99 <= text.y <= 102, text
    assert node(res, "FRAME CLIPPED").hidden == "outside_viewport"  # beyond the frame's box
    assert res.diagnostics["frames_read"] == 1


def test_a_covered_frame_hides_its_text():
    res = vis("<iframe style='border:0;width:360px;height:200px' srcdoc=\"<p>FRAME TEXT</p>\"></iframe>"
              "<div style='position:absolute;left:0;top:0;width:360px;height:200px;background:#fff'></div>")
    assert node(res, "FRAME TEXT").hidden == "occluded"


def test_a_modal_dialogs_backdrop_hides_the_page_behind():
    res = vis("<p>PAGE BEHIND</p><dialog id=d><p>DIALOG TEXT</p></dialog>"
              "<script>document.getElementById('d').showModal()</script>")
    assert node(res, "DIALOG TEXT").visible
    assert node(res, "PAGE BEHIND").hidden == "occluded"


def test_a_scrim_hides_the_page_behind():
    res = vis("<p>PAGE BEHIND</p><div style='position:fixed;inset:0;background:rgba(0,0,0,.32)'>"
              "<p style='background:#fff;margin:300px 20px'>SHEET TEXT</p></div>")
    assert node(res, "SHEET TEXT").visible
    assert node(res, "PAGE BEHIND").hidden == "occluded"


# ------------------------------------------------------------------------------------------ forged evidence
FORGERIES = {
    "JSON.stringify answers for the reader": (
        "JSON.stringify = () => '{\"settle\":{},\"evidence\":{\"nodes\":[{\"text\":\"PAYLOAD\",\"kind\":\"text\","
        "\"box\":[0,0,100,20],\"rects\":1,\"inViewport\":1,\"unoccluded\":1,\"hidden\":null}],\"refs\":[],"
        "\"url\":\"' + location.href + '\"}}';"),
    "styles, rects and hit tests say the hidden paragraph shows": (
        "const real = window.getComputedStyle;"
        "window.getComputedStyle = (el, p) => { const s = real(el, p); return new Proxy(s, {get: (t, k) => "
        "k === 'display' ? 'block' : (typeof t[k] === 'function' ? t[k].bind(t) : t[k])}); };"
        "Element.prototype.checkVisibility = () => true;"
        "Range.prototype.getClientRects = () => [{left: 0, top: 0, width: 120, height: 20}];"
        "Document.prototype.elementsFromPoint = function () { return [document.querySelector('p')]; };"),
    "array and map methods are replaced": (
        "Array.prototype.filter = function () { return []; }; Map.prototype.values = function* () {};"
        "Array.prototype.flatMap = function () { return []; };"),
}


@pytest.mark.parametrize("script", FORGERIES.values(), ids=FORGERIES.keys())
def test_a_page_cannot_forge_its_evidence_by_replacing_built_ins(script):
    """The evidence is read in a separate JavaScript world of the page: the page's own script shares the DOM
    with it but not its built-ins, so replacing JSON, styles, geometry or collection methods changes nothing."""
    res = shared_renderer().render(page(f"<script>{script}</script>"), *GWORLD)
    assert_still_the_prediction(res)


# ------------------------------------------------------------------------------------------------ large pages
def test_a_5mb_page_of_paragraphs_is_rendered_and_read():
    """How long it takes is measured by ``tools/bench_render.py --large``, not here: the deadline is generous
    so that a loaded machine does not turn a correct reading into a timeout."""
    paragraphs = "".join(f"<p>Paragraph {i}: plain text that goes on for a while to fill the page up.</p>"
                         for i in range(64000))
    html = f"<!DOCTYPE html><html><body><h1>TOP OF PAGE</h1>{paragraphs}</body></html>"
    assert len(html) > 5_000_000
    res = shared_renderer().render(html, *GWORLD, screenshot=False, timeout_s=60)
    assert res.ok, res.error
    assert node(res, "TOP OF PAGE").visible
    assert node(res, "Paragraph 0: plain text that goes on for a while to fill the page up.").visible
    assert not node(res, "Paragraph 1999: plain text that goes on for a while to fill the page up.").visible
    assert res.diagnostics["hidden_nodes_omitted"] > 50000  # counted, not listed
    assert len(res.evidence.nodes) < 2100
