// An edit's diff: signs and counts as core parsed them, and long diffs folded.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { DIFF_LINES_SHOWN, DiffBlock } from "./DiffBlock";
import type { EditDiff } from "../bindings/EditDiff";

afterEach(cleanup);

const diff = (lines: number): EditDiff => ({
  part: 1,
  tool: "Edit",
  path: "/w/store.py",
  moved_to: null,
  op: "edit",
  hunks: [
    {
      header: "edit 1 of 1",
      lines: [
        { op: "context", text: "def total():" },
        { op: "remove", text: "    return 2 * price" },
        ...Array.from({ length: lines }, (_, i) => ({ op: "add" as const, text: `    line ${i}` })),
      ],
    },
  ],
  added: lines,
  removed: 1,
});

describe("DiffBlock", () => {
  it("draws each line with its sign and the counts", () => {
    const { container } = render(<DiffBlock diff={diff(1)} />);
    const shown = [...container.querySelectorAll(".diff-line")].map((l) => l.textContent);
    expect(shown, "context, removed, added, each with its sign").toEqual([" def total():", "−    return 2 * price", "+    line 0"]);
    expect(container.querySelector(".diff-head")?.textContent, "path, kind and counts").toBe("/w/store.py edit · +1 −1");
    expect(container.querySelector(".diff-hunk-head")?.textContent, "the hunk's header").toBe("@@ edit 1 of 1");
  });

  it("folds a long diff until asked", () => {
    const { container } = render(<DiffBlock diff={diff(1000)} />);
    expect(container.querySelectorAll(".diff-line").length, "the first lines only (one budget line goes to the hunk header)").toBe(DIFF_LINES_SHOWN - 1);
    fireEvent.click(screen.getByText("Show all 1,003 lines"));
    expect(container.querySelectorAll(".diff-line").length, "every line once asked").toBe(1002);
  });
});
