"""The harnesses beside goose, Claude Code and Codex, in the window: an OpenCode session from
the bundled fixtures (fixtures/README.md, `opencode/`) with its steps, its two compactions and
the tail the first one kept, replayed under OpenCode's own policy, its pruned outputs in
Spills, and its post-mortem, as the CLI reads them; Copilot CLI, Gemini CLI (replayed under its own policy too) and Qwen Code
recordings with their compactions and rewinds; an Aider chat log with its summary and /clear, and
each request it logged set beside the one rebuilt from the chat log."""

import json
import subprocess
import time

from common import SPILL_ROWS, STATUS, check, cli_binary, open_recorded_request, open_tab, shots, summary_text  # noqa: E402
from cuts import CUT_CARDS  # noqa: E402
from tabs import REPLAY_ROWS  # noqa: E402

WORKER = "ses_7a1c0e2f4001worker"


def settled(c):
    """Wait until the open cut shows its summary and still does a moment later: the view is
    drawn again when the session's BPE counts come in, asking for the cut's detail anew."""
    shown = "return !!document.querySelector('[data-testid=summary-text]');"
    c.d.wait(shown, what="the cut's summary")
    time.sleep(0.7)
    c.d.wait(shown, what="the cut's summary, drawn again")
CHILD = "ses_7a1c0e2f4002explore"


def test_an_opencode_session_shows_its_cuts_and_the_tail_it_kept(c):
    c.open_session(WORKER)
    c.set_view("all")
    rows = c.rows()
    status = c.d.run(STATUS)
    check("36 rows" in status, f"the 16 stored messages are 36 rows, each step and result its own; got {status!r}")
    kinds = [(r["index"], r["kind"]) for r in rows if r["kind"] != "ordinary"]
    check(kinds == [(16, "notification"), (17, "summary"), (18, "continuation"), (30, "notification"), (31, "summary")],
          f"the compaction requests, their summaries and the synthetic continue; got {kinds}")
    c.set_view("agent")
    seen = [r["index"] for r in c.rows()]
    check(seen == list(range(30, 36)), f"after the manual /compact the model sees it and what follows; got {seen}")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=cut-open]').length >= 2;", what="the cut rules")
    c.d.click("[data-testid=cut-open]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '16';",
             what="the first cut's view")
    dropped = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-dropped]")]
    check(dropped == list(range(12)), f"the auto compaction dropped the first two turns (0-11); got {dropped}")
    kept = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-kept]")]
    check(kept[:4] == [12, 13, 14, 15], f"it kept the last turn verbatim (tail_start_id: 12-15); got {kept}")
    summary = summary_text(c, "## Goal")
    check(summary.startswith("## Goal") and "store.py" in summary, f"the summary column is message 17; got {summary[:80]!r}")
    shots(c, "opencode-cut.png", "screenshot-opencode-cut.png")
    c.d.click("[data-testid=cut-close]")
    open_tab(c, "replay")
    try:
        c.d.wait("return document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]').length > 0;",
                 what="the replayed agent view")
        c.d.run("const el = document.querySelector('[data-testid=replay-controls-A] [data-knob=policy]');"
                "Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, 'opencode');"
                "el.dispatchEvent(new Event('change', {bubbles: true})); return true;")
        c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]'));"
                 "return r.length === 7 && r[4].dataset.kind === 'notification' && "
                 "document.querySelector('[data-testid=replay-A]').dataset.busy === 'false';",
                 what="OpenCode's policy to replay into 7 rows")
        rows = c.d.run(REPLAY_ROWS)
        got = [(r["kind"], r["source"]) for r in rows]
        want = [("ordinary", "32"), ("ordinary", "33"), ("ordinary", "34"), ("ordinary", "35"),
                ("notification", ""), ("summary", ""), ("continuation", "")]
        check(got == want, f"OpenCode keeps the last turn, then asks, summarises and continues; got {got}")
        note = c.d.text("[data-testid=replay-A]")
        check("OpenCode's own rules: this is an OpenCode session." in note, f"the side names its policy; got {note[:200]!r}")
        shots(c, "opencode-replay.png")
    finally:
        open_tab(c, "timeline")
    c.open_session(CHILD)
    open_tab(c, "spills")
    try:
        got = c.d.wait(SPILL_ROWS, timeout=30, what="the explore agent's saved grep output")
        check(len(got) == 1 and got[0][0] == "present" and "tool_9a1c0e2f4002Gq7ZfXk2Lm" in got[0][1],
              f"the truncated grep's whole output, found in tool-output/; got {got}")
        c.d.wait("return !!document.querySelector('[data-testid=elided]');", timeout=15,
                 what="what the model did not see beside the file")
        elided = c.d.text("[data-testid=elided]")
        check("70.6 kB elided" in elided, f"the 70 586 bytes the model did not see; got {elided!r}")
        shots(c, "opencode-spills.png")
    finally:
        open_tab(c, "timeline")
    c.open_session(WORKER)
    open_tab(c, "spills")
    try:
        got = c.d.wait(SPILL_ROWS, timeout=30, what="the worker's pruned outputs")
        check([g[0] for g in got] == ["stored", "stored"]
              and all(g[1] == "in the session" for g in got),
              f"the prune's two outputs, kept in the session, no file; got {got}")
        c.d.wait("return !!document.querySelector('[data-testid=spill-stored]');", timeout=15,
                 what="where the pruned output is")
        note = c.d.text("[data-testid=spill-stored]")
        check("#20" in note, f"the first pruned output is message 20; got {note!r}")
        shots(c, "opencode-pruned.png")
    finally:
        open_tab(c, "timeline")
    c.open_session(WORKER)
    open_tab(c, "postmortem")
    try:
        out = subprocess.run([cli_binary(c), "diagnose", c.fixtures + "/opencode", "--session", WORKER, "--json"],
                             capture_output=True, text=True, check=True)
        want = json.loads(out.stdout)["verdict"]
        got = c.d.wait("return document.querySelector('[data-testid=verdict]')?.textContent;", timeout=60,
                       what="the post-mortem verdict")
        check(got == want, f"the verdict is exactly the CLI's;\n app: {got!r}\n cli: {want!r}")
        shots(c, "opencode-postmortem.png")
    finally:
        open_tab(c, "timeline")


