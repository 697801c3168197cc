"""The annotator's local web server: the page and a small JSON API over :class:`AnnotateApp`.

It listens on 127.0.0.1 only and answers only requests whose ``Host`` (and ``Origin``, when sent) names this
server on a loopback address, so neither another web site open in the browser nor a DNS-rebound name can
drive the device. The page is served with this run's tokens in it and sends them back as headers
(``X-Emukit-Server``, ``X-Emukit-Task``) with its tab id (``X-Emukit-Tab``); every POST needs all three, so a
tab left open from another run or task is refused, and only the tab in control may act. API::

    GET  /                  the page (with the tokens)
    GET  /api/state         the state snapshot (``?poll=1`` re-reads the screen first)
    GET  /api/screen.png    the current screenshot
    GET  /api/elements      the current hierarchy's nodes with bounds
    POST /api/action        {"type": "tap", "x": .., "y": ..} (Action fields)  -> {"ok", "action", "reached", "state"}
    POST /api/undo          {"n": 1}                                           -> {"ok", "undone", "same_screen", ..}
    POST /api/restart       {"confirm": true}                                  -> {"ok", "state"}
    POST /api/note          {"note": "..", "run": RUN}                         -> {"ok", "state"}
    POST /api/save-initial  {}                                                 -> {"ok", "path", "state"}
    POST /api/review        {}                                                 -> {"ok", "review", "state"}
    POST /api/verify        {"review_token": .., "note"?: ".."}                -> {"ok", "path", "state"}
    POST /api/reject        {"note"?: ".."}                                    -> {"ok", "path", "state"}
    POST /api/accept        {"annotation": N, "confirm": true, "allow_longer"?: false}
    POST /api/next          {"confirm"?: false}  (with --queue)               -> {"ok", "task", "state"}
    POST /api/take-control  {}                                                 -> {"ok", "state"}

Errors answer ``{"ok": false, "error": "..."}`` (plus ``stale``, ``readonly``, ``longer`` or ``review`` where
they apply) with 400 (bad JSON or action), 403 (not local), 404, 409 (not allowed now: a stale or read-only
tab, saving the initial state after an action, verifying unreviewed or with milestones missing, restarting
unconfirmed), 413, 415 or 502 (the device failed).
"""

from __future__ import annotations

import contextlib
import html
import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from emukit.annotate.app import AnnotateApp, ApiError

HOST = "127.0.0.1"
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY = 1 << 20
PAGE_CSP = ("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


TOKENS_MARK = b"__EMUKIT_TOKENS__"


def page_html() -> bytes:
    """The page shipped with the package (``emukit/annotate/static/annotate.html``)."""
    return (resources.files("emukit.annotate") / "static" / "annotate.html").read_bytes()


def page_with_tokens(page: bytes, app: AnnotateApp) -> bytes:
    """The page with this run's and this task's tokens in its ``<meta name="emukit-tokens">``."""
    tokens = json.dumps({"server": app.server_token, "task": app.task_token, "task_id": app.task.id})
    return page.replace(TOKENS_MARK, html.escape(tokens, quote=True).encode())


def not_local(host: str | None, origin: str | None, port: int) -> str | None:
    """Why a request must be refused (None when it is local): ``Host`` must be a loopback name with this
    server's port; ``Origin``, when present, the matching ``http://`` origin."""
    allowed = {f"{name}:{port}" for name in LOCAL_NAMES}
    if not host or host.lower() not in allowed:
        return f"Host {host!r} is not this local server (use http://{HOST}:{port}/)"
    if origin is not None and origin.lower() not in {f"http://{a}" for a in allowed}:
        return f"Origin {origin!r} is not this local server"
    return None


class AnnotateServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`AnnotateApp`, bound to 127.0.0.1 (``port`` 0: any free port)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, app: AnnotateApp, port: int = 0) -> None:
        super().__init__((HOST, port), _Handler)
        self.app = app
        self.page = page_html()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"


def start_server(app: AnnotateApp, port: int = 0) -> tuple[AnnotateServer, threading.Thread]:
    """Serve in a background thread; stop with ``server.shutdown(); server.server_close()``."""
    server = AnnotateServer(app, port)
    thread = threading.Thread(target=server.serve_forever, name=f"annotate-{server.port}", daemon=True)
    thread.start()
    return server, thread


