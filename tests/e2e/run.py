#!/usr/bin/env python3
"""End-to-end tests of the real app in a real webview (WebKitWebDriver via tauri-driver).

Run under a display (make e2e wraps it in xvfb-run):

    python3 tests/e2e/run.py --app target/debug/palimpsest-app --fixtures fixtures

Starts tauri-driver on free ports, launches the app with the fixtures folder as its path
argument, runs every test against the one window, saves screenshots to tests/e2e/out/, prints
one line per test and a final `N passed, N failed`; exits 1 when any test failed.
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    HERE, ROWS, SESSIONS, SIX_CUTS, SPILL_ROWS, STATUS, STUCK_ID, VIEW, Ctx, check, cli_binary,
    click_in_view, click_row, js_click, main_app_closed, reopen_main_app, open_tab, own_driver, root_shot, start_driver,
    stop_driver,
)
from big import test_a_200_mb_session_never_blocks_the_window  # noqa: E402
from compare import test_two_recorded_runs_side_by_side  # noqa: E402
from sweep import test_the_replay_sweep_of_a_real_transcript_keeps_and_reads_its_digests  # noqa: E402
from reading import (  # noqa: E402
    test_a_claude_overflow_spill_is_listed_and_opens, test_an_edit_shows_as_a_diff_and_copies_as_markdown,
)
from renderer import test_a_crashed_renderer_is_reloaded, test_without_a_gpu_the_renderer_paints_on_the_cpu  # noqa: E402
from report import test_a_report_shows_hostile_text_as_text_in_chromium  # noqa: E402
from views import (  # noqa: E402
    test_a_goose_delegation_links_its_child_session, test_replacements_and_collapses_are_cuts_with_their_own_views,
)

# --- tests -------------------------------------------------------------------------------------

def test_fixture_sessions_are_listed(c):
    ids = c.d.wait(SESSIONS, what="the sidebar to list sessions")
    for sid in ("seed-five", "goose-compacted", "hostile-html"):
        check(sid in ids, f"the sidebar lists fixture session {sid}; got {ids}")
    origin = c.d.run("return Array.from(document.querySelectorAll('[data-testid=source]')).map(s => s.dataset.origin);")
    check(origin == ["argument"], f"one source, the path argument; got {origin}")


def test_seed_five_agent_view_shows_5_visible_rows(c):
    c.open_session("seed-five")
    c.set_view("all")
    check(len(c.rows()) == 5, f"seed-five stores 5 messages; all view shows {len(c.rows())}")
    c.set_view("agent")
    rows = c.rows()
    check([r["index"] for r in rows] == [0, 1, 2, 3, 4], f"agent view shows messages 0-4 in order; got {[r['index'] for r in rows]}")
    check(all(r["agent"] and r["user"] for r in rows), "every seed-five message is seen by model and user")
    check(not any(r["dimmed"] for r in rows), "nothing is dimmed when everything is visible")
    check("add a retry to fetch_rows in store.py" in rows[0]["text"], f"row 0 is the ask; got {rows[0]['text']!r}")
    check("shell" in rows[1]["text"] and "cat store.py" in rows[1]["text"],
          f"row 1 previews the shell call and its argument; got {rows[1]['text']!r}")
    status = c.d.run(STATUS)
    check("agent view: 5 rows" in status, f"status bar counts the agent view; got {status!r}")


def test_goose_compacted_agent_view_is_summary_continuation_preserved(c):
    # fixtures/README.md: originals 0-4 agentVisible=false, then the agent-only summary (5), the
    # continuation (6), the preserved ask (7), then the agent re-reading store.py (8, 9).
    c.open_session("goose-compacted")
    c.set_view("all")
    all_rows = c.rows()
    check([r["index"] for r in all_rows] == list(range(10)), f"All shows the 10 stored messages; got {[r['index'] for r in all_rows]}")
    dimmed = [r["index"] for r in all_rows if r["dimmed"]]
    check(dimmed == [0, 1, 2, 3, 4], f"All keeps the 5 compacted-away messages in place, dimmed; dimmed: {dimmed}")
    cuts = c.d.run("return Array.from(document.querySelectorAll('[data-testid=cut]')).map(e => [e.closest('[data-testid=row]').dataset.index, e.textContent]);")
    check(len(cuts) == 1 and cuts[0][0] == "5", f"one cut banner, above the summary (message 5); got {cuts}")
    c.set_view("agent")
    rows = c.rows()
    got = [(r["index"], r["kind"]) for r in rows]
    want = [(5, "summary"), (6, "continuation"), (7, "preserved_copy"), (8, "ordinary"), (9, "ordinary")]
    check(got == want, f"the agent view is exactly the summary, continuation, preserved copy and the turn after; got {got}")
    model_only = [r["index"] for r in rows if r["modelOnly"]]
    check(model_only == [5, 6], f"summary and continuation are marked seen-by-the-model-only; marked: {model_only}")
    check(not any(r["dimmed"] for r in rows), "nothing is dimmed in the agent view")
    c.d.screenshot(os.path.join(c.out, "goose-compacted-agent.png"))


def test_hostile_html_shows_as_text_and_nothing_executes(c):
    c.open_session("hostile-html")
    c.set_view("all")
    rows = c.rows()
    check(len(rows) == 3, f"hostile-html stores 3 messages; got {len(rows)}")
    crumbs = c.d.text("[data-testid=crumbs]")
    check(crumbs.endswith("<b>hostile</b><script>alert('name')</script>"),
          f"the session name shows its markup literally in the toolbar; got {crumbs!r}")
    check("<script>alert(1)</scri" in rows[0]["text"],
          f"message 0's text shows its <script> literally; got {rows[0]['text']!r}")
    # Open every row in the inspector: its whole text must also stay text.
    for r in rows:
        c.d.click(f'[data-testid=row][data-index="{r["index"]}"]')
        c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#' + arguments[0];",
                 r["index"], what=f"message {r['index']} in the inspector")
    inspector = c.d.text("[data-testid=inspector]")
    check("</div><script>alert(8)</script><iframe" in inspector.replace("\n", ""),
          f"the tool result of message 2 shows its markup literally in the inspector; got {inspector!r}")
    injected = c.d.run(
        "return Array.from(document.querySelectorAll('#root script, #root img, #root iframe, #root object, "
        "#root embed, #root svg, #root a, #root style, #root link, #root form, #root [onerror], #root [onload]'))"
        ".map(e => e.outerHTML.slice(0, 80));")
    check(injected == [], f"no element from the transcript reaches the DOM; found {injected}")
    check(c.d.alert_text() is None, "no alert/confirm/prompt was opened by a payload")
    flags = c.d.run("return Object.keys(window).filter(k => /pwn|xss|hacked|owned|injected/i.test(k));")
    check(flags == [], f"no payload set a global; found {flags}")
    # The CSP itself: an inline script added to the page must not run (script-src 'self').
    ran = c.d.run("const s = document.createElement('script'); s.textContent = 'window.__palimpsestCspProbe = 1';"
                  "document.body.appendChild(s); s.remove(); return window.__palimpsestCspProbe === 1;")
    check(ran is False, "the Content-Security-Policy blocks inline scripts")
    title = c.d.run("return document.title;")
    check(title == "Palimpsest", f"the page title is untouched; got {title!r}")
    c.d.screenshot(os.path.join(c.out, "hostile-html.png"))


def test_inspector_shows_whole_message_and_raw_json(c):
    c.open_session("seed-five")
    c.set_view("all")
    c.d.click('[data-testid=row][data-index="2"]')
    c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#2';",
             what="message 2 in the inspector")
    body = c.d.text("[data-testid=inspector]")
    check("Tool result" in body, f"message 2 (the file) is shown whole as a tool result; got {body[:200]!r}")
    c.d.click("[data-testid=raw-toggle]")
    raw = c.d.wait("const r = document.querySelector('[data-testid=raw]'); return r && r.textContent;", what="raw JSON")
    check(raw.lstrip().startswith("{") or raw.lstrip().startswith("["), f"raw view shows the stored JSON; got {raw[:120]!r}")
    c.d.click("[data-testid=raw-toggle]")


def test_keyboard_moves_switches_views_and_lists_keys(c):
    c.open_session("seed-five")
    c.set_view("all")
    c.d.click('[data-testid=row][data-index="0"]')
    c.d.run("document.activeElement && document.activeElement.blur();")
    c.d.keys("jj")
    sel = c.d.wait("const r = document.querySelector('[data-testid=row][aria-selected=true]'); return r && r.dataset.index === '2' && r.dataset.index;",
                   what="j j to select message 2")
    check(sel == "2", "j moves the selection down one row each")
    c.d.keys("k")
    c.d.wait("return document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index === '1';", what="k to go up")
    c.d.keys("G")
    c.d.wait("return document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index === '4';", what="G to jump to the end")
    c.d.keys("g")
    c.d.wait("return document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index === '0';", what="g to jump to the top")
    for key, view in (("2", "agent"), ("3", "user"), ("1", "all")):
        c.d.keys(key)
        c.d.wait(VIEW.replace("return b && b.dataset.view;", "return b && b.dataset.view === arguments[0];"), view,
                 what=f"key {key} to switch to the {view} view")
    c.d.keys("?")
    c.d.wait("return !!document.querySelector('[data-testid=key-help]');", what="? to list the keys")
    help_text = c.d.text("[data-testid=key-help]")
    check("next message" in help_text and "Agent" in help_text, f"the key list names the keys; got {help_text[:200]!r}")
    c.d.keys("\ue00c")  # Escape
    c.d.wait("return !document.querySelector('[data-testid=key-help]');", what="Escape to close the key list")


GROUPS = """
return Array.from(document.querySelectorAll('[data-testid=source]')).map(s => ({
  origin: s.dataset.origin, family: s.dataset.family, loaded: s.dataset.loaded === 'true',
  label: s.querySelector('[data-testid=source-label]').textContent, path: s.querySelector('h3').title,
  count: s.querySelector('[data-testid=source-count]').textContent,
  sessions: Array.from(s.querySelectorAll('[data-testid=session]')).map(b => b.dataset.sessionId) }));
