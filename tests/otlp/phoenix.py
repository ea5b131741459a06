"""`palimpsest export --otlp` into a real Arize Phoenix started here, read back.

Phoenix (PyPI `arize-phoenix`) serves OTLP/HTTP on loopback with its data in a scratch folder;
the CLI sends the fixtures and two real transcripts (a Claude Code session with a compaction and
two subagent runs, a Codex rollout) to it. Then Phoenix's own REST API is asked for every span,
and each is checked against:
- the same export written as OTLP/JSON (`--otlp-file`): every span arrived, with its trace,
  parent, name, kind of operation and GenAI attributes;
- the CLI's other views of the same sessions: one `chat` span per request `context` numbers,
  each with the context size `context --request N` gives; one compaction event per cut of
  `compactions`, with its dropped count and trigger; `gen_ai.conversation.compacted` exactly on
  the requests after a cut; the price `tokens` gives;
- `--no-bodies`: no message text, argument or result reaches Phoenix.

    python3 tests/otlp/phoenix.py --cli target/debug/palimpsest --phoenix VENV/bin/phoenix \
        --fixtures fixtures
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

REAL = "real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
CODEX = "real/codex/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl"
# Sessions of other harnesses, each with compactions of its own kind.
OTHERS = ["goose", "opencode", "gemini"]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phoenix:
    """A Phoenix server on loopback ports of its own, its data in a scratch folder."""

    def __init__(self, exe, scratch):
        self.port = free_port()
        env = dict(os.environ, PHOENIX_WORKING_DIR=os.path.join(scratch, "phoenix"),
                   PHOENIX_HOST="127.0.0.1", PHOENIX_PORT=str(self.port),
                   PHOENIX_GRPC_PORT=str(free_port()), PHOENIX_TELEMETRY_ENABLED="false")
        self.log = open(os.path.join(scratch, "phoenix.log"), "w")
        self.proc = subprocess.Popen([exe, "serve"], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 180
        while time.time() < deadline:
            check(self.proc.poll() is None, f"Phoenix exited early (log: {self.log.name})")
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        raise AssertionError("Phoenix did not answer /healthz within 180 s")

    def spans(self, project="default"):
        out, cursor = [], None
        while True:
            url = f"{self.base}/v1/projects/{project}/spans?limit=1000" + (f"&cursor={cursor}" if cursor else "")
            d = json.load(urllib.request.urlopen(url, timeout=60))
            out += d["data"]
            cursor = d.get("next_cursor")
            if not cursor:
                return out

    def wait_for(self, n, project="default"):
        """Phoenix inserts in the background: wait until it holds `n` spans."""
        deadline = time.time() + 120
        while True:
            got = self.spans(project)
            if len(got) >= n or time.time() > deadline:
                return got
            time.sleep(1)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    check(p.returncode == 0, f"palimpsest {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout) if "--json" in args else p.stdout


def attrs(kvs):
    """OTLP/JSON attributes as a dict of plain values."""
    out = {}
    for kv in kvs:
        v = kv["value"]
        if "stringValue" in v:
            out[kv["key"]] = v["stringValue"]
        elif "intValue" in v:
            out[kv["key"]] = int(v["intValue"])
        elif "doubleValue" in v:
            out[kv["key"]] = v["doubleValue"]
        elif "boolValue" in v:
            out[kv["key"]] = v["boolValue"]
        elif "arrayValue" in v:
            out[kv["key"]] = [x.get("stringValue") for x in v["arrayValue"].get("values", [])]
    return out


def file_spans(path):
    """Every span of an OTLP/JSON lines file, with its attributes and events as dicts."""
    out = []
    with open(path) as f:
        for line in f:
            for rs in json.loads(line)["resourceSpans"]:
                resource = attrs(rs["resource"]["attributes"])
                for ss in rs["scopeSpans"]:
                    for s in ss["spans"]:
                        s["attrs"] = attrs(s.get("attributes", []))
                        s["resource"] = resource
                        s["eventList"] = [dict(e, attrs=attrs(e.get("attributes", []))) for e in s.get("events", [])]
                        out.append(s)
    return out


GENAI = ["gen_ai.operation.name", "gen_ai.conversation.id", "gen_ai.request.model", "gen_ai.provider.name",
         "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens",
         "gen_ai.usage.cache_creation.input_tokens", "gen_ai.conversation.compacted", "gen_ai.tool.name",
         "gen_ai.tool.call.id", "palimpsest.request.number", "palimpsest.request.context_messages",
         "palimpsest.cost.usd", "palimpsest.session.requests", "palimpsest.session.compactions"]


def compare(sent, stored, label):
    """Every span written to the file is in Phoenix with the same trace, parent, name and attributes."""
    by_id = {(s["context"]["trace_id"], s["context"]["span_id"]): s for s in stored}
    check(len(by_id) == len(stored), f"{label}: Phoenix holds no span twice")
    for s in sent:
        got = by_id.get((s["traceId"], s["spanId"]))
        check(got is not None, f"{label}: span {s['name']} {s['spanId']} of trace {s['traceId']} reached Phoenix")
        check(got["name"] == s["name"], f"{label}: {s['spanId']} is named {s['name']!r}; Phoenix has {got['name']!r}")
        check((got["parent_id"] or "") == s["parentSpanId"],
              f"{label}: {s['name']} has parent {s['parentSpanId']!r}; Phoenix has {got['parent_id']!r}")
        for key in GENAI:
            if key in s["attrs"]:
                check(got["attributes"].get(key) == s["attrs"][key],
                      f"{label}: {s['name']} {key} = {s['attrs'][key]!r}; Phoenix has {got['attributes'].get(key)!r}")
    return by_id


def check_session(cli, root, sent, by_id):
    """The spans of one session (its `invoke_agent` span `root`) against the CLI's own views of
    the same session."""
    sid = root["attrs"]["gen_ai.conversation.id"]
    path = root["attrs"]["palimpsest.session.path"]
    pick = ["--session", sid]
    ctx = run(cli, "context", path, *pick, "--request", "1", "--json")
    mine = [s for s in sent if s["traceId"] == root["traceId"]]
    billed = [s for s in mine if s["attrs"]["gen_ai.operation.name"] == "chat"]
    # A request billed outside the conversation's turns (a compactor's summary call) has a span
    # of its own, named by the message that recorded it.
    chats = sorted((s for s in billed if "palimpsest.request.number" in s["attrs"]),
                   key=lambda s: s["attrs"]["palimpsest.request.number"])
    for s in billed:
        if s not in chats:
            check(s["attrs"]["palimpsest.request.message_kind"] != "ordinary",
                  f"{path}: a span outside the turns is for a message of another kind: {s['attrs']}")
    answered = ctx["requests"] - 1  # `context` counts the next request too
    check(len(chats) == answered, f"{path}: {answered} answered requests; {len(chats)} chat spans")
    cuts = run(cli, "compactions", path, *pick, "--json")["compactions"]
    after = {c["cut_index"] for c in cuts}
    for n in sorted({1, len(chats) // 2, len(chats)} - {0}) if chats else []:
        c = run(cli, "context", path, *pick, "--request", str(n), "--json")
        a = chats[n - 1]["attrs"]
        held = len(c["messages"])
        check(a["palimpsest.request.context_messages"] == held,
              f"{path} request {n}: context holds {held} messages; the span says {a['palimpsest.request.context_messages']}")
        check(a["palimpsest.request.answer_index"] == c["answer_index"], f"{path} request {n}: answer index")
        check(a["gen_ai.conversation.compacted"] == (c["after_cut"] is not None),
              f"{path} request {n}: compacted is {a['gen_ai.conversation.compacted']}, after cut {c['after_cut']}")
        if "gen_ai.input.messages" in a:
            view = json.loads(a["gen_ai.input.messages"])
            check(len(view) == held, f"{path} request {n}: {len(view)} input messages, context says {held}")
            roles = {"system": {"system"}, "assistant": {"assistant"}, "user": {"user", "tool"}, "tool": {"tool"}}
            check(all(v["role"] in roles[m["role"]] for v, m in zip(view, c["messages"])),
                  f"{path} request {n}: each message of the view has its context message's role")
            stored = by_id[(chats[n - 1]["traceId"], chats[n - 1]["spanId"])]["attributes"]
            check(stored.get("gen_ai.input.messages") == a["gen_ai.input.messages"],
                  f"{path} request {n}: Phoenix holds the model's view as sent")
    roots = [s for s in mine if s["attrs"]["gen_ai.operation.name"] == "invoke_agent"]
    check(len(roots) == 1, f"{path}: one invoke_agent span for the session; got {len(roots)}")
    events = [e for e in roots[0]["eventList"] if e["name"] == "palimpsest.compaction"]
    check(len(events) == len(cuts), f"{path}: {len(cuts)} compactions; {len(events)} events")
    for e, c in zip(events, cuts):
        check(e["attrs"]["palimpsest.compaction.cut_index"] == c["cut_index"], f"{path}: event cut {e['attrs']}")
        check(e["attrs"]["palimpsest.compaction.dropped_messages"] == c["dropped_count"],
              f"{path} cut {c['cut_index']}: dropped {c['dropped_count']}; event says {e['attrs']['palimpsest.compaction.dropped_messages']}")
        if c.get("trigger"):
            check(e["attrs"].get("palimpsest.compaction.trigger") == c["trigger"], f"{path} cut {c['cut_index']}: trigger")
    stored_root = by_id[(roots[0]["traceId"], roots[0]["spanId"])]
    stored_events = [e for e in stored_root.get("events", []) if e["name"] == "palimpsest.compaction"]
    check(len(stored_events) == len(cuts), f"{path}: Phoenix holds {len(stored_events)} compaction events of {len(cuts)}")
    compacted = [s["attrs"]["palimpsest.request.number"] for s in chats if s["attrs"]["gen_ai.conversation.compacted"]]
    first_after = min((s["attrs"]["palimpsest.request.number"] for s in chats
                       if s["attrs"].get("palimpsest.request.after_cut") in after), default=None)
    check(compacted == ([] if first_after is None else list(range(first_after, len(chats) + 1))),
          f"{path}: compacted from the first request after a cut on; got {compacted[:5]}…")
    tokens = run(cli, "tokens", path, *pick, "--json")
    usd = (tokens.get("cost") or {}).get("total_usd")
    if usd is not None:
        got = round(sum(s["attrs"].get("palimpsest.cost.usd", 0) for s in billed), 6)
        check(abs(got - usd) < 0.000001 * max(1, len(billed)), f"{path}: requests cost ${got}; tokens says ${usd}")
    return len(chats), len(cuts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--phoenix", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    cli, fx = os.path.abspath(a.cli), os.path.abspath(a.fixtures)
    scratch = tempfile.mkdtemp(prefix="palimpsest-phoenix-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(scratch, "cache")
    t0 = time.time()
    phoenix = Phoenix(a.phoenix, scratch)
    print(f"phoenix up on port {phoenix.port} in {time.time() - t0:.1f}s")
    url = phoenix.base + "/v1/traces"
    try:
        inputs = [os.path.join(fx, p) for p in [REAL, CODEX] + OTHERS]
        sent = []
        for path in inputs:
            out = os.path.join(scratch, f"{len(sent)}.jsonl")
            wrote = run(cli, "export", "--otlp-file", out, path, "--json")["otlp"]
            told = run(cli, "export", "--otlp", url, path, "--json")["otlp"]
            check(told["spans"] == wrote["spans"] and told["sessions"] == wrote["sessions"],
                  f"{path}: the same spans sent as written ({told} / {wrote})")
            check(not told["problems"], f"{path}: no problem; got {told['problems']}")
            spans = file_spans(out)
            check(len(spans) == wrote["spans"], f"{path}: {wrote['spans']} spans said, {len(spans)} written")
            check(all(s["resource"]["palimpsest.otlp.mapping"] == 1 for s in spans), f"{path}: mapping version 1")
            sent.append((path, spans, wrote))
        total = sum(len(s) for _, s, _ in sent)
        stored = phoenix.wait_for(total)
        check(len(stored) == total, f"Phoenix holds {len(stored)} spans of the {total} sent")
        everything = [s for _, spans, _ in sent for s in spans]
        by_id = compare(everything, stored, "all")
        for path, spans, wrote in sent:
            roots = [s for s in spans if s["attrs"]["gen_ai.operation.name"] == "invoke_agent"]
            check(len(roots) == wrote["sessions"], f"{path}: one invoke_agent span per session")
            requests = cuts = 0
            for root in roots:
                r, c = check_session(cli, root, spans, by_id)
                requests, cuts = requests + r, cuts + c
            check(requests == wrote["requests"] and cuts == wrote["compactions"],
                  f"{path}: {requests} requests and {cuts} compactions checked; the export says {wrote}")
            print(f"ok {os.path.relpath(path, fx)}: {wrote['sessions']} sessions, {wrote['spans']} spans,"
                  f" {requests} requests, {cuts} compactions")
        # Without bodies: nothing the session said reaches the receiver.
        quiet = os.path.join(scratch, "quiet.jsonl")
        run(cli, "export", "--otlp-file", quiet, "--no-bodies", os.path.join(fx, REAL), "--json")
        leaked = [k for s in file_spans(quiet) for k in s["attrs"]
                  if k in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                           "gen_ai.tool.call.result")]
        leaked += [k for s in file_spans(quiet) for e in s["eventList"] for k in e["attrs"] if k == "palimpsest.compaction.summary"]
        check(not leaked, f"--no-bodies leaves bodies out; found {sorted(set(leaked))}")
        print(f"ok --no-bodies: no message text in {len(file_spans(quiet))} spans")
        # A receiver that is not there: one clear error naming it, exit 2.
        p = subprocess.run([cli, "export", "--otlp", f"http://127.0.0.1:{free_port()}/v1/traces",
                            os.path.join(fx, REAL)], capture_output=True, text=True)
        check(p.returncode == 2 and "cannot send traces to http://127.0.0.1:" in p.stderr,
              f"an unreachable collector exits 2 naming it; got {p.returncode}: {p.stderr!r}")
        print(f"phoenix: {total} spans checked in {time.time() - t0:.1f}s")
    finally:
        phoenix.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL {e}")
        sys.exit(1)
