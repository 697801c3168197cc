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

from emukit.actions import Action
from emukit.annotate import AnnotateApp, ApiError, parse_action, start_server
from emukit.annotate.app import describe, png_size
from emukit.annotate.server import not_local
from emukit.device.driver import Driver
from emukit.apps.registry import package_of
from emukit.tasks.annotations import load_annotations
from emukit.tasks.files import load_task, save_task
from emukit.tasks.schema import Check, Provenance, ScreenLeaf, Task
from emukit.tasks.session import snapshot_name
from emukit.workers import DeviceContext

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


def on_device(driver: Driver, data_dir: Path) -> DeviceContext:
    """The annotator's context on the module's device (the driver stays the fixture's)."""
    return DeviceContext(driver.serial, adb_port=driver.adb_port, data_dir=data_dir, driver=driver)


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
        app = AnnotateApp(on_device(driver, tmp_path / "data"), task, tasks_folder=folder, annotator="Ann Notator")
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
             headers: dict[str, str] | None = None, *, tab: str | None = "api-client",
             tokens: bool = True) -> tuple[int, dict]:
    """One API request with this server's tokens (``tokens=False``: none) and a tab id."""
    sent = {"Content-Type": "application/json"}
    if tokens:
        sent |= {"X-Emukit-Server": server.app.server_token, "X-Emukit-Task": server.app.task_token}
    if tab:
        sent["X-Emukit-Tab"] = tab
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers={**sent, **(headers or {})})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def _post(server, path: str, data: dict | None = None, **kw) -> tuple[int, dict]:
    return _request(server, "POST", path, json.dumps(data or {}).encode(), **kw)


def _replay(server, actions, tab: str) -> None:
    """Post recorded actions through the API as the tab in control."""
    for ref in actions:
        body = ref.model_dump(mode="json", include={"type", "x", "y", "x2", "y2", "text", "key", "duration_ms"},
                              exclude_none=True)
        status, answer = _post(server, "/api/action", body, tab=tab)
        assert status == 200, answer


