"""Compare with…: two recorded runs of one task side by side in the timeline's rows. The runs are
made by the fixtures binary (`palimpsest-fixtures --runs DIR`: one compacts and reads its file
again, one does not) and opened in a window of their own; what the Compare tab draws must be what
`palimpsest diff A B --rows --json` says, line for line."""

import json
import os
import shutil
import subprocess
import tempfile
import time

from common import check, cli_binary, main_app_closed, own_driver, shots

RUN_A = "aaaa0000-0000-4000-8000-00000000000a"
RUN_B = "bbbb0000-0000-4000-8000-00000000000b"

# Every drawn line as [turn, same, first, A's index, B's index] ('' for a gap), or null before any.
LINES = ("const l = Array.from(document.querySelectorAll('[data-testid=compare-line]')).map(l => "
         "[Number(l.dataset.turn), l.dataset.same === 'true', l.dataset.first === 'true', "
         "l.querySelector('[data-side=a]').dataset.index, l.querySelector('[data-side=b]').dataset.index]);"
         "return l.length ? l : null;")


def fixtures_binary(c):
    for p in (os.path.join(os.path.dirname(c.app), "palimpsest-fixtures"),):
        if os.path.exists(p):
            return p
    raise AssertionError("palimpsest-fixtures is not built (cargo build -p palimpsest-fixtures --bins)")


def test_two_recorded_runs_side_by_side(c):
    folder = tempfile.mkdtemp(prefix="palimpsest-e2e-runs-")
    main_driver = c.d
    try:
        subprocess.run([fixtures_binary(c), "--runs", folder], check=True, capture_output=True)
        a, b = (os.path.join(folder, f"{i}.jsonl") for i in (RUN_A, RUN_B))
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))
        want = json.loads(subprocess.run([cli_binary(c), "diff", a, b, "--rows", "--json"], capture_output=True,
                                         text=True, check=True, env=env).stdout)
        with main_app_closed(c):
            try:
                with own_driver(c, dict(os.environ), "tauri-driver-compare.log") as d:
                    c.d = d
                    d.start(c.app, [folder])
                    side_by_side(c, want)
            finally:
                c.d = main_driver
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def side_by_side(c, want):
    d = c.d
    d.wait("return !!document.querySelector(`[data-testid=session][data-session-id='${arguments[0]}']`);", RUN_A,
           timeout=30, what="the two runs to be listed")
    c.open_session(RUN_A)
    d.click("[data-testid=compare-open]")
    d.wait("return !!document.querySelector('[data-testid=compare-with]');", timeout=10,
           what="Compare with… to open the Compare tab")
    d.run("const s = document.querySelector('[data-testid=compare-with]');"
          "const o = Array.from(s.options).find(o => o.value.endsWith(arguments[0]));"
          "const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set;"
          "set.call(s, o.value); s.dispatchEvent(new Event('change', {bubbles: true}));", RUN_B)
    got = d.wait(LINES, timeout=30, what="the two runs aligned")
    expect = [[l["turn"], l["same"], i == want["first_line"],
               str(l["a"]["index"]) if l["a"] else "", str(l["b"]["index"]) if l["b"] else ""]
              for i, l in enumerate(want["lines"])]
    check(got == expect, f"the tab draws diff --rows line for line; got {got}, want {expect}")
    first = [g for g in got if g[2]]
    check(len(first) == 1 and first[0][4] == "" and first[0][0] == 1,
          f"one line marks where they part: A's re-read in turn 2, facing a gap in B; got {first}")
    div = d.text("[data-testid=compare-divergence]")
    check(div.startswith("First divergence: turn 2, call 1 of the turn: A Read"),
          f"the tab names the first divergence as the CLI does; got {div!r}")
    runs = [d.run("return Array.from(document.querySelector(arguments[0]).cells).map(c => c.textContent);",
                  f"[data-testid=compare-run-{n}]") for n in ("A", "B")]
    check(runs[0][:4] == ["A", "2", "5", "1"] and runs[1][:4] == ["B", "2", "4", "0"],
          f"totals: 2 turns each, A 5 calls and 1 compaction, B 4 and none; got {runs}")
    width = d.run("const s = document.querySelector('[data-testid=compare-line] [data-side=a]');"
                  "return s && s.getBoundingClientRect().width;")
    check(width and width >= 400, f"each side is at least 400 px wide at 1280 × 800; got {width}")
    time.sleep(0.5)
    shots(c, "compare.png", "screenshot-compare.png")
