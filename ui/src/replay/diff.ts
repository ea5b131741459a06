// Pure logic of the Replay panel (tested in diff.test.ts): default options, what identifies a
// replayed row across two settings, which rows only one side has, and the sweep cell -> setting.
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { ReplayRow } from "../bindings/ReplayRow";
import type { SweepGrid } from "../bindings/SweepGrid";

export const DEFAULT_OPTIONS: ReplayOptions = {
  policy: "goose",
  keep_tail: 0,
  naive: false,
  manual: false,
  context_window: null,
  threshold: null,
  trigger_cap: null,
  tool_result_cap: null,
  summary_tokens: null,
  legacy: false,
  skip_summaries: false,
  tail_turns: null,
  preserve_tokens: null,
  preserve_fraction: null,
  response_budget: null,
  at_recorded: false,
};

/** Gemini CLI keeps this share of the history when `preserve_fraction` is left to its default. */
export const GEMINI_PRESERVE = 0.3;

/** Gemini CLI's threshold (Qwen Code's is 0.7: core picks it for a Qwen Code session). */
export const GEMINI_THRESHOLD = 0.5;

/** OpenCode keeps this many user turns when `tail_turns` is left to its default. */
export const OPENCODE_TAIL_TURNS = 2;

/** A row's identity across settings: what it is and which stored message it is or copies. */
export function rowKey(r: ReplayRow): string {
  return `${r.row.kind}:${r.source_index ?? "written"}`;
}

/** Positions in `side` of rows whose identity `other` does not have (counted, so duplicates pair up). */
export function onlyIn(side: ReplayRow[], other: ReplayRow[]): Set<number> {
  const left = new Map<string, number>();
  for (const r of other) left.set(rowKey(r), (left.get(rowKey(r)) ?? 0) + 1);
  const out = new Set<number>();
  for (const r of side) {
    const k = rowKey(r);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.add(r.position);
  }
  return out;
}

/** The options a sweep cell stands for: its row and column values applied to `base`. */
export function cellOptions(grid: SweepGrid, r: number, c: number, base: ReplayOptions): ReplayOptions {
  const next = { ...base };
  for (const [axis, k] of [
    [grid.rows, r],
    [grid.cols, c],
  ] as const) {
    const v = axis.values[k];
    if (v === undefined) continue;
    // OpenCode's rows are the user turns it keeps.
    if (axis.axis === "keep-tail" && base.policy === "opencode") next.tail_turns = v;
    else if (axis.axis === "keep-tail") next.keep_tail = v;
    else if (axis.axis === "trigger-cap") next.trigger_cap = v;
    else if (axis.axis === "preserve-percent") next.preserve_fraction = v / 100;
    else next.tool_result_cap = v;
  }
  return next;
}

/** Whether a sweep cell is the setting `o` (to mark it in the grid). */
export function isCell(grid: SweepGrid, r: number, c: number, o: ReplayOptions, capInForce: number): boolean {
  const at = cellOptions(grid, r, c, o);
  const cap = (x: ReplayOptions) => x.tool_result_cap ?? capInForce;
  const turns = (x: ReplayOptions) => x.tail_turns ?? OPENCODE_TAIL_TURNS;
  const kept = (x: ReplayOptions) => Math.round((x.preserve_fraction ?? GEMINI_PRESERVE) * 100);
  return at.keep_tail === o.keep_tail && turns(at) === turns(o) && kept(at) === kept(o) && at.trigger_cap === o.trigger_cap && cap(at) === cap(o);
}

/** "12k" style numbers for axis labels. */
export function short(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}
