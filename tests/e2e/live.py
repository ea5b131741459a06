"""A session being written, in the window: a writer's rows appear once each, in order, and the
time from its commit to the row is measured."""

import json
import os
import shutil
import subprocess
import tempfile
import time

from common import (  # noqa: E402
    STATUS, check, main_app_closed, own_driver, root_shot, shots, bin_beside_app,
)


def test_live_writer_rows_appear_once_in_order(c):
    writer = bin_beside_app(c, "palimpsest-writer", "palimpsest-fixtures")
    folder = tempfile.mkdtemp(prefix="palimpsest-e2e-live-")
    os.makedirs(os.path.join(folder, "goose"))
    main_driver = c.d
    try:
        with main_app_closed(c):
            try:
                with own_driver(c, dict(os.environ), "tauri-driver-live.log") as d:
                    c.d = d
                    d.start(c.app, [folder])
                    live_rows_once_in_order(c, writer, folder)
            finally:
                c.d = main_driver
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def live_rows_once_in_order(c, writer, folder):
    c.d.wait("return !!document.querySelector('[data-testid=no-sources]');", timeout=30,
             what="the empty folder's window")
    # Record, in the page, when each row and cut first appears (Date.now(): the same clock the
    # writer's t_ms uses).
    c.d.run("""
      window.__seen = {}; window.__cuts = {};
      const note = () => {
        const t = Date.now();
        for (const r of document.querySelectorAll('[data-testid=row]')) {
          const i = r.dataset.index; if (!(i in window.__seen)) window.__seen[i] = t;
          if (r.querySelector('[data-testid=cut]') && !(i in window.__cuts)) window.__cuts[i] = t;
        }
      };
      new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true});
    """)
    c.d.keys("f")
    c.d.wait("return document.querySelector('[data-testid=follow]')?.getAttribute('aria-pressed') === 'true';",
             what="f to turn follow on")
    db = os.path.join(folder, "goose", "sessions.db")
    p = subprocess.run([writer, "--goose", db, "--rate", "10", "--turns", "3", "--compact-after", "2"],
                       capture_output=True, text=True, check=True, timeout=60)
    commits = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    c.d.wait("return document.querySelectorAll('[data-testid=row]').length >= 18 && "
             "!!document.querySelector('[data-testid=cut]');", timeout=15, what="18 rows and the cut")
    time.sleep(1.0)  # anything late (a duplicate) would show up now
    rows = c.rows()
    idx = [r["index"] for r in rows]
    check(idx == list(range(18)), f"every message of live-1 exactly once, in order; got {idx}")
    texts = [r["text"] for r in rows]
    check("summary 2:" in texts[10] and "turn 2: add a retry" in texts[13],
          f"the summary lands at 10 and the next turn at 13; got {texts[10]!r}, {texts[13]!r}")
    dimmed = [r["index"] for r in rows if r["dimmed"]]
    check(dimmed == list(range(10)), f"the compaction dims the 10 originals in place; dimmed {dimmed}")
    cuts = c.d.run("return Array.from(document.querySelectorAll('[data-testid=cut]')).map(e => e.closest('[data-testid=row]').dataset.index);")
    check(cuts == ["10"], f"one cut, above the summary (message 10); got {cuts}")
    errors = c.d.run("return Array.from(document.querySelectorAll('.problem, .error-text, .part-error')).map(e => e.textContent);")
    status = c.d.run(STATUS)
    check(errors == [] and "⚠" not in status and "Error" not in status, f"no error is shown; got {errors}, status {status!r}")
    check(c.d.run("return !!document.querySelector('[data-testid=session][data-session-id=\"live-1\"] [data-testid=live-dot]');"),
          "the sidebar marks live-1 as live (● live)")
    sel = c.d.run("return document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index;")
    check(sel == "17", f"follow keeps the newest message selected and in view; selected {sel}")
    shots(c, "live.png", "screenshot-live.png")
    root_shot(os.path.join(c.out, "live-screen.png"))
    seen = c.d.run("return window.__seen;")
    cut_seen = c.d.run("return window.__cuts;")
    lat = []
    for k, w in enumerate(x for x in commits if "seq" in x):
        seq = w["seq"]
        index = seq if seq < 10 else seq + 3  # the compaction inserts summary, continuation, copy
        lat.append(("row", index, seen[str(index)] - w["t_ms"]))
    comp = next(x for x in commits if x.get("event") == "compaction")
    lat.append(("cut", 10, cut_seen["10"] - comp["t_ms"]))
    ms = sorted(v for _, _, v in lat)
    med = ms[len(ms) // 2]
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    with open(os.path.join(c.out, "live-latency.json"), "w") as f:
        json.dump({"median_ms": med, "p95_ms": p95, "max_ms": ms[-1], "samples": lat}, f, indent=1)
    print(f"     live latency, writer commit -> row in the DOM: median {med} ms, p95 {p95} ms, max {ms[-1]} ms "
          f"({len(ms)} commits)")
    check(len(lat) == 16, f"15 message commits and one compaction were timed; got {len(lat)}")
    # Each commit reaches the window as it is made (about 60 ms in a debug app), not when the
    # writer stops: a median over 300 ms means rows wait for something other than the commit.
    check(med < 300, f"a committed row reaches the window within 300 ms (median); got {med} ms")
