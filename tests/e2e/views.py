"""Claude Code's view edits without a boundary, in the window: a content replacement's cut lists
the result it swapped for a stub and the inspector folds the stored result under the stub; a
context collapse's cut shows the span it archived, its one-line summary and what stayed."""

import json
import os
import subprocess
import time

from common import check, cli_binary, click_row, main_app_closed, open_recorded_request, open_tab, shots, wait_app_gone

VIEWS = "c0117a95-0000-4000-8000-00000000c011"


def open_cut(c, index):
    """Steps the open cut view to the cut at `index`, and waits for its summary and file fates."""
    for _ in range(8):
        now = c.d.run("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex;")
        if now == str(index):
            c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.whole === 'true';",
                     what=f"cut {index}'s summary and file fates")
            return
        c.d.click('.cut-nav button[title^="Next cut"]' if now is None or int(now) < index
                  else '.cut-nav button[title^="Previous cut"]')
        time.sleep(0.2)
    check(False, f"cut {index} opens; the view shows {now}")


def test_replacements_and_collapses_are_cuts_with_their_own_views(c):
    # fixtures/README.md, views: replacement at 5 (the build log at 4), collapse 1 at 12
    # archiving 7-11, the auto compaction at 28, collapse 3 at 36 archiving 32-35.
    c.open_session(VIEWS)
    c.set_view("all")
    try:
        click_row(c, 4)
        c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#4';",
                 timeout=30, what="message 4 in the inspector")
        shown = c.d.text("[data-testid=inspector] [data-part=tool_result] pre")
        check(shown.startswith("<persisted-output>"), f"the result reads as the stub the model receives; got {shown[:40]!r}")
        summary = c.d.text("[data-testid=stored-original] summary")
        check("the model receives the text above instead" in summary,
              f"the stored result is folded underneath, said to be what the model does not get; got {summary!r}")
        stored = c.d.run("return document.querySelector('[data-testid=stored-original] pre').textContent;")
        check(stored.count("\n") == 1500, f"the fold holds the whole 1 500-line log; got {stored.count(chr(10))} lines")
        c.d.run("document.querySelector('[data-testid=stored-original]').open = true;")
        time.sleep(0.3)
        c.d.screenshot(os.path.join(c.out, "views-stub.png"))

        # The replacement's row (5) carries its cut's rule: open the cut from there.
        c.d.wait("const b = document.querySelector('[data-testid=row][data-index=\"5\"] [data-testid=cut-open]');"
                 "if (b) b.click(); return !!b;", timeout=30, what="the rule of the cut at row 5")
        c.d.wait("return !!document.querySelector('[data-testid=cut-view]');", timeout=30, what="a cut view to open")
        open_cut(c, 5)
        replaced = c.d.run("return Array.from(document.querySelectorAll('[data-testid=cut-cleared] [data-testid=cut-card]')).map(e => e.dataset.index);")
        check(replaced == ["4"], f"the replacement lists the result it swapped; got {replaced}")
        sub = c.d.text("[data-testid=micro-sub]")
        check(sub.startswith("Content replacement: 1 tool result swapped for stubs"), f"and says what it is; got {sub!r}")
        time.sleep(0.3)
        c.d.screenshot(os.path.join(c.out, "views-replacement.png"))

        open_cut(c, 12)
        dropped = c.d.run("return Array.from(document.querySelectorAll('[data-testid=cut-dropped] [data-testid=cut-card]')).map(e => e.dataset.index);")
        check(dropped == ["7", "8", "9", "10", "11"], f"collapse 1 dropped the span it archived, 7-11; got {dropped}")
        head = c.d.text("[data-testid=cut-view] .cut-sub")
        check(head.startswith("Context collapse: one span replaced by its summary"), f"the cut says it is a collapse; got {head!r}")
        text = c.d.text("[data-testid=cut-summary]")
        check("Surveyed the Sphinx toctree" in text, f"its summary is the commit's summaryContent; got {text[:80]!r}")
        widths = c.d.run("return [document.documentElement.scrollWidth, window.innerWidth];")
        check(widths[0] <= widths[1], f"the collapse's cut view fits the window; got {widths}")
        time.sleep(0.3)
        shots(c, "views-collapse.png", "screenshot-collapse.png")
        export_the_open_session(c)
    finally:
        c.d.run("document.querySelector('[data-testid=cut-close]')?.click();")


