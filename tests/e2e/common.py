"""What the end-to-end test files share: the page queries, the test context, `check`, and the
helpers that click, open tabs, find the CLI and take screenshots. `run.py` is the runner."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time

from webdriver import Driver, WebDriverError

HERE = os.path.dirname(os.path.abspath(__file__))

# --- page queries (run inside the webview) ---------------------------------------------------

ROWS = """
return Array.from(document.querySelectorAll('[data-testid=row]')).map(r => ({
  index: Number(r.dataset.index), kind: r.dataset.kind,
  agent: r.dataset.agentVisible === 'true', user: r.dataset.userVisible === 'true',
  dimmed: r.classList.contains('invisible'), modelOnly: r.classList.contains('model-only'),
  selected: r.getAttribute('aria-selected') === 'true', text: r.textContent }));
"""
SESSIONS = "return Array.from(document.querySelectorAll('[data-testid=session]')).map(b => b.dataset.sessionId);"
VIEW = "const b = document.querySelector('[role=radio][aria-checked=true]'); return b && b.dataset.view;"
# The spill list as `[status, file]` per row, or null while it is empty.
SPILL_ROWS = ("const r = Array.from(document.querySelectorAll('[data-testid=spill]')).map(tr => "
              "[tr.dataset.status, tr.cells[1].textContent]); return r.length ? r : null;")
STATUS = "const s = document.querySelector('[data-testid=status]'); return s && s.textContent;"


class Ctx:
    def __init__(self, d, out, app, fixtures):
        self.d = d
        self.out = out
        self.app = app
        self.fixtures = fixtures
        self.screenshot_dir = None
        # The main driver's environment, process and log (`reopen_main_app` may start another).
        self.env = None
        self.td = None
        self.log = None

    def open_session(self, sid):
        css = f'[data-testid=session][data-session-id="{sid}"]'
        # The sidebar scrolls: a session below its fold is clicked like a user would, after
        # scrolling to it. Loaded means the main pane shows that session's timeline (not the
        # previous one's rows while the new one loads).
        self.d.run("document.querySelector(arguments[0])?.scrollIntoView({block: 'center'});", css)
        self.d.click(css)
        self.d.wait(
            "const c = document.querySelector('[data-testid=crumbs]');"
            "const s = document.querySelector('[data-testid=session][aria-current=true]');"
            "const m = document.querySelector('main.main');"
            "return s && s.dataset.sessionId === arguments[0] && m && m.dataset.sessionId === arguments[0] && "
            "!document.querySelector('.status .spinner') && document.querySelectorAll('[data-testid=row]').length > 0;",
            sid, what=f"session {sid} to load")

    def set_view(self, view):
        self.d.click(f'[data-view="{view}"]')
        self.d.wait("return document.querySelector('[role=radio][aria-checked=true]').dataset.view === arguments[0];",
                    view, what=f"view {view}")

    def rows(self):
        return self.d.run(ROWS)


def check(cond, why):
    if not cond:
        raise AssertionError(why)


def js_click(c, css):
    """Scroll an element of a scrolling pane into view, then click it like a user."""
    c.d.run("document.querySelector(arguments[0]).scrollIntoView({block: 'center'});", css)
    c.d.click(css)


def open_tab(c, tab):
    c.d.click(f'[data-tab="{tab}"]')
    c.d.wait("return document.querySelector('[role=tab][aria-selected=true]')?.dataset.tab === arguments[0];",
             tab, what=f"the {tab} tab")


def summary_text(c, starts):
    """The open cut's summary column once it shows a text starting with `starts`: the view is
    drawn again when the session's BPE counts come in, so a read without waiting can land
    between two drawings."""
    return c.d.wait("const t = document.querySelector('[data-testid=summary-text]')?.textContent;"
                    "return t && t.startsWith(arguments[0]) ? t : null;", starts,
                    what=f"the summary column starting {starts!r}")


def open_recorded_request(c, request, next_request):
    """On the open Requests tab (which starts on the next request, `next_request`), step back to
    `request` and turn its recorded request on: the toggle's label, and each step's op."""
    c.d.wait("return document.querySelector('[data-testid=request-number]')?.value === arguments[0];",
             str(next_request), timeout=30, what=f"the Requests tab on the next request ({next_request})")
    for _ in range(next_request - request):
        c.d.run("window.dispatchEvent(new KeyboardEvent('keydown', {key: ','}));")
    label = c.d.wait("const b = document.querySelector('[data-testid=recorded-toggle]');"
                     "return document.querySelector('[data-testid=request-number]').value === arguments[0] && b ? b.textContent : null;",
                     str(request), timeout=30, what=f"request {request} and its recorded-request toggle")
    c.d.click("[data-testid=recorded-toggle]")
    ops = c.d.wait("const s = Array.from(document.querySelectorAll('[data-testid=recorded-step]'));"
                   "return s.length ? s.map(e => e.dataset.op) : null;", what="the recorded request's diff")
    return label, ops


def cli_binary(c):
    """The `palimpsest` CLI built beside the app (same target dir), else the default target/."""
    root = os.path.dirname(os.path.dirname(HERE))
    for p in (os.path.join(os.path.dirname(c.app), "palimpsest"), os.path.join(root, "target", "debug", "palimpsest")):
        if os.path.exists(p):
            return p
    raise AssertionError("the palimpsest CLI is not built (cargo build -p palimpsest-cli)")


def click_in_view(c, css):
    """Scrolls the element to the middle of its pane, then clicks it as a user would."""
    c.d.run("document.querySelector(arguments[0]).scrollIntoView({block: 'center'});", css)
    time.sleep(0.2)
    c.d.click(css)


def root_shot(path):
    """The whole X screen (what a user sees), when ImageMagick's import is there."""
    if shutil.which("import") and os.environ.get("DISPLAY"):
        subprocess.run(["import", "-window", "root", path], check=False)


