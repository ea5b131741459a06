import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { KEPT, withAlerts, type AlertsState } from "./alerts";
import { AlertsPanel } from "./components/AlertsPanel";
import type { Alert } from "./bindings/Alert";
import type { AlertRules } from "./bindings/AlertRules";
import { withField } from "./components/AlertsSettings";

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

const RULES: AlertRules = {
  rereads: 3, freed_below: 0.2, storm_requests: 3, failing_calls: 3, repeated_calls: 3, spill_rereads: 2,
  idle_minutes: 10, budget_usd: null, off: [],
};

function state(shown: Alert[], quiet = false, setRules = vi.fn()): AlertsState {
  return { alerts: shown, shown, quiet, setQuiet: vi.fn(), rules: RULES, setRules, dismiss: vi.fn(), dismissAll: vi.fn() };
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

  it("says there is none yet when asked for with none", () => {
    const { container, rerender } = render(<AlertsPanel state={state([])} expanded={false} onCollapse={vi.fn()} onOpen={vi.fn()} />);
    expect(container.querySelector("[data-testid=alerts]")).toBeNull();
    rerender(<AlertsPanel state={state([])} expanded={true} onCollapse={vi.fn()} onOpen={vi.fn()} />);
    expect(screen.getByText(/No alert yet/)).toBeTruthy();
  });

  it("reads thresholds as typed: percent freed, an empty budget as none, nonsense ignored", () => {
    expect(withField(RULES, "freed_below", "5").freed_below).toBe(0.05);
    expect(withField({ ...RULES, budget_usd: 5 }, "budget_usd", " ").budget_usd).toBeNull();
    expect(withField(RULES, "budget_usd", "12.5").budget_usd).toBe(12.5);
    expect(withField(RULES, "rereads", "two")).toBe(RULES);
    expect(withField(RULES, "idle_minutes", "-1")).toBe(RULES);
  });

  it("applies the thresholds and kinds set in the form", () => {
    const setRules = vi.fn();
    render(<AlertsPanel state={state([alert(1)], false, setRules)} expanded={true} onCollapse={vi.fn()} onOpen={vi.fn()} />);
    fireEvent.click(screen.getByTestId("alerts-thresholds"));
    expect((screen.getByTestId("rule-freed_below") as HTMLInputElement).value).toBe("20");
    fireEvent.change(screen.getByTestId("rule-idle_minutes"), { target: { value: "0.5" } });
    fireEvent.change(screen.getByTestId("rule-budget_usd"), { target: { value: "25" } });
    fireEvent.click(screen.getByTestId("kind-repeated_call"));
    fireEvent.click(screen.getByTestId("rules-apply"));
    expect(setRules).toHaveBeenCalledWith({ ...RULES, idle_minutes: 0.5, budget_usd: 25, off: ["repeated_call"] });
  });
});
