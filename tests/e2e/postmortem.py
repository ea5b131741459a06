"""The Post-mortem and Spills tabs against the CLI, and the working directory a spill is read
from trusted only on a click."""

import json
import os
import shutil
import subprocess
import tempfile

from common import (  # noqa: E402
    HERE, SESSIONS, SPILL_ROWS, STUCK_ID, Ctx, check, cli_binary, main_app_closed, open_tab, own_driver,
    root_shot, shots, CLAUDE_SHORT,
)


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
        shots(c, "postmortem.png", "screenshot-postmortem.png")
        root_shot(os.path.join(c.out, "postmortem-screen.png"))
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
        # Every column ends inside the pane (issue 45: the last ones were cut off).
        cols = c.d.run("const p = document.querySelector('[data-testid=spills]').getBoundingClientRect();"
                       "const hs = Array.from(document.querySelectorAll('[data-testid=spills-table] th'));"
                       "return [hs.map(h => h.getBoundingClientRect().right), p.right, hs.map(h => h.textContent)];")
        check(len(cols[0]) == 6 and all(r <= cols[1] + 1 for r in cols[0]),
              f"all six columns end inside the Spills pane (right {cols[1]:.0f}); got {list(zip(cols[2], [round(r) for r in cols[0]]))}")
        # The first (present) file: capped result beside the file, the elided middle marked.
        c.d.wait("return !!document.querySelector('[data-testid=spill-text] .elided-middle');", timeout=15,
                 what="the spill file beside its capped result, elided middle marked")
        elided = c.d.text("[data-testid=elided]")
        check("10.1 kB elided" in elided, f"the capped result says how much the model did not see; got {elided!r}")
        shots(c, "spills.png", "screenshot-spills.png")
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
    shared = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "real", "claude-code")
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
            shots(c, "spills-trust.png", "screenshot-spills-trust.png", d)
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
