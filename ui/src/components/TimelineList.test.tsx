// The timeline is virtualised: with 100k rows, only a window of rows is ever in the DOM, and
// scrolling moves that window. jsdom does no layout, so the scroll container is given a fixed
// 600px height (the virtualizer reads clientHeight/clientWidth).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { TimelineList, ROW_HEIGHT } from "./TimelineList";
import type { TimelineRow } from "../bindings/TimelineRow";

const VIEWPORT = 600;
const N = 100_000;

function makeRows(n: number): TimelineRow[] {
  const rows: TimelineRow[] = new Array(n);
  for (let i = 0; i < n; i++) {
    rows[i] = {
      index: i,
      role: i % 2 ? "assistant" : "user",
      kind: i % 1000 === 500 ? "summary" : "ordinary",
      created: null,
      agent_visible: i >= n / 2 || i % 1000 === 500,
      user_visible: i % 1000 !== 500,
      parts: [{ part_type: "text", label: null, preview: `message ${i}`, size: 10, is_error: false }],
      error: null,
      tokens: null,
      more_parts: 0,
      size: 10,
    };
  }
  return rows;
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockReturnValue(VIEWPORT);
  vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockReturnValue(800);
  // The scroll range is what the inner spacer's height says (jsdom computes no layout).
  vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
    const inner = this.firstElementChild as HTMLElement | null;
    return inner ? parseFloat(inner.style.height) || 0 : 0;
  });
  // jsdom has no scrolling: make scrollTo move scrollTop and fire the event, as a browser does.
  Element.prototype.scrollTo = function (this: Element, opts?: ScrollToOptions | number) {
    if (typeof opts === "object" && opts.top !== undefined) this.scrollTop = opts.top;
    this.dispatchEvent(new Event("scroll"));
  } as Element["scrollTo"];
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe("TimelineList with 100k rows", () => {
  const rows = makeRows(N);

  it("renders only a window of rows, starting at the top", () => {
    render(<TimelineList rows={rows} cuts={new Map()} dimInvisible cursor={0} onSelect={() => {}} onOpen={() => {}} />);
    const shown = screen.getAllByTestId("row");
    const max = Math.ceil(VIEWPORT / ROW_HEIGHT) + 2 * 10 + 1; // viewport + overscan both sides
    expect(shown.length, "rows in the DOM must be a viewport's worth, not all 100k").toBeLessThanOrEqual(max);
    expect(shown.length, "the visible rows must be rendered").toBeGreaterThanOrEqual(Math.floor(VIEWPORT / ROW_HEIGHT));
    expect(shown[0]!.dataset.index, "the first row is message 0").toBe("0");
    expect(screen.queryByText("message 99999"), "the last row is not rendered until scrolled to").toBeNull();
    const grid = screen.getByTestId("timeline");
    expect(grid.getAttribute("aria-rowcount"), "the grid still announces every row").toBe(String(N));
    const inner = grid.firstElementChild as HTMLElement;
    expect(inner.style.height, "the scroll height covers all rows").toBe(`${N * ROW_HEIGHT}px`);
  });

  it("moves the window when scrolled to the middle", () => {
    render(<TimelineList rows={rows} cuts={new Map()} dimInvisible cursor={-1} onSelect={() => {}} onOpen={() => {}} />);
    const grid = screen.getByTestId("timeline");
    act(() => {
      grid.scrollTop = 50_000 * ROW_HEIGHT;
      fireEvent.scroll(grid);
    });
    const indices = screen.getAllByTestId("row").map((r) => Number(r.dataset.index));
    expect(indices, "message 50000 is rendered after scrolling to it").toContain(50_000);
    expect(indices, "rows from the top are gone").not.toContain(0);
    expect(indices.length, "still only a window of rows").toBeLessThan(60);
  });

  it("scrolls the selected row into the window (G jumps to the end)", async () => {
    render(<TimelineList rows={rows} cuts={new Map()} dimInvisible cursor={N - 1} onSelect={() => {}} onOpen={() => {}} />);
    const last = await waitFor(() => {
      const r = screen.getAllByTestId("row").find((el) => el.dataset.index === String(N - 1));
      expect(r, "the last row is rendered when it is selected").toBeDefined();
      return r;
    });
    expect(last!.getAttribute("aria-selected"), "and marked selected").toBe("true");
  });

  it("dims invisible rows, marks model-only rows and shows both badges on every row", async () => {
    render(<TimelineList rows={rows} cuts={new Map([[500, "cut 1 · auto"]])} dimInvisible cursor={505} onSelect={() => {}} onOpen={() => {}} />);
    await waitFor(() => expect(screen.queryByText("message 505"), "the selected row is scrolled into view").not.toBeNull());
    const byIndex = (i: number) => screen.getAllByTestId("row").find((r) => r.dataset.index === String(i))!;
    expect(byIndex(499).className, "a row the model no longer sees is dimmed, not hidden").toContain("invisible");
    expect(byIndex(500).className, "a summary the user never saw is marked model-only").toContain("model-only");
    expect(byIndex(500).textContent, "the cut banner sits above the first row after the cut").toContain("cut 1 · auto");
    for (const r of screen.getAllByTestId("row")) {
      const badges = Array.from(r.querySelectorAll("[data-badge]")).map((b) => b.getAttribute("data-badge"));
      expect(badges, `row ${r.dataset.index} carries the model and user badges in that order`).toEqual(["model", "user"]);
    }
  });
});
