"""The fleet layer in the window: Ctrl+K search, a session reopened from the index, a real
transcript past its first screen, the fleet table's sorting and fit."""

import json
import os
import shutil
import subprocess
import tempfile
import time

from common import (  # noqa: E402
    HERE, SIX_CUTS, STATUS, STUCK_ID, check, cli_binary, click_in_view, main_app_closed, open_tab, own_driver,
    root_shot,
)


def test_ctrl_k_search_opens_the_message(c):
    """Ctrl+K searches every session shown; Enter opens the hit's message in the inspector."""
    want = json.loads(subprocess.run([cli_binary(c), "search", "fetch_rows", os.path.join(c.fixtures, "goose-stuck"),
                                      "--json"], capture_output=True, text=True,
                                     env=dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))).stdout)
    check(len(want) > 0, "the CLI finds fetch_rows in the stuck worker")
    c.open_session(STUCK_ID)
    c.d.run("document.activeElement && document.activeElement.blur();")
    c.d.chord("\ue009", "k")
    c.d.wait("return !!document.querySelector('[data-testid=search-input]');", what="the search dialog on Ctrl+K")
    c.d.click("[data-testid=search-input]")
    c.d.keys("fetch_rows")
    hits = c.d.wait("const h = Array.from(document.querySelectorAll('[data-testid=search-hit]'));"
                    "return h.length ? h.map(e => [e.dataset.sessionId, Number(e.dataset.index), e.querySelector('mark').textContent]) : null;",
                    timeout=60, what="search results")
    check(all(m.lower() == "fetch_rows" for _, _, m in hits), f"every hit marks the match; got {hits[:3]}")
    stuck = [(h["session_id"], h["index"]) for h in want]
    app_stuck = [(s, i) for s, i, _ in hits if s == STUCK_ID]
    check(app_stuck == stuck, f"the stuck worker's hits are the CLI's, in order;\n app: {app_stuck}\n cli: {stuck}")
    time.sleep(0.5)
    if c.screenshot_dir:
        root_shot(os.path.join(c.screenshot_dir, "screenshot-search.png"))
    # Down twice, then Enter: the third hit's message opens in the timeline and the inspector.
    c.d.keys("\ue015\ue015")
    sid, index, _ = hits[2]
    c.d.keys("\ue007")
    c.d.wait("return !document.querySelector('[data-testid=search-dialog]');", what="the dialog to close on Enter")
    c.d.wait("return document.querySelector('[data-testid=session][aria-current=true]')?.dataset.sessionId === arguments[0];",
             sid, what=f"session {sid} to open")
    c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#' + arguments[0];",
             index, timeout=30, what=f"message {index} in the inspector")
    # The match is marked in the inspector and scrolled into its view (issue 45: a hit opened
    # without either).
    marked = c.d.wait("const p = document.querySelector('[data-testid=inspector] .parts');"
                      "return p && p.dataset.marked ? [p.dataset.marked, !!(window.CSS && CSS.highlights && CSS.highlights.has('search-hit'))] : null;",
                      timeout=10, what="the match marked in the inspector")
    check(marked[0].lower() == "fetch_rows" and marked[1], f"the inspector marks fetch_rows with the search highlight; got {marked}")
    seen = c.d.run("const r = [...CSS.highlights.get('search-hit')][0].getBoundingClientRect();"
                   "const i = document.querySelector('[data-testid=inspector]').getBoundingClientRect();"
                   "return [r.top, r.bottom, i.top, i.bottom];")
    check(seen[0] >= seen[2] and seen[1] <= seen[3], f"the marked match is inside the inspector's view; got {seen}")


def test_a_session_reopens_from_the_index(c):
    """Once its folder is indexed (the app indexes a source after reading a session of it), a
    session opens from the index: the same rows, BPE tokens on the ribbon, and its messages
    still open whole (read behind the rows)."""
    cli = json.loads(subprocess.run([cli_binary(c), "show", c.fixtures, "--session", SIX_CUTS, "--rows", "--json"],
                                    capture_output=True, text=True, check=True,
                                    env=dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))).stdout)
    check(not cli["from_index"], "the CLI without --index reads the file")
    from_file = [(r["index"], r["kind"], r["agent_visible"], r["user_visible"]) for r in cli["rows"]]
    status = ""
    deadline = time.time() + 120
    while "rows from the index" not in status:
        check(time.time() < deadline, f"the session opens from the index once indexed; status {status!r}")
        c.open_session(STUCK_ID)
        c.open_session(SIX_CUTS)
        status = c.d.run(STATUS) or ""
        if "rows from the index" not in status:
            time.sleep(2)
    c.d.run("document.querySelector('[data-testid=timeline]')?.scrollTo(0, 0);")
    drawn = [(r["index"], r["kind"], r["agent"], r["user"]) for r in c.rows()]
    check(len(drawn) > 20 and drawn == from_file[:len(drawn)],
          f"the rows drawn from the index are those the file gives;\n app: {drawn[:5]}\n cli: {from_file[:5]}")
    title = c.d.run("return document.querySelector('.ribbon-strip')?.title || '';")
    check("tokens (BPE)" in title, f"rows from the index carry BPE counts and the ribbon says so; got {title!r}")
    c.d.click('[data-testid=row][data-index="3"]')
    c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#3';",
             timeout=30, what="message 3 whole in the inspector (the session read behind the rows)")


