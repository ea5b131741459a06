// The sidebar's session order: as listed (newest first for most sources), by last update, by
// severity (stuck → watch → ok, from the index's fleet rows), by cost or by compactions. Only
// top-level sessions move; subagent and compactor runs stay under their parent (`nestSessions`).
import type { SessionMeta } from "../bindings/SessionMeta";
import type { FleetRow } from "../bindings/FleetRow";

export type SessionSort = "listed" | "updated" | "severity" | "cost" | "compactions";

const RANK: Record<string, number> = { stuck: 0, watch: 1, ok: 2 };

/** True for the orders that need the index's fleet rows. */
export function needsFleet(sort: SessionSort): boolean {
  return sort === "severity" || sort === "cost";
}

export function sortSessions(sessions: SessionMeta[], sort: SessionSort, fact: (id: string) => FleetRow | undefined): SessionMeta[] {
  if (sort === "listed") return sessions;
  // `null` sorts last; ties keep the listing order.
  const key = (s: SessionMeta): number | null => {
    switch (sort) {
      case "updated":
        return s.updated === null ? null : -s.updated;
      case "compactions":
        return -s.compaction_count;
      case "severity": {
        const f = fact(s.id);
        return f ? (RANK[f.severity] ?? 3) : null;
      }
      case "cost": {
        const c = fact(s.id)?.cost_usd;
        return c === null || c === undefined ? null : -c;
      }
    }
  };
  return sessions
    .map((s, i) => ({ s, i, k: key(s) }))
    .sort((a, b) => (a.k === null && b.k === null ? a.i - b.i : a.k === null ? 1 : b.k === null ? -1 : a.k - b.k || a.i - b.i))
    .map((e) => e.s);
}