COPILOT = "3f1b0c9e-5a2d-4c71-9e11-7c0de0000001"


def test_a_copilot_cli_session_shows_its_background_compaction_and_sub_agent(c):
    c.open_session(COPILOT)
    c.set_view("all")
    status = c.d.run(STATUS)
    check("24 rows" in status, f"24 messages from the events; got {status!r}")
    c.set_view("agent")
    seen = [(r["index"], r["kind"]) for r in c.rows()]
    check(seen == [(20, "summary"), (21, "ordinary"), (22, "ordinary"), (23, "ordinary")],
          f"after the manual /compact the model sees its summary and what follows; got {seen}")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=cut-open]').length >= 2;", what="the cut rules")
    c.d.click("[data-testid=cut-open]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '8';",
             what="the background compaction's view")
    dropped = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-dropped]")]
    check(dropped == [0, 1, 2, 3, 4], f"it removed the 5 oldest messages; got {dropped}")
    kept = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-kept]")]
    check(kept[:3] == [5, 6, 7], f"it kept the edit call, its result and the answer; got {kept}")
    summary = summary_text(c, "<overview>")
    check(summary.startswith("<overview>"), f"the summary column is summaryContent; got {summary[:60]!r}")
    settled(c)
    shots(c, "copilot-cut.png", "screenshot-copilot-cut.png")
    c.d.click("[data-testid=cut-close]")
    open_tab(c, "spills")
    try:
        got = c.d.wait(SPILL_ROWS, timeout=30, what="the checkpoint in the Spills tab")
        check(len(got) == 1 and got[0][0] == "present" and got[0][1].endswith("checkpoints/001-retry.md"),
              f"the first compaction's checkpoint is a present spill file; got {got}")
        shots(c, "copilot-spills.png")
    finally:
        open_tab(c, "timeline")
    out = subprocess.run([cli_binary(c), "diagnose", c.fixtures + "/copilot", "--session", COPILOT, "--json"],
                         capture_output=True, text=True, check=True)
    want = json.loads(out.stdout)["verdict"]
    open_tab(c, "postmortem")
    try:
        got = c.d.wait("return document.querySelector('[data-testid=verdict]')?.textContent;", timeout=60,
                       what="the post-mortem verdict")
        check(got == want, f"the verdict is exactly the CLI's;\n app: {got!r}\n cli: {want!r}")
    finally:
        open_tab(c, "timeline")