def shots(c, name, readme=None, d=None):
    """The window of driver `d` (the main one by default) as the test left it, in the run's
    output as `name`; and in docs/ as `readme` when the run refreshes the docs' screenshots
    (`make screenshot`)."""
    (d or c.d).screenshot(os.path.join(c.out, name))
    if readme and c.screenshot_dir:
        (d or c.d).screenshot(os.path.join(c.screenshot_dir, readme))


STUCK_ID = "20260301_1"  # fixtures/README.md: the goose stuck worker
# The session id given to fixtures/real's short Claude Code transcript where a test copies it into a home.
CLAUDE_SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"
SIX_CUTS = "6c075000-0000-4000-8000-00000000c006"


def click_row(c, index):
    """Clicks stored row `index` of the timeline as a user would: the list is virtualised, so it
    is first scrolled to where that row is drawn (the selection may have left it far away)."""
    css = f'[data-testid=row][data-index="{index}"]'
    c.d.run("const t = document.querySelector('[data-testid=timeline]');"
            "if (t && !document.querySelector(arguments[1])) t.scrollTop = Math.max(0, arguments[0] * 28 - 200);",
            index, css)
    c.d.wait("return !!document.querySelector(arguments[0]);", css, timeout=10, what=f"row {index} drawn")
    click_in_view(c, css)


def app_processes(app):
    """Pids of running processes whose executable is `app`."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(app):
                    pids.append(int(pid))
            except OSError:
                pass
    return pids


def wait_app_gone(app, timeout=15):
    deadline = time.time() + timeout
    while app_processes(app) and time.time() < deadline:
        time.sleep(0.1)


@contextlib.contextmanager
def main_app_closed(c):
    """Close the main session's app and wait until its process is gone, then reopen it on the
    fixtures afterwards, so a test that needs a fresh launch has the machine to itself."""
    c.d.quit()
    wait_app_gone(c.app)
    try:
        yield
    finally:
        reopen_main_app(c)


def end_apps(app):
    """End every process of `app` and wait until they are gone."""
    for pid in app_processes(app):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    wait_app_gone(app)


def reopen_main_app(c):
    """End every app process (one a driver's quit left behind, idle, see `own_driver`, must
    not hold the main driver's new session up), then open the main session's app again on the
    fixtures."""
    end_apps(c.app)
    try:
        c.d.start(c.app, [c.fixtures])
    except (OSError, WebDriverError) as e:
        # Under Xvfb a launch sometimes dies in GTK's start ("Failed to initialize GTK" in the
        # driver's log: it could not open the display) and the driver then waits for it until
        # the request times out. Once: a new driver, a new launch, and the output says so.
        print(f"  the main app did not start ({e}); starting it again with a new driver")
        stop_driver(c.d, c.td, c.log)
        end_apps(c.app)
        c.d, c.td, c.log = start_driver(c.env, os.path.join(c.out, "tauri-driver-main-again.log"))
        c.d.wait_ready()
        c.d.start(c.app, [c.fixtures])
    c.d.wait(SESSIONS, timeout=30, what="the app to list the fixtures again")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def driver_binary():
    return shutil.which("tauri-driver") or os.path.expanduser("~/.cargo/bin/tauri-driver")


@contextlib.contextmanager
def own_driver(c, env, log_name):
    """A tauri-driver (and so an app process) of its own, with `env` (the app inherits the
    driver's environment): a fresh launch that shares nothing with the main session's app."""
    before = set(app_processes(c.app))
    d, td, log = start_driver(env, os.path.join(c.out, log_name))
    try:
        d.wait_ready()
        yield d
    finally:
        stop_driver(d, td, log)
        wait_app_gone(c.app)
        # The driver's quit closes the page, but under Xvfb the app it launched sometimes
        # outlives the driver, idle, holding its memory: end it, so the next launch is alone.
        for pid in set(app_processes(c.app)) - before:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        wait_app_gone_of(c.app, before)


def wait_app_gone_of(app, keep, timeout=15):
    """Wait until the only app processes left are those in `keep`."""
    deadline = time.time() + timeout
    while set(app_processes(app)) - keep and time.time() < deadline:
        time.sleep(0.1)


def start_driver(env, log_path):
    """A tauri-driver on free ports with `env` (the app it launches inherits it), logging to
    `log_path`: its client, its process and the open log, for `stop_driver`."""
    port, native = free_port(), free_port()
    log = open(log_path, "w")
    td = subprocess.Popen([driver_binary(), "--port", str(port), "--native-port", str(native)],
                          stdout=log, stderr=subprocess.STDOUT, env=env)
    return Driver(f"http://127.0.0.1:{port}"), td, log


def stop_driver(d, td, log):
    """Close the app (it may already be gone), then the driver, then its log."""
    try:
        d.quit()
    except Exception:  # noqa: BLE001 - the app may already be gone
        pass
    td.terminate()
    try:
        td.wait(timeout=10)
    except subprocess.TimeoutExpired:
        td.kill()
    log.close()


def bin_beside_app(c, name, package):
    """A workspace binary built beside the app (same target dir), else in the default target/."""
    root = os.path.dirname(os.path.dirname(HERE))
    for p in (os.path.join(os.path.dirname(c.app), name), os.path.join(root, "target", "debug", name)):
        if os.path.exists(p):
            return p
    raise AssertionError(f"{name} is not built (cargo build -p {package})")