"""
SET_FILTER = """
const el = document.querySelector('[data-testid=session-filter]');
Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, arguments[0]);
el.dispatchEvent(new Event('input', {bubbles: true}));
"""
CLAUDE_SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"
CODEX_A001 = "rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl"


def home_with_three_families(fixtures):
    """A home folder with one Claude Code transcript, one Codex rollout and goose's database,
    each where its agent writes it (and nothing of coworker's)."""
    home = tempfile.mkdtemp(prefix="palimpsest-e2e-home-")
    shared = os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared", "data", "claude-code")
    for src, dst in ((os.path.join(shared, "short.jsonl"), f".claude/projects/-work-demo/{CLAUDE_SHORT}.jsonl"),
                     (os.path.join(fixtures, "codex/sessions/2026/02/24", CODEX_A001), f".codex/sessions/2026/02/24/{CODEX_A001}"),
                     (os.path.join(fixtures, "goose", "sessions.db"), ".local/share/goose/sessions/sessions.db")):
        os.makedirs(os.path.dirname(os.path.join(home, dst)), exist_ok=True)
        shutil.copy(src, os.path.join(home, dst))
    return home


def test_without_a_path_it_lists_every_agent_folder_in_home(c):
    # The app takes its environment from tauri-driver, so this launch has a tauri-driver of its
    # own whose HOME is a temporary home and which carries no variable that moves a family's
    # folder (XDG_DATA_HOME, GOOSE_PATH_ROOT, CODEX_HOME, COWORKER_STATE_DIR...).
    home = home_with_three_families(c.fixtures)
    moved = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "GOOSE_PATH_ROOT", "CODEX_HOME", "COWORKER_STATE_DIR",
             "PALIMPSEST_FIXTURES")
    env = {k: v for k, v in os.environ.items() if k not in moved}
    env["HOME"] = home
    try:
        with main_app_closed(c), own_driver(c, env, "tauri-driver-home.log") as d:
            sources_in_home(c, d, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def sources_in_home(c, d, home):
    d.start(c.app, [])
    groups = d.wait(GROUPS.replace("return Array", "const g = Array") +
                    "return g.length && g.every(x => x.loaded) ? g : null;", timeout=30,
                    what="every group of the temporary home to be listed")
    got = [(g["origin"], g["family"], g["label"], g["path"], g["count"]) for g in groups]
    want = [("default", "goose", "goose", os.path.join(home, ".local/share/goose/sessions"), "7"),
            ("default", "claude-code", "Claude Code", os.path.join(home, ".claude/projects"), "1"),
            ("default", "codex", "Codex", os.path.join(home, ".codex/sessions"), "1")]
    check(got == want, f"one group per family folder present (no coworker folder, no fixtures), path on hover, "
                       f"with its session count; got {got}")
    check(groups[1]["sessions"] == [CLAUDE_SHORT] and groups[2]["sessions"] == ["019c8f0a-0000-7000-8000-00000000a001"],
          f"the Claude and Codex groups list their one session each; got {[g['sessions'] for g in groups]}")
    check("seed-five" in groups[0]["sessions"] and len(groups[0]["sessions"]) == 7,
          f"the goose group lists the database's 7 sessions; got {groups[0]['sessions']}")
    h = Ctx(d, c.out, c.app, c.fixtures)
    h.open_session(CLAUDE_SHORT)
    h.set_view("all")
    rows = h.rows()
    check([r["index"] for r in rows] == list(range(7)),
          f"the Claude transcript's 7 messages are its rows, in order; got {[r['index'] for r in rows]}")
    check("mix phx.server" in rows[0]["text"], f"row 0 is the user's ask; got {rows[0]['text']!r}")
    # Collapsing a group hides its sessions; the filter narrows every group at once.
    d.click("[data-testid=source]:nth-child(1) [data-testid=source-toggle]")
    hidden = d.run("return document.querySelector('[data-testid=source] ul').hidden;")
    check(hidden is True, "the toggle collapses the goose group")
    d.click("[data-testid=source]:nth-child(1) [data-testid=source-toggle]")
    d.run(SET_FILTER, "streaming")
    narrowed = d.wait(GROUPS.replace("return Array", "const g = Array") +
                      "return g[0].count === '0/7' ? g.map(x => [x.count, x.sessions]) : null;",
                      what="the filter to narrow every group")
    check(narrowed == [["0/7", []], ["0/1", []], ["1/1", ["019c8f0a-0000-7000-8000-00000000a001"]]],
          f"'streaming' matches only the Codex session, counted per group; got {narrowed}")
    d.run(SET_FILTER, "")
    d.screenshot(os.path.join(c.out, "sources.png"))
    if c.screenshot_dir:
        root_shot(os.path.join(c.screenshot_dir, "screenshot-sources.png"))


# --- Tokens and Replay tabs ----------------------------------------------------------------------

REPLAY_ROWS = """
return Array.from(document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]')).map(r => ({
  kind: r.dataset.kind, source: r.dataset.sourceIndex, orphan: r.dataset.orphan === 'true',
  tail: r.dataset.keptTail === 'true', text: r.textContent }));
"""
# React listens to `input` events; set the value through the native setter so it sees the change.
SET_KNOB = """
const el = document.querySelector('[data-testid=replay-controls-A] [data-knob=' + arguments[0] + ']');
if (el.type === 'checkbox') { if (el.checked !== arguments[1]) el.click(); return true; }
Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, String(arguments[1]));
el.dispatchEvent(new Event('input', {bubbles: true}));
return true;
"""


def test_replay_seed_five_k3_and_naive_orphan(c):
    c.open_session("seed-five")
    open_tab(c, "replay")
    try:
        c.d.wait("return document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]').length > 0;",
                 what="the replayed agent view")
        c.d.run(SET_KNOB, "keep_tail", 3)
        want = [("summary", ""), ("continuation", ""), ("ordinary", "1"), ("ordinary", "2"),
                ("ordinary", "3"), ("ordinary", "4"), ("preserved_copy", "0")]
        c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]'));"
                 "return r.length === 7 && r[2].dataset.sourceIndex === '1' && "
                 "document.querySelector('[data-testid=replay-A]').dataset.busy === 'false';",
                 what="K=3 to replay into 7 rows")
        rows = c.d.run(REPLAY_ROWS)
        got = [(r["kind"], r["source"]) for r in rows]
        check(got == want, f"K=3: summary, continuation, 1-4 kept, the preserved ask; got {got}")
        check("cat store.py" in rows[2]["text"], f"row 3 is the cat store.py request; got {rows[2]['text']!r}")
        check("Tool result" in rows[3]["text"] or "result" in rows[3]["text"], f"row 4 is its response; got {rows[3]['text']!r}")
        check("pytest -q" in rows[4]["text"], f"row 5 is the pytest -q request; got {rows[4]['text']!r}")
        check("test_retry" in rows[5]["text"], f"row 6 is the pytest failure; got {rows[5]['text']!r}")
        check("add a retry to fetch_rows in store.py" in rows[6]["text"], f"row 7 is the preserved ask; got {rows[6]['text']!r}")
        check([r["tail"] for r in rows] == [False, False, True, True, True, True, False],
              f"rows 3-6 are called out as the kept tail; got {[r['tail'] for r in rows]}")
        check("copy of #0" in rows[6]["text"], f"the preserved copy links back to the ask; got {rows[6]['text']!r}")
        orphans = c.d.run("return document.querySelector('[data-testid=replay-A-orphans]').dataset.orphans;")
        check(orphans == "0", f"the walk back keeps every call with its result; orphans {orphans}")
        c.d.screenshot(os.path.join(c.out, "replay-k3.png"))

        c.d.run(SET_KNOB, "naive", True)
        c.d.wait("return document.querySelector('[data-testid=replay-A-orphans]')?.dataset.orphans === '1';",
                 what="naive K=3 to show 1 orphan")
        rows = c.d.run(REPLAY_ROWS)
        check([r["source"] for r in rows if r["orphan"]] == ["2"],
              f"the orphan is the cat result (message 2); got {[(r['source'], r['orphan']) for r in rows]}")
        text = c.d.text("[data-testid=replay-A-orphans]")
        check("1 orphaned tool result" in text, f"the orphan is called out in words; got {text!r}")

        # A | B: B at K=3 (walk) against A naive K=3: the cat request is only in B.
        js_click(c, "[data-testid=replay-compare]")
        c.d.wait("return document.querySelectorAll('[data-testid=replay-B] [data-testid=replay-row]').length === 7;",
                 what="setting B (K=3) beside A")
        only_b = c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=replay-B] .replay-row.only-here'));"
                          "return r.length ? r.map(e => e.dataset.sourceIndex) : null;", what="rows only in B marked")
        check(only_b == ["1"], f"only B keeps the cat store.py request (message 1); got {only_b}")
        # A | B takes the inspector's width: at 1280 × 800 each side keeps a readable row.
        check(not c.d.run("return !!document.querySelector('[data-testid=inspector]');"),
              "the inspector folds away while comparing")
        side = c.d.run("return document.querySelector('[data-testid=replay-B]').getBoundingClientRect().width;")
        check(side >= 400, f"each side of A | B is at least 400 px wide at 1280 × 800; B is {side}")
        c.d.run("document.querySelector('[data-testid=replay]').scrollTop = 0;")
        time.sleep(0.3)
        c.d.screenshot(os.path.join(c.out, "replay-compare.png"))
        if c.screenshot_dir:
            root_shot(os.path.join(c.screenshot_dir, "screenshot-replay.png"))

        # The sweep: a cell click sets A's K and cap.
        js_click(c, "[data-testid=sweep-run]")
        c.d.wait("return !!document.querySelector('[data-testid=sweep-grid] button[data-row=\"5\"][data-col=\"2\"]');",
                 timeout=60, what="the sweep grid")
        js_click(c, '[data-testid=sweep-grid] button[data-row="5"][data-col="2"]')
        k = c.d.wait("const v = document.querySelector('[data-testid=replay-controls-A] [data-knob=keep_tail]').value;"
                     "const cap = document.querySelector('[data-testid=replay-controls-A] [data-knob=tool_result_cap]').value;"
                     "return v === '5' && cap === '10000' && [v, cap];", what="the clicked cell to set A")
        check(k == ["5", "10000"], f"cell (K=5, cap 10000) sets A to K=5, cap 10000; got {k}")
        c.d.screenshot(os.path.join(c.out, "replay-compare-sweep.png"))
        js_click(c, "[data-testid=replay-compare-stop]")
        c.d.wait("return !!document.querySelector('[data-testid=inspector]');", what="the inspector back after comparing")
    finally:
        open_tab(c, "timeline")


