import { describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { applyToSources, applyToTimeline, caughtUp, mergeRows, useSettled } from "./live";
import type { Timeline } from "./bindings/Timeline";
import type { TimelineRow } from "./bindings/TimelineRow";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { SessionMeta } from "./bindings/SessionMeta";

const row = (index: number, agent = true, user = true): TimelineRow => ({
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
const meta = (id: string): SessionMeta => ({
  id,
  format: "goose",
  path: "/db",
  name: id,
  working_dir: null,
  created: null,
  updated: null,
  model: null,
  context_limit: null,
  usage: null,
  message_count: 0,
  compaction_count: 0,
});
const timeline = (n: number): Timeline => ({ meta: meta("live-1"), rows: Array.from({ length: n }, (_, i) => row(i)), compactions: [], from_index: false, total_rows: n, first_row: 0, grown_bytes: 0 });

describe("live events", () => {
  it("appends each row once even when an event repeats or overlaps a load", () => {
    let t = timeline(3);
    const ev = { event: "appended" as const, path: "/d", session_id: "live-1", rows: [row(2), row(3), row(4)] };
    t = applyToTimeline(t, "/d", ev);
    t = applyToTimeline(t, "/d", ev);
    expect(t.rows.map((r) => r.index), "rows 0-4 once each, in order").toEqual([0, 1, 2, 3, 4]);
    expect(t.meta.message_count, "the count follows").toBe(5);
  });

  it("ignores events of other sessions and sources", () => {
    const t = timeline(2);
    expect(applyToTimeline(t, "/d", { event: "appended", path: "/other", session_id: "live-1", rows: [row(2)] }), "another source").toBe(t);
    expect(applyToTimeline(t, "/d", { event: "appended", path: "/d", session_id: "x", rows: [row(2)] }), "another session").toBe(t);
  });

  it("a compaction hides the originals and adds one cut", () => {
    let t = timeline(2);
    t = applyToTimeline(t, "/d", { event: "visibility_changed", path: "/d", session_id: "live-1", rows: [[0, false, true], [1, false, true]] });
    const rec = { cut_index: 2, trigger: "auto" as const, pre_tokens: null, post_tokens: null, summary_index: 2, kept: [], raw: null, applied_index: null, post_tokens_from_usage: false, archived: null };
    t = applyToTimeline(t, "/d", { event: "compaction", path: "/d", session_id: "live-1", record: rec });
    t = applyToTimeline(t, "/d", { event: "compaction", path: "/d", session_id: "live-1", record: rec });
    expect(t.rows.map((r) => r.agent_visible), "originals no longer seen by the model").toEqual([false, false]);
    expect(t.compactions.map((c) => c.cut_index), "one cut, not two").toEqual([2]);
  });

  it("a rewrite replaces the tail", () => {
    const t = applyToTimeline(timeline(5), "/d", { event: "rewritten", path: "/d", session_id: "live-1", from_index: 2, rows: [row(2, false)] });
    expect(t.rows.map((r) => [r.index, r.agent_visible]), "rows from 2 on replaced").toEqual([[0, true], [1, true], [2, false]]);
  });

  it("new sessions join their source's list once, first", () => {
    const groups: SourceGroup[] = [{ label: "d", path: "/d", origin: "argument", family: "goose", session_count: 1, loaded: true, sessions: [meta("old")], problems: [] }];
    const add = { event: "session_added" as const, path: "/d", session: meta("live-1") };
    const out = applyToSources(applyToSources(groups, [add]), [add, { event: "appended", path: "/d", session_id: "live-1", rows: [row(0), row(1)] }]);
    expect(out[0]!.sessions.map((s) => [s.id, s.message_count]), "listed once, counted").toEqual([["live-1", 2], ["old", 0]]);
  });

  it("the session's own rows replace the index's rows of a grown file, page by page", () => {
    // The index had 4 rows of a file that grew by 2 KB; the read whole makes 6, and a cut in the
    // new lines hid rows 0-1 from the model. Its first page (rows 0-2) arrives first.
    const indexed: Timeline = { ...timeline(4), from_index: true, grown_bytes: 2048 };
    const page = { ...timeline(0), rows: [row(0, false), row(1, false), row(2)], total_rows: 6, meta: { ...meta("live-1"), message_count: 6 } };
    const t = caughtUp(indexed, page);
    expect(t.rows.map((r) => [r.index, r.agent_visible]), "rows 0-1 as the whole read made them; row 3 kept until its page comes").toEqual([
      [0, false],
      [1, false],
      [2, true],
      [3, true],
    ]);
    expect([t.grown_bytes, t.from_index, t.total_rows, t.meta.message_count], "no longer the index's: the status stops saying so").toEqual([0, false, 6, 6]);
    const shorter = caughtUp(indexed, { ...page, rows: [row(0)], total_rows: 1 });
    expect(shorter.rows.map((r) => r.index), "a row the session no longer has goes").toEqual([0]);
  });

  it("mergeRows keeps order when rows arrive out of order", () => {
    expect(mergeRows([row(0)], [row(2), row(1)]).map((r) => r.index), "sorted by index").toEqual([0, 1, 2]);
  });
});

describe("useSettled", () => {
  // A followed session grows in bursts; what depends on its growth is asked again once a burst
  // ends (`quiet` without a change), or `max` after its first change when it never ends.
  it("passes a change once changes stop, at most `max` late, and a first value at once", () => {
    vi.useFakeTimers();
    try {
      const renders: number[] = [];
      const { result, rerender } = renderHook(
        ({ v, k }) => {
          const out = useSettled(v, 1000, 10_000, k);
          renders.push(out);
          return out;
        },
        { initialProps: { v: 1, k: "a" } },
      );
      expect(result.current, "the first value is there from the start").toBe(1);
      act(() => vi.advanceTimersByTime(5000));
      rerender({ v: 2, k: "a" });
      act(() => vi.advanceTimersByTime(600));
      rerender({ v: 3, k: "a" });
      act(() => vi.advanceTimersByTime(999));
      expect(result.current, "a change 999 ms after the last one still waits for the writer's pause").toBe(1);
      renders.length = 0;
      act(() => vi.advanceTimersByTime(1));
      expect(result.current, "1 s without a change: the latest passes, not the one in between").toBe(3);
      expect(renders.filter((r) => r === 3).length, "and it passes in one render, not twice").toBe(1);
      // A writer that never pauses for 1 s: every 600 ms for 12 s.
      const passed: number[] = [];
      for (let v = 10; v < 30; v++) {
        rerender({ v, k: "a" });
        if (result.current !== passed[passed.length - 1] && result.current >= 10) passed.push(result.current);
        act(() => vi.advanceTimersByTime(600));
      }
      expect(passed, "without a pause, one value passes 10 s after the first change held (10 at 0 s, 26 at 9.6 s, seen at 10 s)").toEqual([26]);
      act(() => vi.advanceTimersByTime(1000));
      expect(result.current, "the writer's pause passes the last value").toBe(29);
      rerender({ v: 5, k: "b" });
      expect(result.current, "another session's value passes at once").toBe(5);
      rerender({ v: null as unknown as number, k: "c" });
      act(() => vi.advanceTimersByTime(100));
      rerender({ v: 6, k: "c" });
      expect(result.current, "a first value after none passes at once").toBe(6);
    } finally {
      vi.useRealTimers();
    }
  });
});