@pytest.mark.usefixtures("chromium")
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
        elif ref.type == "open_app":  # GUI-CC's open_app: the app picked by its launcher label, one action
            page.select_option("#open-app", ref.text)
            page.click("#btn-open-app")
        elif ref.type == "swipe":  # a drag on the screen image
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
            status, body = _request(server, "POST", "/api/verify", b"{}", tab=page.evaluate("TAB"))
            assert status == 409 and "code_copied" in body["error"] and "code_pasted" in body["error"]

    shown = page.eval_on_selector_all("#checklist li", "els => els.map(e => Number(e.dataset.at))")
    assert page.text_content("#steps") == str(len(shipped.provenance.reference))
    page.fill("#note", "performed through the page")
    page.click("#btn-verify")  # the review dialog first: nothing flagged for this run, no canonical reference yet
    page.wait_for_selector("#review-dlg[open]", timeout=WAIT_MS)
    assert "no canonical reference" in page.text_content("#review-summary")
    flags = page.eval_on_selector_all("#review-flags li", "els => els.map(e => [e.dataset.kind, e.textContent])")
    assert flags == [], flags  # every step of the reference changes the screen, and it stays in the task's apps
    page.click("#btn-review-save")
    page.wait_for_function("document.body.dataset.saved === '1'", timeout=WAIT_MS)
    assert "Accept makes this run canonical" in page.text_content("#message")

    n = len(shipped.provenance.reference)
    note = load_annotations(folder, TASK_ID)
    assert [(a.number, a.annotator, a.verdict, a.steps, a.note) for a in note] == [
        (1, "Ann Notator", "verified", n, "performed through the page")]
    assert note[0].milestone_steps == shown == expected_steps
    assert load_task(folder / f"{TASK_ID}.yaml").provenance.status == "draft"  # the task file is not touched
    built_on = note[0].built_on  # the device it was performed on, read on that device
    assert built_on is not None and built_on.kind == "virtual-deterministic" and built_on.api_level == 34
    assert set(built_on.apps) == {package_of(app) for app in shipped.apps}
    assert all(b.version_code is not None for b in built_on.apps.values())

    # accepting it as canonical: asked to confirm (dismissed: nothing happens), then confirmed
    answers = iter([False, True])
    page.on("dialog", lambda d: d.accept() if next(answers) else d.dismiss())
    page.click("#annotations button.accept")
    page.wait_for_timeout(300)
    assert load_task(folder / f"{TASK_ID}.yaml").provenance.status == "draft"
    page.click("#annotations button.accept")
    page.wait_for_function("document.body.dataset.status === 'verified'", timeout=WAIT_MS)

    task = load_task(folder / f"{TASK_ID}.yaml")
    prov = task.provenance
    assert (prov.status, prov.method, prov.verified_by, prov.note, prov.annotation) == (
        "verified", "annotator", "Ann Notator", "performed through the page", 1)
    assert prov.verified_at == note[0].at and prov.human_steps == n and len(prov.reference) == n
    assert prov.built_on == note[0].built_on  # the canonical reference says where it was performed
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
    control = page.evaluate("TAB")  # the page's tab controls the run
    status, body = _request(server, "POST", "/api/action", b'{"type": "fly"}', tab=control)
    assert status == 400 and "type" in body["error"]
    status, body = _request(server, "POST", "/api/action", b'{"type": "tap", "x": 5000, "y": 1}', tab=control)
    assert status == 400 and "outside the 1080x2400 screen" in body["error"]
    status, body = _request(server, "POST", "/api/action", b"{not json", tab=control)
    assert status == 400 and "not valid JSON" in body["error"]
    status, body = _request(server, "POST", "/api/action", b"{}", {"Content-Type": "text/plain"}, tab=control)
    assert status == 415
    status, body = _request(server, "POST", "/api/action", b'{"type": "key", "key": 4}', {"Host": "evil.example"})
    assert status == 403 and "Host" in body["error"]
    status, body = _request(server, "POST", "/api/action", b'{"type": "key", "key": 4}',
                            {"Origin": "http://evil.example"})
    assert status == 403 and "Origin" in body["error"]
    status, state = _request(server, "GET", "/api/state")
    assert status == 200 and state["steps"] == n and state["provenance"]["status"] == "verified"


@pytest.mark.usefixtures("chromium")
def test_restart_screen_check_refusal_and_reject_with_a_note(annotate, shipped):
    first, second = (m.model_copy() for m in shipped.milestones[:2])
    first.screen_check = Check(screen=ScreenLeaf(text="Not on any screen"))  # a screen check that cannot hold
    app, server, page = annotate("code_to_new_note_copy", milestones=[first, second])
    box = page.locator("#screen-img").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 667 / 1080, box["y"] + box["height"] * 801 / 2400)  # the home screen
    _settled(page, 1)
    assert page.eval_on_selector_all("#trajectory li", "els => els.length") == 1
    page.once("dialog", lambda d: d.accept())  # Restart asks first when actions were recorded
    page.click("#btn-restart")
    page.wait_for_function("document.getElementById('message').textContent.includes('restarted')",
                           timeout=WAIT_MS)
    _settled(page, 0)
    assert page.eval_on_selector_all("#trajectory li", "els => els.length") == 0
    assert app.session.trajectory == []
    tab = page.evaluate("TAB")

    # a change made outside the page (an emulator's own window) shows up by polling, unrecorded
    version = page.evaluate("document.body.dataset.version")
    with app.lock:  # a swipe up from the hotseat: All Apps opens
        app.session.driver.swipe(540, 2127, 540, 600, 300)
    page.wait_for_function(f"document.body.dataset.version !== '{version}'", timeout=WAIT_MS)
    assert page.text_content("#steps") == "0" and app.session.trajectory == []

    # every milestone reached, but the first one's screen check fails where it is reached: refused
    assert _post(server, "/api/restart", tab=tab)[0] == 200
    reach = shipped.provenance.milestone_steps[1]
    _replay(server, shipped.provenance.reference[:reach], tab)
    status, body = _post(server, "/api/verify", tab=tab)
    assert status == 409 and "screen_check of milestone(s) code_copied" in body["error"]
    page.wait_for_function(f"document.body.dataset.steps === '{reach}'", timeout=WAIT_MS)
    assert page.eval_on_selector_all("#checklist li", "els => els.map(e => e.className.includes('screen-bad'))") == [
        True, False]

    page.click("#btn-reject")  # no note: refused
    page.wait_for_function("document.getElementById('message').textContent.includes('needs a note')",
                           timeout=WAIT_MS)
    assert load_annotations(app.folder, "code_to_new_note_copy") == []
    page.fill("#note", "the instruction names the wrong note")
    page.click("#btn-reject")
    page.wait_for_function("document.body.dataset.annotations === '1'", timeout=WAIT_MS)
    [rejection] = load_annotations(app.folder, "code_to_new_note_copy")
    assert (rejection.verdict, rejection.note, rejection.annotator) == (
        "rejected", "the instruction names the wrong note", "Ann Notator")
    assert load_task(app.folder / "code_to_new_note_copy.yaml").provenance.status == "draft"


