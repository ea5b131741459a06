// The sidebar's sections: a header per source with its count (cheap count before the listing,
// then the listed sessions, then matches per section under a filter), a fold toggle, "Listing…"
// while a source is being listed and its error once it failed; plus the start-up merge helpers.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { Sidebar, byProject, nestSessions } from "./Sidebar";
import { failGroup, nothingFound, replaceGroup } from "../sources";
import type { SourceGroup } from "../bindings/SourceGroup";
import type { SessionMeta } from "../bindings/SessionMeta";

function meta(id: string, name: string, format: SessionMeta["format"]): SessionMeta {
  return {
    id, format, path: `/p/${id}`, name, working_dir: null, created: null, updated: 0, model: null,
    context_limit: null, usage: null, message_count: 3, compaction_count: 0, parent_id: null,
  };
}

const goose: SourceGroup = {
  label: "goose", path: "/h/goose", origin: "default", family: "goose", session_count: 2, loaded: true,
  sessions: [meta("g1", "fix the retry", "goose"), meta("g2", "port to streaming", "goose")], problems: [],
};
const claude: SourceGroup = {
  label: "Claude Code", path: "/h/.claude/projects", origin: "default", family: "claude-code", session_count: 4,
  loaded: false, sessions: [], problems: [],
};

function sections() {
  return screen.getAllByTestId("source").map((s) => ({
    label: within(s).getByTestId("source-label").textContent,
    count: within(s).getByTestId("source-count").textContent,
    sessions: within(s).queryAllByTestId("session").filter((b) => !b.closest("ul")?.hidden).map((b) => b.dataset.sessionId),
    text: s.textContent ?? "",
  }));
}

afterEach(cleanup);

describe("Sidebar sections", () => {
  it("names each source with its count, the cheap count while it is still being listed", () => {
    render(<Sidebar sources={[goose, claude]} selected={null} filter="" onFilter={() => {}} onSelect={() => {}} />);
    const s = sections();
    expect(s.map((x) => [x.label, x.count]), "goose listed (2), Claude counted (4) before its listing").toEqual([
      ["goose", "2"],
      ["Claude Code", "4"],
    ]);
    expect(s[1]!.text, "a source being listed says so, with its path").toContain("Listing /h/.claude/projects…");
    expect(screen.getAllByTestId("source-toggle")[1]!.title, "the path shows on hover").toContain("/h/.claude/projects");
  });

  it("folds a section with its toggle and unfolds it again", () => {
    render(<Sidebar sources={[goose]} selected={null} filter="" onFilter={() => {}} onSelect={() => {}} />);
    const toggle = screen.getByTestId("source-toggle");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded"), "the toggle says the section is folded").toBe("false");
    expect(sections()[0]!.sessions, "a folded section shows no session").toEqual([]);
    fireEvent.click(toggle);
    expect(sections()[0]!.sessions, "unfolded, both sessions are back").toEqual(["g1", "g2"]);
  });

  it("narrows every section at once and counts the matches per section", () => {
    const codex: SourceGroup = { ...goose, label: "Codex", path: "/h/codex", family: "codex", sessions: [meta("c1", "streaming parser", "codex")] };
    const onSelect = vi.fn();
    render(<Sidebar sources={[goose, codex]} selected={null} filter="streaming" onFilter={() => {}} onSelect={onSelect} />);
    expect(sections().map((x) => [x.count, x.sessions]), "one match in each section").toEqual([
      ["1/2", ["g2"]],
      ["1/1", ["c1"]],
    ]);
    fireEvent.click(screen.getAllByTestId("session")[1]!);
    expect(onSelect, "a click opens the session under its own source").toHaveBeenCalledWith({ path: "/h/codex", id: "c1" });
  });
});

describe("start-up merge", () => {
  it("puts a listed group in its place and marks a failed one with its path", () => {
    const listed = { ...claude, loaded: true, sessions: [meta("a", "x", "claude-code")] };
    const merged = replaceGroup([goose, claude], listed);
    expect(merged?.map((g) => [g.label, g.loaded, g.sessions.length]), "order kept, Claude now listed").toEqual([
      ["goose", true, 2],
      ["Claude Code", true, 1],
    ]);
    const failed = failGroup([goose, claude], claude.path, { code: "io", message: "permission denied" });
    expect(failed?.[1]?.problems, "the error names the folder").toEqual([{ code: "io", message: "/h/.claude/projects: permission denied" }]);
    expect(nothingFound([claude]), "not 'nothing found' while a source is still being listed").toBe(false);
    expect(nothingFound([{ ...claude, loaded: true }]), "every source listed and empty: nothing found").toBe(true);
  });
});

describe("nestSessions", () => {
  const meta = (id: string, parent_id: string | null = null): SessionMeta =>
    ({ id, parent_id, name: id, format: "claude-code", path: `/p/${id}.jsonl`, working_dir: null, created: null, updated: null, model: null, context_limit: null, usage: null, message_count: 1, compaction_count: 0 }) as SessionMeta;
  it("puts subagent and compactor runs under their parent, one level in", () => {
    const got = nestSessions([meta("b/agent-1", "b"), meta("a"), meta("b"), meta("a/agent-2", "a"), meta("x/agent-3", "x")]);
    expect(got.map(({ s, depth }) => `${depth}:${s.id}`), "children follow their parent; a child without a listed parent stays on top").toEqual([
      "0:a",
      "1:a/agent-2",
      "0:b",
      "1:b/agent-1",
      "0:x/agent-3",
    ]);
  });
});

describe("byProject", () => {
  const meta = (id: string, working_dir: string, parent_id: string | null = null): SessionMeta =>
    ({ id, parent_id, name: id, format: "claude-code", path: `/p/${id}.jsonl`, working_dir, created: null, updated: null, model: null, context_limit: null, usage: null, message_count: 1, compaction_count: 0 }) as SessionMeta;
  it("groups Claude sessions by their working directory, children with their parent", () => {
    const rows = nestSessions([meta("a", "/w/shop"), meta("b", "/w/blog"), meta("a/agent-1", "/w/shop", "a"), meta("c", "/w/shop")]);
    expect(byProject(rows)?.map((g) => [g.project, g.rows.map((r) => r.s.id)]), "two projects in first-seen order").toEqual([
      ["/w/shop", ["a", "a/agent-1", "c"]],
      ["/w/blog", ["b"]],
    ]);
    expect(byProject(nestSessions([meta("a", "/w/shop"), meta("c", "/w/shop")])), "one project: no headers").toBeNull();
  });
});