def test_a_real_transcript_past_the_first_screen_comes_in_whole(c):
    """The window asks for its first screen of rows, then the rest in pages: on a real Claude
    Code transcript of 349 messages every row arrives once, in order, and the last one opens."""
    real = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "real", "claude-code",
                        "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    real = os.path.abspath(real)
    cli = json.loads(subprocess.run([cli_binary(c), "show", real, "--rows", "--json"], capture_output=True, text=True,
                                    check=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))).stdout)
    want = [r["index"] for r in cli["rows"]]
    check(len(want) == 349, f"the transcript has 349 rows; the CLI gives {len(want)}")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cache-real"))
    with main_app_closed(c), own_driver(c, env, "tauri-driver-real.log") as d:
        d.start(c.app, [real])
        d.wait("return !!document.querySelector('main.main[data-session-id]') && "
               "document.querySelectorAll('[data-testid=row]').length > 0 && !document.querySelector('.status .spinner');",
               timeout=60, what="the real transcript's rows, every page in")
        status = d.run(STATUS) or ""
        check("349 messages" in status, f"the status bar counts every row once they are in; got {status!r}")
        d.run("document.activeElement && document.activeElement.blur();")
        d.keys("G")
        last = d.wait("const r = document.querySelector('[data-testid=row][aria-selected=true]'); return r && r.dataset.index;",
                      timeout=10, what="the last row selected on G")
        check(last == str(want[-1]), f"G selects the last stored row, {want[-1]}; got {last}")
        # "did you push?" (346) came ten minutes after the row above: the time cell says so.
        gap = d.run("return document.querySelector('[data-testid=row][data-index=\"346\"] [data-testid=row-time]')?.textContent;")
        check(gap == "+10m", f"a ten-minute pause shows as +10m on the row after it; got {gap!r}")
        if c.screenshot_dir:
            time.sleep(0.5)
            # This app's own webview (the X screen may still show the closed main window).
            d.screenshot(os.path.join(c.screenshot_dir, "screenshot-real-claude.png"))
        # Its one cut (boundary at 229), opened from the ribbon: the shape comes with every cut,
        # the 14 518-character summary when the cut is opened (`get_cut`).
        d.click("[data-testid=ribbon-cut]")
        d.wait("const v = document.querySelector('[data-testid=cut-view]');"
               "return v?.dataset.cutIndex === '229' && v.dataset.whole === 'true';",
               timeout=30, what="the real transcript's cut, whole")
        chars = d.run("return document.querySelector('[data-testid=summary-text]').textContent.length;")
        check(chars == 14518, f"the opened cut shows the summary whole, 14 518 characters; got {chars}")
        time.sleep(0.5)
        d.screenshot(os.path.join(c.screenshot_dir or c.out, "screenshot-real-cut.png"))