class _Handler(BaseHTTPRequestHandler):
    server: AnnotateServer
    server_version = "emukit-annotate"

    def log_message(self, format: str, *args: Any) -> None:
        """Request lines are not logged: the page polls every second and they would drown the terminal."""

    # -- plumbing ------------------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the page went away
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

    def _guard(self) -> bool:
        reason = not_local(self.headers.get("Host"), self.headers.get("Origin"), self.server.port)
        if reason:
            self._json(HTTPStatus.FORBIDDEN, {"ok": False, "error": reason})
            return False
        return True

    def _read_raw(self) -> None:
        """Read the request body up front (an answer sent over unread data can reach the client as a reset)."""
        self._raw = b""
        self._raw_error: ApiError | None = None
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._raw_error = ApiError(HTTPStatus.BAD_REQUEST, "bad Content-Length")
            return
        if length > MAX_BODY:
            self._raw_error = ApiError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body of {length} bytes exceeds "
                                                                             f"{MAX_BODY}")
            return
        self._raw = self.rfile.read(length) if length > 0 else b""

    def _body(self) -> dict[str, Any]:
        if self._raw_error is not None:
            raise self._raw_error
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise ApiError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"send JSON (Content-Type: application/json), "
                                                              f"got {ctype or 'no Content-Type'}")
        raw = self._raw
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ApiError(HTTPStatus.BAD_REQUEST, f"the body is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object, got {type(data).__name__}")
        return data

    @property
    def tab(self) -> str | None:
        return self.headers.get("X-Emukit-Tab") or None

    def _tokens(self, *, required: bool) -> None:
        self.server.app.check_tokens(self.headers.get("X-Emukit-Server"), self.headers.get("X-Emukit-Task"),
                                     required=required)

    def _dispatch(self, routes: dict[str, Any]) -> None:
        self._read_raw()
        if not self._guard():
            return
        parts = urlsplit(self.path)
        handler = routes.get(parts.path)
        try:
            if handler is None:
                raise ApiError(HTTPStatus.NOT_FOUND, f"no such page: {self.command} {parts.path}")
            if parts.path.startswith("/api/"):
                self._tokens(required=self.command == "POST")
                if self.command == "POST" and parts.path != "/api/take-control":
                    self.server.app.require_control(self.tab)
                else:
                    self.server.app.seen(self.tab)
            handler(parse_qs(parts.query))
        except ApiError as exc:
            self._json(exc.status, {"ok": False, "error": exc.message, **exc.extra})
        except Exception as exc:  # noqa: BLE001 - one broken request must never stop the server
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                       {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"})

    # -- routes --------------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch({"/": self._page, "/index.html": self._page, "/api/state": self._state,
                        "/api/screen.png": self._screen, "/api/elements": self._elements})

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        self._dispatch({"/api/action": self._action, "/api/restart": self._restart, "/api/undo": self._undo,
                        "/api/note": self._note, "/api/save-initial": self._save_initial,
                        "/api/review": self._review, "/api/verify": self._verify, "/api/reject": self._reject,
                        "/api/accept": self._accept, "/api/next": self._next,
                        "/api/take-control": self._take_control})

    def _page(self, _query: dict[str, list[str]]) -> None:
        self._send(HTTPStatus.OK, page_with_tokens(self.server.page, self.server.app), "text/html; charset=utf-8",
                   {"Content-Security-Policy": PAGE_CSP, "X-Frame-Options": "DENY"})

    def _state(self, query: dict[str, list[str]]) -> None:
        if query.get("poll") == ["1"]:
            self.server.app.poll()
        self._json(HTTPStatus.OK, self.server.app.state(self.tab))

    def _elements(self, _query: dict[str, list[str]]) -> None:
        self._json(HTTPStatus.OK, self.server.app.elements())

    def _screen(self, _query: dict[str, list[str]]) -> None:
        self._send(HTTPStatus.OK, self.server.app.screen(), "image/png")

    def _ok(self, **data: Any) -> None:
        self._json(HTTPStatus.OK, {"ok": True, **data, "state": self.server.app.state(self.tab)})

    def _action(self, _query: dict[str, list[str]]) -> None:
        result = self.server.app.act(self._body())
        self._ok(**result)

    def _restart(self, _query: dict[str, list[str]]) -> None:
        self.server.app.restart(confirm=_flag(self._body(), "confirm"))
        self._ok()

    def _undo(self, _query: dict[str, list[str]]) -> None:
        body = self._body()
        n = body.get("n", 1)
        if not isinstance(n, int) or isinstance(n, bool):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"n must be a whole number of actions, got {n!r}")
        self._ok(**self.server.app.undo(n))

    def _note(self, _query: dict[str, list[str]]) -> None:
        body = self._body()
        run = body.get("run")
        if not isinstance(run, str):
            raise ApiError(HTTPStatus.BAD_REQUEST, "a note needs the run it belongs to (run: string)")
        self.server.app.set_note(_note(body) or "", run)
        self._ok()

    def _save_initial(self, _query: dict[str, list[str]]) -> None:
        self._body()
        path = self.server.app.save_initial()
        self._ok(path=str(path))

    def _review(self, _query: dict[str, list[str]]) -> None:
        self._body()
        self._ok(review=self.server.app.review())

    def _verify(self, _query: dict[str, list[str]]) -> None:
        body = self._body()
        token = body.get("review_token")
        if token is not None and not isinstance(token, str):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"review_token must be a string, got {type(token).__name__}")
        path = self.server.app.verify(_note(body), token)
        self._ok(path=str(path))

    def _reject(self, _query: dict[str, list[str]]) -> None:
        path = self.server.app.reject(_note(self._body()))
        self._ok(path=str(path))

    def _accept(self, _query: dict[str, list[str]]) -> None:
        body = self._body()
        number = body.get("annotation")
        if not isinstance(number, int) or isinstance(number, bool):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"annotation must be an annotation number, got {number!r}")
        path = self.server.app.accept(number, confirm=_flag(body, "confirm"),
                                      allow_longer=_flag(body, "allow_longer"))
        self._ok(path=str(path))

    def _next(self, _query: dict[str, list[str]]) -> None:
        task_id = self.server.app.next_task(confirm=_flag(self._body(), "confirm"))
        self._ok(task=task_id)

    def _take_control(self, _query: dict[str, list[str]]) -> None:
        self._body()
        self.server.app.take_control(self.tab)
        self._ok()


def _note(body: dict[str, Any]) -> str | None:
    """The body's note (None: not sent, the server keeps the run's note)."""
    note = body.get("note")
    if note is not None and not isinstance(note, str):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"note must be a string, got {type(note).__name__}")
    return note


def _flag(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{name} must be true or false, got {value!r}")
    return value
