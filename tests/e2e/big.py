"""A 200 MB transcript opened before any index holds it shows the rows of its first lines at once,
and every message once it is read whole behind them.

Then a 200 MB session keeps the window responsive: no tab, on its first visit (which waits for the
session to be read whole, then diagnosed or counted) or again, blocks the page for LIMIT ms. The
transcript is made by `palimpsest-big` from the real one in `../shared/data` (76 copies under
one session id, 26 524 messages, 76 cuts) and indexed by the CLI first, as `palimpsest index`
would have; the window is a fresh launch on that file alone. A 10 ms heartbeat in the page is
the long-task probe: the longest gap between its beats, less the 10 ms it waits, is the longest
the page could not answer a click. Each visit's figures are printed.

Then the transcript grows while the window shows it, as an agent writes it: the lines held back
when it was made are appended, and each new message must reach the timeline within LIVE_LIMIT
of its write, half of them within LIVE_MEDIAN. The window read it ahead for the live follower when it showed it, so the first
appended line is read on from there, not with the whole 200 MB again.

Once the writer pauses, the window indexes its copy, read on from the last offset: the index
answers for the file as it now is. More lines are then appended with no window open, and a new
window on the grown transcript, not indexed again, shows the rows the index has at once and
reads what was written since behind them.

Last, the same transcript as a finished one (last written hours ago, indexed as it is), in a new
window: its timeline, cut marks, Post-mortem, Tokens, Requests and Spills come from the index, and the
app process must not grow by HELD_SHARE of the file's size on the way (the session is not read
whole); the Replay tab, which needs it whole, then reads it, which the same measure must see."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time

from common import check, cli_binary, main_app_closed, own_driver

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data",
                    "claude-code", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
# The most the page may be blocked, in ms. The pauses of 200-950 ms that came and went from run
# to run were not the page's work (React and layout took 20-50 ms of them) but its thread
# waiting on WebKit's tiles painted through Mesa's software OpenGL, which a 2-core machine
# without a GPU runs on the cores the app's read of the file holds (a scheduler trace showed
# it); the app now paints on the CPU there (`src-tauri/src/painting.rs`). Measured since, most
# visits block the page 5-60 ms and the worst 80-120 ms; with two busy loops taking both cores
# besides, the worst 151-195 ms (before: 232-266 ms, Requests' first visit each time). The goal
# is 100 ms; this bound leaves room for a slower machine and still catches those pauses.
LIMIT = 300
# The most a message appended to the shown 200 MB transcript may take to reach the timeline, in
# ms (debug app), and what half of them must beat. The goal is 0.2 s. Here, 56 messages over
# seven runs took 68-125 ms; reading the file whole at the first change, as before the read
# ahead, took 10.7-13.8 s, and copying the session while the cut view read it, as the live
# thread once did on every change, 0.5-1.6 s. The cut view asked for every 3 s instead of in the
# writer's pauses held one message in 8 back, 207-448 ms. The median bound leaves room for a CI
# machine half as fast again.
LIVE_LIMIT = 2000
LIVE_MEDIAN = 250
# The most the app process may hold while it follows the shown 200 MB transcript, as a multiple
# of the file's size. The session is in memory once, where the live follower keeps it and the
# window reads it: 513-706 MB (2.6-3.5 x) in seven runs of the debug app, 450-456 MB (2.2-2.3 x)
# in three since a command holding it shares its messages with the follower, and 322-333 MB
# (1.6 x) since details and stored tool-result blocks are kept as compact JSON text
# (`model::CompactJson`). With a copy of its own for the window, as before `model::Current`, it
# held 842-1 039 MB (4.0-4.9 x); a second copy of today's session would add about 0.6 x. The
# bound catches that, and leaves about 130 MB for the run-to-run spread (cold CI runs have
# matched the local ones). With mimalloc in the app too (it had run on glibc's malloc): 394, 319,
# 348 and 333 MB in four runs of the debug app, 280-328 MB in the release app; purging freed
# pages at once (`src-tauri/src/alloc.rs`) and indexing the follower's copy: 273 MB (debug app),
# 265-283 MB (release, three runs); glibc's trim threshold held (`alloc.rs`): 264 MB (debug),
# 257-259 MB (release, two runs); with the Claude Code reader's nodes smaller: 253-254 MB.
LIVE_SHARE = 2.2
# The most of that the app's own (private) memory may be, as a share of the file: what is not
# the shared libraries' pages (WebKitGTK, GTK and Mesa: about 130 MB). An empty window holds
# 31 MB; following the 200 MB transcript, 114-115 MB (0.57 x) in the debug and release apps, of
# which the session is 0.41 x; 109-110 MB (0.55 x) with smaller nodes. A second copy of the session would add about 0.4 x: the bound
# catches it and leaves about 45 MB for the spread between runs (up to 20 MB seen).
PRIVATE_SHARE = 0.8
# The transcript's size in MB: 200 in the suite; `PALIMPSEST_E2E_BIG_MB=2000` measures the window
# on 2 GB by hand (the bounds above are for 200, and only printed for another size).
MB = os.environ.get("PALIMPSEST_E2E_BIG_MB", "200")
# The most the app process may grow, as a share of the file's size, while a finished session's
# first rows, cut marks, Post-mortem and Tokens come in (all from the index): -1 to 0 MB on
# 200 MB, -21 MB on 2 GB. Read whole, the session cost about half the file's size (0.5-0.66 x)
# when this was 0.25; now the Replay tab's whole read adds 0.30-0.33 x on 200 MB and 0.18-0.30 x
# on 2 GB, so the bound is lower, to still tell a whole read from the views.
HELD_SHARE = 0.1
# The most the first appended message may take while a command reads the whole session (the
# replay at another setting), in ms (debug app). When a change copied every message the command
# held, that message took 375-1 218 ms here and 454-645 ms in cold CI runs (the copy 0.27 s);
# now 99-193 ms, and the messages that came with no command reading 70-125 ms.
LIVE_HELD = 400
# The command that holds the session while the first line comes: the Replay tab's summary at a
# setting no one asked yet (K=7), started from the page as the tab would. `window.__held` says
# when it was asked and when it answered (Date.now()).
HOLD = """
const [path, id] = arguments;
window.__held = {asked: Date.now(), done: 0, error: null};
window.__TAURI_INTERNALS__.invoke('replay_summary', {req: {path, id, options: {
  policy: 'goose', keep_tail: 7, naive: false, manual: false, context_window: null,
  threshold: null, trigger_cap: null, tool_result_cap: null, summary_tokens: null, legacy: false}}})
  .then(() => { window.__held.done = Date.now(); },
        (e) => { window.__held.done = Date.now(); window.__held.error = JSON.stringify(e); });
