// Where the Requests tab stands as its session's requests come and change (`requestAfter`): a
// new session opens on its next request, a followed one moves on with it, and a request the
// user stepped back to stays when the same count comes again.
import { describe, expect, it } from "vitest";
import { requestAfter } from "./RequestsTab";

describe("requestAfter", () => {
  it("opens a session on the request it would send next", () => {
    expect(requestAfter(0, { id: null, count: 0 }, "a", 16), "first answer of the first session").toBe(16);
    expect(requestAfter(15, { id: "a", count: 16 }, "b", 4), "another session starts at its own next request").toBe(4);
  });

  it("keeps the request the user stepped back to", () => {
    expect(requestAfter(15, { id: "a", count: 16 }, "a", 16), "the same count again (the cuts asked again)").toBe(15);
    expect(requestAfter(15, { id: "a", count: 16 }, "a", 17), "the session grew while an earlier request was open").toBe(15);
  });

  it("follows a growing session from its last request, and never stands past the end", () => {
    expect(requestAfter(16, { id: "a", count: 16 }, "a", 17), "on the last request, the next one is shown").toBe(17);
    expect(requestAfter(20, { id: "a", count: 20 }, "a", 12), "a rewritten session with fewer requests").toBe(12);
  });
});
