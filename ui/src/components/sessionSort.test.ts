import { describe, expect, it } from "vitest";
import { sortSessions } from "./sessionSort";
import { nestSessions } from "./Sidebar";
import type { SessionMeta } from "../bindings/SessionMeta";
import type { FleetRow } from "../bindings/FleetRow";

const meta = (id: string, updated: number | null, cuts: number, parent: string | null = null) =>
  ({ id, updated, compaction_count: cuts, parent_id: parent }) as unknown as SessionMeta;
const fact = (severity: string, cost: number | null) => ({ severity, cost_usd: cost }) as unknown as FleetRow;

describe("the sidebar's order", () => {
  const sessions = [meta("a", 3, 0), meta("b", 1, 4), meta("a/sub", 2, 0, "a"), meta("c", null, 1)];
  const facts = new Map([
    ["a", fact("ok", 2.5)],
    ["b", fact("stuck", null)],
    ["c", fact("watch", 0.1)],
  ]);
  const ids = (s: SessionMeta[]) => nestSessions(s).map((r) => r.s.id);
  it("by severity puts stuck first and keeps subagent runs under their parent", () => {
    expect(ids(sortSessions(sessions, "severity", (id) => facts.get(id))), "b stuck, c watch, a ok with its run").toEqual(["b", "c", "a", "a/sub"]);
  });
  it("by cost puts the dearest first and unpriced ones last", () => {
    expect(ids(sortSessions(sessions, "cost", (id) => facts.get(id))), "a $2.50, c $0.10, b no price").toEqual(["a", "a/sub", "c", "b"]);
  });
  it("by update and by compactions need no index", () => {
    expect(ids(sortSessions(sessions, "updated", () => undefined)), "newest first, undated last").toEqual(["a", "a/sub", "b", "c"]);
    expect(ids(sortSessions(sessions, "compactions", () => undefined)), "most cuts first").toEqual(["b", "c", "a", "a/sub"]);
  });
});