GEMINI = "3c7e9a1b-0d42-4e55-9a3b-6f1d2e000001"


def test_a_gemini_cli_recording_shows_its_compression_and_rewind(c):
    c.open_session(GEMINI)
    c.set_view("all")
    status = c.d.run(STATUS)
    check("18 rows" in status, f"18 messages from the records; got {status!r}")
    rows = {r["index"]: r for r in c.rows()}
    check(rows[9]["kind"] == "summary" and rows[10]["kind"] == "continuation",
          f"the state snapshot and the model's thanks; got {rows[9]['kind']}, {rows[10]['kind']}")
    c.set_view("agent")
    seen = [r["index"] for r in c.rows()]
    check(seen == [7, 8, 9, 10, 14, 15, 16, 17],
          f"the model sees the kept turn, the snapshot, its thanks and what followed the rewind; got {seen}")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=cut-open]').length >= 1;", what="the cut rule")
    c.d.click("[data-testid=cut-open]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '9';",
             what="the compression's view")
    dropped = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-dropped]")]
    check(dropped == list(range(7)), f"it dropped the first turn's seven messages; got {dropped}")
    c.d.wait("return document.querySelector('[data-testid=summary-text]')?.textContent.startsWith('<state_snapshot>');",
             what="the state snapshot in the summary column")
    settled(c)
    shots(c, "gemini-cut.png", "screenshot-gemini-cut.png")
    c.d.click("[data-testid=cut-close]")
    open_tab(c, "replay")
    try:
        c.d.wait("return document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]').length > 0;",
                 what="the replayed agent view")
        c.d.run("const el = document.querySelector('[data-testid=replay-controls-A] [data-knob=policy]');"
                "Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, 'gemini');"
                "el.dispatchEvent(new Event('change', {bubbles: true})); return true;")
        c.d.wait("const r = Array.from(document.querySelectorAll('[data-testid=replay-A] [data-testid=replay-row]'));"
                 "return r.length === 6 && r[0].dataset.kind === 'summary' && "
                 "document.querySelector('[data-testid=replay-A]').dataset.busy === 'false';",
                 what="Gemini's policy to replay into 6 rows")
        got = [(r["kind"], r["source"]) for r in c.d.run(REPLAY_ROWS)]
        want = [("summary", ""), ("continuation", ""), ("ordinary", "14"), ("ordinary", "15"),
                ("ordinary", "16"), ("ordinary", "17")]
        check(got == want, f"Gemini summarises, thanks, and keeps the last 30 % (#14-17); got {got}")
        note = c.d.text("[data-testid=replay-A]")
        check("Gemini CLI's own rules: this is a Gemini CLI session." in note,
              f"the side names its policy; got {note[:200]!r}")
        shots(c, "gemini-replay.png")
    finally:
        open_tab(c, "timeline")


QWEN = "7a1c2e3f-5b6d-4e8f-9a0b-1c2d3e000001"