def test_tokens_total_equals_cli(c):
    sid = "goose-compacted"
    db = os.path.join(c.fixtures, "goose", "sessions.db")
    out = subprocess.run([cli_binary(c), "tokens", db, "--session", sid, "--json"],
                         capture_output=True, text=True, check=True).stdout
    want = json.loads(out)
    c.open_session(sid)
    open_tab(c, "tokens")
    try:
        final = c.d.wait("return document.querySelector('[data-testid=final-table-total]')?.dataset.total;",
                         timeout=60, what="the token count")
        # The tab draws its sections in steps, one per frame: the processed table comes next.
        processed = c.d.wait("return document.querySelector('[data-testid=processed-table-total]')?.dataset.total;",
                             timeout=10, what="the processed table")
        check(int(final) == want["final_context"]["total"],
              f"the final-context table total equals `palimpsest tokens --json`: app {final}, CLI {want['final_context']['total']}")
        check(int(processed) == want["processed"]["total"],
              f"the processed table total equals the CLI's: app {processed}, CLI {want['processed']['total']}")
        enc = c.d.text("[data-testid=tokens-encoding]")
        check(enc == want["encoding"], f"the same encoding as the CLI; app {enc!r}, CLI {want['encoding']!r}")
        # The charts are drawn after the tables, from the report the app kept: wait for them.
        try:
            c.d.wait("return document.querySelectorAll('[data-testid=tokens] .chart img').length === 4;",
                     timeout=30, what="the four charts")
        except Exception:
            pass
        charts = c.d.run("return document.querySelectorAll('[data-testid=tokens] .chart img').length;")
        check(charts == 4, f"four charts (final, processed, per request, tools); got {charts}")
        # A top part links to its message: clicking selects it in the inspector. The top parts are
        # the tab's last step, drawn a frame after the others.
        idx = c.d.wait("return document.querySelector('[data-testid=parts-table] [data-message-link]')?.dataset.messageLink;",
                       timeout=10, what="the top parts")
        js_click(c, f'[data-testid=parts-table] [data-message-link="{idx}"]')
        c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#' + arguments[0];",
                 idx, what=f"message {idx} in the inspector")
        check(idx == str(want["top_parts"][0]["message_index"]), f"the first top part links to the CLI's first; got {idx}")
        time.sleep(0.5)
        shown = c.d.run("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent;")
        check(shown == f"#{idx}", f"the selection stays on message {idx}; inspector shows {shown}")
        c.d.screenshot(os.path.join(c.out, "tokens-links.png"))
        c.d.run("document.querySelector('[data-testid=tokens]').scrollTop = 0;")
        c.d.screenshot(os.path.join(c.out, "tokens.png"))
        # Another encoding recounts: the encoding shown follows the toolbar.
        c.d.run("const s = document.querySelector('[data-testid=encoding]');"
                "Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, 'cl100k_base');"
                "s.dispatchEvent(new Event('change', {bubbles: true}));")
        c.d.wait("return document.querySelector('[data-testid=tokens-encoding]')?.textContent === 'cl100k_base';",
                 timeout=60, what="the cl100k_base recount")
    finally:
        c.d.run("const s = document.querySelector('[data-testid=encoding]');"
                "Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, '');"
                "s.dispatchEvent(new Event('change', {bubbles: true}));")
        open_tab(c, "timeline")


