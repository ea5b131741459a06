// useSessionRows on a big transcript no index holds: the rows of its first lines land at once,
// then the whole read's rows take their place (one of them changed by what the later lines
// did), then the rest of the rows come in pages; the status line's count follows.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render } from "@testing-library/react";
import type { Timeline } from "./bindings/Timeline";
import type { TimelineRow } from "./bindings/TimelineRow";

type Pending = { cmd: string; req: Record<string, unknown>; resolve: (v: unknown) => void };
const pending: Pending[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: { req: Record<string, unknown> }) =>
    new Promise((resolve) => pending.push({ cmd, req: args.req, resolve })),
}));

import { useSessionRows, type RowsIn } from "./useSession";

const row = (index: number, agent_visible = true): TimelineRow => ({
  index, role: "user", kind: "ordinary", created: null, agent_visible, user_visible: true,
  parts: [], more_parts: 0, error: null, size: 1, tokens: null,
});
const timeline = (rows: TimelineRow[], total: number, extra: Partial<Timeline> = {}): Timeline => ({
  meta: { id: "s" } as Timeline["meta"], rows, compactions: [], from_index: false, total_rows: total,
  first_row: rows[0]?.index ?? 0, ...extra,
});

// One selection for the whole test, as the sidebar keeps it: a new object would select again.
const selected = { path: "/big.jsonl", id: "s" };
let shown: Timeline | null = null;
let rowsIn: RowsIn | null = null;
const finished: Timeline[] = [];
function Probe() {
  const set = (f: Timeline | null | ((cur: Timeline | null) => Timeline | null)) => {
    shown = typeof f === "function" ? f(shown) : f;
  };
  rowsIn = useSessionRows(selected, set, () => {}, () => {}, (t) => finished.push(t), (t) => t).rowsIn;
  return null;
}

async function answer(v: Timeline) {
  await act(async () => pending[pending.length - 1]!.resolve(v));
}

afterEach(() => {
  cleanup();
  pending.length = 0;
  shown = null;
  finished.length = 0;
});

describe("useSessionRows", () => {
  it("shows a big file's first lines, then the whole read's rows in their place", async () => {
    render(<Probe />);
    expect(pending.map((p) => [p.cmd, p.req.from, p.req.limit, p.req.whole]), "the first screen is asked for").toEqual([["get_timeline", 0, 200, undefined]]);
    await answer(timeline([row(0), row(1), row(2)], 3, { unread_bytes: 1 << 20 }));
    expect(shown?.rows.map((r) => r.index), "the first lines' rows are shown at once").toEqual([0, 1, 2]);
    expect(pending.at(-1)?.req, "then the rows of the whole read are asked for").toMatchObject({ from: 0, limit: 20000, whole: true });
    // A compaction further on hid row 1 from the model: the whole read says so.
    await answer(timeline([row(0), row(1, false), row(2), row(3)], 6));
    expect(shown?.rows.map((r) => [r.index, r.agent_visible]), "the whole read's rows replace them").toEqual([[0, true], [1, false], [2, true], [3, true]]);
    expect(shown?.unread_bytes, "nothing is left unread").toBeUndefined();
    expect(rowsIn, "the count of rows still coming").toEqual({ have: 4, total: 6 });
    expect(pending.at(-1)?.req, "the next page follows the whole read's").toMatchObject({ from: 4, limit: 20000 });
    await answer(timeline([row(4), row(5)], 6));
    expect(shown?.rows.map((r) => r.index), "every row is in").toEqual([0, 1, 2, 3, 4, 5]);
    expect(finished.map((t) => t.total_rows), "done once, with the whole read's count").toEqual([6]);
  });
});