return true;"""
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
    if not os.path.exists(REAL):
        print("  skipped: ../shared/data is absent")
        return
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
                    searched(c, big)
                with own_driver(c, env, "tauri-driver-big-finished.log") as d:
                    c.d = d
                    finished(c, big, env)
            finally:
                c.d = main_driver
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_seconds(pid):
    """CPU time process `pid` has used (user + system), in seconds; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def window_processes(big):
    """The app process showing `big` and its WebKit web process (the page's)."""
    app = showing(big)
    check(len(app) == 1, f"one app process shows {big}; got {app}")
    web = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                comm, rest = f.read().rsplit(")", 1)
        except OSError:
            continue
        if rest.split()[1] == app[0] and "WebProces" in comm:
            web.append(pid)
    return app[0], (web[0] if web else None)


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


def grows(c, big, held):
    d = c.d
    d.keys("f")
    d.wait("return document.querySelector('[data-testid=follow]')?.getAttribute('aria-pressed') === 'true';",
           what="f to turn follow on")
    # When each row first appears (Date.now(): the clock the writes below are timed with).
    d.run("""
      window.__seen = {};
      const note = () => {
        const t = Date.now();
        for (const r of document.querySelectorAll('[data-testid=row]')) {
          const i = r.dataset.index; if (!(i in window.__seen)) window.__seen[i] = t;
        }
      };
      note();
      new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true});
    """)
    # Follow keeps the newest message selected and in view: the last index before each write.
    last = "return +document.querySelector('[data-testid=row][aria-selected=true]').dataset.index;"
    d.wait("return !!document.querySelector('[data-testid=row][aria-selected=true]');", what="the newest message selected")
    # The window reads the shown transcript ahead for the live follower, in the background
    # (the app logs when the follower takes it); an agent's next line comes after that.
    log = os.path.join(c.out, "tauri-driver-big.log")
    deadline = time.time() + 180
    said = ""
    while time.time() < deadline and "read ahead for following live" not in said:
        time.sleep(0.5)
        with open(log, encoding="utf-8", errors="replace") as f:
            said = f.read()
    check("read ahead for following live: taken" in said,
          "the shown transcript, written minutes ago, is read ahead and the live follower takes it")
    # The first line comes while a command reads the whole session for seconds (the replay at
    # another setting, as a user trying K while the agent writes): the follower must not make
    # the line wait for a copy of what that command holds.
    d.run(HOLD, big, listing(c, big)["id"])
    d.wait("return window.__held && window.__held.asked > 0;", what="the replay asked for")
    time.sleep(0.3)
    lat, pending = [], ""
    for line in held:
        pending += line
        # A line that makes no new row (progress, another block of a response) goes with the
        # next user line, which always does.
        if '"type":"user"' not in line:
            continue
        if not lat:
            held_at = time.time() * 1000
        before = d.run(last)
        wrote = time.time() * 1000
        with open(big, "a", encoding="utf-8") as f:
            f.write(pending)
        pending = ""
        d.wait(f"return Object.keys(window.__seen).some(i => +i > {before});", timeout=120,
               what="the appended message in the timeline")
        seen = d.run(f"return Math.min(...Object.entries(window.__seen).filter(([i]) => +i > {before}).map(([, t]) => t));")
        lat.append(round(seen - wrote))
        time.sleep(0.5)
    done = d.run("return window.__held.done;")
    held_for = round(done - held_at) if done else None
    rss, private = app_rss(big), app_rss(big, "RssAnon")
    print(f"  the replay read the session until {held_for} ms after the first line was written"
          f" ({d.run('return window.__held.error;') or 'answered'})")
    print(f"  appended messages reach the timeline in {lat} ms (the first: {lat[0] if lat else '-'} ms); "
          f"the app process holds {rss >> 20} MB ({rss / os.path.getsize(big):.2f} x the file; "
          f"{private >> 20} MB of it private, {private / os.path.getsize(big):.2f} x) while it follows the transcript")
    check(len(lat) >= 2, f"the held lines hold at least two messages to append; got {len(lat)}")
    count = messages(d)
    if MB != "200":
        return count
    check(rss < LIVE_SHARE * os.path.getsize(big),
          f"the app following the transcript holds it once, not a copy for the window beside the follower's: "
          f"under {LIVE_SHARE} x the file; got {rss >> 20} MB ({rss / os.path.getsize(big):.1f} x)")
    check(private < PRIVATE_SHARE * os.path.getsize(big),
          f"the app's own memory following the transcript (not the shared libraries') holds the session "
          f"once: under {PRIVATE_SHARE} x the file; got {private >> 20} MB "
          f"({private / os.path.getsize(big):.2f} x)")
    check(held_for is None or held_for > lat[0],
          f"the replay still read the session when the first line's row came ({held_for} ms after the "
          f"write, the row {lat[0]} ms): else this run does not test a line that comes meanwhile")
    check(lat[0] < LIVE_HELD,
          f"a message appended while a command reads the whole session reaches the timeline within "
          f"{LIVE_HELD} ms (the follower's change shares the messages the command holds); got {lat[0]} ms")
    check(max(lat) < LIVE_LIMIT,
          f"each message appended to the shown 200 MB transcript reaches the timeline within {LIVE_LIMIT} ms, "
          f"the first too (read ahead, not read whole); got {lat}")
    median = sorted(lat)[len(lat) // 2]
    check(median < LIVE_MEDIAN,
          f"half the appended messages reach the timeline within {LIVE_MEDIAN} ms (a change costs what was "
          f"appended, and waits for no command reading the session); got a median of {median} ms in {lat}")
    return count


def indexed_from_the_window(c, big, env, count):
    """Once the agent has stopped writing for a few seconds, the window's session, read on from
    its last offset, is indexed (`SETTLED` in src-tauri/src/live.rs): the index holds the file at
    its size now, with every message the window shows. Read from the index database itself, as
    asking the CLI would bring the index up to date (or read the file) on its own."""
    db = os.path.join(env["XDG_CACHE_HOME"], "palimpsest", "index.db")
    size = os.path.getsize(big)
    read_before = app_read(big)
    stopped = time.time()
    held = None
    while time.time() < stopped + 120:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            held = conn.execute("SELECT stamp, messages FROM sessions WHERE file = ?", (os.path.realpath(big),)).fetchone()
        if held and held[0].split(":")[0] == str(size) and held[1] == count:
            break
        time.sleep(0.5)
    took = time.time() - stopped
    check(held and held[0].split(":")[0] == str(size),
          f"the index holds the transcript at its size now ({size} bytes) once the window indexed its copy; "
          f"after {took:.1f} s it holds {held}")
    check(held[1] == count, f"the index holds every message the window shows ({count}); got {held[1]}")
    read = app_read(big) - read_before
    print(f"  indexed from the window's copy {took:.1f} s after the last write ({count} messages); "
          f"the app read {read >> 20} MB meanwhile")
    # The update reads the index's stored rows to compare them with the new ones (125 MB on
    # 200 MB, 0.6 x); reading the transcript again would add the file's size to that.
    check(read < size, f"the index took the window's copy, not the file read again ({size >> 20} MB): "
          f"the app read {read >> 20} MB meanwhile, the index's stored rows included")


def listing(c, big):
    """The transcript's session as the CLI lists it (with a cache of its own, so no index answers)."""
    listed = subprocess.run([cli_binary(c), "sessions", big, "--json"], check=True, capture_output=True,
                            env=dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix="palimpsest-e2e-"))).stdout
    return json.loads(listed)[0]


