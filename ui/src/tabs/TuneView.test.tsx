// The Tune view lays out core's answer: a two-knob grid as rows and columns, the knee named,
// the sessions at the chosen setting most spared first, and a session's link opening Replay at
// that setting's options on its first spared re-read. Filters ask core again with the filter.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { TuneView as Tuned } from "../bindings/TuneView";
import { DEFAULT_OPTIONS } from "../replay/diff";
import { heatmapOf, knobsOf } from "./tuneLayout";

const asked: { cmd: string; args: unknown; resolve: (v: unknown) => void }[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: unknown) => new Promise((resolve) => asked.push({ cmd, args, resolve })),
}));
vi.mock("@tauri-apps/api/event", () => ({ listen: () => Promise.resolve(() => {}) }));

import { TuneView } from "./TuneView";

afterEach(() => {
  cleanup();
  asked.length = 0;
});

const cell = (avoided: number, tokens: number) => ({
  avoided: Array.from({ length: avoided }, (_, i) => ({ path: "app.py", call_index: 6 + i, previous_index: 2, tokens: 20 })),
  tokens_carried: tokens, usd: null, compactions: 2, storms: 0, over_window: 0, orphans: 0, orphaned_at: [],
});
const settings = [0, 3].map((k, i) => ({
  setting: { keep_tail: k }, label: `K=${k}`, avoided: i * 2, avoided_tokens: i * 40, tokens_carried: 1000 + i * 50, usd: null,
  compactions: 4, storms: 0, over_window: 0, orphans: 0, gaining: [],
}));
const answer = {
  tune: {
    policy: "goose", settings, front: [0, 1], knee: 1, recorded: 3,
    sessions: [
      { session_id: "a", name: "alpha", path: "/f/a.jsonl", format: "goose", model: "m", project: "/p", updated: 1, recorded: 1, cells: [cell(0, 500), cell(0, 520)] },
      { session_id: "b", name: "beta", path: "/f/b.jsonl", format: "goose", model: "m", project: "/p", updated: 2, recorded: 2, cells: [cell(0, 500), cell(2, 530)] },
    ],
  },
  problems: [], from_index: 0, replayed: 2,
  options: [{ ...DEFAULT_OPTIONS, at_recorded: true, keep_tail: 0 }, { ...DEFAULT_OPTIONS, at_recorded: true, keep_tail: 3 }],
  facets: { sessions: 2, formats: ["goose"], models: ["m"], projects: ["/p"], first: 1, last: 2 },
} as unknown as Tuned;

describe("tune layout", () => {
  it("lays two varying knobs as rows and columns, one knob as one row", () => {
    const two = [{ keep_tail: 2, tool_result_cap: 0 }, { keep_tail: 2, tool_result_cap: 500 }, { keep_tail: 3, tool_result_cap: 0 }, { keep_tail: 3, tool_result_cap: 500 }];
    const m = heatmapOf(two);
    expect(m.rows).toEqual([[0, 1], [2, 3]]);
    expect([m.rowLabel?.(1), m.colLabel?.(1)]).toEqual(["K=3", "cap=500"]);
    expect(knobsOf(two)).toEqual(["K", "cap"]);
    expect(heatmapOf([{ keep_tail: 0 }, { keep_tail: 1 }]).rows).toEqual([[0, 1]]);
  });
});

describe("TuneView", () => {
  it("shows the knee and opens Replay at its options on a session's first spared re-read", async () => {
    const open = vi.fn();
    render(<TuneView path="/f" openReplayAt={open} />);
    expect(asked, "nothing is tuned before the click").toEqual([]);
    fireEvent.click(screen.getByTestId("tune-run"));
    await vi.waitFor(() => expect(asked.map((a) => a.cmd)).toEqual(["tune"]));
    expect(asked[0]!.args).toEqual({ req: { paths: ["/f"], policy: "goose", grid: [], at_recorded: true, naive: false, filter: { formats: [], models: [], projects: [], since: null, until: null } } });
    await act(async () => asked[0]!.resolve(answer));
    expect(screen.getByTestId("tune-knee").textContent).toBe("K=3");
    expect(screen.getAllByTestId("tune-cell").map((c) => c.textContent)).toEqual(["K=0: 0 *", "K=3: 2 ◆"]);
    const rows = Array.from(screen.getByTestId("tune-sessions").querySelectorAll("tbody tr")).map((r) => [(r as HTMLElement).dataset.sessionId, (r as HTMLElement).dataset.avoided]);
    expect(rows, "the session spared most first, at the knee").toEqual([["b", "2"], ["a", "0"]]);
    fireEvent.click(screen.getAllByTestId("tune-open")[0]!);
    expect(open).toHaveBeenCalledWith({ path: "/f", id: "b" }, answer.options[1], { call: 6, previous: 2 });
    fireEvent.click(screen.getAllByTestId("tune-cell")[0]!);
    expect(screen.getByTestId("tune-sessions").dataset.label, "a cell picks its setting").toBe("K=0");
    fireEvent.change(screen.getByTestId("tune-model"), { target: { value: "m" } });
    await vi.waitFor(() => expect(asked.length).toBe(2));
    expect((asked[1]!.args as { req: { filter: { models: string[] } } }).req.filter.models, "a filter asks core again").toEqual(["m"]);
    expect(screen.getByTestId("tune-summary").textContent, "the last answer stays while it asks").toContain("2 sessions");
  });
});
