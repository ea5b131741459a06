import { describe, expect, it } from "vitest";
import { countRows, cutLabel, formatSize, rowsInView, timeCell } from "./rows";
import { keyAction } from "../keyboard";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { CompactionRecord } from "../bindings/CompactionRecord";

const row = (index: number, agent: boolean, user: boolean): TimelineRow => ({
  index,
  role: "user",
  kind: "ordinary",
  created: null,
  agent_visible: agent,
  user_visible: user,
  parts: [],
  error: null,
  tokens: null,
  more_parts: 0,
  size: 0,
});

describe("views", () => {
  const rows = [row(0, false, true), row(1, true, false), row(2, true, true)];
  it("agent view keeps exactly the rows the model sees, in order", () => {
    expect(rowsInView(rows, "agent").map((r) => r.index), "model-visible rows only").toEqual([1, 2]);
  });
  it("user view keeps exactly the rows the user sees", () => {
    expect(rowsInView(rows, "user").map((r) => r.index), "user-visible rows only").toEqual([0, 2]);
  });
  it("all view keeps every row", () => {
    expect(rowsInView(rows, "all"), "the palimpsest keeps everything").toBe(rows);
  });
  it("counts model-only rows", () => {
    expect(countRows(rows), "one row is seen by the model only").toEqual({ total: 3, agent: 2, user: 2, modelOnly: 1, errors: 0 });
  });
});

describe("labels", () => {
  it("formats sizes in B, kB and MB", () => {
    expect([formatSize(999), formatSize(12_345), formatSize(3_400_000)], "decimal units").toEqual(["999 B", "12.3 kB", "3.4 MB"]);
  });
  it("labels a cut with trigger and tokens before and after", () => {
    // Parsed as the IPC would deliver it, so fields added later to the record do not matter.
    const c = JSON.parse(
      '{"cut_index": 9, "trigger": "auto", "pre_tokens": 167000, "post_tokens": 12000, "summary_index": 9, "kept": [], "raw": null, "applied_index": null}',
    ) as CompactionRecord;
    expect(cutLabel(c, 2), "ordinal, trigger, before → after").toBe("cut 2 · auto · 167k → 12k tokens");
  });
});

describe("keys", () => {
  const k = (key: string, ctrlKey = false) => keyAction({ key, ctrlKey, metaKey: false, altKey: false }, 5, 10);
  it("j/k move and stop at the ends", () => {
    expect(k("j"), "j moves down").toEqual({ move: 6 });
    expect(k("k"), "k moves up").toEqual({ move: 4 });
    expect(keyAction({ key: "j", ctrlKey: false, metaKey: false, altKey: false }, 9, 10), "j stops at the last row").toEqual({ move: 9 });
  });
  it("g/G jump to the ends, 1-3 switch views, ? and Enter", () => {
    expect([k("g"), k("G")], "top and bottom").toEqual([{ move: 0 }, { move: 9 }]);
    expect([k("1"), k("2"), k("3")], "All, Agent, User").toEqual([{ view: "all" }, { view: "agent" }, { view: "user" }]);
    expect([k("?"), k("Enter"), k("o", true)], "help, open, Ctrl+O").toEqual([{ cmd: "help" }, { cmd: "open" }, { cmd: "openFile" }]);
    expect(k("x"), "unbound keys do nothing").toBeNull();
  });
  it("[ and ] jump between cuts, open them, and stop at the last one", () => {
    const at = (key: string, cursor: number) => keyAction({ key, ctrlKey: false, metaKey: false, altKey: false }, cursor, 10, [2, 7]);
    expect([at("]", 0), at("]", 2), at("]", 7)], "next cut after the cursor, none after the last").toEqual([{ move: 2, cmd: "cut" }, { move: 7, cmd: "cut" }, null]);
    expect([at("[", 9), at("[", 7), at("[", 2)], "previous cut before the cursor, none before the first").toEqual([{ move: 7, cmd: "cut" }, { move: 2, cmd: "cut" }, null]);
  });
});

describe("row times", () => {
  const at = (h: number, m: number, s = 0) => new Date(2026, 1, 11, h, m, s).getTime();
  it("show the clock, or the pause since the row above when it is a minute or more", () => {
    expect(timeCell(at(14, 2, 11), at(14, 2, 1)), "10 s after: the clock").toEqual({
      text: "14:02",
      title: "2026-02-11 14:02:11 · 10 s after the previous message",
      gap: false,
    });
    expect(timeCell(at(14, 14), at(14, 2)), "12 minutes later: the gap stands out").toMatchObject({ text: "+12m", gap: true });
    expect(timeCell(at(17, 0), at(14, 0)).text, "three hours").toBe("+3h");
    expect(timeCell(at(14, 0), null), "the first row: its clock only").toEqual({ text: "14:00", title: "2026-02-11 14:00:00", gap: false });
    expect(timeCell(null, at(14, 0)), "no time recorded").toEqual({ text: "", title: "no time recorded", gap: false });
    expect(timeCell(at(14, 0), at(14, 5)).title, "out of order: said, not hidden").toContain("5 min before the previous message");
  });
});
