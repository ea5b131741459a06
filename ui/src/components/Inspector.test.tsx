// The inspector on a message shaped like a real Claude Code one (text, then an Edit call):
// the assistant's text as Markdown, the Edit as a diff with its arguments folded, and "Plain
// text" giving back the text and arguments as stored.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { Inspector } from "./Inspector";
import type { MessageDetail } from "../bindings/MessageDetail";

afterEach(cleanup);

const args = { file_path: "/w/store.py", old_string: "return 2 * price", new_string: "return price" };
const detail = (role: "assistant" | "user"): MessageDetail => ({
  message: {
    index: 23,
    id: "m23",
    role,
    kind: "ordinary",
    created: null,
    parts: [
      { type: "text", text: "**Fixed** the total:" },
      { type: "tool_call", id: "toolu_1", name: "Edit", arguments: args },
    ],
    agent_visible: true,
    user_visible: true,
    error: null,
    links: [],
    details: null,
  },
  raw: null,
  from_index: false,
  edits: [
    {
      part: 1,
      tool: "Edit",
      path: "/w/store.py",
      moved_to: null,
      op: "edit",
      hunks: [{ header: null, lines: [{ op: "remove", text: "return 2 * price" }, { op: "add", text: "return price" }] }],
      added: 1,
      removed: 1,
    },
  ],
});

const noop = () => {};

describe("Inspector", () => {
  it("renders assistant text as Markdown and edits as diffs; Plain text undoes both", () => {
    const onCopy = vi.fn();
    const { container } = render(<Inspector detail={detail("assistant")} loading={false} error={null} showRaw={false} onToggleRaw={noop} onCopy={onCopy} />);
    expect(container.querySelector("[data-part=text] strong")?.textContent, "**Fixed** is bold").toBe("Fixed");
    expect(container.querySelectorAll("[data-testid=diff] .diff-line").length, "the Edit as two diff lines").toBe(2);
    expect(container.querySelector(".diff-args pre")?.textContent, "the arguments are still there, folded").toBe(JSON.stringify(args, null, 2));
    fireEvent.click(screen.getByTestId("copy-message"));
    expect(onCopy, "Copy as Markdown asks for this message").toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId("plain-toggle"));
    expect(container.querySelector("[data-part=text] pre")?.textContent, "the text as stored").toBe("**Fixed** the total:");
    expect(container.querySelector("[data-testid=diff]"), "no diff in plain text").toBeNull();
  });

  it("keeps a user's text as written", () => {
    const { container } = render(<Inspector detail={detail("user")} loading={false} error={null} showRaw={false} onToggleRaw={noop} />);
    expect(container.querySelector("[data-part=text] pre")?.textContent, "user text is not Markdown").toBe("**Fixed** the total:");
    expect(screen.queryByTestId("copy-message"), "no copy button without onCopy").toBeNull();
  });

  it("folds the stored result under the stub of a replaced or cleared result, and only there", () => {
    const stub = "<persisted-output>\nOutput too large (89.4KB).\n</persisted-output>";
    const result = (call_id: string) => ({ type: "tool_result" as const, call_id, text: stub, is_error: false, raw: { type: "tool_result", content: "the whole log" } });
    const d: MessageDetail = {
      ...detail("user"),
      message: { ...detail("user").message, parts: [result("toolu_3"), result("toolu_4")], details: { replaced: ["toolu_3"] } },
      edits: [],
    };
    const { container } = render(<Inspector detail={d} loading={false} error={null} showRaw={false} onToggleRaw={noop} />);
    const folds = container.querySelectorAll("[data-testid=stored-original]");
    expect(folds.length, "one fold: only the result the reader says it replaced").toBe(1);
    expect(folds[0]?.querySelector("pre")?.textContent, "the fold holds the stored content").toBe("the whole log");
    expect(container.querySelector("[data-part=tool_result] > pre")?.textContent, "the stub stays what the result reads as").toBe(stub);
  });

  it("names the delegated goose session and how it was delegated", () => {
    const d: MessageDetail = {
      ...detail("assistant"),
      message: {
        ...detail("assistant").message,
        links: [{ kind: "subagent", path: "/g/sessions.db", session: "20261120_2" }],
        details: { delegations: [{ session: "20261120_2", delegation: { execution_mode: "sync", result_delivered_to_parent: true } }] },
      },
    };
    const { container } = render(<Inspector detail={d} loading={false} error={null} showRaw={false} onToggleRaw={noop} onLink={noop} />);
    const li = container.querySelector(".part-block li")?.textContent ?? "";
    expect(li, "the child by id in its database, with the stored mode").toContain("20261120_2 in /g/sessions.db (sync, result delivered)");
  });
});