def test_a_qwen_code_recording_shows_its_compressions_and_rewind(c):
    c.open_session(QWEN)
    c.set_view("all")
    status = c.d.run(STATUS)
    check("25 rows" in status, f"25 messages from the records; got {status!r}")
    c.set_view("agent")
    seen = [r["index"] for r in c.rows()]
    check(seen == [16, 17, 18, 19, 20, 21, 23, 24],
          f"the model sees the turn the second compression kept, its snapshot and thanks, and what "
          f"followed; got {seen}")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=cut-open]').length >= 2;", what="the cut rules")
    c.d.run("document.querySelectorAll('[data-testid=cut-open]')[1].click();")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '20';",
             what="the automatic compression's view")
    kept = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-kept]")]
    check(kept == [16, 17, 18, 19], f"it kept the whole last turn; got {kept}")
    c.d.wait("return document.querySelector('[data-testid=summary-text]')?.textContent.startsWith('<state_snapshot>');",
             what="the state snapshot in the summary column")
    settled(c)
    shots(c, "qwen-cut.png", "screenshot-qwen-cut.png")
    c.d.click("[data-testid=cut-close]")


AIDER = "2026-11-03T10:00:00"


def test_an_aider_chat_log_shows_its_summary_and_clear(c):
    listed = c.d.run("return Array.from(document.querySelectorAll('[data-testid=session]'))"
                     ".map(e => e.dataset.sessionId).filter(i => i.startsWith('2026-11-03T'));")
    check(sorted(listed) == [AIDER, AIDER + "#clear1", "2026-11-03T15:30:00"],
          f"two headers and a /clear make three sessions; got {listed}")
    c.open_session(AIDER)
    c.set_view("all")
    status = c.d.run(STATUS)
    check("20 rows" in status, f"20 messages from the chat log and the summary, up to /clear; got {status!r}")
    rows = {r["index"]: r for r in c.rows()}
    check(rows[11]["kind"] == "summary", f"the summary the third request carried; got {rows[11]['kind']}")
    c.set_view("agent")
    seen = [r["index"] for r in c.rows()]
    check(seen == [8, 9, 11, 12, 13, 15, 16],
          f"the model holds the kept turn, the summary and the turns after it; got {seen}")
    c.set_view("all")
    c.d.wait("return document.querySelectorAll('[data-testid=cut-open]').length >= 1;", what="the cut rule")
    c.d.click("[data-testid=cut-open]")
    c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '11';",
             what="the summary's view")
    dropped = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-dropped]")]
    check(dropped == [3, 4], f"it dropped the first turn; got {dropped}")
    kept = [r["index"] for r in c.d.run(CUT_CARDS, "[data-testid=cut-kept]")]
    check(kept == [8, 9], f"it kept the second turn word for word; got {kept}")
    c.d.wait("return document.querySelector('[data-testid=summary-text]')?.textContent"
             ".startsWith('I spoke to you previously');", what="Aider's summary in the summary column")
    settled(c)
    shots(c, "aider-cut.png")
    c.d.click("[data-testid=cut-close]")
    aider_recorded_request(c)


def aider_recorded_request(c):
    """Request 4 as Aider logged it (`.aider.llm.history`) beside the one rebuilt from the chat
    log, as `palimpsest context --recorded --request 4` gives it: the system prompt, the
    repository map and the chat's files sent only, the summary sent before the kept turn."""
    log = f"{c.fixtures}/aider/shop/.aider.chat.history.md"
    cli = json.loads(subprocess.run([cli_binary(c), "context", log, "--session", AIDER, "--recorded",
                                     "--request", "4", "--json"], capture_output=True, text=True, check=True).stdout)
    open_tab(c, "requests")
    try:
        label, ops = open_recorded_request(c, 4, 5)
        check(label == f"recorded request · {cli['differences']} diff.", f"the toggle counts the CLI's differences; got {label!r}")
        want = [d["op"] for d in cli["diff"]]
        check(ops == want, f"the window's steps are the CLI's; window {ops}, CLI {want}")
        check(ops.count("recorded_only") == 6 and ops.count("rebuilt_only") == 1,
              f"six items sent only (system, map, its answer, summary, files, their answer), the summary "
              f"where the session holds it rebuilt only; got {ops}")
        time.sleep(0.3)
        shots(c, "aider-recorded.png")
    finally:
        open_tab(c, "timeline")
