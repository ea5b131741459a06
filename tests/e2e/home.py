"""The sources found in the user's home with no path given: every agent's folder, grouped by
family, and the bundled examples offered when there is none."""

import os
import shutil
import tempfile
import time

from common import (  # noqa: E402
    HERE, SESSIONS, Ctx, check, main_app_closed, own_driver, shots, CLAUDE_SHORT,
)


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
CODEX_A001 = "rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl"


def home_with_three_families(fixtures):
    """A home folder with one Claude Code transcript, one Codex rollout and goose's database,
    each where its agent writes it (and nothing of coworker's)."""
    home = tempfile.mkdtemp(prefix="palimpsest-e2e-home-")
    shared = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "real", "claude-code")
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


CUTS = """
return Array.from(document.querySelectorAll('[data-testid=session]')).map(b =>
  [b.dataset.sessionId, b.textContent.match(/(\\d+) cuts?/)?.[1], !!b.querySelector('[data-testid=live-dot]')]);
"""


def sources_in_home(c, d, home):
    launched = time.time()
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
    shots(c, "sources.png", "screenshot-sources.png", d)
    # Files nobody writes stay as they are once the index is built behind the window (issue 45:
    # about 11 s after a cold launch they were marked live and their cuts announced again,
    # doubling the counts). The Codex rollout is the case: its listing counts 9 messages, its
    # load 13; opening it indexes its folder behind the window.
    before = d.run(CUTS)
    h.open_session("019c8f0a-0000-7000-8000-00000000a001")
    opened = time.time()
    time.sleep(max(0.0, max(launched + 20, opened + 10) - time.time()))
    after = d.run(CUTS)
    check(after == before and not any(live for _, _, live in after),
          f"once indexed, no session is live and no cut count changed;\n before {before}\n after  {after}")


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
