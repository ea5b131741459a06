// Message references in the analysis views: one link per message, the rest counted.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { MessageLinks } from "./MessageLinks";

afterEach(cleanup);

describe("MessageLinks", () => {
  it("links each message once, however many calls it holds, and counts the rest", () => {
    // A real session's look-only calls: six parallel Reads in message 8, then one each.
    const indices = [8, 8, 8, 8, 8, 8, 19, 36, 38];
    render(<MessageLinks indices={indices} onSelect={() => {}} max={3} />);
    const links = screen.getAllByTestId("msg-link").map((b) => b.textContent);
    expect(links, "message 8 once, then the next two").toEqual(["#8", "#19", "#36"]);
    expect(screen.getByText(/more/).textContent, "one message left unlinked, not seven").toBe(" +1 more");
  });
});
