// The recorded request beside the rebuilt one: each diff step is one row with its mark, the
// system prompt is said to be never stored, and a rebuilt item opens its message.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render } from "@testing-library/react";
import { RecordedDiff } from "./RecordedDiff";
import type { RecordedComparison } from "../bindings/RecordedComparison";

afterEach(cleanup);

const item = (role: string, text: string) => ({ role, kind: "text", call_id: null, text });
const c: RecordedComparison = {
  request: 15,
  answer_index: 31,
  log: {
    file: "/g/logs/llm_request.0.jsonl",
    slot: 0,
    model: "qwen3.6-27b",
    messages: 3,
    items: [item("system", "You are goose."), item("user", "the summary"), item("user", "<info-msg>hint</info-msg>")],
    error: null,
    usage: null,
  },
  rebuilt: [item("user", "the summary")],
  rebuilt_from: [25],
  diff: [
    { op: "recorded_only", recorded: 0, rebuilt: null },
    { op: "same", recorded: 1, rebuilt: 0 },
    { op: "recorded_only", recorded: 2, rebuilt: null },
  ],
  differences: 1,
  system_items: 1,
};

describe("RecordedDiff", () => {
  it("lays the diff out step by step and links rebuilt items to their message", () => {
    const onShow = vi.fn();
    const { container, getByText } = render(<RecordedDiff c={c} onShow={onShow} />);
    const ops = Array.from(container.querySelectorAll("[data-testid=recorded-step]")).map((e) => (e as HTMLElement).dataset.op);
    expect(ops, "one row per step, in order").toEqual(["recorded_only", "same", "recorded_only"]);
    expect(container.querySelector("[data-testid=recorded-head]")?.textContent, "the count and the system prompt note").toContain(
      "1 difference · system prompt: 1 item, never stored in the session",
    );
    fireEvent.click(getByText("#25"));
    expect(onShow, "the rebuilt summary opens message 25").toHaveBeenCalledWith(25);
  });
});
