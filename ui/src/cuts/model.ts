// Pure logic of the cut views: cut labels, where each cut lands in a view's rows, the ribbon's
// density bins, finding badges per message and file mentions in a summary. No React here, so
// it is tested directly (model.test.ts). The data comes from core (`get_cuts`, `get_cut`, `get_request`).
import type { CutBrief } from "../bindings/CutBrief";
import type { CutDetail } from "../bindings/CutDetail";
import type { Finding } from "../bindings/Finding";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { FindingKind } from "../bindings/FindingKind";
import { formatTokens } from "../timeline/rows";

/**
 * Tokens before → after: what the agent recorded, else our count. Before the session is
 * counted that is the estimate (chars / 4), marked "≈"; once counted, the same BPE count the
 * Tokens tab and the ribbon show, unmarked:
 * "167k → 12k tokens", "167k → ≈9k tokens", "≈64 → ≈174 tokens (estimate)", "70 → 181 tokens (BPE o200k_base)".
 */
export function cutTokens(c: CutBrief): string {
  const a = c.anatomy;
  const estimated = a.token_method.startsWith("estimate");
  const side = (recorded: number | null, counted: number) =>
    recorded !== null ? formatTokens(recorded) : `${estimated ? "≈" : ""}${formatTokens(counted)}`;
  const text = `${side(a.pre_tokens, a.pre_tokens_counted)} → ${side(a.post_tokens, a.post_tokens_counted)} tokens`;
  return a.pre_tokens === null && a.post_tokens === null ? `${text} (${estimated ? "estimate" : a.token_method})` : text;
}

/** The rule drawn in the timeline and the ribbon's label: "cut 1 · auto · 167k → 12k tokens". */
export function cutRuleLabel(c: CutBrief, ordinal: number): string {
  return [`cut ${ordinal}`, c.anatomy.trigger ?? "trigger not recorded", cutTokens(c)].join(" · ");
}

/**
 * Position in `rows` of the row each cut opens: the first row at or after its cut index (in the
 * Agent view the boundary line itself may be hidden). Of cuts that land on the same row the
 * latest is kept (it produced what follows); cuts after the last row are left out; the result is
 * in cut order.
 */
export function cutPositions(cuts: CutBrief[], rows: TimelineRow[]): { ordinal: number; position: number }[] {
  const out: { ordinal: number; position: number }[] = [];
  let p = 0;
  cuts.forEach((c, ordinal) => {
    while (p < rows.length && rows[p]!.index < c.anatomy.cut_index) p++;
    if (p >= rows.length) return;
    // Several cuts on one row (the agent view starts after all of them): the latest is the one
    // that produced what follows, so it wins.
    const last = out[out.length - 1];
    if (last?.position === p) last.ordinal = ordinal;
    else out.push({ ordinal, position: p });
  });
  return out;
}

/** Message index of a view row -> the cut banner drawn above it. */
export function cutBanners(cuts: CutBrief[], rows: TimelineRow[]): Map<number, string> {
  const m = new Map<number, string>();
  for (const { ordinal, position } of cutPositions(cuts, rows)) {
    m.set(rows[position]!.index, cutRuleLabel(cuts[ordinal]!, ordinal + 1));
  }
  return m;
}

export interface RibbonBin {
  /** First stored position in the bin. */
  start: number;
  /** Tokens of the messages in the bin: BPE where the row carries its count (rows from the
   * index), else the estimate bytes / 4. */
  tokens: number;
  /** 0..1: sqrt of tokens against the densest bin. */
  density: number;
  /** Messages in the bin the model still sees. */
  visible: number;
  count: number;
}

/** True when every row carries its BPE count (the ribbon then says tokens, not an estimate). */
export function allCounted(rows: TimelineRow[]): boolean {
  return rows.length > 0 && rows.every((r) => r.tokens !== null);
}

/** The session cut into `bins` equal runs of stored messages, each with its tokens. */
export function ribbonBins(rows: TimelineRow[], bins: number): RibbonBin[] {
  const n = Math.max(1, Math.min(bins, rows.length));
  const out: RibbonBin[] = Array.from({ length: n }, (_, i) => ({
    start: Math.floor((i * rows.length) / n),
    tokens: 0,
    density: 0,
    visible: 0,
    count: 0,
  }));
  rows.forEach((r, p) => {
    const b = out[Math.min(n - 1, Math.floor((p * n) / rows.length))]!;
    b.tokens += r.tokens ?? Math.ceil(r.size / 4);
    b.count++;
    if (r.agent_visible) b.visible++;
  });
  const max = Math.max(1, ...out.map((b) => b.tokens));
  // Square root: one huge tool result must not flatten every other bin to nothing.
  for (const b of out) b.density = Math.sqrt(b.tokens / max);
  return out;
}

/**
 * The first position of `rows` (in stored order) whose message index is `storedIndex` or later;
 * `rows.length` when there is none. A binary search: the ribbon places every cut with it, and a
 * 2 GB session has 757 cuts over 265 000 rows (a scan for each blocked the window for 1.6 s).
 */
