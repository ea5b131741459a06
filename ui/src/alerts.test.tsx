import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { KEPT, withAlerts, type AlertsState } from "./alerts";
import { AlertsPanel } from "./components/AlertsPanel";
import type { Alert } from "./bindings/Alert";

function alert(n: number, kind: Alert["kind"] = "failing_loop"): Alert {
  return {
    session_id: `s${n}`,
    name: `worker ${n}`,
    format: "claude-code",
    path: `/w/s${n}.jsonl`,
    source: "/w",
    kind,
    severity: kind === "idle_after_compaction" ? "watch" : "stuck",
    words: "3 failing calls in a row, all Bash",
    message_index: 9,
    raised_at: 1000 + n,
  };
}

function state(shown: Alert[], quiet = false): AlertsState {
  return { alerts: shown, shown, quiet, setQuiet: vi.fn(), dismiss: vi.fn(), dismissAll: vi.fn() };
}

afterEach(cleanup);

describe("alerts", () => {
  it("keeps the newest first, at most KEPT", () => {
    const first = withAlerts([], [alert(1), alert(2)]);
    expect(first.map((a) => a.session_id)).toEqual(["s2", "s1"]);
    const many = withAlerts(first, Array.from({ length: KEPT }, (_, i) => alert(10 + i)));
    expect(many).toHaveLength(KEPT);
    expect(many[0]!.session_id).toBe(`s${10 + KEPT - 1}`);
    expect(many.some((a) => a.session_id === "s1")).toBe(false);
  });

  it("shows the newest three, each opening its session at its message", () => {
    const onOpen = vi.fn();
    const list = [alert(4), alert(3, "idle_after_compaction"), alert(2), alert(1)];
    render(<AlertsPanel state={state(list)} expanded={false} onCollapse={vi.fn()} onOpen={onOpen} />);
    const items = screen.getAllByTestId("alert");
    expect(items.map((b) => b.dataset.sessionId)).toEqual(["s4", "s3", "s2"]);
    expect(items[1]!.textContent).toContain("watch");
    expect(screen.getByText("and 1 more")).toBeTruthy();
    fireEvent.click(items[0]!);
    expect(onOpen).toHaveBeenCalledWith(list[0]);
  });

  it("stays hidden when quiet until its count is clicked", () => {
    const { container, rerender } = render(
      <AlertsPanel state={state([alert(1)], true)} expanded={false} onCollapse={vi.fn()} onOpen={vi.fn()} />,
    );
    expect(container.querySelector("[data-testid=alerts]")).toBeNull();
    rerender(<AlertsPanel state={state([alert(1)], true)} expanded={true} onCollapse={vi.fn()} onOpen={vi.fn()} />);
    expect(screen.getAllByTestId("alert")).toHaveLength(1);
  });
});
