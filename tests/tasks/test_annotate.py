"""``emukit annotate``: the annotator's page driven end to end in headless Chromium against a virtual device
behind the real adb server, plus the request rules that need no device."""

from __future__ import annotations

import http.client
import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from emukit.annotate import AnnotateApp, ApiError, parse_action, start_server
from emukit.annotate.app import describe, png_size
from emukit.annotate.server import not_local
from emukit.device.actions import Action
from emukit.device.driver import Driver
from emukit.tasks.files import load_task, save_task
from emukit.tasks.schema import Check, Provenance, ScreenLeaf, Task
from emukit.tasks.session import snapshot_name

SHIPPED = Path(__file__).resolve().parents[2] / "tasks" / "code_to_new_note_01.yaml"
TASK_ID = "code_to_new_note_01"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WAIT_MS = 30_000  # generous: a wait only lasts this long when something is broken


# ------------------------------------------------------------------------------------------ no device
def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x00" * width * 3 for _ in range(height))
    return (PNG_MAGIC + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_parse_action_accepts_actions_and_names_what_is_wrong():
    assert parse_action({"type": "tap", "x": 10, "y": 20}, (100, 200)) == Action(type="tap", x=10, y=20)
    swipe = parse_action({"type": "swipe", "x": 1, "y": 2, "x2": 3, "y2": 4, "duration_ms": 250}, (100, 200))
    assert (swipe.x2, swipe.y2, swipe.duration_ms) == (3, 4, 250)
    assert parse_action({"type": "key", "key": 67}).key == 67
    assert parse_action({"type": "wait", "duration_ms": 5000}).duration_ms == 5000
    bad = [
        ([1, 2], "JSON object"),
        ({"type": "fly"}, "type"),
        ({"type": "tap", "x": 5}, "needs y"),
        ({"type": "tap", "x": "5", "y": 1}, "x"),
        ({"type": "tap", "x": 100, "y": 1}, "outside the 100x200 screen"),
        ({"type": "swipe", "x": 1, "y": 2, "x2": 3, "y2": 400}, "outside"),
        ({"type": "type", "text": ""}, "non-empty text"),
        ({"type": "key"}, "needs key"),
        ({"type": "wait", "duration_ms": 0}, "duration_ms > 0"),
        ({"type": "tap", "x": 1, "y": 1, "element": {}}, "element"),
    ]
    for payload, words in bad:
        with pytest.raises(ApiError, match=words) as info:
            parse_action(payload, (100, 200))
        assert info.value.status == 400


def test_only_local_hosts_and_origins_pass():
    assert not_local("127.0.0.1:8123", None, 8123) is None
    assert not_local("localhost:8123", "http://localhost:8123", 8123) is None
    assert "Host" in not_local("evil.example:8123", None, 8123)
    assert "Host" in not_local("127.0.0.1:9999", None, 8123)
    assert "Host" in not_local(None, None, 8123)
    assert "Origin" in not_local("127.0.0.1:8123", "http://evil.example", 8123)
    assert "Origin" in not_local("127.0.0.1:8123", "null", 8123)


def test_png_size_and_action_descriptions():
    assert png_size(_png(3, 5)) == (3, 5)
    with pytest.raises(ValueError):
        png_size(b"GIF89a")
    assert describe(Action(type="key", key=3)) == "key HOME"
    assert describe(Action(type="wait", duration_ms=1500)) == "wait 1.5 s"
    assert describe(Action(type="type", text="Badge")) == "type 'Badge'"


# ------------------------------------------------------------------------------------------ end to end
def _draft(shipped: Task, folder: Path, task_id: str = TASK_ID, **update: object) -> Task:
    """A draft copy of the shipped task (milestones kept, provenance back to its defaults)."""
    save_task(shipped.model_copy(update={"id": task_id, "provenance": Provenance(), **update}), folder)
    return load_task(folder / f"{task_id}.yaml")


@pytest.fixture(scope="module")
def shipped() -> Task:
    """The shipped task, read once (the draft and the reference driven through the page always agree)."""
    return load_task(SHIPPED)


@pytest.fixture(scope="module")
def driver(vdevice, adb_server) -> Iterator[Driver]:
    d = Driver(vdevice.serial, adb_server.port, default_timeout=10)
    yield d
    d.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from emukit.evaluate.render import find_chromium

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=find_chromium(), headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture()
def annotate(shipped, driver, browser, tmp_path):
    """Start the annotate server for a draft task in a temporary tasks folder; yields (app, server, page)."""
    servers = []

    def open_task(task_id: str, **update: object):
        folder = tmp_path / "tasks"
        task = _draft(shipped, folder, task_id, **update)
        app = AnnotateApp(driver, task, tasks_folder=folder, annotator="Ann Notator", data_dir=tmp_path / "data")
        app.start()
        server, _ = start_server(app)
        # the page forbids eval by its CSP; Playwright's wait_for_function needs it
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page = context.new_page()
        servers.append((server, context))
        page.goto(server.url)
        page.wait_for_function("document.getElementById('screen-img').naturalWidth > 0 && "
                               "document.body.dataset.version !== '0'", timeout=WAIT_MS)
        return app, server, page

    yield open_task
    for server, context in servers:
        context.close()
        server.shutdown()
        server.server_close()


def _settled(page, steps: int) -> None:
    page.wait_for_function(f"document.body.dataset.steps === '{steps}' && document.body.dataset.busy === '0'",
                           timeout=WAIT_MS)


def _request(server, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


@pytest.mark.chromium
def test_annotator_performs_and_verifies_a_task_through_the_page(annotate, shipped):
    app, server, page = annotate(TASK_ID)
    folder = app.folder
    assert page.text_content("#instruction") == shipped.instruction
    assert page.eval_on_selector_all("#checklist li", "els => els.map(e => e.dataset.id)") == [
        m.id for m in shipped.milestones]

    # save the initial state first: the screenshot, the snapshot name, the task file
    page.click("#btn-save-initial")
    page.wait_for_function("document.getElementById('message').textContent.includes('initial state saved')",
                           timeout=WAIT_MS)
    screen_png = folder / "screens" / f"{TASK_ID}.png"
    assert screen_png.read_bytes().startswith(PNG_MAGIC)
    saved = load_task(folder / f"{TASK_ID}.yaml")
    assert saved.provenance.initial_screenshot == f"screens/{TASK_ID}.png"
    assert saved.provenance.initial_snapshot == snapshot_name(shipped.model_copy(update={"provenance": Provenance()}))
    assert saved.provenance.status == "draft"

    # perform the reference through the page: device pixels -> page pixels of the screen image
    box = page.locator("#screen-img").bounding_box()
    natural_w, natural_h = page.eval_on_selector("#screen-img", "i => [i.naturalWidth, i.naturalHeight]")
    assert box and box["height"] > 300 and (natural_w, natural_h) == (1080, 2400)

    def at(x: int, y: int) -> tuple[float, float]:
        return box["x"] + (x + 0.5) * box["width"] / natural_w, box["y"] + (y + 0.5) * box["height"] / natural_h

    expected_steps = shipped.provenance.milestone_steps
    for i, ref in enumerate(shipped.provenance.reference, start=1):
        if ref.type == "tap":
            page.mouse.click(*at(ref.x, ref.y))
        elif ref.type == "long_press":
            page.mouse.move(*at(ref.x, ref.y))
            page.mouse.down()
            page.wait_for_timeout(700)
            page.mouse.up()
        elif ref.type == "type":
            page.keyboard.type(ref.text)
        elif ref.type == "key":
            page.click({3: "#btn-home", 4: "#btn-back", 187: "#btn-overview"}[ref.key])
        elif ref.type == "swipe":  # a drag on the screen image (the All Apps drawer opens with one)
            page.mouse.move(*at(ref.x, ref.y))
            page.mouse.down()
            page.mouse.move(*at(ref.x2, ref.y2), steps=8)
            page.mouse.up()
        else:
            raise AssertionError(f"the shipped reference has an unexpected action {ref.type}")
        _settled(page, i)
        ticked = page.eval_on_selector_all("#checklist li", "els => els.map(e => e.dataset.reached === '1')")
        assert ticked == sorted(ticked, reverse=True), f"a later milestone ticked before an earlier one: {ticked}"
        assert ticked == [s <= i for s in expected_steps], f"after step {i}: {ticked}"
        if i == 1:  # refusals, shown on the page and answered by the API
            page.click("#btn-save-initial")
            page.wait_for_function("document.getElementById('message').classList.contains('error')",
                                   timeout=WAIT_MS)
            assert "before any action" in page.text_content("#message")
            status, body = _request(server, "POST", "/api/verify", b"{}")
            assert status == 409 and "code_copied" in body["error"] and "code_pasted" in body["error"]

    shown = page.eval_on_selector_all("#checklist li", "els => els.map(e => Number(e.dataset.at))")
    assert page.text_content("#steps") == str(len(shipped.provenance.reference))
    page.fill("#note", "performed through the page")
    page.click("#btn-verify")
    page.wait_for_function("document.body.dataset.status === 'verified'", timeout=WAIT_MS)

    task = load_task(folder / f"{TASK_ID}.yaml")
    prov = task.provenance
    n = len(shipped.provenance.reference)
    assert (prov.status, prov.method, prov.verified_by, prov.note) == (
        "verified", "annotator", "Ann Notator", "performed through the page")
    assert prov.verified_at is not None and prov.human_steps == n and len(prov.reference) == n
    assert prov.milestone_steps == shown == expected_steps
    assert task.step_budget == 2 * n
    assert prov.initial_screenshot == f"screens/{TASK_ID}.png"  # kept from the save at the start
    for got, want in zip(prov.reference, shipped.provenance.reference, strict=True):
        assert got.type == want.type
        if want.type in ("tap", "long_press"):
            assert abs(got.x - want.x) <= 6 and abs(got.y - want.y) <= 6, (got, want)
            # the element under the finger: the same label (a row container may stand for its title)
            assert got.element is not None and want.element is not None
            assert got.element.text == want.element.text
            # a Markor notebook row's container carries a content-desc ("File Codes.md <date>"); its title not
            assert want.element.content_desc in ("", got.element.content_desc), (got.element, want.element)
            left, top, right, bottom = got.element.bounds
            cx, cy = want.element.center
            assert left <= cx < right and top <= cy < bottom, (got.element, want.element)
        if want.type == "long_press":
            assert got.duration_ms >= 600
        assert (got.text, got.key) == (want.text, want.key)

    # the API refuses bad requests with clear messages and keeps serving
    status, body = _request(server, "POST", "/api/action", b'{"type": "fly"}')
    assert status == 400 and "type" in body["error"]
    status, body = _request(server, "POST", "/api/action", b'{"type": "tap", "x": 5000, "y": 1}')
    assert status == 400 and "outside the 1080x2400 screen" in body["error"]
    status, body = _request(server, "POST", "/api/action", b"{not json")
    assert status == 400 and "not valid JSON" in body["error"]
    status, body = _request(server, "POST", "/api/action", b"{}", {"Content-Type": "text/plain"})
    assert status == 415
    status, body = _request(server, "POST", "/api/action", b'{"type": "key", "key": 4}', {"Host": "evil.example"})
    assert status == 403 and "Host" in body["error"]
    status, body = _request(server, "POST", "/api/action", b'{"type": "key", "key": 4}',
                            {"Origin": "http://evil.example"})
    assert status == 403 and "Origin" in body["error"]
    status, state = _request(server, "GET", "/api/state")
    assert status == 200 and state["steps"] == n and state["provenance"]["status"] == "verified"


@pytest.mark.chromium
def test_restart_screen_check_refusal_and_reject_with_a_note(annotate, shipped):
    first, second = (m.model_copy() for m in shipped.milestones[:2])
    first.screen_check = Check(screen=ScreenLeaf(text="Not on any screen"))  # a screen check that cannot hold
    app, server, page = annotate("code_to_new_note_copy", milestones=[first, second])
    box = page.locator("#screen-img").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 667 / 1080, box["y"] + box["height"] * 801 / 2400)  # the home screen
    _settled(page, 1)
    assert page.eval_on_selector_all("#trajectory li", "els => els.length") == 1
    page.click("#btn-restart")
    page.wait_for_function("document.getElementById('message').textContent.includes('restarted')",
                           timeout=WAIT_MS)
    _settled(page, 0)
    assert page.eval_on_selector_all("#trajectory li", "els => els.length") == 0
    assert app.session.trajectory == []

    # a change made outside the page (an emulator's own window) shows up by polling, unrecorded
    version = page.evaluate("document.body.dataset.version")
    up = shipped.provenance.reference[0]  # the swipe up from the hotseat: All Apps opens
    assert up.type == "swipe"
    with app.lock:
        app.session.driver.swipe(up.x, up.y, up.x2, up.y2, 300)
    page.wait_for_function(f"document.body.dataset.version !== '{version}'", timeout=WAIT_MS)
    assert page.text_content("#steps") == "0" and app.session.trajectory == []

    # every milestone reached, but the first one's screen check fails where it is reached: refused
    assert _request(server, "POST", "/api/restart", b"{}")[0] == 200
    reach = shipped.provenance.milestone_steps[1]
    for ref in shipped.provenance.reference[:reach]:
        body = ref.model_dump(mode="json", include={"type", "x", "y", "x2", "y2", "text", "key", "duration_ms"},
                              exclude_none=True)
        assert _request(server, "POST", "/api/action", json.dumps(body).encode())[0] == 200
    status, body = _request(server, "POST", "/api/verify", b"{}")
    assert status == 409 and "screen_check of milestone(s) code_copied" in body["error"]
    page.wait_for_function(f"document.body.dataset.steps === '{reach}'", timeout=WAIT_MS)
    assert page.eval_on_selector_all("#checklist li", "els => els.map(e => e.className.includes('screen-bad'))") == [
        True, False]

    page.click("#btn-reject")  # no note: refused
    page.wait_for_function("document.getElementById('message').textContent.includes('needs a note')",
                           timeout=WAIT_MS)
    assert load_task(app.folder / "code_to_new_note_copy.yaml").provenance.status == "draft"
    page.fill("#note", "the instruction names the wrong note")
    page.click("#btn-reject")
    page.wait_for_function("document.body.dataset.status === 'rejected'", timeout=WAIT_MS)
    prov = load_task(app.folder / "code_to_new_note_copy.yaml").provenance
    assert (prov.status, prov.note) == ("rejected", "the instruction names the wrong note")
    assert prov.reference == []
