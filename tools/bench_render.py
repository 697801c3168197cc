"""Benchmark: render + evidence + parse throughput of the offline renderer with a warm browser.

    python tools/bench_render.py [--n 60] [--runs 3] [--pool 4] [--no-screenshot] [--format gworld|code2world]
    python tools/bench_render.py --large [--runs 5]

Renders ``n`` realistic predictions (10-30 KB of HTML each, mixed families: Files search / folder listing,
editor, playlist / queue, notification shade; the kind of page a GUI world model writes, with a style sheet,
inline SVG icons, a status bar and a keyboard) through one warm :class:`emukit.evaluate.render.Renderer`,
runs the family parser on each, and prints predictions per second (median over ``runs``). What is measured
per prediction: fresh document + load + settle + PNG screenshot (unless ``--no-screenshot``) + C.4
visibility evidence + family parse.

``--large`` renders one 5.1 MB page of 64,000 paragraphs ``runs`` times instead and prints the median load,
evidence-reading and total times (the page the 5 MB test renders; more than 2,000 hidden regions, so most are
counted, not listed).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emukit.evaluate.parsers import parse
from emukit.evaluate.render import Renderer, RenderJob, viewport_for

ICON = ('<svg width="24" height="24" viewBox="0 0 24 24"><path fill="#444" d="M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20z'
        'm0 4a2 2 0 1 1 0 4a2 2 0 1 1 0-4zm-4 9h8v2H8z"/></svg>')
WORDS = ("amber", "river", "signal", "harbor", "winter", "orbit", "velvet", "meadow", "copper", "lantern", "echo",
         "summit", "cedar", "pixel", "marble", "falcon", "tide", "willow", "ember", "prism")


def css(rng: random.Random) -> str:
    rules = [("*{box-sizing:border-box}html,body{margin:0;padding:0;width:100%;height:100%;overflow:hidden;"
              "font-family:Roboto,'DejaVu Sans',Arial,sans-serif;background:#fdfbff;color:#1b1b1f}"),
             ".status{height:24px;display:flex;justify-content:space-between;padding:4px 16px;font-size:12px}",
             ".bar{height:56px;display:flex;align-items:center;gap:16px;padding:0 16px;font-size:20px}",
             ".row{display:flex;align-items:center;gap:16px;padding:8px 16px;min-height:56px}",
             ".title{font-size:16px;font-weight:500}.sub{font-size:12px;color:#46464f}",
             ".kb{position:absolute;left:0;right:0;bottom:0;background:#e7e6ee;padding:8px 2px}",
             (".kr{display:flex;justify-content:center;margin:6px 0}.k{width:30px;height:40px;margin:0 2px;"
              "border-radius:6px;background:#fff;display:flex;align-items:center;justify-content:center}")]
    for i in range(rng.randint(60, 160)):  # the long tail of utility rules models like to write
        rules.append(f".u{i}{{margin:{i % 7}px;padding:{i % 5}px {i % 9}px;border-radius:{i % 12}px;"
                     f"color:#{(i * 2654435761) % 0xFFFFFF:06x};background:linear-gradient(90deg,#fff,#f{i % 10}f)}}")
    return "<style>" + "".join(rules) + "</style>"


def page(body: str, rng: random.Random) -> str:
    chrome = (f'<div class="status"><span>9:41</span><span>{ICON}{ICON}</span></div>'
              f'<div class="bar">{ICON}<span>{{title}}</span><span style="flex:1"></span>{ICON}{ICON}</div>')
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width'>"
            f"{css(rng)}</head><body><main style='position:relative;height:100vh'>{chrome}{body}</main>"
            "</body></html>")


def keyboard() -> str:
    rows = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
    return '<div class="kb">' + "".join(
        '<div class="kr">' + "".join(f'<span class="k">{c}</span>' for c in r) + "</div>" for r in rows) + "</div>"


def make(kind: str, rng: random.Random) -> tuple[str, str, dict]:
    name = f"{rng.choice(WORDS)}_{rng.randint(10, 99)}.pdf"
    if kind == "search":
        present = rng.random() < 0.5
        result = (f'<div class="row">{ICON}<div><div class="title">{name}</div><div class="sub">Downloads · 12 kB'
                  '</div></div></div>' if present else
                  '<div style="text-align:center;padding:48px">No matches in Downloads</div>')
        body = (f'<div class="row"><input value="{name}" style="flex:1;height:40px;border-radius:20px;border:0;'
                'background:#eee;padding:0 16px"></div><div class="row"><span class="sub">Images</span>'
                '<span class="sub">Documents</span></div><div class="row title">Files in Downloads</div>'
                f"{result}{keyboard()}")
        return page(body, rng).replace("{title}", "Search"), "persistent", {"probe": "search", "target": name}
    if kind == "folder":
        rows = "".join(f'<div class="row">{ICON}<div><div class="title">{rng.choice(WORDS)}_{i}.txt</div>'
                       f'<div class="sub">Nov {i + 1} · {i + 3} kB</div></div></div>' for i in range(8))
        body = (f'<div class="row sub">Internal storage › Documents › Reports</div>'
                f'<div class="row title">Files in Reports</div><div class="row">{ICON}<div class="title">{name}'
                f"</div></div>{rows}")
        return (page(body, rng).replace("{title}", "Reports"), "persistent",
                {"probe": "folder", "target": name, "folder": "/storage/emulated/0/Documents/Reports"})
    if kind == "editor":
        payload = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
        sib = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
        body = (f'<div style="padding:16px;font-size:17px;line-height:26px" contenteditable="true">{payload}</div>'
                + "".join(f'<p class="u{i} sub">{" ".join(rng.choices(WORDS, k=8))}</p>' for i in range(3))
                + keyboard())
        return page(body, rng).replace("{title}", "Note"), "clipboard", {"expected": payload, "sibling": sib}
    if kind == "list":
        items = [f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}" for i in range(rng.randint(4, 10))]
        rows = "".join(f'<div class="row" style="min-height:52px">{ICON}<div><div class="title">{t}</div>'
                       f'<div class="sub">{rng.choice(WORDS).title()} · 3:{i:02d}</div></div></div>'
                       for i, t in enumerate(items))
        return (page(rows, rng).replace("{title}", "Playing queue"), "ordered",
                {"expected_items": items, "sibling_items": list(reversed(items))})
    card = rng.choice(["<p>Clock</p><p style='font-size:22px'>Time's up</p><button>Stop</button>",
                       "<p>Clock</p><p>Timer</p><p style='font-size:22px'>04:12</p><button>Pause</button>",
                       "<p>Android System</p><p>Device storage is running normally</p>"])
    body = ("<div style='padding:24px 16px'><h1 style='font-size:18px;font-weight:400'>Notifications</h1>"
            f"<section style='background:#fff;border-radius:20px;padding:16px 20px'>{card}</section>"
            "<footer style='display:flex;justify-content:space-between;margin-top:16px'><span>Manage</span>"
            "<span>Clear all</span></footer></div>")
    return page(body, rng).replace("{title}", "Shade"), "temporal", {}


KINDS = ("search", "folder", "editor", "list", "shade")


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of ``root`` and its live descendants (Playwright's driver and Chromium)."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    keep, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, ppid in parent.items():
            if ppid == pid and child not in keep:
                keep.add(child)
                frontier.append(child)
    return sum(ticks.get(p, 0) for p in keep) / os.sysconf("SC_CLK_TCK")


def large_page() -> str:
    paragraphs = "".join(f"<p>Paragraph {i}: plain text that goes on for a while to fill the page up.</p>"
                         for i in range(64000))
    return f"<!DOCTYPE html><html><body><h1>TOP OF PAGE</h1>{paragraphs}</body></html>"


def bench_large(runs: int, viewport: tuple[int, int], scale: float) -> int:
    html = large_page()
    print(f"one page of {len(html.encode()) / 1e6:.1f} MB, {runs} runs, viewport {viewport[0]}x{viewport[1]} "
          f"@{scale:g}, no screenshot, load average {os.getloadavg()[0]:.2f}")
    timings: dict[str, list[float]] = {"load": [], "evidence": [], "total": []}
    with Renderer(pool_size=1, timeout_s=60) as r:
        for run in range(runs):
            res = r.render(html, viewport, scale, screenshot=False)
            if not res.ok:
                print(f"run {run + 1}: {res.status}: {res.error}")
                return 1
            ms = res.diagnostics["timings_ms"]
            for key in timings:
                timings[key].append(ms[key])
            print(f"run {run + 1}: load {ms['load']:.0f} ms, evidence {ms['evidence']:.0f} ms, total "
                  f"{ms['total']:.0f} ms; {len(res.evidence.nodes)} nodes listed, "
                  f"{res.diagnostics['hidden_nodes_omitted']} hidden ones counted")
    print("median: " + ", ".join(f"{k} {statistics.median(v):.0f} ms" for k, v in timings.items())
          + f"; load average now {os.getloadavg()[0]:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60, help="predictions per run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pool", type=int, default=4, help="pages rendering at once")
    ap.add_argument("--format", default="gworld", choices=("gworld", "code2world"))
    ap.add_argument("--no-screenshot", action="store_true", help="skip the PNG (parse-only scoring)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--large", action="store_true", help="time one 5.1 MB page instead")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    viewport, scale = viewport_for(args.format)
    if args.large:
        return bench_large(args.runs, viewport, scale)
    preds = [make(KINDS[i % len(KINDS)], rng) for i in range(args.n)]
    sizes = [len(h.encode()) for h, _, _ in preds]
    print(f"{args.n} predictions, HTML {min(sizes) / 1024:.1f}-{max(sizes) / 1024:.1f} KB "
          f"(median {statistics.median(sizes) / 1024:.1f} KB), {args.format} viewport {viewport[0]}x{viewport[1]} "
          f"@{scale:g}, pool {args.pool}, screenshot {'no' if args.no_screenshot else 'yes (PNG)'}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    rates, capacities = [], []
    cpus = os.cpu_count() or 1
    with Renderer(pool_size=args.pool) as r:
        r.warm([(viewport, scale)])
        for run in range(args.runs):
            cpu0 = tree_cpu_seconds(os.getpid()) if sys.platform.startswith("linux") else None
            t = time.perf_counter()
            results = r.render_many(RenderJob(h, viewport, scale, screenshot=not args.no_screenshot)
                                    for h, _, _ in preds)
            outcomes = [parse(fam, res, ctx) for res, (_, fam, ctx) in zip(results, preds, strict=True)]
            dt = time.perf_counter() - t
            cpu = tree_cpu_seconds(os.getpid()) - cpu0 if cpu0 is not None else None
            bad = [res.status for res in results if not res.ok]
            rates.append(args.n / dt)
            extra = ""
            if cpu:
                capacities.append(cpus * args.n / cpu)
                extra = f"; {1000 * cpu / args.n:.0f} ms CPU per prediction"
            print(f"run {run + 1}: {args.n / dt:.1f} predictions/s ({dt:.2f} s; {len(bad)} not ok; "
                  f"{sum(o.valid for o in outcomes)} parsed{extra})")
    what = "render + evidence + parse, no screenshot" if args.no_screenshot else \
        "render + evidence + PNG screenshot + parse"
    print(f"median: {statistics.median(rates):.1f} predictions/s ({what}); load average now "
          f"{os.getloadavg()[0]:.2f}")
    if capacities:
        print(f"CPU-bound capacity on {cpus} idle CPUs: {statistics.median(capacities):.1f} predictions/s "
              "(CPU time of this process, Playwright's driver and Chromium per prediction)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
