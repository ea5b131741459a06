import { describe, expect, it } from "vitest";
import { compareChoices, type RunChoice } from "./CompareTab";

const run = (id: string, name: string, path = "/w"): RunChoice => ({ path, id, name, label: `${name} · w` });

describe("compareChoices", () => {
  it("leaves the open run out and puts runs of the same task first, in listed order", () => {
    const runs = [run("a", "Fix the cart"), run("b", "Write docs"), run("c", "Fix the cart"), run("d", "Fix the cart", "/other")];
    // Why: the run a user compares with is nearly always another try at the same ask.
    expect(compareChoices(runs, "/w", "a", "Fix the cart").map((r) => r.id)).toEqual(["c", "d", "b"]);
  });

  it("keeps the sidebar's order when no other run shares the name", () => {
    const runs = [run("a", "One"), run("b", "Two"), run("c", "Three")];
    // Why: without a twin nothing is promoted, and the open session is still never offered.
    expect(compareChoices(runs, "/w", "b", "Two").map((r) => r.id)).toEqual(["a", "c"]);
  });
});
