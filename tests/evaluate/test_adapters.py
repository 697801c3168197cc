"""Model adapters: output extraction, the registry, the OpenAI-compatible HTTP adapter, the local
``transformers`` adapter and the reference models.

The HTTP adapter is tested against a stub chat-completions server that each test starts on 127.0.0.1 (this
machine has no network and no GPU): the stub records what it receives and answers with scripted statuses,
delays and bodies. The ``transformers`` adapter runs a tiny randomly initialised LLaVA built in the test.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.evaluate.adapters import (
    Prediction,
    PredictionContext,
    create_adapter,
    extract_html,
    registered_prefixes,
)
from emukit.evaluate.adapters.openai import OpenAIAdapter
from emukit.evaluate.pairs import load_export
from emukit.evaluate.run import build_branch_request
from emukit.wm import get_format, request_hash

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
PAGE = "<!DOCTYPE html><html><body><p>Files in Downloads</p><p>No matches in Downloads</p></body></html>"


# -- output extraction ------------------------------------------------------------------------------------------

def test_extract_html_native_shapes():
    assert extract_html(PAGE) == PAGE
    gworld = f"# Next State Reasoning: the search finds nothing.\n# HTML: {PAGE}"
    assert extract_html(gworld) == PAGE
    fenced = f"Here you go:\n```html\n{PAGE}\n```\nDone."
    assert extract_html(fenced) == PAGE
    truncated = "<!DOCTYPE html><html><body><div id='render-target'>Time's up"
    assert extract_html(truncated) == truncated  # not repaired (seed 002 E.6)
    assert extract_html("") is None
    assert extract_html("I cannot predict this screen.") is None


FENCED_BODY = ("<!DOCTYPE html><html><body><p>Notes</p><pre>```python\nprint(1)\n```</pre>"
               "<p># HTML: a heading typed into a note</p></body></html>")


@pytest.mark.parametrize("raw", [
    FENCED_BODY,
    f"# Next State Reasoning: a note with code.\n# HTML: {FENCED_BODY}",
    f"```html\n{FENCED_BODY}\n```",
    f"Reasoning first.\n```html\n{FENCED_BODY}\n```\n# HTML: trailing words",
    f"# HTML:\n{FENCED_BODY.replace('<!DOCTYPE html>', '')}",  # no doctype: from <html> on
    f"{FENCED_BODY.replace('</html>', '</HTML >')}",
])
def test_a_complete_document_is_taken_whole(raw: str):
    html = extract_html(raw)
    assert html is not None and html.endswith(("</html>", "</HTML >"))
    assert "print(1)" in html and "# HTML: a heading typed into a note" in html
    assert html.lstrip().lower().startswith(("<!doctype html", "<html"))


def test_only_text_outside_a_complete_document_is_searched():
    # an unfinished document still runs to the end of its fence
    assert extract_html("```html\n<!DOCTYPE html><html><body><p>x\n```\nmore") == "<!DOCTYPE html><html><body><p>x"
    # a reasoning line that mentions a tag does not start the document
    raw = "# Next State Reasoning: keep the <html> lang.\n# HTML: <!DOCTYPE html><html><body>y</body></html>"
    assert extract_html(raw) == "<!DOCTYPE html><html><body>y</body></html>"


def test_registry_knows_every_prefix_and_refuses_unknown_ones():
    assert {"openai", "hf", "ref"} <= set(registered_prefixes())
    assert create_adapter("ref:surface").name == "ref:surface"
    assert isinstance(create_adapter("http://127.0.0.1:9/v1#m"), OpenAIAdapter)
    with pytest.raises(ConfigError, match="unknown prefix"):
        create_adapter("bogus:thing")
    with pytest.raises(ConfigError, match="ref:nothing"):
        create_adapter("ref:nothing")
    with pytest.raises(ConfigError, match="not a local checkpoint"):
        create_adapter("hf:/nonexistent/checkpoint")


# -- the OpenAI-compatible adapter against a local stub ---------------------------------------------------------

Answer = tuple[int, object, float, dict[str, str]]  # (status, body, delay_s, headers)


class Stub:
    """A chat-completions server on 127.0.0.1 with scripted answers: ``script`` is a list of ``(status,
    body, delay_s, headers)`` consumed in order (the last entry repeats); or ``respond(request_body, n)``
    computes the answer to the n-th request (1-based)."""

    def __init__(self, script: list[Answer] | None = None,
                 respond: Callable[[dict, int], Answer] | None = None) -> None:
        self.script = list(script or [])
        self.respond = respond
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                """Silence the per-request log lines."""

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    if stub.respond is not None:
                        answer = None
                        n = len(stub.requests)
                    else:
                        answer = stub.script[0] if len(stub.script) == 1 else stub.script.pop(0)
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                released = False
                try:
                    status, payload, delay, extra = answer if answer is not None else stub.respond(body, n)
                    time.sleep(delay)
                    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                    # A request stops counting before its reply leaves: once the client has the reply it may
                    # send the next one, which must not find this handler still counted.
                    with lock:
                        stub.in_flight -= 1
                        released = True
                    self.send_response(status)
                    for k, v in extra.items():
                        self.send_header(k, v)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    if not released:
                        with lock:
                            stub.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(text: str) -> dict:
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}], "usage": {"completion_tokens": 7}}


@pytest.fixture
def stub_factory():
    stubs: list[Stub] = []

    def make(script):
        stub = Stub(script)
        stubs.append(stub)
        return stub

    yield make
    for stub in stubs:
        stub.close()


@pytest.fixture(scope="module")
def request_body() -> dict:
    pair = next(iter(load_export(FIXTURE)))
    body, _, _ = build_branch_request(get_format("gworld"), pair, pair.branches["A"], "observation")
    return body


def test_success_sends_deterministic_body_and_the_key_only_in_the_header(stub_factory, request_body, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    stub = stub_factory([(200, completion(f"# Next State Reasoning: x\n# HTML: {PAGE}"), 0, {})])
    adapter = create_adapter(f"openai:{stub.url}#served-model")
    pred = adapter.predict(request_body)
    assert pred.ok and pred.html == PAGE and pred.meta["usage"] == {"completion_tokens": 7}
    sent = stub.requests[0]
    assert sent["model"] == "served-model" and sent["temperature"] == 0.0 and sent["seed"] == 20260912
    assert sent["messages"] == request_body["messages"]
    assert stub.headers[0]["Authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(adapter)


def test_retries_with_backoff_on_5xx_and_429(stub_factory, request_body):
    stub = stub_factory([(503, {"error": "busy"}, 0, {}), (429, {"error": "slow down"}, 0, {"Retry-After": "0"}),
                         (200, completion(PAGE), 0, {})])
    adapter = OpenAIAdapter(stub.url, backoff_s=0.01, max_retries=3)
    started = time.perf_counter()
    pred = adapter.predict(request_body)
    assert pred.ok and pred.meta["attempts"] == 3 and len(stub.requests) == 3
    assert time.perf_counter() - started >= 0.01 + 0.02  # 0.01 * 2**0 + 0.01 * 2**1


def test_gives_up_after_the_retries_and_keeps_the_sample(stub_factory, request_body, monkeypatch):
    monkeypatch.setenv("EMUKIT_API_KEY", "sk-other-456")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    stub = stub_factory([(500, {"error": "down, key sk-other-456 rejected"}, 0, {})])
    pred = OpenAIAdapter(stub.url, backoff_s=0.001, max_retries=2).predict(request_body)
    assert not pred.ok and pred.error.startswith("request failed: HTTP 500") and "3 attempts" in pred.error
    assert "sk-other-456" not in pred.error  # the key is never echoed
    assert len(stub.requests) == 3


def test_client_errors_fail_at_once_and_repetition_penalty_is_dropped_when_refused(stub_factory, request_body):
    stub = stub_factory([(400, {"error": "bad request"}, 0, {})])
    pred = OpenAIAdapter(stub.url, backoff_s=0.001).predict(request_body)
    assert pred.error.startswith("request failed: HTTP 400") and len(stub.requests) == 1
    stub2 = stub_factory([(400, {"error": "unknown field repetition_penalty"}, 0, {}), (200, completion(PAGE), 0, {})])
    pred2 = OpenAIAdapter(stub2.url, backoff_s=0.001).predict(request_body)
    assert pred2.ok
    assert "repetition_penalty" in stub2.requests[0] and "repetition_penalty" not in stub2.requests[1]


def test_timeouts_are_retried(stub_factory, request_body):
    stub = stub_factory([(200, completion(PAGE), 1.0, {}), (200, completion(PAGE), 0, {})])
    pred = OpenAIAdapter(stub.url, timeout_s=0.2, backoff_s=0.001, max_retries=2).predict(request_body)
    assert pred.ok and pred.meta["attempts"] == 2


def test_empty_and_malformed_outputs_are_kept_as_failures(stub_factory, request_body):
    stub = stub_factory([(200, completion(""), 0, {}), (200, completion("no html here"), 0, {}),
                         (200, {"choices": []}, 0, {})])
    adapter = OpenAIAdapter(stub.url)
    assert adapter.predict(request_body).error == "empty output"
    bad = adapter.predict(request_body)
    assert bad.error.startswith("malformed output") and bad.raw == "no html here"
    assert adapter.predict(request_body).error.startswith("malformed response")


def test_response_cache_makes_a_rerun_free(stub_factory, request_body, tmp_path):
    stub = stub_factory([(200, completion(PAGE), 0, {})])
    first = OpenAIAdapter(f"{stub.url}#m", cache_dir=tmp_path)
    assert first.predict(request_body).ok and first.http_calls == 1
    again = OpenAIAdapter(f"{stub.url}#m", cache_dir=tmp_path)
    pred = again.predict(request_body)
    assert pred.ok and pred.cached and again.http_calls == 0 and len(stub.requests) == 1
    key = request_hash(again.body_for(request_body))
    assert (tmp_path / key[:2] / f"{key}.json").is_file()
    other = OpenAIAdapter(f"{stub.url}#other-model", cache_dir=tmp_path)  # another model: another key
    assert not other.predict(request_body).cached and len(stub.requests) == 2


def test_failed_responses_are_not_cached(stub_factory, request_body, tmp_path):
    stub = stub_factory([(500, {"error": "x"}, 0, {}), (200, completion(PAGE), 0, {})])
    OpenAIAdapter(stub.url, cache_dir=tmp_path, max_retries=0).predict(request_body)
    pred = OpenAIAdapter(stub.url, cache_dir=tmp_path, max_retries=0).predict(request_body)
    assert pred.ok and not pred.cached


def test_concurrency_is_bounded(stub_factory, request_body):
    stub = stub_factory([(200, completion(PAGE), 0.15, {})])
    adapter = OpenAIAdapter(stub.url, concurrency=3)
    bodies = [({**request_body, "seed": i}, None) for i in range(9)]
    preds = adapter.predict_many(bodies)
    assert all(p.ok for p in preds) and len(stub.requests) == 9
    assert 1 < stub.max_in_flight <= 3


# -- the local transformers adapter ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory) -> Path:
    from tests.evaluate.tiny_models import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))


def test_hf_adapter_generates_from_a_real_request(tiny_vlm, request_body):
    adapter = create_adapter(f"hf:{tiny_vlm}", max_new_tokens=24)
    assert adapter.name == f"hf:{tiny_vlm.name}"
    pred = adapter.predict(request_body)
    again = adapter.predict(request_body)
    assert pred.raw and pred.raw == again.raw  # greedy and seeded: deterministic
    assert pred.meta["generated_tokens"] <= 24
    # a random model writes no HTML: the sample is kept as a malformed prediction
    assert pred.error is not None and pred.error.startswith("malformed output")


def test_hf_adapter_refuses_remote_images(tiny_vlm):
    adapter = create_adapter(f"hf:{tiny_vlm}", max_new_tokens=4)
    body = {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.invalid/x.png"}}]}]}
    assert "data: URLs" in adapter.predict(body).error


# -- reference models -------------------------------------------------------------------------------------------

def _ctx(family: str, consequence: dict | None, *, action: Action | None = None, xml: str = "",
         png: bytes = b"") -> PredictionContext:
    return PredictionContext(family=family, condition="oracle-state", format="gworld", viewport=(360, 800, 3.0),
                             action=action or Action(type="tap", x=10, y=10), screen_size=(1080, 2400),
                             observation_png=png, observation_xml=xml, consequence=consequence)


def test_copy_current_lays_the_hierarchy_texts_over_the_screenshot():
    xml = ('<?xml version="1.0"?><hierarchy rotation="0"><node text="Files in Downloads" '
           'bounds="[48,396][778,508]"/><node text="" bounds="[0,0][10,10]"/><node text="a &amp; b" '
           'bounds="[0,2300][540,2400]"/></hierarchy>')
    page = create_adapter("ref:copy-current").predict(request={}, context=_ctx("persistent", None, xml=xml,
                                                                                png=b"\x89PNG"))
    assert page.ok
    assert 'src="data:image/png;base64,' in page.html
    assert ">Files in Downloads</span>" in page.html and ">a &amp; b</span>" in page.html
    assert "left:16.00px;top:132.00px" in page.html  # 1080x2400 screen -> 360x800 CSS viewport


def test_surface_pages_state_the_resolved_consequence():
    ref = create_adapter("ref:surface")
    found = ref.predict({}, _ctx("persistent", {"probe": "search", "present": True, "artifact": "ledger_42.pdf"},
                                 action=Action(type="type", text="ledger_42.pdf"))).html
    assert "Files in Downloads" in found and "ledger_42.pdf" in found and "No matches" not in found
    assert found.count('class=k>') == 26  # three-row QWERTY keyboard
    missing = ref.predict({}, _ctx("persistent", {"probe": "search", "present": False},
                                   action=Action(type="type", text="ledger_42.pdf"))).html
    assert "No matches in Downloads" in missing
    folder = ref.predict({}, _ctx("persistent", {"probe": "folder", "present": True, "artifact": "a.pdf",
                                                 "folder": "/storage/emulated/0/Download/Receipts"})).html
    assert "sdk_gphone64_x86_64 \u203a Download \u203a Receipts" in folder and "a.pdf" in folder
    assert "QX4471b" in ref.predict({}, _ctx("clipboard", {"inserted": "QX4471b"})).html
    rows = ref.predict({}, _ctx("ordered", {"collection_type": "playlist", "items": ["B", "A", "C"], "count": 3})).html
    assert rows.index(">B</div>") < rows.index(">A</div>") < rows.index(">C</div>")
    fired = ref.predict({}, _ctx("temporal", {"outcome": "fired", "remaining_seconds": 0})).html
    assert "Time's up" in fired and "<button>Stop</button>" in fired and "Manage" in fired
    running = ref.predict({}, _ctx("temporal", {"outcome": "running", "remaining_seconds": 390})).html
    assert "06:30" in running and "<button>Pause</button>" in running
    none = ref.predict({}, _ctx("temporal", None)).html
    assert "Clock" not in none and "Notifications" in none
    assert ref.predict({}, None).error  # without the context it cannot work


def test_prediction_defaults():
    assert not Prediction().ok and Prediction(html="<p>x</p>").ok and Prediction(image=b"png").ok