CUT_CARDS = """
const col = document.querySelector(arguments[0]);
return col ? Array.from(col.querySelectorAll('[data-testid=cut-card]')).map(c => ({
  index: Number(c.dataset.index), carrier: c.dataset.carrier === 'true', text: c.textContent })) : null;
"""


def test_goose_compacted_cut_view_shows_dropped_summary_kept(c):
    # fixtures/README.md: originals 0-4 dropped (the file came back at #2, `cat store.py`), the
    # summary (5) names store.py, the continuation (6), the preserved ask (7); goose keeps no tail.
    c.open_session("goose-compacted")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=ribbon-cut]').length === 1;", what="the ribbon's cut mark")
    mark = c.d.run("return document.querySelector('[data-testid=ribbon-cut]').dataset.cutIndex;")
    check(mark == "5", f"the ribbon marks the one cut at message 5; got {mark}")
    rule = c.d.wait("const b = document.querySelector('[data-testid=cut-open]'); return b && b.textContent;",
                    what="the cut rule in the timeline")
    check(rule.startswith("cut 1 · auto · ") and "→" in rule and "tokens" in rule,
          f"the rule names trigger and tokens before → after; got {rule!r}")
    c.d.click("[data-testid=cut-open]")
    # The cut's shape comes with every cut; its summary and file fates when it is opened.
    c.d.wait("const v = document.querySelector('[data-testid=cut-view]');"
             "return v?.dataset.cutIndex === '5' && v.dataset.whole === 'true';", what="the cut view, whole")
    dropped = c.d.run(CUT_CARDS, "[data-testid=cut-dropped]")
    check([r["index"] for r in dropped] == [0, 1, 2, 3, 4], f"dropped column = messages 0-4; got {[r['index'] for r in dropped]}")
    check([r["index"] for r in dropped if r["carrier"]] == [2],
          f"only #2 (the `cat store.py` result) carried a file; marked {[r['index'] for r in dropped if r['carrier']]}")
    check("store.py" in dropped[2]["text"], f"the carrier names the file; got {dropped[2]['text']!r}")
    summary = c.d.text("[data-testid=summary-text]")
    check(summary.startswith("<analysis>") and "store.py" in summary, f"the summary column shows message 5's text; got {summary[:120]!r}")
    marks = c.d.run("return Array.from(document.querySelectorAll('[data-testid=summary-text] mark')).map(m => m.textContent);")
    check(marks and set(marks) == {"store.py"}, f"the summary's mentions of the dropped file are highlighted; got {marks}")
    health = c.d.text("[data-testid=summary-health]")
    check("only 4 of 9 sections present" in health and "414 characters" in health,
          f"health flags and length are shown; got {health!r}")
    kept = c.d.run(CUT_CARDS, "[data-testid=cut-kept]")
    check([r["index"] for r in kept] == [7], f"kept verbatim = the preserved copy (7) only; got {[r['index'] for r in kept]}")
    check("preserved copy of #0" in kept[0]["text"], f"the kept copy says what it preserves; got {kept[0]['text']!r}")
    fates = c.d.text("[data-testid=cut-files]")
    check("store.py: dropped verbatim, only in the summary; read again at #9" in fates,
          f"the file's fate is said in words; got {fates!r}")
    c.d.screenshot(os.path.join(c.out, "cut-view.png"))
    if c.screenshot_dir:
        root_shot(os.path.join(c.screenshot_dir, "screenshot-cut-view.png"))
    # j moves on: the inspector shows the message again; ] from the top opens the cut again.
    c.d.run("document.activeElement && document.activeElement.blur();")
    c.d.keys("g")
    c.d.wait("return !document.querySelector('[data-testid=cut-view]') && "
             "document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index === '0';",
             what="g to leave the cut for message 0")
    c.d.keys("]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '5' && "
             "document.querySelector('[data-testid=row][aria-selected=true]')?.dataset.index === '5';",
             what="] to jump to the cut and open it")
    c.d.keys("\ue00c")  # Escape
    c.d.wait("return !document.querySelector('[data-testid=cut-view]');", what="Escape to close the cut")
    c.d.click("[data-testid=ribbon-cut]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '5';",
             what="a click on the ribbon's mark to open the cut")
    c.d.click('[data-testid=cut-close]')


