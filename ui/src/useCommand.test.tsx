// useCommand: only the latest ask's answer lands (a slow reply for the previous session is
// dropped), `keepFor` keeps one session's answer on screen while its next ask is on its way
// and never shows it under another session, and a null request asks nothing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render } from "@testing-library/react";

type Pending = { req: unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void };
const pending: Pending[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (_cmd: string, args: { req: unknown }) =>
    new Promise((resolve, reject) => pending.push({ req: args.req, resolve, reject })),
}));

import { useCommand, type CommandState } from "./useCommand";

let seen: CommandState<unknown> | null = null;
function Probe({ id, keep }: { id: string | null; keep: boolean }) {
  const req = id ? { path: "/p", id } : null;
  seen = useCommand("diagnose", req as never, [id], { keepFor: keep && id ? id : undefined });
  return null;
}

async function flush() {
  await act(async () => {
    await Promise.resolve();
  });
}

afterEach(() => {
  cleanup();
  pending.length = 0;
  seen = null;
});

describe("useCommand", () => {
  it("drops the reply to an ask that is no longer the latest", async () => {
    const r = render(<Probe id="a" keep={false} />);
    r.rerender(<Probe id="b" keep={false} />);
    expect(pending.map((p) => (p.req as { id: string }).id), "one ask per session").toEqual(["a", "b"]);
    await act(async () => pending[1]!.resolve("answer for b"));
    await act(async () => pending[0]!.resolve("late answer for a"));
    await flush();
    expect(seen?.data, "session a's late reply never replaces b's").toBe("answer for b");
    expect(seen?.loading, "b's ask is done").toBe(false);
  });

  it("keeps one session's answer while it is asked again, never under another session", async () => {
    const r = render(<Probe id="a" keep={true} />);
    await act(async () => pending[0]!.resolve("a, first"));
    r.rerender(<Probe id="a" keep={true} />);
    // Same deps: no new ask. A grown session changes its deps: ask again.
    expect(pending.length, "unchanged deps ask nothing").toBe(1);
    r.rerender(<Probe id="b" keep={true} />);
    expect(seen?.data, "b never shows a's answer").toBeNull();
    expect(seen?.loading, "b is on its way").toBe(true);
    await act(async () => pending[1]!.reject({ code: "io", message: "/p: cannot read" }));
    expect(seen?.error?.code, "the failure lands with its code").toBe("io");
  });

  it("asks nothing for a null request", async () => {
    render(<Probe id={null} keep={false} />);
    await flush();
    expect(pending.length, "no session, no ask").toBe(0);
    expect(seen, "idle").toEqual({ data: null, error: null, loading: false });
  });
});
