"""Cuts and requests in the window: the cut view (dropped, summary, kept), a finding's badge and
the request it names, the cut an agent-view row came from, a link to a subagent's run."""

import os
import time

from common import (  # noqa: E402
    SIX_CUTS, check, click_row, open_tab, root_shot, shots, summary_text,
)


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
    summary = summary_text(c, "<analysis>")
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
    shots(c, "cut-view.png", "screenshot-cut-view.png")
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
        shots(c, "request-finding.png", "screenshot-requests.png")
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
        shots(c, "six-cuts-micro.png", "screenshot-microcompact.png")
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
