"""Pinned local copies of common CSS frameworks, served for their CDN URLs while rendering offline.

World models trained on web data often write ``<script src="https://cdn.tailwindcss.com">`` or link Bootstrap,
Font Awesome or Material Icons from a CDN. The renderer blocks the network, so a known CDN URL is answered from
a local copy of the package installed from the npm registry at setup time, and every other request is aborted
(seed 002 Appendix C.4: rendering is offline; only structural dependence on *unavailable* resources fails the
self-containedness check).

Setup (once per machine; ``.ci/run`` does it)::

    python -m emukit.evaluate.cdn install      # npm install --prefix <cache dir> <pinned packages>
    python -m emukit.evaluate.cdn status

The cache directory is ``$EMUKIT_CDN_DIR``, else ``$XDG_CACHE_HOME/emukit/cdn``, else ``~/.cache/emukit/cdn``.

What is served (:data:`RULES`):

* Tailwind Play CDN (``cdn.tailwindcss.com``, any path) and ``@tailwindcss/browser`` on jsDelivr/unpkg ->
  ``@tailwindcss/browser`` (Tailwind v4's in-browser build; v3 Play CDN pages get v4 utilities, which share
  the common class names).
* Bootstrap CSS / JS bundle on jsDelivr, unpkg, cdnjs and the bootstrapcdn hosts -> ``bootstrap`` (v5; older
  version URLs get v5 too).
* Font Awesome CSS (cdnjs, use.fontawesome.com, jsDelivr/unpkg, bootstrapcdn's 4.x) and kit scripts ->
  ``@fortawesome/fontawesome-free`` (v6, whose CSS also maps the v4/v5 class names), web fonts by file name.
* Material Icons (``fonts.googleapis.com/icon?family=Material+Icons`` and the npm package on CDNs) ->
  ``material-icons`` CSS and fonts.
* Other web-font stylesheets (Google Fonts, Bunny Fonts, rsms.me/inter...) -> an empty stylesheet: fonts are
  cosmetic, the page falls back to the system font (DejaVu).

Not served: Tailwind v2 CSS files (the npm package drags in a build toolchain), Material Symbols fonts
(several MB each), Bootstrap Icons; they stay blocked.
"""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from emukit.errors import ConfigError
from emukit.settings import cdn_dir

#: npm packages and the exact versions installed (``npm install --prefix <cache> name@version ...``).
PACKAGES: dict[str, str] = {
    "@tailwindcss/browser": "4.3.4",
    "bootstrap": "5.3.9",
    "@fortawesome/fontawesome-free": "6.7.2",
    "material-icons": "1.13.14",
}

CONTENT_TYPES = {".css": "text/css; charset=utf-8", ".js": "application/javascript; charset=utf-8",
                 ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
                 ".eot": "application/vnd.ms-fontobject"}
FONT_EXTS = (".woff2", ".woff", ".ttf", ".otf", ".eot")
EMPTY_CSS = "/* emukit offline renderer: web font stylesheet replaced by an empty one */\n"

_FA_CSS = r"(all|fontawesome|solid|regular|brands|v4-shims|v5-font-face|v4-font-face)(?:\.min)?\.css"
_CDN = r"(?:cdn\.jsdelivr\.net/npm|unpkg\.com)"


@dataclass(frozen=True)
class Rule:
    """``pattern`` (matched against the URL without scheme, lower-cased) -> files of ``package`` (joined)."""

    pattern: re.Pattern[str]
    package: str
    files: tuple[str, ...]


def _r(pattern: str, package: str, *files: str) -> Rule:
    return Rule(re.compile(pattern), package, files)


