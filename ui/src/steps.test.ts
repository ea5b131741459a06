// useSteps: a big view draws one more part per painted frame, and another answer starts again
// from the first part.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { useSteps } from "./steps";

afterEach(() => vi.useRealTimers());

/** One frame painted, then the task the hook schedules after it (fake timers run it 1 ms on). */
const frame = () => {
  act(() => vi.advanceTimersByTime(16));
  act(() => vi.advanceTimersByTime(1));
};

describe("useSteps", () => {
  it("goes up one step per frame to the count, and starts again for another answer", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"] });
    const first = { report: 1 };
    const { result, rerender } = renderHook(({ a }) => useSteps(3, a), { initialProps: { a: first as object } });
    expect(result.current, "the first part is drawn at once").toBe(0);
    frame();
    expect(result.current, "one more part after the frame that painted the first").toBe(1);
    for (let k = 0; k < 5; k++) {
      frame();
    }
    expect(result.current, "it stops at the count").toBe(3);
    rerender({ a: { report: 2 } });
    expect(result.current, "another answer is drawn from its first part, in the same render").toBe(0);
    frame();
    expect(result.current, "and goes up again").toBe(1);
  });
});
