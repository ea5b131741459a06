// Sorting the fleet table by any column: a pure function so the order is tested without a
// window. Severity sorts stuck → watch → ok; sessions without a cost sort last either way.
import type { FleetRow } from "../bindings/FleetRow";

export type FleetKey = "severity" | "session" | "format" | "calls" | "reread_rate" | "compactions" | "usable" | "cost" | "updated" | "verdict";
export type SortDir = "asc" | "desc";

const SEVERITY_RANK: Record<string, number> = { stuck: 0, watch: 1, ok: 2 };

/** The value a row sorts by; `null` always sorts last. */
function value(r: FleetRow, key: FleetKey): number | string | null {
  switch (key) {
    case "severity":
      return SEVERITY_RANK[r.severity] ?? 3;
    case "session":
      return r.title.toLowerCase();
    case "format":
      return r.format;
    case "calls":
      return r.calls;
    case "reread_rate":
      return r.reread_rate;
    case "compactions":
      return r.compactions;
    case "usable":
      return r.compactions ? r.usable_summaries / r.compactions : null;
    case "cost":
      return r.cost_usd;
    case "updated":
      return r.updated;
    case "verdict":
      return r.verdict.toLowerCase();
  }
}

/** The rows sorted by `key`; ties keep the order core gave (stuck first, most re-reads first). */
export function sortFleet(rows: FleetRow[], key: FleetKey, dir: SortDir): FleetRow[] {
  const sign = dir === "asc" ? 1 : -1;
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const x = value(a.r, key);
      const y = value(b.r, key);
      if (x === null && y === null) return a.i - b.i;
      if (x === null) return 1;
      if (y === null) return -1;
      const c = x < y ? -1 : x > y ? 1 : 0;
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((e) => e.r);
}

/** The direction a first click on a column sorts in: numbers and dates biggest first. */
export function firstDir(key: FleetKey): SortDir {
  return key === "session" || key === "format" || key === "verdict" || key === "severity" ? "asc" : "desc";
}

/** `$0.14`, `$11.14`, `<$0.01`; `—` without a price. */
export function dollars(usd: number | null): string {
  if (usd === null) return "—";
  if (usd > 0 && usd < 0.01) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}
