// Pure helpers of the Tokens tab (tested in format.test.ts): category labels as the charts
// print them, number formats, the order the share chart draws its bars in, and which chart row
// or request lies under the pointer (in the SVG's own pixels, from the layout charts/*.rs use).
import type { CategoryTotals } from "../bindings/CategoryTotals";
import type { CategoryShare } from "../bindings/CategoryShare";
import type { UsageComparison } from "../bindings/UsageComparison";

export const CATEGORY_LABEL: Record<string, string> = {
  system: "System / instructions",
  user_text: "User text",
  assistant_text: "Assistant text",
  thinking: "Thinking",
  tool_call_arguments: "Tool-call arguments",
  file_writes: "Whole-file writes",
  edits: "Edit bodies",
  tool_results: "Tool results",
  summaries: "Summaries / compaction",
  other: "Other",
};

/** 12345 -> "12,345". */
export function thousands(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** 0.1234 -> "12.3%". */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** The categories with tokens, largest first, ties in the stored order: the share chart's bars. */
export function barOrder(totals: CategoryTotals): CategoryShare[] {
  return totals.categories
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.tokens > 0)
    .sort((a, b) => b.c.tokens - a.c.tokens || a.i - b.i)
    .map(({ c }) => c);
}

/** Row `i` of a bar chart whose rows start at `top` and are `row` pixels tall, or -1. */
export function rowAt(y: number, top: number, row: number, count: number): number {
  const i = Math.floor((y - top) / row);
  return y >= top && i < count ? i : -1;
}

// charts/area.rs: margin 14, y labels 70 wide, margin right 24, on a 960-pixel-wide chart.
const AREA_LEFT = 14 + 70;
const AREA_RIGHT = 960 - 14 - 24;

/** The request nearest to x on the per-request chart of `count` requests, or -1 off the plot. */
export function requestAt(x: number, count: number): number {
  if (count === 0 || x < AREA_LEFT - 4 || x > AREA_RIGHT + 4) return -1;
  const xMax = Math.max(count, 2) - 1;
  const r = Math.round(((x - AREA_LEFT) / (AREA_RIGHT - AREA_LEFT)) * xMax);
  return Math.max(0, Math.min(count - 1, r));
}

/** The sentence under the recorded-usage table. */
export function usageNote(u: UsageComparison): string {
  if (u.recorded_context === null || u.difference === null)
    return "The source recorded usage but not the context of a request, so there is nothing to compare.";
  const pct = u.difference_share === null ? "" : ` (${u.difference > 0 ? "+" : ""}${percent(u.difference_share)})`;
  if (u.difference > 0)
    return `Our estimate is ${thousands(u.difference)} tokens above the recorded context${pct}: counting differs by vocabulary and framing.`;
  if (u.difference < 0)
    return (
      `Our estimate is ${thousands(-u.difference)} tokens below the recorded context${pct}. Transcripts do not store ` +
      "the system prompt or the tool definitions the agent sent, so the recorded context includes tokens no transcript shows."
    );
  return "Our estimate equals the recorded context.";
}