export function firstAtOrAfter(rows: TimelineRow[], storedIndex: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.index < storedIndex) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Stored position (0-based) of the cut on the ribbon, as a fraction of the session. */
export function fractionOf(storedIndex: number, rows: TimelineRow[]): number {
  if (rows.length === 0) return 0;
  return firstAtOrAfter(rows, storedIndex) / rows.length;
}

/** The row of `view` to show for a click at `fraction` of the whole session (`all`). */
export function positionAt(fraction: number, all: TimelineRow[], view: TimelineRow[]): number {
  if (view.length === 0 || all.length === 0) return -1;
  const stored = all[Math.min(all.length - 1, Math.max(0, Math.floor(fraction * all.length)))]!.index;
  return Math.min(firstAtOrAfter(view, stored), view.length - 1);
}

export const FINDING_LABEL: Record<FindingKind, string> = {
  orphan_result: "orphan tool result",
  unanswered_call: "unanswered tool call",
  duplicate_id: "duplicate tool id",
  misplaced_result: "misplaced tool result",
};

/** Message index -> a short badge text naming its pairing problems (both APIs merged). */
export function findingBadges(findings: Finding[]): Map<number, string> {
  const kinds = new Map<number, Set<FindingKind>>();
  for (const f of findings) {
    const s = kinds.get(f.message_index) ?? new Set<FindingKind>();
    s.add(f.kind);
    kinds.set(f.message_index, s);
  }
  const m = new Map<number, string>();
  for (const [i, s] of kinds) m.set(i, [...s].map((k) => FINDING_LABEL[k]).join(", "));
  return m;
}

/** One finding per (kind, message, call) with the texts of every API that reports it. */
export function groupFindings(findings: Finding[]): { key: string; first: Finding; byApi: Finding[] }[] {
  const groups = new Map<string, { key: string; first: Finding; byApi: Finding[] }>();
  for (const f of findings) {
    const key = `${f.kind}:${f.message_index}:${f.call_id}`;
    const g = groups.get(key);
    if (g) g.byApi.push(f);
    else groups.set(key, { key, first: f, byApi: [f] });
  }
  return [...groups.values()].sort((a, b) => a.first.message_index - b.first.message_index);
}

/**
 * `text` split into plain and matched pieces for the file names in `names` (longest first, so
 * `test_store.py` is not matched as `store.py`); rendered as text nodes and <mark>s.
 */
export function splitMentions(text: string, names: string[]): { text: string; mark: boolean }[] {
  const wanted = [...new Set(names.filter((n) => n.length > 0))].sort((a, b) => b.length - a.length);
  const out: { text: string; mark: boolean }[] = [];
  let i = 0;
  let plain = "";
  while (i < text.length) {
    const hit = wanted.find((n) => text.startsWith(n, i) && !/[\w.-]/.test(text[i - 1] ?? " "));
    if (hit) {
      if (plain) out.push({ text: plain, mark: false });
      plain = "";
      out.push({ text: hit, mark: true });
      i += hit.length;
    } else {
      plain += text[i];
      i++;
    }
  }
  if (plain) out.push({ text: plain, mark: false });
  return out;
}

/** The last path segment: what a summary usually writes. */
export function baseName(path: string): string {
  return path.split("/").pop() ?? path;
}

/** Message index -> the files it carried (for highlighting carriers in the columns). */
export function carriedFiles(files: CutDetail["files"]): Map<number, string[]> {
  const m = new Map<number, string[]>();
  for (const f of files)
    for (const i of [...f.dropped_carriers, ...f.kept_carriers]) m.set(i, [...(m.get(i) ?? []), f.path]);
  return m;
}

/**
 * The messages a column draws: all of them up to `max`, else the first and last `max / 2` and
 * every file carrier in between, with the size of each gap (the timeline holds them all).
 */
export function thinColumn(indices: number[], carriers: Map<number, string[]>, max = 300): ({ index: number } | { gap: number })[] {
  if (indices.length <= max) return indices.map((index) => ({ index }));
  const half = Math.floor(max / 2);
  const out: ({ index: number } | { gap: number })[] = [];
  let gap = 0;
  indices.forEach((index, i) => {
    if (i < half || i >= indices.length - half || carriers.has(index)) {
      if (gap) out.push({ gap });
      gap = 0;
      out.push({ index });
    } else gap++;
  });
  return out;
}

/** Average width of a ribbon label character at its 10.5 px bold font, in px. */
export const LABEL_CHAR_PX = 6.5;

/** What each cut mark on a ribbon `widthPx` wide can say without running into the next mark
 * (or past the strip's end): its full label, else its short one, else nothing (its title still
 * names it). `marks` are fractions of the strip, in order. */
export function ribbonLabels(marks: number[], widthPx: number, full: string[], short: string[]): string[] {
  return marks.map((m, i) => {
    const next = i + 1 < marks.length ? marks[i + 1]! : 1;
    // The label starts 9 px right of its mark and needs a little air before the next one.
    const room = (next - m) * widthPx - 12;
    const fits = (t: string) => t.length * LABEL_CHAR_PX <= room;
    if (fits(full[i] ?? "")) return full[i] ?? "";
    if (fits(short[i] ?? "")) return short[i] ?? "";
    return "";
  });
}