def test_fleet_table_sorts_and_fits(c):
    """The fleet table: stuck rows first, any column sorts, and it fits the pane at 1280 x 800."""
    c.open_session(STUCK_ID)
    open_tab(c, "postmortem")
    try:
        # The fleet pane comes with the tab once the source's listing is in (under load, after it).
        c.d.wait("return !!document.querySelector('[data-testid=fleet]');", timeout=60, what="the fleet pane")
        if c.d.run("return !!document.querySelector('[data-testid=fleet-run]');"):
            click_in_view(c, "[data-testid=fleet-run]")
        try:
            sev = c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=fleet-table] tbody tr')).map(t => t.dataset.severity);"
                           "return r.length ? r : null;", timeout=120, what="the fleet table")
        except TimeoutError as e:
            # What the fleet pane said instead (its progress, an error, the button), for the log.
            pane = c.d.run("return document.querySelector('[data-testid=fleet]')?.innerText ?? 'no fleet pane';")
            raise AssertionError(f"{e}; the fleet pane showed {pane!r}") from e
        rank = {"stuck": 0, "watch": 1, "ok": 2}
        check(all(s in rank for s in sev), f"every row has a severity; got {sev}")
        check(sev == sorted(sev, key=rank.get) and sev[0] == "stuck", f"stuck first, then watch, then ok; got {sev}")
        fits = c.d.run("const t = document.querySelector('[data-testid=fleet-table]'); const m = document.querySelector('main.main');"
                       "return [t.getBoundingClientRect().right, m.getBoundingClientRect().right];")
        check(fits[0] <= fits[1] + 1, f"the table ends inside its pane (verdicts wrap); table right {fits[0]}, pane right {fits[1]}")
        verdict = c.d.run("return document.querySelector('[data-testid=fleet-table] tbody td.verdict-cell').getBoundingClientRect().width;")
        check(verdict >= 150, f"the verdict column is wide enough to read (issue 45: it was 60 px); got {verdict:.0f} px")
        click_in_view(c, "[data-testid=fleet-sort-calls]")
        calls = c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=fleet-table] tbody tr')).map(t => Number(t.cells[2].textContent));"
                         "return document.querySelector('[data-testid=fleet-table] th[aria-sort=descending]') ? r : null;",
                         what="the table sorted by calls")
        check(calls == sorted(calls, reverse=True), f"most calls first after a click on calls; got {calls}")
        click_in_view(c, "[data-testid=fleet-sort-severity]")
        c.d.wait("return !!document.querySelector('[data-testid=fleet-table] th[aria-sort=ascending]');",
                 what="the table sorted by severity again")
        time.sleep(0.5)
        c.d.run("document.querySelector('[data-testid=fleet]').scrollIntoView({block: 'start'});")
        time.sleep(1.0)
        if c.screenshot_dir:
            root_shot(os.path.join(c.screenshot_dir, "screenshot-fleet.png"))
        # The sidebar ordered by severity: the stuck worker heads its source, badged.
        c.d.run("const s = document.querySelector('[data-testid=session-sort]'); s.value = 'severity';"
                "s.dispatchEvent(new Event('change', {bubbles: true}));")
        order = c.d.wait("const b = document.querySelector(`[data-testid=session][data-session-id='${arguments[0]}']`);"
                         "const sec = b && b.closest('[data-testid=source]');"
                         "const rows = sec ? Array.from(sec.querySelectorAll('[data-testid=session][data-depth=\"0\"]')) : [];"
                         "const r = rows.map(e => [e.dataset.sessionId, e.querySelector('[data-testid=session-facts]')?.dataset.severity]);"
                         "return r.length && r.every(x => x[1]) ? r : null;", STUCK_ID, timeout=60,
                         what="the sidebar ordered by severity")
        sevs = [x[1] for x in order]
        check(sevs == sorted(sevs, key=rank.get), f"the source's sessions go stuck, watch, ok; got {order}")
        check([STUCK_ID, "stuck"] in order[:sevs.count("stuck")], f"the stuck worker is among the first, marked stuck; got {order}")
    finally:
        c.d.run("const s = document.querySelector('[data-testid=session-sort]'); if (s) { s.value = 'listed';"
                "s.dispatchEvent(new Event('change', {bubbles: true})); }")
        open_tab(c, "timeline")


def cancel(d, task, total):
    """Click `task`'s Cancel (the fleet's or Tune's): the pane says it stopped and how far it got
    of `total` sessions."""
    d.run(f"document.querySelector('[data-testid={task}-cancel]').scrollIntoView({{block: 'center'}});")
    d.click(f"[data-testid={task}-cancel]")
    said = d.wait(f"return document.querySelector('[data-testid={task}-cancelled]')?.textContent || null;",
                  timeout=60, what=f"{task} stopped")
    check(said.startswith("Cancelled after ") and f"of {total} sessions" in said,
          f"the {task} pane says it stopped, and how far it got; got {said!r}")


