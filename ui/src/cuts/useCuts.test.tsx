// useCuts: a session's cuts are asked for once its rows are all in, not again a moment later
// (a second ask of a 200 MB session landed while the user clicked through the tabs and held
// the window); a followed session that grows is asked again once its writer pauses.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { Timeline } from "../bindings/Timeline";

const asked: string[] = [];
/** How long core takes to answer, in (fake) ms; null: never. */
let answerAfter: number | null = null;
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string) => {
    asked.push(cmd);
    const after = answerAfter;
    return new Promise((resolve) => {
      if (after !== null) setTimeout(() => resolve({}), after);
    });
  },
}));

import { LIVE_CUTS_MAX_MS, LIVE_CUTS_QUIET_MS, LIVE_CUTS_PAUSE_PER_ANSWER, useCuts } from "./useCuts";

const session = { path: "/p/s.jsonl", id: "s" };

function timeline(rows: number): Timeline {
  return {
    meta: { id: "s", compaction_count: 1 },
    rows: Array.from({ length: rows }, (_, index) => ({ index })),
    compactions: [],
    from_index: true,
    total_rows: rows,
  } as unknown as Timeline;
}

afterEach(() => {
  cleanup();
  asked.length = 0;
  answerAfter = null;
});

describe("useCuts", () => {
  it("asks once when every row is in, and again only when the session grows", () => {
    vi.useFakeTimers();
    try {
      // The window opens with nothing selected; then a session is, and App passes no timeline
      // while its rows are still paging in.
      const { rerender } = renderHook(({ s, t }) => useCuts(s, t), {
        initialProps: { s: null as typeof session | null, t: null as Timeline | null },
      });
      rerender({ s: session, t: null });
      act(() => vi.advanceTimersByTime(1000));
      expect(asked, "nothing is asked while the rows page in").toEqual([]);
      rerender({ s: session, t: timeline(100) });
      expect(asked, "every row in: the cuts are asked for at once").toEqual(["get_cuts"]);
      act(() => vi.advanceTimersByTime(LIVE_CUTS_MAX_MS * 2));
      expect(asked, "the same rows are not asked for a second time later").toEqual(["get_cuts"]);
      rerender({ s: session, t: timeline(101) });
      act(() => vi.advanceTimersByTime(LIVE_CUTS_QUIET_MS / 2));
      rerender({ s: session, t: timeline(102) });
      rerender({ s: session, t: timeline(103) });
      act(() => vi.advanceTimersByTime(LIVE_CUTS_QUIET_MS - 1));
      expect(asked.length, "growth waits while the writer still writes: the next line's row comes first").toBe(1);
      act(() => vi.advanceTimersByTime(1));
      expect(asked.length, "the writer paused: its last growth is asked for once").toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits for a pause in step with how long the last answer took", async () => {
    vi.useFakeTimers();
    try {
      // A 2 GB session: core takes 8 s to make its cut view.
      answerAfter = 8000;
      const { rerender } = renderHook(({ t }) => useCuts(session, t), { initialProps: { t: timeline(100) } });
      expect(asked, "every row in: asked at once").toEqual(["get_cuts"]);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(8000);
      });
      rerender({ t: timeline(101) });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(LIVE_CUTS_QUIET_MS * 2);
      });
      expect(asked.length, "a 1 s pause is too short when the answer took 8 s: the next line would come while core reads").toBe(1);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(LIVE_CUTS_PAUSE_PER_ANSWER * 8000 - LIVE_CUTS_QUIET_MS * 2);
      });
      expect(asked.length, "a pause twice as long as the answer took asks again").toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
