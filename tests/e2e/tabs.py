"""The Replay and Tokens tabs against the CLI: a keep-tail replay and its orphan, the totals, and
what a setting would have cost."""

import json
import os
import subprocess
import time

from common import (  # noqa: E402
    SIX_CUTS, check, cli_binary, js_click, open_tab, shots,
)


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
        shots(c, "replay-compare.png", "screenshot-replay.png")

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
        shots(c, "tokens.png", "screenshot-tokens.png")
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