def test_a_cold_fleet_counts_its_progress_and_cancels(c):
    """A fleet of 40 real transcripts nobody indexed yet (issue 45: 15-19 s with no count and no
    Cancel): the pane counts the sessions read, Cancel stops it, and it can be asked again; Tune
    counts and cancels the same way."""
    real = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "real", "claude-code",
                        "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    home = tempfile.mkdtemp(prefix="palimpsest-e2e-coldfleet-")
    project = os.path.join(home, "-home-dev-fleet")
    os.makedirs(project)
    text = open(real, encoding="utf-8").read()
    for n in range(40):
        sid = f"258c7280-ae70-4798-8000-{n:012d}"
        with open(os.path.join(project, f"{sid}.jsonl"), "w", encoding="utf-8") as f:
            f.write(text.replace("258c7280-ae70-4798-800f-63464d01a85d", sid))
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(home, "cache"))
    # The session opened first is indexed beforehand, so opening it reads nothing and starts no
    # indexing of its folder behind the window: the fleet is the one to read the other 39.
    first = "258c7280-ae70-4798-8000-000000000000"
    subprocess.run([cli_binary(c), "index", os.path.join(project, f"{first}.jsonl")], env=env, check=True,
                   capture_output=True)
    try:
        with main_app_closed(c), own_driver(c, env, "tauri-driver-coldfleet.log") as d:
            d.start(c.app, [project])
            d.wait("return document.querySelectorAll('[data-testid=session]').length === 40;", timeout=60,
                   what="the 40 sessions listed")
            d.run("document.querySelector(`[data-testid=session][data-session-id='${arguments[0]}']`).scrollIntoView();", first)
            d.click(f"[data-testid=session][data-session-id='{first}']")
            d.wait("return document.querySelectorAll('[data-testid=row]').length > 0;", timeout=60,
                   what="a session open")
            d.click('[data-tab="postmortem"]')
            d.wait("return !!document.querySelector('[data-testid=fleet-run]');", timeout=30, what="the fleet's button")
            # The real transcript's re-reads table ends inside the pane (its last columns were cut).
            fits = d.wait("const t = document.querySelector('[data-testid=rereads-table]')?.getBoundingClientRect();"
                          "const p = document.querySelector('main.main').getBoundingClientRect();"
                          "return t ? [t.right, p.right] : null;", timeout=60, what="the re-reads table")
            check(fits[0] <= fits[1] + 1, f"the re-reads table ends inside its pane; table right {fits[0]}, pane right {fits[1]}")
            d.run("document.querySelector('[data-testid=fleet-run]').scrollIntoView({block: 'center'});")
            d.click("[data-testid=fleet-run]")
            # Any count first, then which: a wrong total fails saying what the pane showed.
            # The first count comes with the first session read; after a suite of big-file
            # tests the machine may still be busy for a while, so the wait is generous.
            shown = d.wait("const p = document.querySelector('[data-testid=fleet-progress]');"
                           "return p && / of \\d+ /.test(p.textContent) ? p.textContent : null;", timeout=180,
                           what="the fleet counting the sessions it reads")
            check(" of 39 " in shown, f"it reads the 39 sessions nobody indexed; got {shown!r}")
            check("Reading" in shown and "Cancel" in shown, f"the pane says how far it is and offers Cancel; got {shown!r}")
            d.run("document.querySelector('[data-testid=fleet]').scrollIntoView({block: 'start'});")
            time.sleep(0.3)
            d.screenshot(os.path.join(c.out, "cold-fleet.png"))
            cancel(d, "fleet", 39)
            check(d.run("return !document.querySelector('[data-testid=fleet-progress]');"), "no longer in progress")
            d.run("document.querySelector('[data-testid=fleet-again]').scrollIntoView({block: 'center'});")
            d.click("[data-testid=fleet-again]")
            d.wait("return !!document.querySelector('[data-testid=fleet-progress]') || "
                   "!!document.querySelector('[data-testid=fleet-table]');", timeout=30, what="the fleet asked again")
            # Tune, the same way: a count of the sessions replayed so far, and Cancel (at the
            # bench's 54 settings, so it is still running when Cancel comes).
            d.run("document.querySelector('[data-testid=tune-grid]').scrollIntoView({block: 'center'});")
            d.click("[data-testid=tune-grid]")
            d.keys("K=0..8 cap=0,2000,8000,10000,30000,50000\ue007")
            d.click("[data-testid=tune-run]")
            shown = d.wait("const p = document.querySelector('[data-testid=tune-progress]');"
                           "return p && / of \\d+ /.test(p.textContent) ? p.textContent : null;", timeout=180,
                           what="Tune counting the sessions it replays")
            check(" of 40 sessions" in shown and "Cancel" in shown, f"Tune says how far it is and offers Cancel; got {shown!r}")
            cancel(d, "tune", 40)
    finally:
        shutil.rmtree(home, ignore_errors=True)
