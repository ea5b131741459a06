// useStartupSources: a file of one conversation names the session to open with the list of
// groups, before its listing (which reads a 2 GB transcript whole) is in; the listing then
// fills the group.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render } from "@testing-library/react";
import type { SourceGroup } from "./bindings/SourceGroup";

type Pending = { cmd: string; req: Record<string, unknown>; resolve: (v: unknown) => void };
const pending: Pending[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: { req: Record<string, unknown> }) =>
    new Promise((resolve) => pending.push({ cmd, req: args.req, resolve })),
}));

import { useStartupSources } from "./sources";

const group = (path: string, extra: Partial<SourceGroup> = {}): SourceGroup => ({
  label: path, path, origin: "argument", family: null, session_count: 1, loaded: false, sessions: [], problems: [], ...extra,
});

const opened: [string, string][] = [];
const listed: string[] = [];
function Probe() {
  useStartupSources((g) => listed.push(g.path), () => {}, (path, id) => opened.push([path, id]));
  return null;
}

afterEach(() => {
  cleanup();
  pending.length = 0;
  opened.length = 0;
  listed.length = 0;
});

describe("useStartupSources", () => {
  it("opens a file's one conversation before its listing is in", async () => {
    render(<Probe />);
    await act(async () => pending[0]!.resolve([group("/big.jsonl", { opens: "s1" }), group("/home")]));
    expect(opened, "the file's session, named with the groups").toEqual([["/big.jsonl", "s1"]]);
    expect(pending.slice(1).map((p) => [p.cmd, p.req.path]), "each group is listed on its own").toEqual([
      ["load_source", "/big.jsonl"],
      ["load_source", "/home"],
    ]);
    expect(listed, "no listing is in yet").toEqual([]);
    await act(async () => pending[1]!.resolve(group("/big.jsonl", { loaded: true })));
    expect(listed, "the listing comes after").toEqual(["/big.jsonl"]);
  });
});