FA = "@fortawesome/fontawesome-free"
RULES: tuple[Rule, ...] = (
    _r(r"^cdn\.tailwindcss\.com(/|\?|$)", "@tailwindcss/browser", "dist/index.global.js"),
    _r(rf"^{_CDN}/@tailwindcss/browser(@[^/]+)?(/.*)?$", "@tailwindcss/browser", "dist/index.global.js"),
    _r(rf"^{_CDN}/bootstrap(@[^/]+)?/dist/css/bootstrap(\.min)?\.css", "bootstrap", "dist/css/bootstrap.min.css"),
    _r(rf"^{_CDN}/bootstrap(@[^/]+)?/dist/js/bootstrap(\.bundle)?(\.min)?\.js", "bootstrap",
       "dist/js/bootstrap.bundle.min.js"),
    _r(r"^(stackpath|maxcdn|netdna)\.bootstrapcdn\.com/bootstrap/[^/]+/css/bootstrap(\.min)?\.css", "bootstrap",
       "dist/css/bootstrap.min.css"),
    _r(r"^(stackpath|maxcdn|netdna)\.bootstrapcdn\.com/bootstrap/[^/]+/js/bootstrap(\.bundle)?(\.min)?\.js",
       "bootstrap", "dist/js/bootstrap.bundle.min.js"),
    _r(r"^cdnjs\.cloudflare\.com/ajax/libs/(twitter-)?bootstrap/[^/]+/(css/)?bootstrap(\.min)?\.css", "bootstrap",
       "dist/css/bootstrap.min.css"),
    _r(r"^cdnjs\.cloudflare\.com/ajax/libs/(twitter-)?bootstrap/[^/]+/(js/)?bootstrap(\.bundle)?(\.min)?\.js",
       "bootstrap", "dist/js/bootstrap.bundle.min.js"),
    _r(rf"^cdnjs\.cloudflare\.com/ajax/libs/font-awesome/[^/]+/css/{_FA_CSS}", FA, "css/{1}.min.css"),
    _r(rf"^use\.fontawesome\.com/releases/[^/]+/css/{_FA_CSS}", FA, "css/{1}.min.css"),
    _r(rf"^{_CDN}/@fortawesome/fontawesome-free(@[^/]+)?/css/{_FA_CSS}", FA, "css/{2}.min.css"),
    _r(r"^(cdnjs\.cloudflare\.com/ajax/libs/font-awesome/[^/]+|(stackpath|maxcdn|netdna)\.bootstrapcdn\.com/"
       r"font-awesome/[^/]+)/css/font-awesome(\.min)?\.css", FA, "css/all.min.css", "css/v4-shims.min.css"),
    _r(r"^kit\.fontawesome\.com/[^/]+\.js", FA, "js/all.min.js"),
    _r(rf"^{_CDN}/@fortawesome/fontawesome-free(@[^/]+)?/js/(all|fontawesome|solid|regular|brands)(\.min)?\.js",
       FA, "js/{2}.min.js"),
    _r(r"^fonts\.googleapis\.com/(icon|css2?)\?(.*&)?family=material\+icons", "material-icons",
       "iconfont/material-icons.css"),
    _r(rf"^{_CDN}/material-icons(@[^/]+)?/iconfont/([a-z-]+)\.css", "material-icons", "iconfont/{2}.css"),
)

#: Stylesheets that only declare web fonts: answered with an empty stylesheet (cosmetic, not structural).
FONT_CSS_HOSTS = ("fonts.googleapis.com", "fonts.bunny.net", "fonts.cdnfonts.com", "rsms.me", "use.typekit.net",
                  "fonts.xz.style", "api.fontshare.com")


@dataclass(frozen=True)
class Asset:
    """A response the renderer fulfils a request with."""

    body: bytes
    content_type: str
    source: str  # "package@version/file" or "empty-css"


def _fill(template: str, match: re.Match[str]) -> str:
    """``{n}`` in a rule's file name -> group ``n`` of the URL match."""
    return re.sub(r"\{(\d)\}", lambda g: match.group(int(g.group(1))) or "", template)


def default_cache_dir() -> Path:
    """``$EMUKIT_CDN_DIR``, else ``$XDG_CACHE_HOME/emukit/cdn``, else ``~/.cache/emukit/cdn``
    (:func:`emukit.settings.cdn_dir`)."""
    return cdn_dir()


def installed_versions(cache_dir: Path | None = None) -> dict[str, str | None]:
    """``{package: installed version or None}`` for every pinned package."""
    root = Path(cache_dir or default_cache_dir()) / "node_modules"
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = json.loads((root / name / "package.json").read_text("utf-8")).get("version")
        except (OSError, ValueError):
            out[name] = None
    return out