def export_the_open_session(c):
    """File › Export report… writes the open session's report (the save dialog is the system's:
    the window's own command is called with the path it would return)."""
    check(c.d.run("return !document.querySelector('[data-testid=export-report]').disabled;"),
          "Export report… is offered for the open session")
    to = os.path.join(c.out, "report-views.html")
    if os.path.exists(to):
        os.remove(to)
    # The source the open session is listed in (its group's path, on the heading's hover).
    path = c.d.run("return document.querySelector('[data-testid=session][aria-current=true]')"
                   "?.closest('[data-testid=source]')?.querySelector('h3')?.title;")
    c.d.run("window.__exported = null; window.__TAURI_INTERNALS__.invoke('export_report', {req: {path: arguments[0], "
            "id: arguments[1], to: arguments[2], bodies: false}}).then(r => window.__exported = r, "
            "e => window.__exported = 'error: ' + JSON.stringify(e));", path, VIEWS, to)
    got = c.d.wait("return window.__exported;", timeout=60, what="the report to be written")
    check(got == to, f"the command writes where it was asked; got {got!r}")
    html = open(to, encoding="utf-8").read()
    check("Cut 2 · collapse" in html and "Content-Security-Policy" in html,
          "the report holds the collapse and its policy")


def test_a_goose_delegation_links_its_child_session(c):
    # fixtures/README.md, goose/v17: message 21 of worker 20261120_1 delegated 20261120_2, and
    # logs/ beside the database holds the worker's last three requests. The database sits beside
    # the fixtures' own goose folder, so the window opens it alone.
    worker, child = "20261120_1", "20261120_2"
    db = os.path.join(c.fixtures, "goose", "v17", "sessions.db")
    with main_app_closed(c):
        c.d.start(c.app, [db])
        try:
            c.d.wait("return document.querySelectorAll('[data-testid=session]').length === 3;", timeout=30,
                     what="the schema-17 database's three sessions")
            order = c.d.run("return Array.from(document.querySelectorAll('[data-testid=session]'))"
                            ".map(x => [x.dataset.sessionId, x.dataset.depth]);")
            check(order[0] == [worker, "0"] and sorted(order[1:]) == [[child, "1"], ["20261120_3", "1"]],
                  f"both delegated sessions sit under the worker, one level in; got {order}")
            c.open_session(worker)
            c.set_view("all")
            click_row(c, 21)
            c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#21';",
                     timeout=30, what="message 21 in the inspector")
            kind = c.d.wait("return document.querySelector('[data-testid=inspector-link]')?.dataset.kind;", what="its link")
            check(kind == "subagent", f"the delegate call links its child session; got {kind!r}")
            c.d.screenshot(os.path.join(c.out, "goose-delegation.png"))
            recorded_request_beside_the_rebuilt_one(c)
            c.d.click("[data-testid=inspector-link]")
            c.d.wait("return document.querySelector('main.main')?.dataset.sessionId === arguments[0];", child,
                     timeout=30, what="the delegated session to open")
        finally:
            c.d.quit()
            wait_app_gone(c.app)


def recorded_request_beside_the_rebuilt_one(c):
    """Request 15 of the v17 worker was recorded with one item goose added (a turn hint): the
    Requests tab's "recorded request" sets it beside the rebuilt one and marks that item, as
    `palimpsest context --recorded --request 15` does."""
    db = os.path.join(c.fixtures, "goose", "v17", "sessions.db")
    cli = json.loads(subprocess.run([cli_binary(c), "context", db, "--session", "20261120_1", "--recorded",
                                     "--request", "15", "--json"], capture_output=True, text=True, check=True).stdout)
    open_tab(c, "requests")
    try:
        label, ops = open_recorded_request(c, 15, 16)
        check(label == "recorded request · 1 diff.", f"the toggle says how many items differ; got {label!r}")
        want = [d["op"] for d in cli["diff"]]
        check(ops == want, f"the window's steps are the CLI's; window {ops}, CLI {want}")
        check(ops.count("recorded_only") == 2 and ops[-1] == "recorded_only",
              f"the system prompt and the turn hint are sent only; got {ops}")
        time.sleep(0.3)
        shots(c, "recorded-request.png", "screenshot-recorded-request.png")
    finally:
        open_tab(c, "timeline")
