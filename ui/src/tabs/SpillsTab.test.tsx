// The Spills tab's trust prompt: a working directory the transcript recorded is offered with its
// full path and trusted only by a click; problems (a refused id, a symlink out) are listed. A
// pruned output kept in the session points at its message and reads no file.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { SpillDetail, TrustSuggestions } from "./SpillsTab";
import type { SpillEntry } from "../bindings/SpillEntry";
import type { SpillReview } from "../bindings/SpillReview";

afterEach(cleanup);

const review = (suggested_roots: string[], problems: string[]): SpillReview => ({
  session_id: "s",
  roots: ["/home/u/.claude/projects/-w"],
  suggested_roots,
  problems,
  spills: [],
  present: 0,
  missing: 0,
  not_saved: 0,
  needs_confirmation: 0,
  stored: 0,
  total_bytes: 0,
});

describe("TrustSuggestions", () => {
  it("offers the recorded working directory and trusts it only on a click", () => {
    const onTrust = vi.fn();
    render(<TrustSuggestions review={review(["/home/u/proj"], [])} onTrust={onTrust} />);
    const button = screen.getByTestId("trust-root");
    expect(button.textContent, "the button names the full folder").toBe("Trust /home/u/proj for this session");
    expect(onTrust, "nothing is trusted before the click").not.toHaveBeenCalled();
    fireEvent.click(button);
    expect(onTrust, "the click trusts exactly that folder").toHaveBeenCalledWith("/home/u/proj");
  });

  it("lists why folders were left out", () => {
    render(<TrustSuggestions review={review([], ["session id `../../..` is not one plain path component"])} onTrust={() => {}} />);
    expect(screen.getByTestId("spill-problem").textContent, "the problem is shown as text").toContain("not one plain path component");
    expect(screen.queryByTestId("trust-root"), "no folder to trust").toBeNull();
  });

  it("shows nothing when there is nothing to ask", () => {
    const { container } = render(<TrustSuggestions review={review([], [])} onTrust={() => {}} />);
    expect(container.textContent, "no prompt at all").toBe("");
  });
});

describe("SpillDetail", () => {
  it("points a pruned output at the message that keeps it, reading no file", () => {
    const entry: SpillEntry = {
      path: null,
      resolved: null,
      kind: "pruned",
      status: "stored",
      size_bytes: 1200,
      message_index: 7,
      call_index: 5,
      tool: "grep",
      total_bytes: 1200,
      omitted_bytes: 1200,
      head: "[Old tool result content cleared]",
      tail: "",
      spill_text: null,
      spill_text_truncated: false,
      head_tail_match: null,
      read_by: [],
    };
    const select = vi.fn();
    render(<SpillDetail path="/p" id="s" entry={entry} roots={[]} selectMessage={select} />);
    const note = screen.getByTestId("spill-stored");
    expect(note.textContent, "says where the output is").toContain("kept whole in the session");
    fireEvent.click(note.querySelector("button, a") as HTMLElement);
    expect(select, "the link opens the message holding the output").toHaveBeenCalledWith(7);
    expect(screen.getByTestId("capped").textContent, "the model's stub is shown").toContain("[Old tool result content cleared]");
  });
});