def messages(d):
    """The message count the status bar gives."""
    status = d.run("return document.querySelector('[data-testid=status]').textContent;")
    found = re.search(r"([\d,]+) messages", status)
    check(found, f"the status bar counts the messages; got {status!r}")
    return int(found.group(1).replace(",", ""))


def grown(c, big, count):
    """The transcript grew since it was indexed (the lines appended above): a new window shows the
    rows the index has at once, says it is reading what was written since, then shows every message
    the file holds."""
    rows_then_whole(c, big, count, "written since", "grown since indexed", "as the window that followed it counted",
                    "the first rows of a transcript that grew since it was indexed come from the index, not from a "
                    "whole read")


def searched(c, big):
    """Ctrl+K in the window of the transcript grown since it was indexed: the hits are the CLI's
    on the file as it is now (a cache of its own), the message appended since included, and the
    search does not read the 200 MB again (the window's copy of the session is the index's, once
    it is read; `AppState::given_kept`)."""
    query = "did you push"
    want = json.loads(subprocess.run([cli_binary(c), "search", query, big, "--json", "--limit", "200"],
                                     check=True, capture_output=True,
                                     env=dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix="palimpsest-e2e-"))).stdout)
    want = [h["index"] for h in want]
    check(len(want) >= 2, f"the CLI finds {query!r} in more than one copy of the transcript; got {want}")
    d = c.d
    read_before = app_read(big)
    d.run("document.activeElement && document.activeElement.blur();")
    d.chord("\ue009", "k")
    d.wait("return !!document.querySelector('[data-testid=search-input]');", what="the search dialog on Ctrl+K")
    d.click("[data-testid=search-input]")
    asked = time.time()
    d.keys(query)
    hits = d.wait("const h = Array.from(document.querySelectorAll('[data-testid=search-hit]'));"
                  "return h.length ? h.map(e => Number(e.dataset.index)) : null;", timeout=120, what="search results")
    took = time.time() - asked
    read = app_read(big) - read_before
    d.keys("\ue00c")
    print(f"  Ctrl+K {query!r} in the transcript grown since it was indexed: {len(hits)} hits {took:.2f} s after "
          f"the query was typed (200 ms of it the dialog's settling); the app read {read >> 20} MB meanwhile")
    check(hits == want, f"the window's hits are the CLI's on the file as it is now, the message appended since "
          f"included (its last: {want[-1]});\n app: {hits}\n cli: {want}")
    check(read < os.path.getsize(big), f"the search does not read the transcript again: the app read "
          f"{read >> 20} MB meanwhile")


def showing(big):
    """Pids of app processes showing `big` (other tests may leave their own app running)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"palimpsest-app") and big.encode() in argv:
            pids.append(pid)
    return pids


def app_rss(big, field="VmRSS"):
    """The resident memory of the app process showing `big`, in bytes: all of it, or with
    `RssAnon` its private part (not the shared libraries' pages: WebKitGTK, GTK and Mesa make
    about 130 MB of the 170 MB an empty window holds)."""
    pids = showing(big)
    check(len(pids) == 1, f"one app process shows {big}; got {pids}")
    with open(f"/proc/{pids[0]}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))


def app_read(big):
    """Bytes the app process showing `big` has read so far (`rchar`: files, the index database,
    pipes)."""
    pids = showing(big)
    check(len(pids) == 1, f"one app process shows {big}; got {pids}")
    with open(f"/proc/{pids[0]}/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))


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
        blocks.append(f"{tab} {round(d.run(READ)[0])} ms")
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
