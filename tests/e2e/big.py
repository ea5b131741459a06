"""A 200 MB session keeps the window responsive: no tab, on its first visit (which waits for the
session to be read whole, then diagnosed or counted) or again, blocks the page for LIMIT ms. The
transcript is made by `palimpsest-big` from the real one in `../shared/data` (76 copies under
one session id, 26 524 messages, 76 cuts) and indexed by the CLI first, as `palimpsest index`
would have; the window is a fresh launch on that file alone. A 10 ms heartbeat in the page is
the long-task probe: the longest gap between its beats, less the 10 ms it waits, is the longest
the page could not answer a click. Each visit's figures are printed."""

import os
import shutil
import subprocess
import tempfile
import time

from common import check, cli_binary, main_app_closed, own_driver

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data",
                    "claude-code", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
# The most the page may be blocked, in ms. Measured on the 2-core build machine, most visits
# block it for 5-70 ms; single pauses of 100-190 ms come and go from run to run, on any tab,
# first visit or not, most often right after a diagnosis or token report lands. Drawing the
# Post-mortem in steps made them rarer, not gone: they are not tied to what is drawn (most
# likely the engine's garbage collector on a heap holding 26 524 rows, and its locale data on
# a first number format). Since the Post-mortem and Tokens answer from the index, their first
# visit lands while the rows are still streaming in; one such visit blocked 295 ms (others
# 57-148 ms). The goal is 100 ms; this bound is what holds today, and it still catches the
# seconds-long freezes of the field report.
LIMIT = 400
PROBE = """
if (!window.__probe) {
  window.__probe = {gap: 0, last: performance.now(), t0: 0, log: []};
  setInterval(() => {
    const n = performance.now(), p = window.__probe, g = n - p.last - 10;
    if (g > 30) p.log.push([Math.round(p.last - p.t0), Math.round(g)]);
    p.gap = Math.max(p.gap, g);
    p.last = n;
  }, 10);
}
const p = window.__probe; p.gap = 0; p.log = []; p.t0 = p.last = performance.now(); return true;"""
# The longest block since PROBE, and every block over 30 ms as [ms after the click, ms blocked].
READ = "return [window.__probe.gap, window.__probe.log];"
# What each tab shows once its answer is in.
READY = {
    "postmortem": "[data-testid=verdict]",
    "tokens": "[data-testid=tools-table]",
    "requests": "[data-testid=request-summary]",
    "replay": "[data-testid=replay] .replay-rows",
    "spills": "[data-testid=spills-summary], [data-testid=spills-empty]",
    "compare": "[data-testid=compare-tab]",
    "timeline": "[data-testid=row]",
}


def tool(c, name):
    p = os.path.join(os.path.dirname(c.app), name)
    check(os.path.exists(p), f"{name} is built beside the app (cargo build -p palimpsest-cli -p palimpsest-fixtures --bins)")
    return p


def test_a_200_mb_session_never_blocks_the_window(c):
    if not os.path.exists(REAL):
        print("  skipped: ../shared/data is absent")
        return
    folder = tempfile.mkdtemp(prefix="palimpsest-e2e-big-")
    main_driver = c.d
    try:
        big = os.path.join(folder, "big.jsonl")
        subprocess.run([tool(c, "palimpsest-big"), REAL, big, "200"], check=True, capture_output=True)
        cache = os.path.join(folder, "cache")
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        subprocess.run([cli_binary(c), "index", big], check=True, capture_output=True, env=env)
        with main_app_closed(c):
            try:
                with own_driver(c, env, "tauri-driver-big.log") as d:
                    c.d = d
                    d.start(c.app, [big])
                    visits(c)
            finally:
                c.d = main_driver
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def visits(c):
    d = c.d
    d.wait("return document.querySelectorAll('[data-testid=row]').length > 0;", timeout=120, what="the first rows")
    d.wait("const s = document.querySelector('[data-testid=status]');"
           "return !!s && !s.textContent.includes('reading rows');", timeout=300, what="every row")
    blocks = []
    for visit in ("first", "again"):
        for tab, ready in READY.items():
            d.run(PROBE)
            t0 = time.time()
            d.click(f'[data-tab="{tab}"]')
            d.wait("return !!document.querySelector(arguments[0]);", ready, timeout=600, what=f"the {tab} tab")
            waited = time.time() - t0
            time.sleep(1.0)  # what a tab draws after its answer lands counts too
            gap, log = d.run(READ)
            blocks.append((tab, visit, round(gap), round(waited, 2), log))
    print("  " + "; ".join(f"{t} {v}: {g} ms blocked, {w} s" for t, v, g, w, _ in blocks))
    worst = [b for b in blocks if b[2] >= LIMIT]
    check(not worst, f"no tab blocks the window for {LIMIT} ms or more on a 200 MB session; got {worst}")
