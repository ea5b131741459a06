import { describe, expect, it } from "vitest";
import type { ReplayRow } from "../bindings/ReplayRow";
import type { SweepGrid } from "../bindings/SweepGrid";
import type { MessageKind } from "../bindings/MessageKind";
import { DEFAULT_OPTIONS, cellOptions, isCell, onlyIn } from "./diff";

function row(position: number, kind: MessageKind, source: number | null): ReplayRow {
  return {
    position,
    source_index: source,
    row: { index: source ?? position, role: "user", kind, created: null, agent_visible: true, user_visible: true, parts: [], error: null, size: 0, tokens: null, more_parts: 0 },
    tokens: 1,
    kept_tail: false,
    orphan: false,
  };
}

// seed-five: K=3 keeps 1-4 and appends the ask's copy; naive K=3 keeps 2-4.
const walk = [row(0, "summary", null), row(1, "continuation", null), row(2, "ordinary", 1), row(3, "ordinary", 2), row(4, "ordinary", 3), row(5, "ordinary", 4), row(6, "preserved_copy", 0)];
const naive = [row(0, "summary", null), row(1, "continuation", null), row(2, "ordinary", 2), row(3, "ordinary", 3), row(4, "ordinary", 4), row(5, "preserved_copy", 0)];

describe("onlyIn", () => {
  it("marks the rows the other setting lacks, by what they are and where they come from", () => {
    expect([...onlyIn(walk, naive)], "only the walk keeps the cat request (message 1, position 2)").toEqual([2]);
    expect([...onlyIn(naive, walk)], "naive keeps nothing the walk lacks").toEqual([]);
  });

  it("pairs duplicates one to one", () => {
    const two = [row(0, "summary", null), row(1, "summary", null)];
    expect([...onlyIn(two, [row(0, "summary", null)])], "the second written summary has no partner").toEqual([1]);
  });

  it("tells a preserved copy from the stored message it repeats", () => {
    expect([...onlyIn([row(0, "ordinary", 0)], [row(0, "preserved_copy", 0)])], "copy and original differ").toEqual([0]);
  });
});

const grid: SweepGrid = {
  metric: "compactions",
  rows: { axis: "keep-tail", values: [0, 3, 5] },
  cols: { axis: "tool-result-cap", values: [0, 2000, 10000] },
  values: [
    [1, 2, 3],
    [4, 5, 6],
    [7, 8, null],
  ],
  totals: [],
};

describe("sweep cells", () => {
  it("a cell sets K from its row and the cap from its column, keeping the rest", () => {
    const base = { ...DEFAULT_OPTIONS, threshold: 0.7 };
    expect(cellOptions(grid, 2, 2, base), "row 2 = K 5, column 2 = cap 10000").toEqual({ ...base, keep_tail: 5, tool_result_cap: 10000 });
  });

  it("the current setting is the cell whose values it has (cap defaults to the one in force)", () => {
    expect(isCell(grid, 1, 0, { ...DEFAULT_OPTIONS, keep_tail: 3 }, 0), "K=3 with goose's default cap (off) is row 1, column 0").toBe(true);
    expect(isCell(grid, 1, 1, { ...DEFAULT_OPTIONS, keep_tail: 3 }, 0), "not the 2000 column").toBe(false);
  });

  it("a trigger-cap row sets the coworker trigger cap", () => {
    const cw: SweepGrid = { ...grid, rows: { axis: "trigger-cap", values: [32000, 64000] } };
    expect(cellOptions(cw, 1, 0, { ...DEFAULT_OPTIONS, policy: "coworker" }).trigger_cap, "row 1 = 64000").toBe(64000);
  });

  it("under OpenCode a keep-tail row sets the user turns kept, and its default is 2", () => {
    const oc = { ...DEFAULT_OPTIONS, policy: "opencode" as const };
    const at = cellOptions(grid, 2, 0, oc);
    expect([at.tail_turns, at.keep_tail], "row 2 = 5 turns; goose's K untouched").toEqual([5, 0]);
    const two: SweepGrid = { ...grid, rows: { axis: "keep-tail", values: [1, 2, 3] } };
    expect(isCell(two, 1, 0, oc, 0), "tail_turns left to its default is the row of 2").toBe(true);
  });

  it("under Gemini a preserve-percent row sets the kept fraction, and its default is the row of 30", () => {
    const gm = { ...DEFAULT_OPTIONS, policy: "gemini" as const };
    const kept: SweepGrid = { ...grid, rows: { axis: "preserve-percent", values: [10, 30, 70] } };
    expect(cellOptions(kept, 2, 0, gm).preserve_fraction, "row 2 = 70 %").toBe(0.7);
    expect(isCell(kept, 1, 0, gm, 0), "preserve_fraction left to its default is the row of 30").toBe(true);
    expect(isCell(kept, 0, 0, gm, 0), "the row of 10 is another setting").toBe(false);
  });
});
