import { describe, expect, it } from "vitest";
import { withLoadedCounts } from "./sources";
import type { SourceGroup } from "./bindings/SourceGroup";

const groups = [
  { path: "/a", sessions: [{ id: "s1", message_count: 676, compaction_count: 5 }, { id: "s2", message_count: 9, compaction_count: 0 }] },
  { path: "/b", sessions: [{ id: "s1", message_count: 3, compaction_count: 0 }] },
] as unknown as SourceGroup[];

describe("counts once a session is loaded", () => {
  it("the sidebar takes the loaded counts for that session only", () => {
    const next = withLoadedCounts(groups, "/a", "s1", 692, 6)!;
    expect(next[0]!.sessions[0], "the cheap listing's 676 becomes the load's 692").toMatchObject({ message_count: 692, compaction_count: 6 });
    expect(next[0]!.sessions[1], "the other session keeps its counts").toMatchObject({ message_count: 9 });
    expect(next[1]!.sessions[0], "the same id in another source is another session").toMatchObject({ message_count: 3 });
  });
  it("returns the same groups when the counts already agree (no re-render)", () => {
    expect(withLoadedCounts(groups, "/b", "s1", 3, 0), "nothing to change").toBe(groups);
  });
});