def _never_clock(shipped: Task) -> list:
    """The shipped milestones, the last one also requiring that the Clock was never in front since the code
    was copied (a trajectory-aware constraint)."""
    *first, last = (m.model_copy(deep=True) for m in shipped.milestones)
    never = Check.model_validate({"never": {"since": "code_copied",
                                            "check": {"app": {"package": "com.google.android.deskclock"}}}})
    last.check = Check(all=[last.check, never])
    return [*first, last]


@pytest.mark.usefixtures("chromium")
def test_review_flags_undo_replays_the_same_screen_and_accept_asks_about_a_longer_run(annotate, shipped):
    """The review before saving names what is wrong with a run (apps outside the task's, a step that changed
    nothing, a milestone the run contradicts, over budget, longer than the canonical reference); undo replays
    to the same screen byte for byte; a longer run is accepted as canonical only when confirmed twice."""
    ref = shipped.provenance.reference
    n = len(ref)
    app, server, page = annotate("code_to_new_note_review", milestones=_never_clock(shipped),
                                 provenance=shipped.provenance, step_budget=n)
    tab = page.evaluate("TAB")
    copied = shipped.provenance.milestone_steps[0]
    _replay(server, ref[:copied], tab)
    png_copied = app.session.png
    clock = Action(type="tap", x=922, y=454)  # the Clock in All Apps, fourth in the first row (not one of the task's apps)
    drawer = Action(type="swipe", x=540, y=2127, x2=540, y2=600, duration_ms=300)  # up from the hotseat: All Apps
    _replay(server, [Action(type="key", key=3), drawer, clock, Action(type="wait", duration_ms=1000)], tab)
    assert app.session.driver.focused_app()[0] == "com.google.android.deskclock"
    page.wait_for_function(f"document.body.dataset.steps === '{copied + 4}'", timeout=WAIT_MS)
    page.wait_for_function("document.querySelector('#checklist li[data-id=code_pasted]').dataset.violated === '1'",
                           timeout=WAIT_MS)
    assert "cannot tick any more" in page.text_content("#checklist li[data-id=code_pasted] .why")

    page.keyboard.press("Alt+V")  # the review: flagged, and saving is impossible with milestones missing
    page.wait_for_selector("#review-dlg[open]", timeout=WAIT_MS)
    kinds = page.eval_on_selector_all("#review-flags li", "els => els.map(e => e.dataset.kind)")
    assert kinds == ["no_change", "outside_apps", "contradicted", "missing", "missing", "missing"], kinds
    texts = page.eval_on_selector_all("#review-flags li", "els => els.map(e => e.textContent)")
    assert f"after steps {copied + 3}-{copied + 4} the focused app is com.google.android.deskclock" in texts[1]
    assert texts[2].startswith("milestone code_pasted:")
    assert page.is_disabled("#btn-review-save")
    page.click("#btn-review-back")
    assert not page.is_visible("#review-dlg")
    assert load_annotations(app.folder, "code_to_new_note_review") == []

    # undo back to the step that copied the code: the initial state restored, the kept steps replayed
    page.once("dialog", lambda d: d.accept())
    page.click(f"#trajectory li[data-step='{copied}']")
    page.wait_for_function(f"document.body.dataset.steps === '{copied}' && document.body.dataset.busy === '0'",
                           timeout=WAIT_MS)
    assert app.session.png == png_copied  # byte for byte
    status, screen = _request(server, "GET", "/api/state")
    assert status == 200 and screen["checklist"][-1]["violated"] is None
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/api/screen.png")
    assert conn.getresponse().read() == png_copied
    conn.close()
    assert app.last_error is None

    # the rest of the reference and two waits (the first lets the saved-note toast go, the second changes
    # nothing): longer than the canonical reference and over budget
    wait = Action(type="wait", duration_ms=1000)
    _replay(server, [*ref[copied:], wait, wait], tab)
    status, body = _post(server, "/api/review", tab=tab)
    assert status == 200
    review = body["review"]
    assert [f["kind"] for f in review["flags"]] == ["over_budget", "longer", "no_change"], [
        f["message"] for f in review["flags"]]
    assert review["flags"][-1]["step"] == n + 2
    assert review["comparison"]["steps_difference"] == 2 and review["canonical"]["steps"] == n
    assert review["comparison"]["milestone_steps"] == shipped.provenance.milestone_steps
    status, body = _post(server, "/api/verify", {"note": "two waits too many"}, tab=tab)  # no review token
    assert status == 409 and "review the run" in body["error"]
    page.wait_for_function(f"document.body.dataset.steps === '{n + 2}'", timeout=WAIT_MS)
    page.click("#btn-verify")
    page.wait_for_selector("#review-dlg[open]", timeout=WAIT_MS)
    assert not page.is_disabled("#btn-review-save")
    page.click("#btn-review-save")
    page.wait_for_function("document.body.dataset.saved === '1'", timeout=WAIT_MS)
    [saved] = load_annotations(app.folder, "code_to_new_note_review")
    assert saved.steps == n + 2 and len(saved.review) == 3 and "over the step budget" in saved.review[0]
    before = load_task(app.folder / "code_to_new_note_review.yaml")
    assert before.provenance.reference == shipped.provenance.reference and before.step_budget == n

    # accept: confirm, refused as longer, confirm again: the budget grows and the page says so
    page.on("dialog", lambda d: d.accept())
    page.click("#annotations button.accept")
    page.wait_for_function("document.getElementById('message').textContent.includes('raises the step budget')",
                           timeout=WAIT_MS)
    after = load_task(app.folder / "code_to_new_note_review.yaml")
    assert after.provenance.annotation == 1 and len(after.provenance.reference) == n + 2
    assert after.step_budget == 2 * (n + 2)
    assert f"from {n} to {2 * (n + 2)}" in page.text_content("#message")


