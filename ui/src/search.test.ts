import { describe, expect, it } from "vitest";
import { hitTarget } from "./search";
import { splitSnippet } from "./components/SearchDialog";
import { sortFleet } from "./tabs/fleetSort";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { FleetRow } from "./bindings/FleetRow";

const group = (path: string, sessions: [string, string][]) => ({ path, sessions: sessions.map(([id, p]) => ({ id, path: p })) }) as unknown as SourceGroup;

describe("search hits", () => {
  it("open in the group showing the session, preferring the one reading the hit's file", () => {
    const sources = [group("/a", [["s1", "/a/x.jsonl"]]), group("/b", [["s1", "/b/s1.jsonl"], ["s2", "/b/s2.jsonl"]])];
    expect(hitTarget(sources, { session_id: "s1", path: "/b/s1.jsonl" }), "same id in two sources: the one whose file matches").toEqual({ path: "/b", id: "s1" });
    expect(hitTarget(sources, { session_id: "s1", path: "/elsewhere/s1.jsonl" }), "no file match: the first source holding the id").toEqual({ path: "/a", id: "s1" });
    expect(hitTarget(sources, { session_id: "gone", path: "/x" }), "a session no source shows opens nothing").toBeNull();
  });

  it("mark the match by characters, not UTF-16 units", () => {
    // "😀 " is two UTF-16 units but one character: core's offsets count characters.
    expect(splitSnippet({ snippet: "😀 store.py here", match_start: 2, match_end: 10 }), "the match is store.py").toEqual(["😀 ", "store.py", " here"]);
  });
});

describe("the fleet table", () => {
  const row = (id: string, severity: string, cost: number | null, calls: number) => ({ session_id: id, title: id, severity, cost_usd: cost, calls, verdict: id, compactions: 0, usable_summaries: 0 }) as unknown as FleetRow;
  const rows = [row("a", "ok", 1.5, 3), row("b", "stuck", null, 9), row("c", "watch", 0.2, 1)];
  it("sorts stuck first, then watch, then ok", () => {
    expect(sortFleet(rows, "severity", "asc").map((r) => r.session_id), "severity order").toEqual(["b", "c", "a"]);
  });
  it("sorts by cost with unpriced sessions last either way", () => {
    expect(sortFleet(rows, "cost", "desc").map((r) => r.session_id), "dearest first; no price last").toEqual(["a", "c", "b"]);
    expect(sortFleet(rows, "cost", "asc").map((r) => r.session_id), "cheapest first; no price still last").toEqual(["c", "a", "b"]);
  });
  it("sorts by calls", () => {
    expect(sortFleet(rows, "calls", "desc").map((r) => r.session_id), "most calls first").toEqual(["b", "a", "c"]);
  });
});