def test_unanswered_call_finding_badge_and_request_context(c):
    # fixtures/README.md (Codex a003): call_u1 at #3 never gets its output; `palimpsest lint`
    # dates it from request 2 to the next request (4).
    sid = "019c8f0a-0000-7000-8000-00000000a003"
    c.d.wait("const b = document.querySelector(`[data-testid=session][data-session-id='${arguments[0]}']`);"
             "if (b) b.scrollIntoView({block: 'center'}); return !!b;", sid, what="the Codex session in the sidebar")
    c.open_session(sid)
    c.set_view("all")
    badges = c.d.wait("const b = Array.from(document.querySelectorAll('[data-testid=finding-badge]'));"
                      "return b.length ? b.map(x => [x.closest('[data-testid=row]').dataset.index, x.textContent]) : null;",
                      what="the finding badge")
    check(badges == [["3", "⚠ unanswered tool call"]], f"one badge, on the call at #3; got {badges}")
    open_tab(c, "requests")
    try:
        c.d.wait("return document.querySelector('[data-testid=request-number]')?.value === '4' && "
                 "document.querySelectorAll('[data-testid=finding]').length === 1;",
                 what="the next request (4) and its finding")
        f = c.d.run("const f = document.querySelector('[data-testid=finding]'); return [f.dataset.kind, f.dataset.index];")
        check(f == ["unanswered_call", "3"], f"the finding is the unanswered call at #3; got {f}")
        texts = c.d.run("return Array.from(document.querySelectorAll('[data-testid=finding-text]')).map(t => t.textContent);")
        check(texts == [
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
            "The following tool_call_ids did not have response messages: call_u1",
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_u1. Each `tool_use` "
            "block must have a corresponding `tool_result` block in the next message.",
        ], f"OpenAI's then Anthropic's exact error texts; got {texts}")
        idx = [r["index"] for r in c.rows()]
        check(idx == list(range(9)), f"request 4 sends every message 0-8 (no compaction); got {idx}")
        c.d.screenshot(os.path.join(c.out, "request-finding.png"))
        if c.screenshot_dir:
            root_shot(os.path.join(c.screenshot_dir, "screenshot-requests.png"))
        c.d.run("document.activeElement && document.activeElement.blur();")
        c.d.keys(",,,")
        c.d.wait("return document.querySelector('[data-testid=request-number]')?.value === '1' && "
                 "!document.querySelector('[data-testid=request-findings]') && "
                 "document.querySelectorAll('[data-testid=row]').length > 0;",
                 what=", , , to step back to request 1")
        first = [r["index"] for r in c.rows()]
        check(max(first) < 3, f"request 1 is answered before the call: its context stops before #3; got {first}")
    finally:
        open_tab(c, "timeline")


# --- Post-mortem, Spills, Live (tabs/PostmortemTab.tsx, tabs/SpillsTab.tsx, live.ts) ----------



def bin_beside_app(c, name, package):
    """A workspace binary built beside the app (same target dir), else in the default target/."""
    root = os.path.dirname(os.path.dirname(HERE))
    for p in (os.path.join(os.path.dirname(c.app), name), os.path.join(root, "target", "debug", name)):
        if os.path.exists(p):
            return p
    raise AssertionError(f"{name} is not built (cargo build -p {package})")


def test_postmortem_verdict_equals_cli(c):
    db = os.path.join(c.fixtures, "goose-stuck", "sessions.db")
    out = subprocess.run([cli_binary(c), "diagnose", db, "--json"], capture_output=True, text=True, check=True).stdout
    want = json.loads(out)
    c.open_session(STUCK_ID)
    open_tab(c, "postmortem")
    try:
        got = c.d.wait("return document.querySelector('[data-testid=verdict]')?.textContent;", timeout=60,
                       what="the post-mortem verdict")
        check(got == want["verdict"], f"the verdict is exactly the CLI's;\n app: {got!r}\n cli: {want['verdict']!r}")
        # The findings are drawn in steps after the verdict; the last one is the compactions.
        c.d.wait("return !!document.querySelector('[data-testid=compactions]');", timeout=10,
                 what="every section of the post-mortem")
        # Every re-read file of the CLI is in the table, and its links point at the re-reads.
        table = c.d.run("return Array.from(document.querySelectorAll('[data-testid=rereads] tbody tr')).map(tr => "
                        "[tr.cells[0].textContent, Number(tr.cells[2].textContent), Number(tr.cells[3].textContent), "
                        "Array.from(tr.querySelectorAll('[data-testid=msg-link]')).map(b => Number(b.dataset.index))]);")
        cli_rows = [[f["path"], f["rereads"], f["after_compaction"], f["reread_messages"][:12]] for f in want["rereads"] if f["rereads"] > 0]
        check(table == cli_rows, f"re-reads per file (path, re-reads, after compaction, message links) as the CLI;\n app: {table}\n cli: {cli_rows}")
        # A finding's link selects its message in the timeline and the inspector.
        target = cli_rows[0][3][0]
        c.d.click(f'[data-testid=rereads] [data-testid=msg-link][data-index="{target}"]')
        c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#' + arguments[0];",
                 target, what=f"message {target} in the inspector after clicking its link")
        c.d.screenshot(os.path.join(c.out, "postmortem.png"))
        root_shot(os.path.join(c.out, "postmortem-screen.png"))
        if c.screenshot_dir:
            root_shot(os.path.join(c.screenshot_dir, "screenshot-postmortem.png"))
        # The fleet across the fixtures' sessions: one row per session, clickable into it.
        if c.d.run("return !!document.querySelector('[data-testid=fleet-run]');"):
            c.d.click("[data-testid=fleet-run]")
        ids = c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=fleet-session]')).map(b => b.dataset.sessionId);"
                       "return r.length ? r : null;", timeout=120, what="the fleet table")
        check(STUCK_ID in ids and "seed-five" in ids, f"the fleet lists every session of the source; got {ids}")
        seed = '[data-testid=fleet-session][data-session-id="seed-five"]'
        c.d.run("document.querySelector(arguments[0]).scrollIntoView({block: 'center'});", seed)
        c.d.click(seed)
        c.d.wait("return document.querySelector('[data-testid=session][aria-current=true]')?.dataset.sessionId === 'seed-five';",
                 what="the fleet row to open seed-five")
    finally:
        open_tab(c, "timeline")


