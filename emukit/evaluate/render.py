"""Offline rendering of predicted HTML in headless Chromium (seed 002 Appendices C.4, E.6, F.5).

One warm browser (Debian's ``chromium`` driven by Playwright) renders every prediction; a small pool of
reused pages runs up to ``pool_size`` renders at once. For each prediction the renderer

1. navigates a pooled page to the prediction, served unchanged (no repair) as the document of a fresh origin
   (``https://p<N>.emukit.invalid/``, so no storage survives from one prediction to the next and relative
   URLs resolve to requests that can be blocked), at the requested CSS viewport and device scale factor
   (per format: Code2World 1080x2400 @1, gWorld 360x800 @3). When the page's previous document ran no
   script at all, the new HTML replaces it in place instead (equivalent, and a navigation is most of the cost
   of a render); a page whose document ran scripts is frozen (``Page.setWebLifecycleState``) while it waits
   in the pool and always gets a new navigation. A page whose document was still requesting after its
   ``load`` event (a timer fetching, an EventSource reconnecting) is closed instead: woken for the next
   prediction, such a document floods the request handler until the new one commits, which under load
   outlasted the next render's deadline;
2. answers every other request itself: a main-frame navigation after the document was served (a refresh,
   ``location``, a link, a form, ``history``) with ``204 No Content``, which a browser never commits, so the
   page stays the prediction; known CDN URLs of common CSS frameworks from pinned local copies
   (:mod:`emukit.evaluate.cdn`), everything else aborted. A navigation interception cannot see
   (``about:blank``, a ``data:`` document) is caught after the fact and the prediction is rendered again with
   scripts disabled (a second deadline). ``data:`` URLs work. Chromium also runs behind an
   unreachable proxy with host resolution disabled, so nothing that escapes request interception
   (WebSockets, WebRTC, prefetches) reaches a network either; dialogs are accepted, popups closed;
3. waits for ``load``, finishes CSS animations, scrolls to the top, waits two frames (pages with scripts),
   reads the viewport-visible evidence (:mod:`emukit.evaluate.visible`) and the document's external
   references for the offline self-containedness check in the same round trip, then takes the PNG
   screenshot.

Steps 1-3 run under a hard per-page deadline (``timeout_s``): a page that does not finish (an
infinite script loop, a never-ending load) is abandoned — its page is closed, which kills its renderer, and
the browser is restarted if even that hangs — and the result is ``timed_out`` with no evidence, which the
parsers score invalid. Any other rendering failure (a crashed renderer, a page that still navigates away) keeps the
sample and falls back to text extracted from the HTML source (``fallback_used``), as C.4 prescribes, with
hidden text kept out and the offline check applied (:mod:`emukit.evaluate.fallback`).

Typical use::

    with Renderer() as r:
        res = r.render(html, viewport=(360, 800), scale=3)
        res.png, res.evidence, res.ok, res.diagnostics
        results = r.render_many([RenderJob(h, (1080, 2400), 1.0) for h in pages])
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import importlib.util
import itertools
import json
import os
import shutil
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Self

from emukit.errors import EmukitError
from emukit.evaluate.cdn import CdnMirror
from emukit.evaluate.fallback import fallback_evidence
from emukit.evaluate.visible import (
    DENSE_MAX_COLS,
    DENSE_MAX_ROWS,
    DENSE_STEP_PX,
    GRID,
    MAX_HIDDEN_NODES,
    MIN_IN_VIEWPORT,
    MIN_OPACITY,
    MIN_UNOCCLUDED,
    READ_JS,
    Evidence,
    ExternalRef,
    nodes_from_js,
)
from emukit.settings import chromium_executable

DEFAULT_TIMEOUT_S = 8.0
REFUSED_LOAD_GRACE_S = 0.2  # how long a page whose navigation was refused may still take to fire ``load``
ORIGIN_SUFFIX = ".emukit.invalid"

#: Chromium switches: headless software rendering, no background traffic, no network reachable at all.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox", "--disable-gpu", "--disable-gpu-rasterization", "--disable-software-rasterizer",
    "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-default-apps", "--disable-breakpad", "--disable-domain-reliability", "--no-pings",
    "--dns-prefetch-disable", "--hide-scrollbars", "--mute-audio", "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
    "--disable-site-isolation-trials",
    ("--disable-features=BackForwardCache,Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,"
     "CertificateTransparencyComponentUpdater,AutofillServerCommunication"),
    "--proxy-server=http://emukit-offline.invalid:1", "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy", "--font-render-hinting=none",
)

_KIND = {"document": "document", "stylesheet": "stylesheet", "script": "script", "xhr": "fetch", "fetch": "fetch",
         "eventsource": "fetch", "websocket": "fetch", "font": "font", "image": "media", "media": "media",
         "texttrack": "media", "manifest": "other", "other": "other", "ping": "other"}
INLINE_SCHEMES = ("data:", "blob:", "about:", "javascript:", "#")


class _NavigatedAway(RuntimeError):
    """The rendered document is no longer the prediction (it navigated to a document no request made)."""


class RenderError(EmukitError):
    """The renderer cannot start (no Chromium, no Playwright) or was used after it was closed."""


def find_chromium() -> str:
    """The Chromium executable: ``$EMUKIT_CHROMIUM``, else ``chromium`` / ``chromium-browser`` on PATH."""
    env = chromium_executable()
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise RenderError(f"EMUKIT_CHROMIUM={env!r} is not an executable file")
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise RenderError("no Chromium found: install Debian's package (apt-get install chromium) or set "
                      "EMUKIT_CHROMIUM to the executable")


class RenderBackend(Protocol):
    """What the evaluators render predictions with: :class:`Renderer`, or any object with its
    ``render_many`` (a test's stand-in, a remote pool)."""

    def render_many(self, jobs: Iterable[RenderJob]) -> list[RenderResult]: ...


@contextlib.contextmanager
def renderer_or_own(renderer: RenderBackend | None = None, *, pool_size: int = 4) -> Iterator[RenderBackend]:
    """``renderer`` when the caller has one (the caller closes it), else a new started :class:`Renderer` of
    ``pool_size`` pages, closed on exit: the evaluators' one way to get a renderer."""
    if renderer is not None:
        yield renderer
        return
    with Renderer(pool_size=pool_size) as own:
        yield own


def viewport_for(format_name: str) -> tuple[tuple[int, int], float]:
    """``((width, height), device_scale_factor)`` a world-model format renders its predictions at."""
    from emukit.wm import get_format

    vp = get_format(format_name).viewport
    return (vp.width, vp.height), vp.device_scale_factor


@dataclass(frozen=True)
class RenderJob:
    """One prediction to render (for :meth:`Renderer.render_many`)."""

    html: str
    viewport: tuple[int, int] = (360, 800)
    scale: float = 3.0
    timeout_s: float | None = None
    screenshot: bool = True


@dataclass
class RenderResult:
    """What rendering one prediction produced.

    ``ok``: Chromium rendered the page and the evidence was read. ``timed_out``: the hard deadline passed (no
    evidence; score it invalid). ``fallback_used``: rendering failed otherwise and ``evidence`` is the C.4
    text fallback. ``png`` is the viewport screenshot (``width*scale`` x ``height*scale`` pixels) when one
    was taken. ``diagnostics``: ``missing_html_close`` (no final ``</html>``; a diagnostic only, never a
    failure), ``external`` (references and what happened to them), ``offline_ok``, ``scrolled`` (where the
    page had scrolled itself before it was reset to the top), ``doc_size``, ``quirks_mode``, ``timings_ms``.
    """

    ok: bool
    png: bytes | None
    evidence: Evidence | None
    viewport: tuple[int, int]
    scale: float
    error: str | None = None
    fallback_used: bool = False
    timed_out: bool = False
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Literal["ok", "fallback", "timeout", "failed"]:
        if self.ok:
            return "ok"
        if self.timed_out and self.evidence is None:
            return "timeout"
        return "fallback" if self.fallback_used else "failed"

    @property
    def offline_ok(self) -> bool:
        """C.4 offline self-containedness (False when there is no evidence to judge)."""
        return self.evidence.offline_ok if self.evidence is not None else False


@dataclass
class _Slot:
    page: Any
    cdp: Any
    scale: float
    scripts: bool = True  # JavaScript enabled in the page's context
    frame_id: str = ""  # the main frame's DevTools id: the same for the page's life, across navigations
    size: tuple[int, int] = (0, 0)
    log: list[tuple[str, str, str]] = field(default_factory=list)  # (url, resource type, served|blocked)
    doc_url: str = ""
    doc: bytes = b""
    frozen: bool = False
    clean: bool = False  # the current document ran no script: the next one may replace it in place
    served: bool = False  # the prediction's document was served; every later main-frame navigation is refused
    navigations: list[str] = field(default_factory=list)  # main-frame navigations the prediction attempted
    refused: asyncio.Event = field(default_factory=asyncio.Event)  # set when one of them was refused
    retire: bool = False  # its document kept requesting after load: closed, not returned to the pool


def missing_html_close(source: str) -> bool:
    """True when the document does not end with ``</html>`` (ignoring trailing whitespace and comments)."""
    tail = source.rstrip().lower()
    while tail.endswith("-->") and "<!--" in tail:
        tail = tail[:tail.rfind("<!--")].rstrip()
    return not tail.endswith("</html>")


class Renderer:
    """A warm headless Chromium that renders predictions offline; a context manager.

    Keyword-only options: ``executable`` (default :func:`find_chromium`), ``pool_size`` (pages rendering at
    once, default 4), ``timeout_s`` (hard per-page deadline, default 8 s), ``cdn`` (a :class:`CdnMirror`;
    ``None`` = the default cache, ``False`` = serve nothing), ``on_timeout`` (``"invalid"``: a timed-out page
    has no evidence; ``"fallback"``: use the source-text fallback instead).

    Thread-safe: the browser lives on its own event-loop thread; :meth:`render` and :meth:`render_many` may
    be called from any thread.
    """

    def __init__(self, *, executable: str | None = None, pool_size: int = 4, timeout_s: float = DEFAULT_TIMEOUT_S,
                 cdn: CdnMirror | Literal[False] | None = None,
                 on_timeout: Literal["invalid", "fallback"] = "invalid", extra_args: Sequence[str] = ()) -> None:
        if pool_size < 1:
            raise ValueError("pool_size must be >= 1")
        self.executable = executable
        self.pool_size = pool_size
        self.timeout_s = timeout_s
        self.cdn: CdnMirror | None = None if cdn is False else (cdn or CdnMirror())
        self.on_timeout = on_timeout
        self.extra_args = tuple(extra_args)
        self.restarts = 0
        self.pages_discarded = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pw: Any = None
        self._browser: Any = None
        self._contexts: dict[float, Any] = {}
        self._idle: dict[float, list[_Slot]] = {}
        self._sem: asyncio.Semaphore | None = None
        self._origins = itertools.count(1)
        self._closed = False

    # ------------------------------------------------------------------ lifecycle (caller's thread)
    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Renderer:
        """Launch the browser (idempotent)."""
        if self._closed:
            raise RenderError("this Renderer was closed; create a new one")
        if self._loop is not None:
            return self
        if importlib.util.find_spec("playwright") is None:  # pragma: no cover - a declared dependency
            raise RenderError("the 'playwright' package is required for rendering (pip install playwright)")
        self.executable = self.executable or find_chromium()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="emukit-renderer", daemon=True)
        self._thread.start()
        try:
            self._call(self._launch(), 120)
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Close the browser and stop the renderer thread."""
        loop, self._loop = self._loop, None
        self._closed = True
        if loop is None:
            return
        with contextlib.suppress(Exception):  # closing must not raise
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        if not loop.is_running():
            loop.close()

    def _call(self, coro: Any, timeout: float | None) -> Any:
        if self._loop is None:
            coro.close()
            raise RenderError("the Renderer is not started (use it as a context manager or call start())")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError as exc:
            future.cancel()
            raise RenderError(f"the renderer did not answer within {timeout:.0f} s (Chromium or its driver hung); "
                              "close this Renderer and start a new one") from exc

    # ------------------------------------------------------------------ public API
    def render(self, html: str, viewport: tuple[int, int] = (360, 800), scale: float = 3.0, *,
               timeout_s: float | None = None, screenshot: bool = True) -> RenderResult:
        """Render one prediction; never raises for a bad page (see :class:`RenderResult`)."""
        return self.render_many([RenderJob(html, tuple(viewport), float(scale), timeout_s, screenshot)])[0]

    def render_many(self, jobs: Iterable[RenderJob]) -> list[RenderResult]:
        """Render several predictions, up to ``pool_size`` at a time; results in the order of ``jobs``."""
        jobs = list(jobs)
        if not jobs:
            return []
        worst = max((j.timeout_s or self.timeout_s) for j in jobs)
        budget = 60 + worst * (len(jobs) / self.pool_size + 2) + 15 * len(jobs)
        return self._call(self._render_all(jobs), budget)

    def warm(self, viewports: Iterable[tuple[tuple[int, int], float]] = (((360, 800), 3.0),
                                                                        ((1080, 2400), 1.0))) -> None:
        """Open the page pools for the given ``((w, h), scale)`` pairs ahead of the first render."""
        self.render_many([RenderJob("<!DOCTYPE html><html><body></body></html>", vp, s, screenshot=False)
                          for vp, s in viewports for _ in range(self.pool_size)])

    # ------------------------------------------------------------------ event-loop side
    async def _launch(self) -> None:
        self._sem = asyncio.Semaphore(self.pool_size)
        await self._start_browser()

    async def _start_browser(self) -> None:
        if self._pw is None:
            from playwright.async_api import async_playwright

            self._pw = await async_playwright().start()
        self._browser = await self._pw.chromium.launch(
            executable_path=self.executable, headless=True, args=[*CHROMIUM_ARGS, *self.extra_args],
            handle_sigint=False, handle_sigterm=False, handle_sighup=False)

    async def _shutdown(self) -> None:
        await self._drop_browser()
        if self._pw is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._pw.stop(), 15)
            self._pw = None

    async def _drop_browser(self) -> None:
        self._contexts.clear()
        self._idle.clear()
        browser, self._browser = self._browser, None
        if browser is None:
            return
        try:
            await asyncio.wait_for(browser.close(), 10)
        except Exception:  # noqa: BLE001 - a hung browser: stopping Playwright's driver kills what it launched
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._pw.stop(), 10)
            self._pw = None

    async def _restart(self) -> None:
        self.restarts += 1
        await self._drop_browser()
        await self._start_browser()

    async def _context(self, scale: float, scripts: bool = True) -> Any:
        ctx = self._contexts.get((scale, scripts))
        if ctx is None:
            if self._browser is None or not self._browser.is_connected():
                await self._restart()
            ctx = await self._browser.new_context(
                viewport={"width": 360, "height": 800}, device_scale_factor=scale, java_script_enabled=scripts,
                accept_downloads=False, service_workers="block", reduced_motion="reduce", color_scheme="light",
                locale="en-US", timezone_id="UTC", bypass_csp=True)
            self._contexts[(scale, scripts)] = ctx
        return ctx

    async def _new_slot(self, scale: float, scripts: bool = True) -> _Slot:
        ctx = await self._context(scale, scripts)
        page = await ctx.new_page()
        cdp = await ctx.new_cdp_session(page)
        frame_id = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        slot = _Slot(page=page, cdp=cdp, scale=scale, scripts=scripts, frame_id=frame_id)

        def from_prediction() -> bool:
            # Each navigated prediction has an origin of its own. The previous document, unfrozen before the next
            # navigation, can still issue requests (a timer, an EventSource reconnecting) until the new one
            # commits, and the main frame shows its origin until then: those are refused but not logged.
            return _same_origin(page.main_frame.url, slot.doc_url)

        async def route(route: Any) -> None:
            request = route.request
            url = request.url
            if request.is_navigation_request() and request.frame == page.main_frame:
                if url == slot.doc_url and not slot.served:
                    slot.served = True
                    await route.fulfill(status=200, body=slot.doc, content_type="text/html; charset=utf-8",
                                        headers={"cache-control": "no-store"})
                    return
                if from_prediction():  # the prediction navigating itself (refresh, location, link, form, history)
                    slot.navigations.append(url)
                    slot.refused.set()
                # 204 No Content, which a browser never commits, so the rendered document stays the prediction
                await route.fulfill(status=204, body=b"", headers={"cache-control": "no-store"})
                return
            asset = self.cdn.resolve(url) if self.cdn is not None else None
            if from_prediction():
                slot.log.append((url, request.resource_type, "served" if asset is not None else "blocked"))
            if asset is not None:
                await route.fulfill(status=200, body=asset.body, content_type=asset.content_type,
                                    headers={"access-control-allow-origin": "*", "cache-control": "max-age=86400"})
            else:
                await route.abort("blockedbyclient")

        def popup(p: Any) -> None:
            asyncio.ensure_future(_quiet(p.close()))

        def dialog(d: Any) -> None:  # alert/confirm/prompt/beforeunload must never block a page
            asyncio.ensure_future(_quiet(d.accept()))

        await page.route("**/*", route)
        page.on("popup", popup)
        page.on("dialog", dialog)
        return slot

    async def _acquire(self, scale: float, scripts: bool = True) -> _Slot:
        idle = self._idle.setdefault((scale, scripts), [])
        while idle:
            slot = idle.pop()
            if not slot.page.is_closed():
                return slot
        return await self._new_slot(scale, scripts)

    async def _discard(self, slot: _Slot) -> None:
        """Close a page that timed out or broke; restart the browser if even that hangs."""
        self.pages_discarded += 1
        try:
            await asyncio.wait_for(slot.page.close(run_before_unload=False), 5)
        except Exception:  # noqa: BLE001 - the page does not even close: start over with a fresh browser
            await self._restart()

    async def _render_all(self, jobs: list[RenderJob]) -> list[RenderResult]:
        return list(await asyncio.gather(*(self._render_one(j) for j in jobs)))

    async def _render_one(self, job: RenderJob) -> RenderResult:
        assert self._sem is not None
        timeout = job.timeout_s or self.timeout_s
        w, h = int(job.viewport[0]), int(job.viewport[1])
        diag: dict[str, Any] = {"missing_html_close": missing_html_close(job.html)}
        t0 = time.perf_counter()
        async with self._sem:
            result = await self._attempt(job, diag, timeout, w, h, scripts=True)
            if isinstance(result, _NavigatedAway):
                # A navigation that cannot be refused (about:blank, a data: or javascript: document...): the
                # prediction is rendered again with scripts off, so its own markup is still what is scored.
                diag["navigated_away"] = str(result)
                diag.pop("prepared", None)
                result = await self._attempt(job, diag, timeout, w, h, scripts=False)
            if isinstance(result, _NavigatedAway):
                result = self._failed(job, diag, str(result))
        diag.setdefault("timings_ms", {})["total"] = round((time.perf_counter() - t0) * 1000, 1)
        return result

    async def _attempt(self, job: RenderJob, diag: dict[str, Any], timeout: float, w: int, h: int, *,
                       scripts: bool) -> RenderResult | _NavigatedAway:
        """One render of ``job`` on a pooled page of the scripts-on or scripts-off context."""
        slot: _Slot | None = None
        try:
            slot = await asyncio.wait_for(self._prepare(job.scale, w, h, scripts), 30)
            result: RenderResult | _NavigatedAway = await asyncio.wait_for(self._paint(slot, job, diag), timeout)
        except _NavigatedAway as exc:
            await self._discard(slot)  # type: ignore[arg-type]
            slot = None
            result = exc
        except TimeoutError:
            if slot is not None:
                await self._discard(slot)
                slot = None
            stage = "rendering" if "prepared" in diag else "preparing the page"
            result = self._failed(job, diag, f"timed out after {timeout:g} s while {stage}", timed_out=True)
        except Exception as exc:  # noqa: BLE001 - any other renderer failure keeps the sample (fallback)
            if slot is not None:
                await self._discard(slot)
                slot = None
            if self._browser is None or not self._browser.is_connected():
                await self._restart()
            result = self._failed(job, diag, f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
        finally:
            if slot is not None and slot.retire:
                await self._discard(slot)
            elif slot is not None:
                self._idle.setdefault((slot.scale, slot.scripts), []).append(slot)
        return result

    async def _loaded(self, slot: _Slot, committing: Any, diag: dict[str, Any]) -> None:
        """Commit the prediction's document, then wait for its ``load`` event. A navigation the page starts
        while it is still loading (an inline script setting ``location``) aborts the document's loading, so
        ``load`` may never come once that navigation is refused: then the page is read as it stands after
        :data:`REFUSED_LOAD_GRACE_S`."""
        await committing
        load = asyncio.ensure_future(slot.page.wait_for_load_state("load", timeout=0))
        refused = asyncio.ensure_future(slot.refused.wait())
        try:
            done, _ = await asyncio.wait({load, refused}, return_when=asyncio.FIRST_COMPLETED)
            if load not in done:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(load), REFUSED_LOAD_GRACE_S)
                diag["load_event"] = load.done() and not load.cancelled() and load.exception() is None
            if load.done() and not load.cancelled() and load.exception() is not None:
                raise load.exception()  # type: ignore[misc]
        finally:
            for task in (load, refused):
                if not task.done():
                    task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(load, refused, return_exceptions=True)

    def _failed(self, job: RenderJob, diag: dict[str, Any], error: str, *, timed_out: bool = False) -> RenderResult:
        use_fallback = not timed_out or self.on_timeout == "fallback"
        evidence = fallback_evidence(job.html, tuple(job.viewport), self.cdn) if use_fallback else None
        return RenderResult(ok=False, png=None, evidence=evidence, viewport=tuple(job.viewport), scale=job.scale,
                            error=error, fallback_used=use_fallback, timed_out=timed_out, diagnostics=diag)

    async def _prepare(self, scale: float, w: int, h: int, scripts: bool = True) -> _Slot:
        slot = await self._acquire(scale, scripts)
        try:
            if slot.frozen:
                await slot.cdp.send("Page.setWebLifecycleState", {"state": "active"})
                slot.frozen = False
            if slot.size != (w, h):
                await slot.page.set_viewport_size({"width": w, "height": h})
                # Emulation is per DevTools session: the session that takes screenshots needs the same
                # metrics, or it captures at CSS-pixel size.
                await slot.cdp.send("Emulation.setDeviceMetricsOverride", {
                    "width": w, "height": h, "deviceScaleFactor": scale, "mobile": False})
                slot.size = (w, h)
        except BaseException:
            await self._discard(slot)
            raise
        return slot

    async def _paint(self, slot: _Slot, job: RenderJob, diag: dict[str, Any]) -> RenderResult:
        diag["prepared"] = True
        page, w, h = slot.page, int(job.viewport[0]), int(job.viewport[1])
        times: dict[str, float] = {}
        slot.log.clear()
        slot.navigations.clear()
        slot.refused.clear()
        slot.doc = job.html.encode("utf-8", errors="surrogatepass")
        t = time.perf_counter()
        if slot.clean:  # no script ever ran in this document: replacing its content is as good as a new one
            slot.clean = False
            await self._loaded(slot, page.set_content(job.html, wait_until="commit", timeout=0), diag)
        else:
            slot.doc_url = f"https://p{next(self._origins)}{ORIGIN_SUFFIX}/"
            slot.served = False
            await self._loaded(slot, page.goto(slot.doc_url, wait_until="commit", timeout=0), diag)
        times["load"] = (time.perf_counter() - t) * 1000
        requested_by_load = len(slot.log)
        t = time.perf_counter()
        read = await _read_isolated(slot, {
            "vw": w, "vh": h, "grid": GRID, "minOpacity": MIN_OPACITY, "minInViewport": MIN_IN_VIEWPORT,
            "minUnoccluded": MIN_UNOCCLUDED, "denseStep": DENSE_STEP_PX, "denseMaxCols": DENSE_MAX_COLS,
            "denseMaxRows": DENSE_MAX_ROWS, "maxHidden": MAX_HIDDEN_NODES, "frames": 2 if slot.scripts else 0,
            "timers": slot.scripts})
        times["evidence"] = (time.perf_counter() - t) * 1000
        png = None
        if job.screenshot:
            t = time.perf_counter()
            shot = await slot.cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True,
                                                                  "captureBeyondViewport": False})
            png = base64.b64decode(shot["data"])
            times["screenshot"] = (time.perf_counter() - t) * 1000
        payload, settle = read.get("evidence") or {}, read.get("settle") or {}
        if not _same_origin(str(payload.get("url", "")), slot.doc_url):  # history.pushState stays in the origin
            raise _NavigatedAway(f"the page navigated away (to {str(payload.get('url'))[:200]})")
        if payload.get("scripts") and len(slot.log) > requested_by_load:  # a live document: see the docstring
            slot.retire = True
        elif payload.get("scripts"):  # stop timers and animation loops while the page waits in the pool
            await slot.cdp.send("Page.setWebLifecycleState", {"state": "frozen"})
            slot.frozen = True
        else:
            slot.clean = True
        external = _external_refs(payload.get("refs", []), slot.log, slot.doc_url)
        evidence = Evidence(nodes=tuple(nodes_from_js(payload)), viewport=(w, h), source="render",
                            external=tuple(external))
        scrolled = settle.get("scrolled")
        diag.pop("prepared", None)
        diag.update({"offline_ok": evidence.offline_ok, "external": [vars(r) for r in external],
                     "navigations_blocked": list(dict.fromkeys(slot.navigations)),
                     "scrolled": scrolled if scrolled and any(scrolled) else None,
                     "doc_size": [payload.get("docWidth"), payload.get("docHeight")],
                     "quirks_mode": payload.get("mode") == "BackCompat",
                     "hidden_nodes_omitted": payload.get("omittedHidden", 0),
                     "shadow_roots": payload.get("shadowRoots", 0), "frames_read": payload.get("frames", 0),
                     "timings_ms": {k: round(v, 1) for k, v in times.items()}})
        return RenderResult(ok=True, png=png, evidence=evidence, viewport=(w, h), scale=job.scale,
                            diagnostics=diag)


def _external_refs(refs: list[dict[str, str]], log: list[tuple[str, str, str]], origin: str) -> list[ExternalRef]:
    """Merge the document's references with the request log into one list (request log first)."""
    out: list[ExternalRef] = []
    seen: set[str] = set()
    for url, rtype, status in log:
        if url in seen:
            continue
        seen.add(url)
        out.append(ExternalRef(url=url, kind=_KIND.get(rtype, "other"), status=status))  # type: ignore[arg-type]
    for ref in refs:
        raw = (ref.get("url") or "").strip()
        if not raw or raw.lower().startswith(INLINE_SCHEMES) or ref.get("kind") == "hint":
            continue
        absolute = ref.get("abs") or _absolute(raw, origin)
        if absolute in seen:
            continue
        seen.add(absolute)
        out.append(ExternalRef(url=absolute, kind=ref.get("kind", "other"), status="unresolved"))
    return out


