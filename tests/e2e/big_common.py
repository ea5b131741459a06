"""What the parts of the 200 MB test share: the transcript's size, its listing by the CLI and the
message count the window gives, and the app processes read from /proc (which one shows a file,
what it holds, resident and private, what it has read, the CPU time it and its page used)."""

import json
import os
import re
import subprocess
import tempfile

from common import check, cli_binary

# The transcript's size in MB: 200 in the suite; `PALIMPSEST_E2E_BIG_MB=2000` measures the window
# on 2 GB by hand (the bounds above are for 200, and only printed for another size).
MB = os.environ.get("PALIMPSEST_E2E_BIG_MB", "200")
def cli_fresh(c, *args):
    """The CLI's JSON answer to `args` with a cache of its own, so no index the app made answers
    it; the cache (an index of the 200 MB file when the command indexes: about 115 MB) goes after."""
    with tempfile.TemporaryDirectory(prefix="palimpsest-e2e-") as cache:
        out = subprocess.run([cli_binary(c), *args, "--json"], check=True, capture_output=True,
                             env=dict(os.environ, XDG_CACHE_HOME=cache)).stdout
    return json.loads(out)


def listing(c, big):
    """The transcript's session as the CLI lists it (`cli_fresh`)."""
    return cli_fresh(c, "sessions", big)[0]


def messages(d):
    """The message count the status bar gives."""
    status = d.run("return document.querySelector('[data-testid=status]').textContent;")
    found = re.search(r"([\d,]+) messages", status)
    check(found, f"the status bar counts the messages; got {status!r}")
    return int(found.group(1).replace(",", ""))


def cpu_seconds(pid):
    """CPU time process `pid` has used (user + system), in seconds; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def window_processes(big):
    """The app process showing `big` and its WebKit web process (the page's)."""
    app = showing(big)
    check(len(app) == 1, f"one app process shows {big}; got {app}")
    web = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                comm, rest = f.read().rsplit(")", 1)
        except OSError:
            continue
        if rest.split()[1] == app[0] and "WebProces" in comm:
            web.append(pid)
    return app[0], (web[0] if web else None)


def memory_of(pid, field="RssAnon"):
    """A memory figure of process `pid` from /proc, in bytes: by default its private resident
    memory (`RssAnon`: not the shared libraries' pages); 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))
    except (OSError, StopIteration):
        return 0


def showing(big):
    """Pids of app processes showing `big` (other tests may leave their own app running)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"palimpsest-app") and big.encode() in argv:
            pids.append(pid)
    return pids


def app_rss(big, field="VmRSS"):
    """The resident memory of the app process showing `big`, in bytes: all of it, or with
    `RssAnon` its private part (not the shared libraries' pages: WebKitGTK, GTK and Mesa make
    about 130 MB of the 170 MB an empty window holds)."""
    pids = showing(big)
    check(len(pids) == 1, f"one app process shows {big}; got {pids}")
    return memory_of(pids[0], field)


def app_read(big):
    """Bytes the app process showing `big` has read so far (`rchar`: files, the index database,
    pipes)."""
    pids = showing(big)
    check(len(pids) == 1, f"one app process shows {big}; got {pids}")
    with open(f"/proc/{pids[0]}/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))