def test_spills_coworker_lists_files_and_flags_the_missing_one(c):
    state = os.path.join(c.fixtures, "coworker", "state")
    sid = "a1b2c3d4e5f6"
    env = dict(os.environ, COWORKER_SCRATCH_BASE=os.path.join(c.fixtures, "coworker", "scratch"))
    want = json.loads(subprocess.run([cli_binary(c), "spills", state, "--session", sid, "--json"], env=env,
                                     capture_output=True, text=True, check=True).stdout)
    c.open_session(sid)
    open_tab(c, "spills")
    try:
        got = c.d.wait(SPILL_ROWS, timeout=30,
                       what="the spill files")
        cli = [[s["status"], s["resolved"] or s["path"] or "(full text not saved)"] for s in want["spills"]]
        check(got == cli, f"the spill files, in order, with the CLI's statuses;\n app: {got}\n cli: {cli}")
        missing = [p for st, p in got if st == "missing"]
        check(len(missing) == 1 and missing[0].endswith("0002-run_shell-output.txt"),
              f"exactly one spill file is flagged missing (0002-run_shell-output.txt); got {missing}")
        text = c.d.text("[data-testid=spills]")
        check("✖ missing" in text, "the missing file is flagged with a mark and a word, not colour alone")
        # The first (present) file: capped result beside the file, the elided middle marked.
        c.d.wait("return !!document.querySelector('[data-testid=spill-text] .elided-middle');", timeout=15,
                 what="the spill file beside its capped result, elided middle marked")
        elided = c.d.text("[data-testid=elided]")
        check("10.1 kB elided" in elided, f"the capped result says how much the model did not see; got {elided!r}")
        c.d.screenshot(os.path.join(c.out, "spills.png"))
        root_shot(os.path.join(c.out, "spills-screen.png"))
    finally:
        open_tab(c, "timeline")


def trust_home(fixtures):
    """A copy of the real short Claude transcript whose recorded cwd is a temporary folder holding
    a spill file the transcript names by a relative path (two lines appended to the copy)."""
    root = tempfile.mkdtemp(prefix="palimpsest-e2e-trust-")
    proj = os.path.join(root, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, "big-output.txt"), "w") as f:
        f.write("SPILLED\nIN THE WORKING DIRECTORY\n")
    shared = os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared", "data", "claude-code")
    lines = [json.loads(l) for l in open(os.path.join(shared, "short.jsonl")) if l.strip()]
    for l in lines:
        if "cwd" in l:
            l["cwd"] = proj
    last = next(l["uuid"] for l in reversed(lines) if l.get("uuid"))
    env = {k: lines[-1][k] for k in ("isSidechain", "userType", "sessionId", "version", "gitBranch") if k in lines[-1]}
    env["cwd"] = proj
    lines.append(dict(env, parentUuid=last, uuid="e2e-call", type="assistant", timestamp="2026-02-10T21:20:00.000Z",
                      message={"id": "msg_e2e", "role": "assistant", "model": "claude-opus-4-6",
                               "content": [{"type": "tool_use", "id": "toolu_e2e", "name": "Bash", "input": {"command": "make big"}}]}))
    lines.append(dict(env, parentUuid="e2e-call", uuid="e2e-result", type="user", timestamp="2026-02-10T21:20:01.000Z",
                      message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_e2e",
                               "content": "<persisted-output>\nOutput too large (2.1MB). Full output saved to: big-output.txt\n\n"
                                          "Preview (first 2KB):\nSPILLED\n</persisted-output>"}]}))
    path = os.path.join(root, "projects", "-proj", f"{CLAUDE_SHORT}.jsonl")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in lines)
    return root, proj, path


def test_spills_trust_the_recorded_working_directory_only_on_a_click(c):
    root, proj, path = trust_home(c.fixtures)
    try:
        with main_app_closed(c), own_driver(c, dict(os.environ), "tauri-driver-trust.log") as d:
            d.start(c.app, [path])
            h = Ctx(d, c.out, c.app, c.fixtures)
            d.wait(SESSIONS, timeout=30, what="the copied transcript to be listed")
            h.open_session(CLAUDE_SHORT)
            open_tab(h, "spills")
            status = "return Array.from(document.querySelectorAll('[data-testid=spill]')).map(tr => tr.dataset.status);"
            got = d.wait(status + "", timeout=30, what="the spill file")
            check(got == ["needs_confirmation"], f"the spill in the recorded cwd is not read before trust; got {got}")
            button = d.text("[data-testid=trust-root]")
            check(button == f"Trust {proj} for this session", f"the recorded cwd is offered by its full path; got {button!r}")
            check("IN THE WORKING DIRECTORY" not in d.text("[data-testid=spills]"),
                  "no byte of the file is shown before the click")
            d.screenshot(os.path.join(c.out, "spills-trust.png"))
            if c.screenshot_dir:
                root_shot(os.path.join(c.screenshot_dir, "screenshot-spills-trust.png"))
            d.click("[data-testid=trust-root]")
            d.wait("const r = Array.from(document.querySelectorAll('[data-testid=spill]')).map(tr => tr.dataset.status);"
                   "return r.length === 1 && r[0] === 'present';", timeout=30, what="the spill to be present once trusted")
            d.wait("return document.querySelector('[data-testid=spill-text]')?.textContent.includes('IN THE WORKING DIRECTORY');",
                   timeout=15, what="the trusted spill file's text")
            check(not d.run("return !!document.querySelector('[data-testid=trust-root]');"),
                  "a trusted folder is no longer offered")
            d.screenshot(os.path.join(c.out, "spills-trusted.png"))
            root_shot(os.path.join(c.out, "spills-trusted-screen.png"))
    finally:
        shutil.rmtree(root, ignore_errors=True)




