// The sweep panel never goes quiet: an answer without a grid is an error the panel shows, not a
// button back to "Run sweep" as if nothing had been asked.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";

/** What the next `replay_sweep` resolves to. */
let answer: unknown = undefined;
vi.mock("@tauri-apps/api/core", () => ({
  invoke: () => Promise.resolve(answer),
}));

import { SweepPanel } from "./SweepPanel";
import { DEFAULT_OPTIONS } from "./diff";

afterEach(() => {
  cleanup();
  answer = undefined;
});

describe("SweepPanel", () => {
  it("says so when the sweep's answer holds no grid", async () => {
    render(<SweepPanel path="/p/s.jsonl" id="s" options={DEFAULT_OPTIONS} onPick={() => {}} />);
    const button = screen.getByTestId("sweep-run");
    expect(button.textContent, "nothing asked yet").toBe("Run sweep");
    await act(async () => {
      fireEvent.click(button);
    });
    expect(screen.getByTestId("sweep").querySelector(".error-text")?.textContent, "the empty answer is named").toBe(
      "the sweep came back without a grid",
    );
    expect(screen.getByTestId("sweep").dataset.mounted, "the panel carries its mount stamp for the end-to-end test").toMatch(/^\d+$/);
  });
});