def install(cache_dir: Path | None = None, *, npm: str = "npm", quiet: bool = True) -> Path:
    """Install the pinned packages into ``cache_dir`` with npm (a no-op when they are already there).

    Raises :class:`ConfigError` when npm is missing or fails."""
    root = Path(cache_dir or default_cache_dir())
    if all(installed_versions(root)[n] == v for n, v in PACKAGES.items()):
        return root
    exe = shutil.which(npm)
    if exe is None:
        raise ConfigError(f"npm ({npm!r}) is not on PATH; it is needed once to install the offline CSS assets "
                          f"into {root}")
    root.mkdir(parents=True, exist_ok=True)
    cmd = [exe, "install", "--prefix", str(root), "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
           "--legacy-peer-deps", *(f"{n}@{v}" for n, v in PACKAGES.items())]
    proc = subprocess.run(cmd, capture_output=quiet, text=True, check=False)
    if proc.returncode != 0:
        raise ConfigError(f"npm install into {root} failed ({proc.returncode}): {(proc.stderr or '')[-2000:]}")
    missing = [n for n, v in installed_versions(root).items() if v != PACKAGES[n]]
    if missing:
        raise ConfigError(f"npm install into {root} did not install {', '.join(missing)}")
    return root


class CdnMirror:
    """Maps CDN URLs to local files of the pinned packages in ``cache_dir`` (read once, kept in memory)."""

    def __init__(self, cache_dir: Path | str | None = None) -> None:
        self.root = Path(cache_dir) if cache_dir else default_cache_dir()
        self.versions = installed_versions(self.root)
        self._bodies: dict[tuple[str, ...], Asset | None] = {}
        self._fonts: dict[str, Path] | None = None

    @property
    def available(self) -> bool:
        """True when every pinned package is installed at its pinned version."""
        return all(self.versions[n] == v for n, v in PACKAGES.items())

    @property
    def missing(self) -> list[str]:
        """Pinned packages that are not installed (at the pinned version)."""
        return [f"{n}@{v}" for n, v in PACKAGES.items() if self.versions[n] != v]

    def _package_dir(self, package: str) -> Path:
        return self.root / "node_modules" / package

    def _load(self, package: str, files: tuple[str, ...]) -> Asset | None:
        key = (package, *files)
        if key not in self._bodies:
            base = self._package_dir(package)
            try:
                body = b"\n".join((base / f).read_bytes() for f in files)
            except OSError:
                self._bodies[key] = None
            else:
                ctype = CONTENT_TYPES.get(posixpath.splitext(files[0])[1], "application/octet-stream")
                self._bodies[key] = Asset(body, ctype, f"{package}@{self.versions.get(package)}/{'+'.join(files)}")
        return self._bodies[key]

    def _font_index(self) -> dict[str, Path]:
        if self._fonts is None:
            self._fonts = {}
            for package in PACKAGES:
                base = self._package_dir(package)
                if base.is_dir():
                    for path in sorted(base.rglob("*")):
                        if path.suffix in FONT_EXTS and path.is_file():
                            self._fonts.setdefault(path.name, path)
        return self._fonts

    def resolve(self, url: str) -> Asset | None:
        """The local response for ``url``, or ``None`` when it must be blocked."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return None
        bare = (parts.netloc.lower() + parts.path + (f"?{parts.query}" if parts.query else "")).lower()
        bare = urllib.parse.unquote_plus(bare).replace(" ", "+")
        for rule in RULES:
            m = rule.pattern.search(bare)
            if m:
                return self._load(rule.package, tuple(_fill(f, m) for f in rule.files))
        name = posixpath.basename(parts.path)
        if name.endswith(FONT_EXTS):
            path = self._font_index().get(name)
            if path is not None:
                rel = path.relative_to(self.root / "node_modules")
                package = next((p for p in PACKAGES if str(rel).startswith(p + "/")), "")
                return self._load(package, (str(path.relative_to(self._package_dir(package))),)) if package else None
        if parts.netloc.lower() in FONT_CSS_HOSTS and not name.endswith(FONT_EXTS):
            return Asset(EMPTY_CSS.encode(), CONTENT_TYPES[".css"], "empty-css")
        return None


def main(argv: list[str] | None = None) -> int:
    """``python -m emukit.evaluate.cdn install|status [--dir DIR]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    cache = None
    if "--dir" in args:
        i = args.index("--dir")
        cache = Path(args[i + 1])
        del args[i:i + 2]
    cmd = args[0] if args else "status"
    if cmd == "install":
        root = install(cache, quiet=False)
        print(f"offline CSS assets installed in {root}")
        return 0
    if cmd == "status":
        mirror = CdnMirror(cache)
        for name, version in PACKAGES.items():
            print(f"{name}@{version}: {'ok' if mirror.versions[name] == version else 'missing'}")
        print(f"cache: {mirror.root}")
        return 0 if mirror.available else 1
    print("usage: python -m emukit.evaluate.cdn install|status [--dir DIR]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