_GONE = ("context was destroyed", "cannot find context", "navigat", "target closed", "promise was collected")


async def _read_isolated(slot: _Slot, opts: dict[str, Any]) -> dict[str, Any]:
    """Run :data:`READ_JS` in a JavaScript world of its own on the page's current document and return its
    answer. The world shares the DOM with the prediction's scripts but none of their globals or prototypes,
    so a page that replaces ``getComputedStyle``, ``Range.prototype.getClientRects``, ``Array.prototype``
    methods or ``JSON.stringify`` cannot change what is read (tested). A document replaced while the script
    ran is a navigation away."""
    try:
        world = await slot.cdp.send("Page.createIsolatedWorld", {"frameId": slot.frame_id,
                                                                 "worldName": "emukit-evidence"})
        answer = await slot.cdp.send("Runtime.evaluate", {
            "expression": f"({READ_JS})({json.dumps(opts)})", "contextId": world["executionContextId"],
            "awaitPromise": True, "returnByValue": True})
    except Exception as exc:
        if _gone(str(exc)):
            raise _navigated_away(str(exc)) from exc
        raise
    if "exceptionDetails" in answer:
        details = answer["exceptionDetails"]
        message = (details.get("exception") or {}).get("description") or details.get("text", "")
        if _gone(message):
            raise _navigated_away(message)
        raise RuntimeError(f"reading the evidence failed: {message.splitlines()[0][:300] if message else details}")
    return json.loads(answer["result"]["value"])


def _gone(message: str) -> bool:
    """Chromium's answer when the document (and with it the reading world) went away during the read."""
    return any(sign in message.lower() for sign in _GONE)


def _navigated_away(message: str) -> _NavigatedAway:
    return _NavigatedAway(f"the page navigated away while it was read ({message.splitlines()[0][:200]})")


def _same_origin(url: str, doc_url: str) -> bool:
    import urllib.parse

    a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(doc_url)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)


def _absolute(url: str, origin: str) -> str:
    import urllib.parse

    try:
        return urllib.parse.urljoin(origin, url)
    except ValueError:
        return url


async def _quiet(coro: Any) -> None:
    with contextlib.suppress(Exception):
        await coro