def test_six_cuts_agent_view_names_the_cut_that_produced_it(c):
    # fixtures/claude: six cuts (manual, micro, auto, micro, manual, auto). The model's context
    # starts at the sixth cut's summary, so the rule above it must name and open cut 6.
    order = c.d.run("const b = Array.from(document.querySelectorAll('[data-testid=session]')); const i = b.findIndex(x => x.dataset.sessionId === arguments[0]);"
                    "return [b[i + 1]?.dataset.sessionId, b[i + 1]?.dataset.depth];", SIX_CUTS)
    check(order == [SIX_CUTS + "/agent-a6c0e01", "1"], f"the subagent run sits right under its parent, one level in; got {order}")
    c.open_session(SIX_CUTS)
    c.set_view("agent")
    try:
        # The previous session's rows may still be drawn for a moment: wait for this one's.
        first = c.d.wait("const r = document.querySelector('[data-testid=row]');"
                         "return r && r.dataset.index === '81' && document.querySelector('[data-testid=cut-open]') ? r.dataset.index : null;",
                         timeout=30, what="the agent view to start at the sixth cut's summary (message 81)")
        rule = c.d.run("return document.querySelector('[data-testid=cut-open]').textContent;")
        check(rule.startswith("cut 6 · auto"), f"the rule names cut 6, the one that produced the context; got {rule!r}")
        c.d.click("[data-testid=cut-open]")
        c.d.wait("const v = document.querySelector('[data-testid=cut-view]');"
                 "return v?.dataset.cutIndex === '80' && v.dataset.whole === 'true';",
                 what="cut 6 (boundary at message 80) to open with its summary")
        # The session's name is its 3 KB first prompt and a cut is open: the window must still
        # fit its width (crumbs shrink; the cut takes what the sidebar leaves).
        widths = c.d.run("return [document.documentElement.scrollWidth, window.innerWidth, "
                         "document.querySelector('.panes').getBoundingClientRect().width];")
        check(widths[0] <= widths[1] and widths[2] <= widths[1],
              f"nothing runs past the window's width with a long name and an open cut; got {widths}")
        c.d.screenshot(os.path.join(c.out, "six-cuts-agent.png"))
        root_shot(os.path.join(c.out, "six-cuts-agent-screen.png"))
        # Cut 2 is a microcompact: the results it cleared, the tokens saved, no summary column.
        for _ in range(4):
            c.d.click('.cut-nav button[title^="Previous cut"]')
        c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '28';",
                 what="cut 2 (the microcompact at 28) to open")
        cleared = c.d.run("return Array.from(document.querySelectorAll('[data-testid=cut-cleared] [data-testid=cut-card]')).map(e => e.dataset.index);")
        check(cleared == ["16"], f"the microcompact lists the Read result it cleared; got {cleared}")
        check(not c.d.run("return !!document.querySelector('[data-testid=cut-summary]');"),
              "a microcompact has no summary column")
        sub = c.d.text("[data-testid=micro-sub]")
        # Digit grouping follows the webview's locale: compare without it.
        check("24000 recorded" in sub.replace(",", "").replace("\u202f", "").replace("\xa0", ""),
              f"the recorded tokens saved are shown; got {sub!r}")
        time.sleep(0.5)  # four cuts stepped through at once: let the webview paint the last
        c.d.screenshot(os.path.join(c.out, "six-cuts-micro.png"))
        if c.screenshot_dir:
            root_shot(os.path.join(c.screenshot_dir, "screenshot-microcompact.png"))
    finally:
        c.d.run("document.querySelector('[data-testid=cut-close]')?.click();")
        c.set_view("all")


def test_an_inspector_link_opens_the_subagent_run(c):
    """Message 23 of the six-cut session is the Task call whose subagent transcript it links:
    the inspector's link opens that run, listed under its parent."""
    c.open_session(SIX_CUTS)
    c.set_view("all")
    click_row(c, 23)
    c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#23';",
             timeout=30, what="message 23 in the inspector")
    kind = c.d.wait("return document.querySelector('[data-testid=inspector-link]')?.dataset.kind;", what="its link")
    check(kind == "subagent", f"the Task call links its subagent run; got {kind!r}")
    c.d.click("[data-testid=inspector-link]")
    c.d.wait("return document.querySelector('main.main')?.dataset.sessionId === arguments[0];", SIX_CUTS + "/agent-a6c0e01",
             timeout=30, what="the subagent run to open")


def test_an_empty_home_offers_the_bundled_examples(c):
    # An empty ~/.claude/projects is a default folder that exists and holds nothing: the window
    # must offer File › Open and the bundled examples, not stay blank.
    home = tempfile.mkdtemp(prefix="palimpsest-e2e-empty-")
    os.makedirs(os.path.join(home, ".claude", "projects"))
    moved = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "GOOSE_PATH_ROOT", "CODEX_HOME", "COWORKER_STATE_DIR")
    env = {k: v for k, v in os.environ.items() if k not in moved}
    env["HOME"] = home
    env["PALIMPSEST_FIXTURES"] = c.fixtures
    try:
        with main_app_closed(c), own_driver(c, env, "tauri-driver-empty.log") as d:
            d.start(c.app, [])
            d.wait("return !!document.querySelector('[data-testid=open-examples]');", timeout=30,
                   what="the empty window's offer of the bundled examples")
            text = d.text("[data-testid=no-sources]")
            check("Open file…" in text and "Open folder…" in text, f"File › Open is offered there; got {text!r}")
            time.sleep(0.5)  # the webview paints after the DOM settles
            d.screenshot(os.path.join(c.out, "empty-home.png"))
            d.click("[data-testid=open-examples]")
            ids = d.wait(SESSIONS + "", timeout=30, what="the bundled examples to be listed")
            check("seed-five" in ids, f"the examples open in the sidebar; got {ids[:5]}")
    finally:
        shutil.rmtree(home, ignore_errors=True)


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
    c.d.screenshot(os.path.join(c.out, "live.png"))
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
    real = os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared", "data", "claude-code",
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
        if c.d.run("return !!document.querySelector('[data-testid=fleet-run]');"):
            click_in_view(c, "[data-testid=fleet-run]")
        sev = c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=fleet-table] tbody tr')).map(t => t.dataset.severity);"
                       "return r.length ? r : null;", timeout=120, what="the fleet table")
        rank = {"stuck": 0, "watch": 1, "ok": 2}
        check(all(s in rank for s in sev), f"every row has a severity; got {sev}")
        check(sev == sorted(sev, key=rank.get) and sev[0] == "stuck", f"stuck first, then watch, then ok; got {sev}")
        fits = c.d.run("const t = document.querySelector('[data-testid=fleet-table]'); const m = document.querySelector('main.main');"
                       "return [t.getBoundingClientRect().right, m.getBoundingClientRect().right];")
        check(fits[0] <= fits[1] + 1, f"the table ends inside its pane (verdicts wrap); table right {fits[0]}, pane right {fits[1]}")
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


def test_replay_shows_what_the_setting_would_cost(c):
    """The Replay tab prices the simulated run beside the session's recorded cost (the CLI's)."""
    proj = os.path.join(c.fixtures, "claude", "projects", "-home-dev-shop")
    want = json.loads(subprocess.run([cli_binary(c), "replay", proj, "--session", SIX_CUTS, "--policy", "goose",
                                      "--simulate", "--json"], capture_output=True, text=True, check=True).stdout)["cost"]
    c.open_session(SIX_CUTS)
    open_tab(c, "replay")
    try:
        got = c.d.wait("return document.querySelector('[data-testid=replay-A-cost]')?.textContent;", timeout=60,
                       what="the replay's cost")
        check(f"${want['setting_usd']:.2f}" in got and f"(recorded ${want['recorded_usd']:.2f})" in got,
              f"the setting's cost and the recorded one, as the CLI gives them; app {got!r}, cli {want}")
        # A Claude session under goose's rules says so, and names the summary goose preserves.
        note = c.d.text("[data-testid=replay-A-note]")
        check(note.startswith("Replayed under goose's rules") and "#81, an earlier compaction's summary" in note,
              f"the note names the policy and the summary it preserves; got {note!r}")
        c.d.click('[data-testid=replay-controls-A] [data-knob=skip_summaries]')
        c.d.wait("return (document.querySelector('[data-testid=replay-A-note]')?.textContent || '').startsWith("
                 "\"Replayed under goose's rules\") && document.querySelector('[data-testid=replay-A-note]').textContent.includes('Variant, not goose');",
                 timeout=30, what="the variant's note once skip earlier summaries is on")
        c.d.click('[data-testid=replay-controls-A] [data-knob=skip_summaries]')
    finally:
        open_tab(c, "timeline")


