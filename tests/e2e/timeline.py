"""The timeline and the inspector on the fixtures: the sessions listed, the agent view of a
compacted session, hostile text shown as text, a message whole with its raw JSON, the keys."""

import os
import subprocess

from common import (  # noqa: E402
    SESSIONS, STATUS, VIEW, check, cli_binary, shots,
)


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
    # About: the version and commit the app was built from, as the CLI built beside it says.
    version = subprocess.run([cli_binary(c), "--version"], capture_output=True, text=True, check=True).stdout
    c.d.wait("return (document.querySelector('[data-testid=about]')?.textContent || '').includes('commit ');",
             what="the About line to name the commit")
    about = c.d.text("[data-testid=about]")
    # "palimpsest 0.1.0 (commit 0123456789ab)" beside "Version 0.1.0, commit 0123456789ab".
    words = version.replace("(", " ").replace(")", " ").split()
    check(f"Version {words[1]}, commit {words[3]}" in about,
          f"the About line names the version and commit `{version.strip()}` gives; got {about!r}")
    shots(c, "about.png")
    c.d.keys("\ue00c")  # Escape
    c.d.wait("return !document.querySelector('[data-testid=key-help]');", what="Escape to close the key list")
