// The bottom bar's status line for the open session: what is loading or failed, what is still
// being read, and the counts of the view (App.tsx puts the live notes before it).
import type { Problem } from "../bindings/Problem";
import type { Timeline } from "../bindings/Timeline";
import type { View } from "../bindings/View";
import { formatSize, type ViewCounts } from "./rows";

export interface StatusOf {
  loading: boolean;
  error: Problem | null;
  timeline: Timeline | null;
  counts: ViewCounts;
  view: View;
  /** Rows in the current view. */
  shown: number;
  rowsIn: { have: number; total: number } | null;
  /** The sources are still being looked for. */
  looking: boolean;
}

export function statusLine({ loading, error, timeline, counts, view, shown, rowsIn, looking }: StatusOf): string {
  if (loading) return "Loading session…";
  if (error) return `Error (${error.code}): ${error.message}`;
  if (!timeline) return looking ? "Looking for sessions…" : "Ready";
  // What is still being read first: a long status line is cut at the window's edge.
  return (
    (timeline.grown_bytes ? `Reading the ${formatSize(timeline.grown_bytes)} written since it was indexed… · ` : "") +
    (timeline.unread_bytes ? `First lines shown; reading the other ${formatSize(timeline.unread_bytes)}… · ` : "") +
    `${counts.total} messages · ${counts.agent} seen by the model · ${counts.user} seen by the user · ${counts.modelOnly} model-only` +
    `${counts.errors ? ` · ${counts.errors} unreadable` : ""} · ${view} view: ${shown} rows` +
    (rowsIn ? ` · reading rows ${rowsIn.have.toLocaleString()} / ${rowsIn.total.toLocaleString()}…` : "") +
    (timeline.from_index ? " · rows from the index" : "")
  );
}
