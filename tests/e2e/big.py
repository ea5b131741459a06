"""A 200 MB transcript opened before any index holds it shows the rows of its first lines at once,
and every message once it is read whole behind them.

Then a 200 MB session keeps the window responsive: no tab, on its first visit (which waits for the
session to be read whole, then diagnosed or counted) or again, blocks the page for LIMIT ms. The
transcript is made by `palimpsest-big` from the real one in `fixtures/real` (76 copies under
one session id, 26 524 messages, 76 cuts) and indexed by the CLI first, as `palimpsest index`
would have; the window is a fresh launch on that file alone. A 10 ms heartbeat in the page is
the long-task probe: the longest gap between its beats, less the 10 ms it waits, is the longest
the page could not answer a click. Each visit's figures are printed.

Then the transcript grows while the window shows it, as an agent writes it: the lines held back
when it was made are appended, and each new message must reach the timeline within LIVE_LIMIT
of its write, half of them within LIVE_MEDIAN (big_live.py). The window read it ahead for the live follower when it showed it, so the first
appended line is read on from there, not with the whole 200 MB again.

Once the writer pauses, the window indexes its copy, read on from the last offset: the index
answers for the file as it now is. More lines are then appended with no window open, and a new
window on the grown transcript, not indexed again, shows the rows the index has at once and
reads what was written since behind them.

Last, the same transcript as a finished one (last written hours ago, indexed as it is), in a new
window: its timeline, cut marks, Post-mortem, Tokens, Requests and Spills come from the index, and the
app process must not grow by HELD_SHARE of the file's size on the way (the session is not read
whole); the Replay tab, which needs it whole, then reads it, which the same measure must see."""

import os
import shutil
import subprocess
import tempfile
import time

from big_common import MB, app_rss, cpu_seconds, listing, messages, showing, window_processes
from big_live import grows, indexed_from_the_window, searched
from common import check, cli_binary, main_app_closed, own_driver

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "real",
                    "claude-code", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