@pytest.mark.usefixtures("chromium")
def test_tabs_tokens_note_keyboard_and_the_queue(shipped, driver, browser, tmp_path):
    """One run, two tabs: the second is read-only until it takes control; the note lives on the server (kept
    over a reload, dropped by a confirmed restart); typing reaches the device while the page has the focus and
    the note is not being edited; the element under the cursor, full-size zoom and the action log in view;
    the queue moves on and the old task's tab is refused; after a server restart on the same port the old
    page's clicks are refused and never applied."""
    from emukit.annotate.queue import TaskQueue

    folder = tmp_path / "tasks"
    for task_id in ("queue_a", "queue_b", "queue_c"):
        _draft(shipped, folder, task_id)
    queue = TaskQueue([load_task(folder / f"{t}.yaml") for t in ("queue_a", "queue_b", "queue_c")], "Ann Notator",
                      pattern="queue_*")
    first = queue.next_task()
    assert first is not None and first.id == "queue_a"
    app = AnnotateApp(on_device(driver, tmp_path / "data"), first, tasks_folder=folder, annotator="Ann Notator",
                      queue=queue)
    app.start()
    server, _ = start_server(app)
    port = server.port
    ctx1 = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    ctx2 = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    servers = [server]
    try:
        one, two = ctx1.new_page(), ctx2.new_page()
        one.goto(server.url)
        one.wait_for_function("document.body.dataset.control === 'you'", timeout=WAIT_MS)
        two.goto(server.url)
        two.wait_for_function("document.body.dataset.control === 'other'", timeout=WAIT_MS)
        assert two.is_visible("#readonly")
        assert "task 1 of 3" in one.text_content("#queue-line")
        two.click("#btn-back")  # refused: read-only
        two.wait_for_function("document.getElementById('message').textContent.includes('read-only')",
                              timeout=WAIT_MS)
        assert app.session.trajectory == []
        two.click("#btn-take")
        two.wait_for_function("document.body.dataset.control === 'you'", timeout=WAIT_MS)
        one.wait_for_function("document.body.dataset.control === 'other'", timeout=WAIT_MS)
        tab = two.evaluate("TAB")

        # up to the empty note open in Markor's editor, a tap on the editor, then type through the page
        ref = shipped.provenance.reference
        k = shipped.provenance.milestone_steps[2]  # note_open
        _replay(server, [*ref[:k], Action(type="tap", x=540, y=1258)], tab)  # the editor's middle: it takes focus
        _settled(two, k + 1)
        two.click("header h1")  # the page has the focus, the screen element does not
        two.keyboard.type("Ga")
        assert two.text_content("#typing").startswith("typing: Ga")
        two.keyboard.type("te")
        _settled(two, k + 2)
        assert describe(app.session.trajectory[-1]) == "type 'Gate'"
        two.evaluate("window.dispatchEvent(new Event('blur'))")  # the window lost the focus: a visible warning
        assert two.is_visible("#focus-warn")
        assert "cannot reach the device" in " ".join(two.text_content("#focus-warn").split())
        two.evaluate("window.dispatchEvent(new Event('focus'))")
        assert not two.is_visible("#focus-warn")
        two.click("#note")  # keys go to the note while it is edited, not to the device
        two.keyboard.type("half done")
        assert "keys go to the note" in two.text_content("#typing")
        two.keyboard.press("Escape")
        two.wait_for_function("document.body.dataset.busy === '0'", timeout=WAIT_MS)
        assert len(app.session.trajectory) == k + 2
        deadline = 50
        while app.note != "half done" and deadline:
            two.wait_for_timeout(100)
            deadline -= 1
        assert app.note == "half done"

        # the element under the cursor, full size, the action log in view
        box = two.locator("#screen-img").bounding_box()
        save = ref[-1].element  # the editor's Save in the toolbar
        assert save is not None and save.content_desc == "Save"
        cx, cy = save.center
        two.mouse.move(box["x"] + cx * box["width"] / 1080, box["y"] + cy * box["height"] / 2400)
        two.wait_for_function("document.getElementById('hover').textContent.includes('[Save]')", timeout=WAIT_MS)
        assert "[" + ",".join(map(str, save.bounds[:2])) + "][" + ",".join(map(str, save.bounds[2:])) + "]" in \
            two.text_content("#hover")
        # measured in one page task: a poll redraws the log, so a located <li> may be gone a moment later
        last = two.evaluate("() => { const r = document.querySelector('#trajectory li:last-child')"
                            ".getBoundingClientRect(); return {y: r.y, height: r.height}; }")
        assert 0 <= last["y"] and last["y"] + last["height"] <= 900
        two.keyboard.press("Alt+Z")
        assert two.eval_on_selector("#screen-img", "i => i.clientWidth") == 1080
        two.keyboard.press("Alt+Z")
        assert two.eval_on_selector("#screen-img", "i => i.clientWidth") < 1080

        # a reload keeps the note; Alt+B is Back; Alt+U undoes it; a dismissed restart keeps everything
        two.reload()
        two.wait_for_function("document.getElementById('note').value === 'half done'", timeout=WAIT_MS)
        tab = two.evaluate("TAB")  # a reloaded page is a new tab: it takes control
        two.click("#btn-take")
        two.wait_for_function("document.body.dataset.control === 'you'", timeout=WAIT_MS)
        two.click("header h1")
        two.keyboard.press("Alt+B")
        _settled(two, k + 3)
        assert describe(app.session.trajectory[-1]) == "key BACK"
        two.keyboard.press("Alt+U")
        _settled(two, k + 2)
        two.once("dialog", lambda d: d.dismiss())
        two.keyboard.press("Alt+R")
        two.wait_for_timeout(300)
        assert len(app.session.trajectory) == k + 2 and app.note == "half done"
        status, body = _post(server, "/api/restart", tab=tab)
        assert status == 409 and "confirm" in body["error"]
        old_run = app.run
        two.once("dialog", lambda d: d.accept())
        two.keyboard.press("Alt+R")
        _settled(two, 0)
        assert app.run != old_run and app.note == ""
        two.wait_for_function("document.getElementById('note').value === ''", timeout=WAIT_MS)
        status, body = _post(server, "/api/note", {"note": "late", "run": old_run}, tab=tab)
        assert status == 409 and "earlier run" in body["error"]

        # the queue: next task; the other tab now shows a task the server left
        old_task_token = app.task_token
        two.click("#btn-next")
        two.wait_for_function("document.getElementById('task-id').textContent === 'queue_b'", timeout=WAIT_MS)
        # the queue line is drawn from the states that carry the queue, which may come a poll later
        two.wait_for_function("document.getElementById('queue-line').textContent.includes('task 2 of 3')",
                              timeout=WAIT_MS)
        one.wait_for_function("document.body.dataset.stale === '1'", timeout=WAIT_MS)
        assert "moved on" in one.text_content("#stale")
        status, body = _post(server, "/api/action", {"type": "key", "key": 4}, tab=tab,
                             headers={"X-Emukit-Task": old_task_token})
        assert status == 409 and body["stale"] == "task"
        assert app.session.trajectory == []

        # the server restarts on the same port for another task: the open page is refused, nothing applied
        old_server_token = app.server_token
        server.shutdown()
        server.server_close()
        servers.clear()
        other = _draft(shipped, folder, "queue_other")
        app2 = AnnotateApp(on_device(driver, tmp_path / "data"), other, tasks_folder=folder, annotator="Ann Notator")
        app2.start()
        server2, _ = start_server(app2, port)
        servers.append(server2)
        two.wait_for_function("document.body.dataset.stale === '1'", timeout=WAIT_MS)
        assert "earlier or another emukit annotate run" in two.text_content("#stale")
        assert two.is_disabled("#btn-back")
        box = two.locator("#screen-img").bounding_box()
        two.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        status, body = _post(server2, "/api/action", {"type": "key", "key": 4}, tab=tab,
                             headers={"X-Emukit-Server": old_server_token})
        assert status == 409 and body["stale"] == "server"
        two.wait_for_timeout(300)
        assert app2.session.trajectory == [] and app2.records and len(app2.records) == 1
    finally:
        ctx1.close()
        ctx2.close()
        for s in servers:
            s.shutdown()
            s.server_close()
