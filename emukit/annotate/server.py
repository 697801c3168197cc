"""The annotator's local web server: the page and a small JSON API over :class:`AnnotateApp`.

It listens on 127.0.0.1 only and answers only requests whose ``Host`` (and ``Origin``, when sent) names this
server on a loopback address, so neither another web site open in the browser nor a DNS-rebound name can
drive the device. API::

    GET  /                 the page
    GET  /api/state        the state snapshot (``?poll=1`` re-reads the screen first)
    GET  /api/screen.png   the current screenshot
    POST /api/action       {"type": "tap", "x": .., "y": ..} (Action fields)  -> {"ok", "action", "reached", "state"}
    POST /api/restart      {}                                                 -> {"ok", "state"}
    POST /api/save-initial {}                                                 -> {"ok", "path", "state"}
    POST /api/verify       {"note": ".."}                                     -> {"ok", "path", "state"}
    POST /api/reject       {"note": ".."}                                     -> {"ok", "path", "state"}

Errors answer ``{"ok": false, "error": "..."}`` with 400 (bad JSON or action), 403 (not local), 404, 409
(not allowed now: saving the initial state after an action, verifying with milestones missing), 413, 415 or
502 (the device failed).
"""

from __future__ import annotations

import contextlib
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


def page_html() -> bytes:
    """The page shipped with the package (``emukit/annotate/static/annotate.html``)."""
    return (resources.files("emukit.annotate") / "static" / "annotate.html").read_bytes()


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

    def _dispatch(self, routes: dict[str, Any]) -> None:
        self._read_raw()
        if not self._guard():
            return
        parts = urlsplit(self.path)
        handler = routes.get(parts.path)
        try:
            if handler is None:
                raise ApiError(HTTPStatus.NOT_FOUND, f"no such page: {self.command} {parts.path}")
            handler(parse_qs(parts.query))
        except ApiError as exc:
            self._json(exc.status, {"ok": False, "error": exc.message})
        except Exception as exc:  # noqa: BLE001 - one broken request must never stop the server
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                       {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"})

    # -- routes --------------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch({"/": self._page, "/index.html": self._page, "/api/state": self._state,
                        "/api/screen.png": self._screen})

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        self._dispatch({"/api/action": self._action, "/api/restart": self._restart,
                        "/api/save-initial": self._save_initial, "/api/verify": self._verify,
                        "/api/reject": self._reject})

    def _page(self, _query: dict[str, list[str]]) -> None:
        self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8",
                   {"Content-Security-Policy": PAGE_CSP, "X-Frame-Options": "DENY"})

    def _state(self, query: dict[str, list[str]]) -> None:
        if query.get("poll") == ["1"]:
            self.server.app.poll()
        self._json(HTTPStatus.OK, self.server.app.state())

    def _screen(self, _query: dict[str, list[str]]) -> None:
        self._send(HTTPStatus.OK, self.server.app.screen(), "image/png")

    def _ok(self, **data: Any) -> None:
        self._json(HTTPStatus.OK, {"ok": True, **data, "state": self.server.app.state()})

    def _action(self, _query: dict[str, list[str]]) -> None:
        result = self.server.app.act(self._body())
        self._ok(**result)

    def _restart(self, _query: dict[str, list[str]]) -> None:
        self._body()
        self.server.app.restart()
        self._ok()

    def _save_initial(self, _query: dict[str, list[str]]) -> None:
        self._body()
        path = self.server.app.save_initial()
        self._ok(path=str(path))

    def _verify(self, _query: dict[str, list[str]]) -> None:
        path = self.server.app.verify(_note(self._body()))
        self._ok(path=str(path))

    def _reject(self, _query: dict[str, list[str]]) -> None:
        path = self.server.app.reject(_note(self._body()))
        self._ok(path=str(path))


def _note(body: dict[str, Any]) -> str:
    note = body.get("note", "")
    if not isinstance(note, str):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"note must be a string, got {type(note).__name__}")
    return note
