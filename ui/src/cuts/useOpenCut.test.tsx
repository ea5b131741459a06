// useOpenCut: an opened cut's summary and file fates are asked for when it is opened, again
// when the session's cuts were fetched again (it grew), and never drawn under another cut.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { CutsBrief } from "../bindings/CutsBrief";

const asked: { cmd: string; cut: number }[] = [];
/** Answers held back until the test lets them land, by ask. */
const pending: (() => void)[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: { req: { cut: number } }) => {
    asked.push({ cmd, cut: args.req.cut });
    return new Promise((resolve) => pending.push(() => resolve({ summary_text: `summary of cut ${args.req.cut}`, files: [] })));
  },
}));

import { useOpenCut } from "./useCuts";

const session = { path: "/p/s.jsonl", id: "s" };
const cuts = () => ({ cuts: [] }) as unknown as CutsBrief;

afterEach(() => {
  cleanup();
  asked.length = 0;
  pending.length = 0;
});

describe("useOpenCut", () => {
  it("asks for the opened cut, again when the cuts were fetched again, and shows no other cut's", async () => {
    const first = cuts();
    const { result, rerender } = renderHook(({ ordinal, c }) => useOpenCut(session, ordinal, c), {
      initialProps: { ordinal: null as number | null, c: first as CutsBrief | null },
    });
    expect(asked, "no cut open: nothing is asked").toEqual([]);
    rerender({ ordinal: 2, c: first });
    expect(asked, "cut 3 opened: it alone is asked for").toEqual([{ cmd: "get_cut", cut: 2 }]);
    expect(result.current.loading, "its answer is on its way").toBe(true);
    await act(async () => pending.shift()!());
    expect(result.current.data?.summary_text, "cut 3's summary, once in").toBe("summary of cut 2");
    rerender({ ordinal: 2, c: cuts() });
    expect(asked.length, "the session grew (its cuts fetched again): the open cut is asked again").toBe(2);
    expect(result.current.data?.summary_text, "meanwhile the same cut's last answer stays").toBe("summary of cut 2");
    rerender({ ordinal: 3, c: first });
    expect(result.current.data, "the next cut opened: the last cut's summary is not drawn under it").toBeNull();
    await act(async () => pending.splice(0).forEach((land) => land()));
    expect(result.current.data?.summary_text, "only the latest ask's answer lands").toBe("summary of cut 3");
    rerender({ ordinal: null, c: first });
    expect(result.current.data, "closed: nothing held").toBeNull();
  });
});
