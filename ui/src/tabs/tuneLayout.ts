// Where the Tune view draws each setting: the heatmap's rows and columns (two knobs that vary
// become rows and columns, in the grid's order; otherwise one row) and the Pareto chart's
// points. Pure, so tested without the window.
import type { Setting } from "../bindings/Setting";
import type { Tune } from "../bindings/Tune";

type Knob = keyof Setting;
const KNOBS: [Knob, string][] = [
  ["keep_tail", "K"],
  ["tool_result_cap", "cap"],
  ["trigger_cap", "trigger"],
  ["budget", "budget"],
  ["preserve_percent", "preserve"],
];

/** The knobs whose value differs between settings, as `tune --grid` names them. */
export function knobsOf(settings: Setting[]): string[] {
  return KNOBS.filter(([k]) => new Set(settings.map((s) => s[k])).size > 1).map(([, n]) => n);
}

export interface HeatmapLayout {
  /** Setting indices, row by row (null where the grid has no such pair). */
  rows: (number | null)[][];
  rowLabel?: (r: number) => string;
  colLabel?: (c: number) => string;
}

/** Rows and columns of the heatmap: the first varying knob down, the second across; one row
 *  of every setting when fewer or more than two knobs vary. */
export function heatmapOf(settings: Setting[]): HeatmapLayout {
  const varying = KNOBS.filter(([k]) => new Set(settings.map((s) => s[k])).size > 1);
  const [down, across] = varying;
  if (varying.length !== 2 || !down || !across) return { rows: [settings.map((_, k) => k)] };
  const [rk, rn] = down;
  const [ck, cn] = across;
  const distinct = (k: Knob) => [...new Set(settings.map((s) => s[k]))];
  const rv = distinct(rk);
  const cv = distinct(ck);
  const rows = rv.map((r) => cv.map((c) => {
    const k = settings.findIndex((s) => s[rk] === r && s[ck] === c);
    return k === -1 ? null : k;
  }));
  return { rows, rowLabel: (r) => `${rn}=${rv[r]}`, colLabel: (c) => `${cn}=${cv[c]}` };
}

/** Each setting's point: tokens carried across (left to right, `left` px in), re-reads spared
 *  up (`bottom` px above the foot), scaled to a `w` × `h` chart. */
export function paretoPoints(t: Tune, w: number, h: number, left: number, bottom: number): { x: number; y: number }[] {
  const tokens = t.settings.map((s) => s.tokens_carried);
  const lo = Math.min(...tokens);
  const span = Math.max(1, Math.max(...tokens) - lo);
  const most = Math.max(1, ...t.settings.map((s) => s.avoided));
  const [x0, x1, y0, y1] = [left + 8, w - 10, h - bottom - 6, 12];
  return t.settings.map((s) => ({
    x: Math.round(x0 + ((s.tokens_carried - lo) / span) * (x1 - x0)),
    y: Math.round(y0 - (s.avoided / most) * (y0 - y1)),
  }));
}
