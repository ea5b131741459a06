"""The window's renderer process (WebKitGTK's WebKitWebProcess) can end under the app: a crash,
or its memory limit. The app says why on stderr and loads the page again in a new renderer,
instead of leaving a blank window that answers nothing. Driven without WebDriver: its session
ends with the renderer."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

from common import check, main_app_closed

RELOADED = "the window's renderer ended (Crashed); reloading the page (1 of 3)"


def renderers(app_pid):
    """Pids of the WebKit renderer processes the app started."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                exe = f.read().split(b"\0")[0]
        except (OSError, IndexError, ValueError):
            continue
        if ppid == app_pid and exe.endswith(b"WebKitWebProcess"):
            pids.append(int(pid))
    return pids


def colours(path):
    """How many distinct colours a screenshot holds (ImageMagick): a blank window has a few, the
    app's text and controls hundreds."""
    out = subprocess.run(["convert", path, "-format", "%k", "info:"], capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


def shot(c, name):
    path = os.path.join(c.out, name)
    subprocess.run(["import", "-window", "root", path], check=True)
    return colours(path)


def stop(app):
    """End an app launched here: asked first, killed when it does not go within 10 s."""
    app.terminate()
    try:
        app.wait(timeout=10)
    except subprocess.TimeoutExpired:
        app.kill()


def wait_for(what, probe, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = probe()
        if got:
            return got
        time.sleep(0.2)
    check(False, f"timed out waiting for {what}")


def test_a_crashed_renderer_is_reloaded(c):
    log_path = os.path.join(c.out, "app-renderer.log")
    cache = tempfile.mkdtemp(prefix="palimpsest-e2e-renderer-")
    # The main app is closed, so the screen shows this window alone.
    with main_app_closed(c), open(log_path, "w") as log:
        app = subprocess.Popen([c.app, c.fixtures], stdout=log, stderr=subprocess.STDOUT,
                               env=dict(os.environ, XDG_CACHE_HOME=cache))
        try:
            first = wait_for("the app's renderer", lambda: renderers(app.pid))
            time.sleep(4)  # the page loads and lists the fixtures
            drawn = shot(c, "renderer-before.png")
            check(drawn > 100, f"the window draws the app before its renderer is killed; {drawn} colours")
            for pid in first:
                os.kill(pid, signal.SIGKILL)
            said = lambda: open(log_path, encoding="utf-8").read()  # noqa: E731 - read afresh each poll
            wait_for("the app to say its renderer ended", lambda: RELOADED in said())
            check(RELOADED in said(), f"the app names why the page reloads; its log: {said()!r}")
            again = wait_for("a new renderer", lambda: [p for p in renderers(app.pid) if p not in first])
            time.sleep(4)
            check(app.poll() is None, "the app outlives its renderer")
            redrawn = shot(c, "renderer-after.png")
            check(redrawn > 100 and redrawn > drawn // 2,
                  f"the new renderer {again} draws the app again, not a blank window: "
                  f"{redrawn} colours after, {drawn} before")
        finally:
            stop(app)
            shutil.rmtree(cache, ignore_errors=True)


# It kills the renderer itself: that crash is what it tests, never a reason to run it again.
test_a_crashed_renderer_is_reloaded.kills_the_renderer = True


def test_without_a_gpu_the_renderer_paints_on_the_cpu(c):
    """No GPU render node here (CI under Xvfb): the app sets Skia painting on the CPU at the top
    of its `main`, so its renderer never waits on a software OpenGL. A value the user set is kept
    as they set it. The app is not executed again for it: its own start-up environment (what
    /proc shows of the process as started) holds only what it was given."""
    gpu = os.path.isdir("/dev/dri") and any(n.startswith("renderD") for n in os.listdir("/dev/dri"))
    base = {k: v for k, v in os.environ.items() if not k.startswith("WEBKIT_") and k != "LIBGL_ALWAYS_SOFTWARE"}
    cache = tempfile.mkdtemp(prefix="palimpsest-e2e-painting-")
    try:
        with main_app_closed(c):
            for given, expected in ((None, None if gpu else b"1"), (b"0", b"0")):
                env = dict(base, XDG_CACHE_HOME=cache)
                if given is not None:
                    env["WEBKIT_SKIA_ENABLE_CPU_RENDERING"] = given.decode()
                app = subprocess.Popen([c.app, c.fixtures], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                try:
                    # The renderer is the child of the app's own process id.
                    pid = wait_for("the app's renderer", lambda: renderers(app.pid))[0]
                    with open(f"/proc/{app.pid}/environ", "rb") as f:
                        started = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
                    for name in (b"WEBKIT_SKIA_ENABLE_CPU_RENDERING", b"MIMALLOC_PURGE_DELAY", b"MALLOC_TRIM_THRESHOLD_"):
                        check(started.get(name) == (given if name.startswith(b"WEBKIT") else None),
                              f"the app was started with {name!r}={started.get(name)!r}: it executed itself "
                              f"again with its settings instead of making them in main")
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        vars_ = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
                    got = vars_.get(b"WEBKIT_SKIA_ENABLE_CPU_RENDERING")
                    check(got == expected,
                          f"set by the user to {given!r}, on a machine {'with' if gpu else 'without'} a GPU "
                          f"render node: the renderer paints with WEBKIT_SKIA_ENABLE_CPU_RENDERING={got!r}, "
                          f"expected {expected!r}")
                finally:
                    stop(app)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