# The most the page may be blocked, in ms. The pauses of 200-950 ms that came and went from run
# to run were not the page's work (React and layout took 20-50 ms of them) but its thread
# waiting on WebKit's tiles painted through Mesa's software OpenGL, which a 2-core machine
# without a GPU runs on the cores the app's read of the file holds (a scheduler trace showed
# it); the app now paints on the CPU there (`src-tauri/src/painting.rs`). Measured since, most
# visits block the page 5-60 ms and the worst 80-120 ms; with two busy loops taking both cores
# besides, the worst 151-195 ms (before: 232-266 ms, Requests' first visit each time). Since the
# cut view's brief answer and the tabs drawn in steps, the longest block of any visit in nine
# runs (three cold CI runs, six local ones of the debug app, one of them beside two builds)
# was 44-95 ms. The goal is 100 ms; this bound, half as much again, leaves room for a slower
# machine and still fails a regression that doubles the worst seen.
LIMIT = 150
# The most the app process may grow, as a share of the file's size, while a finished session's
# first rows, cut marks, Post-mortem and Tokens come in (all from the index): -1 to 0 MB on
# 200 MB, -21 MB on 2 GB. Read whole, the session cost about half the file's size (0.5-0.66 x)
# when this was 0.25; now the Replay tab's whole read adds 0.30-0.33 x on 200 MB and 0.18-0.30 x
# on 2 GB, so the bound is lower, to still tell a whole read from the views.
HELD_SHARE = 0.1
# Lines held back from the end of the transcript, to append while the window shows it.
HELD = 60
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
const p = window.__probe; p.gap = 0; p.log = []; p.t0 = p.last = performance.now();
window.__palimpsestTrace = []; return true;"""
# The longest block since PROBE, every block over 30 ms as [ms after the click, ms blocked], and
# each answer or event that landed meanwhile as [name, ms after the click it was asked, landed]
# (`ui/src/ipc.ts` keeps them while the probe asks it to).
READ = """const p = window.__probe, at = (t) => Math.round(t - p.t0);
return [p.gap, p.log, window.__palimpsestTrace.map(([n, a, l]) => [n, at(a), at(l)])];"""
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
    folder = tempfile.mkdtemp(prefix="palimpsest-e2e-big-")
    main_driver = c.d
    try:
        big = os.path.join(folder, "big.jsonl")
        subprocess.run([tool(c, "palimpsest-big"), REAL, big, MB], check=True, capture_output=True)
        with open(big, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        held = lines[-HELD:]
        with open(big, "w", encoding="utf-8") as f:
            f.writelines(lines[:-HELD])
        del lines
        cache = os.path.join(folder, "cache")
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        with main_app_closed(c):
            try:
                # Opened for the first time, before any index holds it.
                with own_driver(c, dict(os.environ, XDG_CACHE_HOME=os.path.join(folder, "no-index")),
                                "tauri-driver-big-first.log") as d:
                    c.d = d
                    first_lines(c, big)
                subprocess.run([cli_binary(c), "index", big], check=True, capture_output=True, env=env)
                # The last user line and what follows it are appended once the window is closed,
                # so the next window finds the transcript grown since it was indexed.
                users = [i for i, line in enumerate(held) if '"type":"user"' in line]
                check(len(users) >= 3, f"the held lines hold at least three messages to append; got {len(users)}")
                live, later = held[:users[-2] + 1], held[users[-2] + 1:]
                with own_driver(c, env, "tauri-driver-big.log") as d:
                    c.d = d
                    started = time.time()
                    d.start(c.app, [big])
                    visits(c, started, big)
                    count = grows(c, big, live)
                    indexed_from_the_window(c, big, env, count)
                with open(big, "a", encoding="utf-8") as f:
                    f.writelines(later)
                count = listing(c, big)["message_count"]
                with own_driver(c, env, "tauri-driver-big-grown.log") as d:
                    c.d = d
                    grown(c, big, count)
                    searched(c, big, env, count)
                with own_driver(c, env, "tauri-driver-big-finished.log") as d:
                    c.d = d
                    finished(c, big, env)
            finally:
                c.d = main_driver
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def visits(c, started, big):
    d = c.d
    d.wait("return document.querySelectorAll('[data-testid=row]').length > 0;", timeout=120, what="the first rows")
    first = time.time() - started
    d.wait("const s = document.querySelector('[data-testid=status]');"
           "return !!s && !s.textContent.includes('reading rows');", timeout=300, what="every row")
    # From the launch (the window starting included) to what the user sees.
    print(f"  {MB} MB: first rows {first:.2f} s after the launch, every row {time.time() - started:.2f} s")
    blocks = []
    app, web = window_processes(big)
    for visit in ("first", "again"):
        for tab, ready in READY.items():
            d.run(PROBE)
            t0 = time.time()
            used = (cpu_seconds(app), cpu_seconds(web))
            d.click(f'[data-tab="{tab}"]')
            d.wait("return !!document.querySelector(arguments[0]);", ready, timeout=600, what=f"the {tab} tab")
            waited = time.time() - t0
            time.sleep(1.0)  # what a tab draws after its answer lands counts too
            gap, log, landed = d.run(READ)
            # How busy the app (the Rust side) and the page's process were meanwhile, in cores: a
            # page starved by the app's work, or busy with its own.
            cores = [round((cpu_seconds(p) - u) / (time.time() - t0), 2) for p, u in zip((app, web), used)]
            blocks.append((tab, visit, round(gap), round(waited, 2), log, landed, cores))
    print("  " + "; ".join(f"{t} {v}: {g} ms blocked, {w} s" for t, v, g, w, *_ in blocks))
    if os.environ.get("PALIMPSEST_E2E_TRACE"):
        for t, v, g, _, lg, ld, cores in blocks:
            print(f"  {t} {v}: {g} ms; stalls {lg}; landed {ld}; cores used by the app, the page: {cores}")
    tab, visit, _, _, log, landed, cores = max(blocks, key=lambda b: b[2])
    # When, after the click, each stall over 30 ms came and how long it was: one long task, or
    # the page starved in many short ones; and what the window received meanwhile.
    print(f"  the longest block's stalls ({tab}, {visit} visit), [ms after the click, ms]: {log}; "
          f"answers and events landed, [name, asked, landed]: {landed}; cores used meanwhile by the app "
          f"and by the page: {cores}")
    worst = [b for b in blocks if b[2] >= LIMIT and MB == "200"]
    check(not worst, f"no tab blocks the window for {LIMIT} ms or more on a 200 MB session; got {worst}")


def first_lines(c, big):
    """A transcript no index holds, opened: the rows of its first lines come at once, the status bar
    saying the rest is being read, then every message the file holds."""
    count = listing(c, big)["message_count"]
    rows_then_whole(c, big, count, "First lines", "not indexed", "as its listing counts them",
                    "the first rows of a big transcript no index holds are those of its first lines")


def rows_then_whole(c, big, count, says, name, counted, why):
    """Launch the app on `big`: its first rows come with `says` in the status bar (what is still
    being read), and once that is read, all `count` messages the file holds."""
    d = c.d
    started = time.time()
    d.start(c.app, [big])
    d.wait("return document.querySelectorAll('[data-testid=row]').length > 0;", timeout=120, what="the first rows")
    first = time.time() - started
    status = d.run("return document.querySelector('[data-testid=status]').textContent;")
    check(says in status, f"{why}, and the status bar says what is still being read; got {status!r}")
    d.wait("const s = document.querySelector('[data-testid=status]')?.textContent ?? '';"
           "return !s.includes(arguments[0]) && !s.includes('reading rows') && !s.includes('Loading');",
           says, timeout=300, what="the session read whole")
    every = time.time() - started
    print(f"  {MB} MB {name}: first rows {first:.2f} s after the launch ({status.split(' · ')[0]}), "
          f"every message {every:.2f} s")
    check(messages(d) == count,
          f"once read, the window shows every message the file holds ({count}, {counted}); got {messages(d)}")


def grown(c, big, count):
    """The transcript grew since it was indexed (the lines appended above): a new window shows the
    rows the index has at once, says it is reading what was written since, then shows every message
    the file holds."""
    rows_then_whole(c, big, count, "written since", "grown since indexed", "as the window that followed it counted",
                    "the first rows of a transcript that grew since it was indexed come from the index, not from a "
                    "whole read")


def finished(c, big, env):
    d = c.d
    # The window that followed the transcript live may take a while to give its memory back.
    deadline = time.time() + 180
    while showing(big) and time.time() < deadline:
        time.sleep(0.5)
    check(not showing(big), "the window that followed the transcript live has exited")
    old = time.time() - 2 * 3600
    os.utime(big, (old, old))
    subprocess.run([cli_binary(c), "index", big], check=True, capture_output=True, env=env)
    size = os.path.getsize(big)
    started = time.time()
    d.start(c.app, [big])
    d.wait("return document.querySelectorAll('[data-testid=row]').length > 0;", timeout=120, what="the first rows")
    first = time.time() - started
    d.wait("const s = document.querySelector('[data-testid=status]');"
           "return !!s && !s.textContent.includes('reading rows');", timeout=300, what="every row")
    d.wait("return !!document.querySelector('[data-testid=ribbon] [data-testid=ribbon-cut]');", timeout=120,
           what="the cut marks on the ribbon")
    base = app_rss(big)
    # With no read of the session behind them, the visits' blocks are the page's own.
    blocks = []
    context = None
    for tab in ("postmortem", "tokens", "requests", "spills", "timeline"):
        d.run(PROBE)
        clicked = time.time()
        d.click(f'[data-tab="{tab}"]')
        d.wait("return !!document.querySelector(arguments[0]);", READY[tab], timeout=120, what=f"the {tab} tab")
        if tab == "requests":
            # The next request's context: its messages' rows, read from the index.
            d.wait("return !!document.querySelector('.requests-tab .request-rows [data-testid=row]');",
                   timeout=120, what="the next request's messages in the Requests tab")
            context = time.time() - clicked
        time.sleep(1.0)
        gap = round(d.run(READ)[0])
        check(gap < LIMIT or MB != "200", f"the finished session's {tab} tab blocks the window under {LIMIT} ms; "
              f"got {gap} ms")
        blocks.append(f"{tab} {gap} ms")
    time.sleep(1.0)  # a read behind the views would have started by now
    held = app_rss(big) - base
    # The Replay tab replays the session's own messages: it reads the session whole.
    d.click('[data-tab="replay"]')
    d.wait("return !!document.querySelector(arguments[0]);", READY["replay"], timeout=600,
           what="the Replay tab")
    read = app_rss(big) - base
    mb = 1 << 20
    print(f"  finished {MB} MB session: first rows {first:.2f} s after the launch; the app process "
          f"{base / mb:.0f} MB with every row in, +{held / mb:.0f} MB after cut marks, Post-mortem, Tokens, "
          f"Requests (its next request shown {context:.2f} s after the click) and Spills, "
          f"+{read / mb:.0f} MB once the Replay tab read the session whole; longest blocks of those visits: "
          f"{', '.join(blocks)}")
    check(held < HELD_SHARE * size,
          f"a finished session's cut marks, Post-mortem, Tokens, Requests and Spills come from the index: the app grows "
          f"by less than {HELD_SHARE:.0%} of the file ({size // mb} MB); got +{held // mb} MB")
    # A session read whole costs 0.2-0.3 x the file (it was over 1 x before its details were
    # kept as compact text and its long tool results packed); the bound above must be able to tell it from the views.
    check(read > HELD_SHARE * size,
          f"the measure sees a whole read: once the Replay tab read the session, the app grew by more than "
          f"the bound the views are held to ({HELD_SHARE:.0%} of the file); got +{read // mb} MB")