TESTS = [
    test_fixture_sessions_are_listed,
    test_ctrl_k_search_opens_the_message,
    test_fleet_table_sorts_and_fits,
    test_a_session_reopens_from_the_index,
    test_a_real_transcript_past_the_first_screen_comes_in_whole,
    test_postmortem_verdict_equals_cli,
    test_spills_coworker_lists_files_and_flags_the_missing_one,
    test_spills_trust_the_recorded_working_directory_only_on_a_click,
    test_live_writer_rows_appear_once_in_order,
    test_seed_five_agent_view_shows_5_visible_rows,
    test_goose_compacted_agent_view_is_summary_continuation_preserved,
    test_hostile_html_shows_as_text_and_nothing_executes,
    test_inspector_shows_whole_message_and_raw_json,
    test_keyboard_moves_switches_views_and_lists_keys,
    test_replay_seed_five_k3_and_naive_orphan,
    test_tokens_total_equals_cli,
    test_goose_compacted_cut_view_shows_dropped_summary_kept,
    test_six_cuts_agent_view_names_the_cut_that_produced_it,
    test_an_inspector_link_opens_the_subagent_run,
    test_an_edit_shows_as_a_diff_and_copies_as_markdown,
    test_a_claude_overflow_spill_is_listed_and_opens,
    test_replacements_and_collapses_are_cuts_with_their_own_views,
    test_a_goose_delegation_links_its_child_session,
    test_a_report_shows_hostile_text_as_text_in_chromium,
    test_replay_shows_what_the_setting_would_cost,
    test_the_replay_sweep_of_a_real_transcript_keeps_and_reads_its_digests,
    test_unanswered_call_finding_badge_and_request_context,
    test_two_recorded_runs_side_by_side,
    test_a_200_mb_session_never_blocks_the_window,
    test_without_a_path_it_lists_every_agent_folder_in_home,
    test_an_empty_home_offers_the_bundled_examples,
    test_a_crashed_renderer_is_reloaded,
    test_without_a_gpu_the_renderer_paints_on_the_cpu,
]


def logs_since(out, t0):
    """`(name, lines)` of every log in `out` written since `t0` (the app's stderr goes to its
    driver's log), by name."""
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if name.endswith(".log") and os.path.getmtime(path) >= t0:
            with open(path, encoding="utf-8", errors="replace") as f:
                yield name, f.read().splitlines()


def renderer_crashed(out, t0):
    """The line in which an app that ran since `t0` said its renderer crashed, if one did."""
    for _, lines in logs_since(out, t0):
        for line in lines:
            if "the window's renderer ended" in line:
                return line.strip()
    return None


def reopen_main(c):
    """The main session again when it ended with its app's renderer: its app ended, a new one
    on the fixtures."""
    try:
        c.d.run("return 1;")
        return
    except Exception:  # noqa: BLE001 - the session is gone: open another
        pass
    try:
        c.d.quit()
    except Exception:  # noqa: BLE001 - nothing left to quit
        pass
    reopen_main_app(c)


def print_logs_since(out, t0, last=20):
    """The end of every log the failed test wrote: a CI run shows why an app or its renderer
    ended, not only that the session did."""
    for name, lines in logs_since(out, t0):
        print(f"  --- the end of {name} ---")
        for line in lines[-last:]:
            print(f"  | {line}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--screenshot-dir", help="also write README screenshots here")
    ap.add_argument("--only", help="run only tests whose name contains this ('screenshot': none)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    app = os.path.abspath(a.app)
    fixtures = os.path.abspath(a.fixtures)
    for p, what in ((app, "app binary"), (fixtures, "fixtures folder")):
        if not os.path.exists(p):
            print(f"e2e: {what} not found: {p}", file=sys.stderr)
            print("0 passed, 1 failed")
            return 1

    # The app's index and token cache go to the run's folder, not the user's ~/.cache.
    env = dict(os.environ, PALIMPSEST_FIXTURES=fixtures, XDG_CACHE_HOME=os.path.join(a.out, "cache"),
               COWORKER_SCRATCH_BASE=os.path.join(fixtures, "coworker", "scratch"))
    d, td, log = start_driver(env, os.path.join(a.out, "tauri-driver.log"))
    # The main driver, its process and log, which `reopen_main_app` may replace.
    c = Ctx(d, a.out, app, fixtures)
    c.env, c.td, c.log = env, td, log
    passed = failed = 0
    try:
        d.wait_ready()
        d.start(app, [fixtures])
        c.screenshot_dir = a.screenshot_dir
        if a.screenshot_dir:
            os.makedirs(a.screenshot_dir, exist_ok=True)
        d.wait(SESSIONS, timeout=30, what="the app to list the fixtures")
        tests = [t for t in TESTS if not a.only or a.only in t.__name__]
        for t in tests:
            for attempt in (1, 2):
                t0 = time.time()
                try:
                    t(c)
                    passed += 1
                    print(f"PASS {t.__name__} ({time.time() - t0:.1f}s)")
                    break
                except Exception as e:  # noqa: BLE001 - every failure is reported, then the next test runs
                    crashed = renderer_crashed(a.out, t0)
                    if attempt == 1 and crashed and not getattr(t, "kills_the_renderer", False):
                        # WebKit's renderer crashed under the test (the app said so and reloaded
                        # it): the session is gone, so the test runs once more, and says so.
                        print(f"RETRY {t.__name__}: {e} ({crashed})")
                        print_logs_since(a.out, t0)
                        reopen_main(c)
                        continue
                    failed += 1
                    print(f"FAIL {t.__name__}: {e}")
                    if not isinstance(e, AssertionError):
                        traceback.print_exc()
                    print_logs_since(a.out, t0)
                    try:
                        c.d.screenshot(os.path.join(a.out, f"fail-{t.__name__}.png"))
                    except Exception:  # noqa: BLE001 - the session may be the one that ended
                        reopen_main(c)
                    break
        # A current picture of the app: the compacted session, agent-visible rows dimmed in All.
        c.open_session("goose-compacted")
        c.set_view("all")
        c.d.click('[data-testid=row][data-index="0"]')
        time.sleep(0.5)
        c.d.screenshot(os.path.join(a.out, "app.png"))
        root_shot(os.path.join(a.out, "screen.png"))
        if a.screenshot_dir:
            os.makedirs(a.screenshot_dir, exist_ok=True)
            root_shot(os.path.join(a.screenshot_dir, "screenshot-timeline.png"))
            c.set_view("agent")
            time.sleep(0.3)
            root_shot(os.path.join(a.screenshot_dir, "screenshot-agent-view.png"))
    except Exception as e:  # noqa: BLE001 - the harness itself failed: count it and say why
        failed += 1
        print(f"FAIL harness: {e}")
        traceback.print_exc()
    finally:
        stop_driver(c.d, c.td, c.log)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
