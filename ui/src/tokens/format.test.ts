import { describe, expect, it } from "vitest";
import type { CategoryTotals } from "../bindings/CategoryTotals";
import type { UsageComparison } from "../bindings/UsageComparison";
import { barOrder, percent, requestAt, rowAt, thousands, usageNote } from "./format";

const totals: CategoryTotals = {
  total: 100,
  categories: [
    { name: "system", tokens: 0, share: 0 },
    { name: "user_text", tokens: 20, share: 0.2 },
    { name: "assistant_text", tokens: 20, share: 0.2 },
    { name: "tool_results", tokens: 60, share: 0.6 },
  ],
};

describe("token helpers", () => {
  it("orders bars as the share chart draws them: largest first, ties in stored order, empty ones left out", () => {
    expect(barOrder(totals).map((c) => c.name)).toEqual(["tool_results", "user_text", "assistant_text"]);
  });

  it("formats numbers and shares exactly", () => {
    expect(thousands(1234567), "thousands separators").toBe("1,234,567");
    expect(percent(0.1234), "one decimal").toBe("12.3%");
  });

  it("finds the chart row and the request under the pointer", () => {
    expect(rowAt(64 + 30 + 5, 64, 30, 3), "second bar").toBe(1);
    expect(rowAt(20, 64, 30, 3), "the title is no row").toBe(-1);
    expect(rowAt(64 + 90, 64, 30, 3), "below the last bar").toBe(-1);
    expect(requestAt(84, 11), "left edge of the plot is request 0").toBe(0);
    expect(requestAt(922, 11), "right edge is the last request").toBe(10);
    expect(requestAt(10, 11), "the axis labels are no request").toBe(-1);
  });

  it("explains a recorded context larger than the estimate by what transcripts leave out", () => {
    const u: UsageComparison = {
      session: null,
      recorded_context: 12000,
      estimated_context: 9000,
      difference: -3000,
      difference_share: -0.25,
      requests_with_usage: 4,
      recorded_processed: null,
    };
    expect(usageNote(u)).toContain("do not store the system prompt or the tool definitions");
    expect(usageNote({ ...u, difference: 500, difference_share: 0.05 }), "an estimate above the record says so").toContain("above");
  });
});
