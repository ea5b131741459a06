"""The HTML report in a real browser: headless Chromium renders the hostile-HTML fixture's report
with every piece of transcript markup as text and no script element, and takes the docs'
screenshot of a real transcript's report at 1280 × 800."""

import os
import shutil
import subprocess

from common import HERE, check, cli_binary


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    check(False, "headless Chromium renders the reports (scripts/install-deps.sh --e2e installs `chromium`)")


def browse(*args):
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


def report(c, args, name):
    out = os.path.join(c.out, name)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(c.out, "cli-cache"))
    subprocess.run([cli_binary(c), "report", *args, "-o", out], check=True, env=env, timeout=300)
    return out


def test_a_report_shows_hostile_text_as_text_in_chromium(c):
    db = os.path.join(c.fixtures, "goose", "sessions.db")
    page = report(c, [db, "--session", "hostile-html", "--bodies"], "report-hostile.html")
    dom = browse("--dump-dom", "file://" + page).stdout
    check("<body>" in dom or "<body" in dom, f"Chromium rendered the report; got {dom[:200]!r}")
    check("<script" not in dom.lower(), "the rendered page holds no script element")
    check("<img src=" not in dom and "onerror=\"" not in dom,
          "the fixture's <img onerror> is no element and no attribute")
    check("&lt;script&gt;alert('name')&lt;/script&gt;" in dom,
          "the session name's script is text on the page")
    shot = os.path.join(c.out, "report-hostile.png")
    browse("--window-size=1280,800", f"--screenshot={shot}", "file://" + page)
    check(os.path.getsize(shot) > 10_000, "the hostile report was drawn")
    real = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "real", "claude-code",
                        "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    page = report(c, [real], "report-real.html")
    shot = os.path.join(c.out, "report-real.png")
    browse("--window-size=1280,800", f"--screenshot={shot}", "file://" + page)
    check(os.path.getsize(shot) > 10_000, "the real transcript's report was drawn")
    if c.screenshot_dir:
        shutil.copy(shot, os.path.join(c.screenshot_dir, "screenshot-report.png"))
