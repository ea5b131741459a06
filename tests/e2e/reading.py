"""Reading a message in the window: an edit call as a diff, a summary as Markdown, "Copy as
Markdown" putting on the clipboard exactly what the CLI prints for the same message or cut, and
Claude Code's own overflow spill opened from the session's folder."""

import os
import shutil
import subprocess
import time

from common import SIX_CUTS, SPILL_ROWS, check, cli_binary, click_in_view, click_row, open_tab


def clipboard():
    """The X clipboard's text (the app owns it after a copy), read with xclip."""
    check(shutil.which("xclip"), "xclip reads the clipboard (scripts/install-deps.sh --e2e installs it)")
    return subprocess.run(["xclip", "-o", "-selection", "clipboard"], capture_output=True, text=True,
                          timeout=10).stdout


def cli_markdown(c, args):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))
    return subprocess.run([cli_binary(c), *args], capture_output=True, text=True, check=True, env=env).stdout


def copied(c, button, before):
    """Clicks `button` and waits for the clipboard to change from `before`."""
    c.d.click(button)
    deadline = time.time() + 10
    while time.time() < deadline:
        now = clipboard()
        if now != before:
            return now
        time.sleep(0.2)
    raise AssertionError(f"clicking {button} put nothing new on the clipboard")


def test_an_edit_shows_as_a_diff_and_copies_as_markdown(c):
    """fixtures/claude six-cut session: message 9 is an Edit of cart.py. The inspector draws it
    as a one-line diff; Copy as Markdown copies what `show --message 9` prints; the summary at
    81 renders its numbered sections as a list; Copy cut copies `compactions --cut 6`."""
    session_file = os.path.join(c.fixtures, "claude", "projects", "-home-dev-shop", SIX_CUTS + ".jsonl")
    c.open_session(SIX_CUTS)
    c.set_view("all")
    click_row(c, 9)
    c.d.wait("return document.querySelector('[data-testid=inspector] .inspector-head strong')?.textContent === '#9';",
             timeout=30, what="message 9 in the inspector")
    lines = c.d.wait("const l = Array.from(document.querySelectorAll('[data-testid=inspector] [data-testid=diff] .diff-line'));"
                     "return l.length ? l.map(e => e.className.replace('diff-line ', '') + ':' + e.querySelector('.diff-text').textContent) : null;",
                     what="the Edit's diff")
    check(lines == ["remove:total -= discount", "add:total -= max(discount, sale)"],
          f"the Edit is drawn as its removed and added line; got {lines}")

    md = copied(c, "[data-testid=copy-message]", clipboard())
    want = cli_markdown(c, ["show", session_file, "--message", "9"])
    check(md == want, f"the clipboard holds what `show --message 9` prints;\n app: {md[:200]!r}\n cli: {want[:200]!r}")
    status = c.d.run("return document.querySelector('[data-testid=status]')?.textContent || '';")
    check("Copied message #9 as Markdown" in status, f"the status bar says what was copied; got {status!r}")

    # The agent view starts at the sixth cut's summary (81); the rule above it opens cut 6.
    c.set_view("agent")
    try:
        c.d.wait("return document.querySelector('[data-testid=row]')?.dataset.index === '81';", timeout=30,
                 what="the agent view to start at 81")
        click_in_view(c, '[data-testid=row][data-index="81"]')
        items = c.d.wait("const m = document.querySelector('[data-testid=inspector] [data-testid=markdown]');"
                         "return m ? m.querySelectorAll('ol > li').length : null;", timeout=30,
                         what="the summary at 81 as Markdown")
        check(items >= 4, f"the summary's numbered sections render as a list; got {items} items")
        c.d.wait("return !!document.querySelector('[data-testid=cut-open]');", timeout=30, what="the rule above the context")
        c.d.click("[data-testid=cut-open]")
        c.d.wait("return document.querySelector('[data-testid=cut-view]')?.dataset.cutIndex === '80';",
                 what="cut 6 (boundary at message 80) to open")
        md = copied(c, "[data-testid=copy-cut]", clipboard())
        want = cli_markdown(c, ["compactions", session_file, "--cut", "6"])
        check(md == want, f"Copy cut copies what `compactions --cut 6` prints;\n app: {md[:200]!r}\n cli: {want[:200]!r}")
    finally:
        c.d.run("document.querySelector('[data-testid=cut-close]')?.click();")
        c.set_view("all")


def test_a_claude_overflow_spill_is_listed_and_opens(c):
    """Segment 6's `mcp__linear__list_issues` result overflowed: Claude Code's notice names a
    file under `<id>/tool-results/` by the writing machine's path. Spills lists it present (as
    `palimpsest spills` does) and shows the saved listing."""
    session_file = os.path.join(c.fixtures, "claude", "projects", "-home-dev-shop", SIX_CUTS + ".jsonl")
    c.open_session(SIX_CUTS)
    open_tab(c, "spills")
    try:
        got = c.d.wait(SPILL_ROWS, timeout=30,
                       what="the spill list")
        check(len(got) == 1 and got[0][0] == "present" and got[0][1].endswith("mcp-linear-list_issues-1772442000.txt"),
              f"one spill, the overflowing listing, present in the session's folder; got {got}")
        cli = cli_markdown(c, ["spills", session_file])
        check("1 present" in cli, f"the CLI agrees it is present; got {cli!r}")
        c.d.run("document.querySelector('[data-testid=spill]').click();")
        text = c.d.wait("return document.querySelector('[data-testid=spill-detail]')?.textContent || null;", timeout=15,
                        what="the spill file's text")
        check("SHOP-112" in text, "the saved listing is shown (its last issue, SHOP-112)")
    finally:
        open_tab(c, "timeline")
