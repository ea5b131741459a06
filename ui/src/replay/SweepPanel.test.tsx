// The sweep panel never goes quiet or forgets: an answer without a grid is an error it shows, not
// a button back to "Run sweep" as if nothing had been asked; a sweep asked for lands in the
// session's state even when its panel was mounted again meanwhile (another tab and back).
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { SweepView } from "../bindings/SweepView";

/** Answers held back until the test lets them land, in order. */
const pending: ((v: unknown) => void)[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: () => new Promise((resolve) => pending.push(resolve)),
}));

import { SweepPanel } from "./SweepPanel";
import { DEFAULT_OPTIONS } from "./diff";
import { clearReplayStates, KEPT_SESSIONS, replayState, updateReplay } from "./store";

afterEach(() => {
  cleanup();
  pending.length = 0;
  clearReplayStates();
});

const answer = (value: number): SweepView =>
  ({
    svg: "<svg/>",
    grid: {
      metric: "compactions",
      rows: { axis: "keep-tail", values: [0] },
      cols: { axis: "tool-result-cap", values: [0] },
      values: [[value]],
      totals: [],
    },
  }) as unknown as SweepView;

const panel = (id = "s") => <SweepPanel path="/p/s.jsonl" id={id} options={DEFAULT_OPTIONS} onPick={() => {}} />;

describe("SweepPanel", () => {
  it("says so when the sweep's answer holds no grid", async () => {
    render(panel());
    const button = screen.getByTestId("sweep-run");
    expect(button.textContent, "nothing asked yet").toBe("Run sweep");
    fireEvent.click(button);
    expect(button.textContent, "the click shows the sweep on its way").toBe("Sweeping…");
    await act(async () => pending.shift()!(undefined));
    expect(screen.getByTestId("sweep").querySelector(".error-text")?.textContent, "the empty answer is named").toBe(
      "the sweep came back without a grid",
    );
    expect(button.textContent, "the button can ask again").toBe("Run sweep");
  });

  it("shows a sweep that landed while its panel was away, and one still on its way after a remount", async () => {
    const first = render(panel());
    fireEvent.click(screen.getByTestId("sweep-run"));
    first.unmount();
    render(panel());
    expect(screen.getByTestId("sweep-run").textContent, "a panel mounted again knows the sweep is on its way").toBe("Sweeping…");
    await act(async () => pending.shift()!(answer(7)));
    expect(screen.getByTestId("sweep-run").textContent, "the answer landed in the session's state").toBe("Sweep again");
    expect(screen.getByTestId("sweep-grid").querySelector("button.cell")?.textContent, "its one cell, as core gave it, marked as setting A").toBe("7 ◀");
    cleanup();
    render(panel("other"));
    expect(screen.getByTestId("sweep-run").textContent, "another session has a sweep of its own").toBe("Run sweep");
  });

  it("keeps the last sessions' state, the oldest let go first", () => {
    for (let i = 0; i <= KEPT_SESSIONS; i++) updateReplay(`k${i}`, { compare: true });
    expect(replayState(`k${KEPT_SESSIONS}`).compare, "the newest is kept").toBe(true);
    expect(replayState("k1").compare, "the second oldest is kept").toBe(true);
    expect(replayState("k0").compare, "the oldest was let go: it starts afresh").toBe(false);
  });
});
