import { describe, expect, it } from "vitest";
import { RUNNING_MS, fleetRows, withLiveRows } from "./FleetView";
import type { FleetRow } from "../bindings/FleetRow";

function row(id: string, severity: FleetRow["severity"], verdict = ""): FleetRow {
  return {
    session_id: id, format: "claude-code", messages: 10, calls: 3, compactions: 0, usable_summaries: 0, reads: 1, rereads: 0,
    rereads_after_compaction: 0, reread_rate: 0, exploration_share: 0, spill_loops: 0, verdict, stuck: severity === "stuck",
    severity, title: id, path: `/w/${id}.jsonl`, updated: null, microcompacts: 0, cost_usd: null,
  } as FleetRow;
}

describe("the fleet table, live", () => {
  it("lays each session's newest row over the fleet's, adds new ones, and keeps other sources' out", () => {
    let live = withLiveRows(new Map(), [{ source: "/w", row: row("a", "watch") }, { source: "/x", row: row("z", "stuck") }], "/w", 1000);
    live = withLiveRows(live, [{ source: "/w", row: row("a", "stuck", "3 failing calls") }, { source: "/w", row: row("n", "ok") }], "/w", 2000);
    const all = fleetRows([row("a", "ok"), row("b", "ok")], live, false, 3000);
    expect(all.map((r) => [r.session_id, r.severity, r.verdict])).toEqual([
      ["a", "stuck", "3 failing calls"],
      ["b", "ok", ""],
      ["n", "ok", ""],
    ]);
  });

  it("shows only the sessions written in the last five minutes when running", () => {
    const live = withLiveRows(new Map(), [{ source: "/w", row: row("old", "stuck") }], "/w", 0);
    const live2 = withLiveRows(live, [{ source: "/w", row: row("new", "watch") }], "/w", RUNNING_MS);
    const running = fleetRows([row("idle", "ok")], live2, true, RUNNING_MS + 1);
    expect(running.map((r) => r.session_id)).toEqual(["new"]);
  });
});
