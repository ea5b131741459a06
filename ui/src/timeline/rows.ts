// Pure timeline logic: which rows a view shows, how a row is labelled, sizes and cut banners.
// No React here, so it is tested directly (rows.test.ts).
import type { TimelineRow } from "../bindings/TimelineRow";
import type { View } from "../bindings/View";
import type { MessageKind } from "../bindings/MessageKind";
import type { CompactionRecord } from "../bindings/CompactionRecord";

export const VIEWS: { view: View; label: string; key: string; hint: string }[] = [
  { view: "all", label: "All", key: "1", hint: "every stored message; invisible ones dimmed" },
  { view: "agent", label: "Agent", key: "2", hint: "exactly what the model receives next" },
  { view: "user", label: "User", key: "3", hint: "what the agent's UI shows the user" },
];

export function inView(row: TimelineRow, view: View): boolean {
  switch (view) {
    case "all":
      return true;
    case "agent":
      return row.agent_visible;
    case "user":
      return row.user_visible;
  }
}

/** The rows of one view, in stored order. Returns the same array for "all". */
export function rowsInView(rows: TimelineRow[], view: View): TimelineRow[] {
  return view === "all" ? rows : rows.filter((r) => inView(r, view));
}

/** Seen by the model but never shown to the user: summaries, continuations, preserved copies. */
export function isModelOnly(row: TimelineRow): boolean {
  return row.agent_visible && !row.user_visible;
}

export const KIND_LABEL: Record<MessageKind, string> = {
  ordinary: "",
  summary: "summary",
  continuation: "continuation",
  preserved_copy: "preserved copy",
  notification: "notification",
  tool_summary: "tool summary",
};

/** 1234 -> "1.2 kB"; sizes are bytes. */
/** `1 message`, `3 messages`: a count with its noun, singular for one. */
export function plural(n: number, noun: string): string {
  return `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`;
}

export function formatSize(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

export function formatTokens(n: number | null): string {
  if (n === null) return "?";
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/** The banner drawn above the first row after a cut, e.g. "cut 2 · auto · 167k → 12k". */
export function cutLabel(c: CompactionRecord, ordinal: number): string {
  const parts = [`cut ${ordinal}`];
  if (c.trigger) parts.push(c.trigger);
  if (c.pre_tokens !== null || c.post_tokens !== null)
    parts.push(`${formatTokens(c.pre_tokens)} → ${formatTokens(c.post_tokens)} tokens`);
  return parts.join(" · ");
}

/** Message index -> cut banner, for the rows that open a new context. */
export function cutsByIndex(cuts: CompactionRecord[]): Map<number, string> {
  const m = new Map<number, string>();
  cuts.forEach((c, i) => m.set(c.cut_index, cutLabel(c, i + 1)));
  return m;
}

/** Unix ms -> "2025-01-31 14:05" (local time); "" when unknown. */
export function formatTime(ms: number | null): string {
  if (ms === null) return "";
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export interface ViewCounts {
  total: number;
  agent: number;
  user: number;
  modelOnly: number;
  errors: number;
}

export function countRows(rows: TimelineRow[]): ViewCounts {
  const c: ViewCounts = { total: rows.length, agent: 0, user: 0, modelOnly: 0, errors: 0 };
  for (const r of rows) {
    if (r.agent_visible) c.agent++;
    if (r.user_visible) c.user++;
    if (isModelOnly(r)) c.modelOnly++;
    if (r.error !== null) c.errors++;
  }
  return c;
}

/** A pause at least this long shows as the gap instead of the clock time. */
export const GAP_SHOWN_MS = 60_000;

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** The time cell of a row: its clock time (HH:MM), or "+12m" after a pause of a minute or more
 * since the previous row shown; the title has the whole time and the gap. Local time. */
export function timeCell(created: number | null, previous: number | null): { text: string; title: string; gap: boolean } {
  if (created === null) return { text: "", title: "no time recorded", gap: false };
  const d = new Date(created);
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const full = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock}:${pad(d.getSeconds())}`;
  if (previous === null) return { text: clock, title: full, gap: false };
  const gap = created - previous;
  const title = `${full} · ${gap >= 0 ? `${span(gap)} after` : `${span(-gap)} before`} the previous message`;
  if (gap < GAP_SHOWN_MS) return { text: clock, title, gap: false };
  const m = Math.round(gap / 60_000);
  return { text: m < 60 ? `+${m}m` : m < 60 * 48 ? `+${Math.round(m / 60)}h` : `+${Math.round(m / 1440)}d`, title, gap: true };
}
