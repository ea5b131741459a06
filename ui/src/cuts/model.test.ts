import { describe, expect, it } from "vitest";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { CutDetail } from "../bindings/CutDetail";
import type { Finding } from "../bindings/Finding";
import { allCounted, ribbonLabels, cutBanners, cutPositions, cutRuleLabel, findingBadges, firstAtOrAfter, fractionOf, groupFindings, positionAt, ribbonBins, splitMentions, thinColumn } from "./model";

const row = (index: number, agent: boolean, size = 0): TimelineRow => ({
  index,
  role: "user",
  kind: "ordinary",
  created: null,
  agent_visible: agent,
  user_visible: true,
  parts: [],
  error: null,
  tokens: null,
  more_parts: 0,
  size,
});

// The shape of goose-compacted's one cut (fixtures/README.md), as `get_cuts` returns it.
const cut = (cut_index: number, recorded: [number, number] | null): CutDetail => ({
  anatomy: {
    ordinal: 0,
    cut_index,
    trigger: "auto",
    pre_tokens: recorded ? recorded[0] : null,
    post_tokens: recorded ? recorded[1] : null,
    pre_tokens_counted: 64,
    post_tokens_counted: 174,
    token_method: "estimate: characters / 4",
    summary_index: cut_index,
    summary_chars: 414,
    health: [],
    summary_health: null,
    continuation_index: null,
    kept_tail: [],
    kept_copies_of: [],
    dropped: [0, cut_index - 1],
    dropped_count: cut_index,
    preserved_index: null,
    preserved_source: null,
    preserved_duplicate: false,
    chained_summaries: [],
    context_before: cut_index,
    context_after: 3,
    block_end: cut_index + 1,
  },
  dropped: [],
  cleared: [],
  tokens_saved_recorded: null,
  tokens_saved_counted: 0,
  kept: [],
  summary_text: null,
  files: [],
});

const finding = (kind: Finding["kind"], message_index: number, api: Finding["api"]): Finding => ({
  kind,
  message_index,
  call_id: "call_u1",
  caused_by_cut: null,
  api,
  request_entry: 3,
  error_text: `${api} text`,
  error_param: null,
  first_request: 2,
  last_request: 4,
});

describe("cut labels", () => {
  it("use the recorded tokens when the agent recorded them, else our estimate, labelled", () => {
    expect(cutRuleLabel(cut(5, [167_000, 12_000]), 2), "recorded numbers, rounded to k").toBe("cut 2 · auto · 167k → 12k tokens");
    expect(cutRuleLabel(cut(5, null), 1), "goose records none: the estimate says so").toBe("cut 1 · auto · ≈64 → ≈174 tokens (estimate)");
    const half = cut(5, [167_000, 0]);
    half.anatomy.post_tokens = null;
    expect(cutRuleLabel(half, 1), "Claude records only the before: the after is our estimate").toBe("cut 1 · auto · 167k → ≈174 tokens");
    const counted = cut(5, null);
    counted.anatomy.token_method = "BPE o200k_base";
    expect(cutRuleLabel(counted, 1), "once the session is counted, the label gives the BPE count and says so, with no ≈").toBe(
      "cut 1 · auto · 64 → 174 tokens (BPE o200k_base)",
    );
  });
});

describe("cut positions", () => {
  it("land on the first row of the view at or after the cut, once per row", () => {
    // Agent view of a Claude-like session: the boundary (4) is hidden, the summary (5) shows.
    const agent = [row(5, true), row(6, true), row(9, true)];
    expect(cutPositions([cut(4, null), cut(5, null), cut(8, null)], agent), "cuts 4 and 5 share row 5 and the later (5) wins; cut 8 opens on row 9").toEqual([
      { ordinal: 1, position: 0 },
      { ordinal: 2, position: 2 },
    ]);
    // A Claude session with six cuts: the model's context starts at the sixth cut's summary,
    // so every cut lands on the agent view's first row and the rule names cut 6.
    const six = [10, 30, 50, 70, 90, 110].map((i) => cut(i, null));
    const context = [row(111, true), row(112, true)];
    expect(cutPositions(six, context), "the cut that produced the context wins, not the first").toEqual([{ ordinal: 5, position: 0 }]);
    expect([...cutBanners(six, context).values()][0], "the rule above the context names cut 6").toMatch(/^cut 6 · /);
    expect([...cutBanners([cut(8, null)], agent).keys()], "the banner sits on message 9").toEqual([9]);
    expect(cutPositions([cut(20, null)], agent), "a cut after the last row has no row").toEqual([]);
  });
});

describe("ribbon", () => {
  it("bins the session's token estimate and maps clicks back to rows of the view", () => {
    const all = [row(0, false, 400), row(1, false, 0), row(2, true, 40), row(3, true, 40)];
    const bins = ribbonBins(all, 2);
    expect(bins.map((b) => [b.start, b.tokens, b.visible]), "two bins of two messages, bytes / 4").toEqual([
      [0, 100, 0],
      [2, 20, 2],
    ]);
    expect(bins.map((b) => b.density), "sqrt of the density against the densest bin").toEqual([1, Math.sqrt(0.2)]);
    const agent = all.filter((r) => r.agent_visible);
    expect(positionAt(0.1, all, agent), "a click on the dropped start shows the first row the view has after it").toBe(0);
    expect(positionAt(0.99, all, agent), "the end of the strip is the last row").toBe(1);
  });

  it("places a stored index at the first row at or after it, in a view with gaps too", () => {
    // The agent view of a compacted session skips what the cuts dropped: indexes 0, 3, 4, 9.
    const view = [0, 3, 4, 9].map((i) => row(i, true, 4));
    const found = [0, 1, 3, 5, 9, 10].map((i) => firstAtOrAfter(view, i));
    expect(found, "each index lands on the first row at or after it; past the end is the length").toEqual([0, 1, 1, 3, 3, 4]);
    expect(firstAtOrAfter([], 3), "no row: nothing before it").toBe(0);
    expect(fractionOf(5, view), "a cut at 5 sits before the fourth of four rows").toBe(0.75);
    expect(fractionOf(10, view), "a cut past the last row is the end of the strip").toBe(1);
  });

  it("uses a row's BPE count where it has one and says so only when every row has one", () => {
    const mixed = [{ ...row(0, true, 400), tokens: 7 }, row(1, true, 40)];
    expect(ribbonBins(mixed, 1)[0]!.tokens, "7 BPE tokens for the counted row, 40 / 4 for the other").toBe(17);
    expect(allCounted(mixed), "one row without a count: the ribbon still says estimate").toBe(false);
    expect(allCounted(mixed.map((r) => ({ ...r, tokens: 3 }))), "every row counted (opened from the index)").toBe(true);
    expect(allCounted([]), "an empty session has nothing counted").toBe(false);
  });
});

describe("ribbon labels", () => {
  it("shorten, then give way, where the next mark leaves no room", () => {
    const full = ["✂ 1 · manual · 131k → 3k", "✂ 2 · micro · 90k → 66k", "✂ 3 · auto · 171k → 14k"];
    const short = ["✂ 1", "✂ 2", "✂ 3"];
    expect(ribbonLabels([0.1, 0.5, 0.9], 1000, full, short), "400 px between marks: full labels; 88 px to the end: the last shortens").toEqual([full[0], full[1], "✂ 3"]);
    expect(ribbonLabels([0.1, 0.5, 0.9], 300, full, short), "120 px: the first two shorten, the last has 30 px: nothing").toEqual(["✂ 1", "✂ 2", ""]);
    expect(ribbonLabels([0.1, 0.12, 0.5], 300, full, short), "6 px to the next mark: the first gives way, the second keeps room").toEqual(["", "✂ 2", "✂ 3"]);
  });
});

describe("findings", () => {
  it("badge each message once and group the two APIs' texts per problem", () => {
    const fs = [finding("unanswered_call", 3, "openai"), finding("unanswered_call", 3, "anthropic"), finding("orphan_result", 7, "openai")];
    expect([...findingBadges(fs)], "one badge per message").toEqual([
      [3, "unanswered tool call"],
      [7, "orphan tool result"],
    ]);
    const g = groupFindings(fs);
    expect(g.map((x) => [x.first.message_index, x.byApi.map((f) => f.api)]), "OpenAI and Anthropic texts side by side").toEqual([
      [3, ["openai", "anthropic"]],
      [7, ["openai"]],
    ]);
  });
});

describe("summary mentions", () => {
  it("marks whole file names, longest first, never inside another name", () => {
    const parts = splitMentions("read store.py and test_store.py; mystore.py no", ["store.py", "test_store.py"]);
    expect(parts.filter((p) => p.mark).map((p) => p.text), "store.py and test_store.py, not the tail of mystore.py").toEqual(["store.py", "test_store.py"]);
    expect(parts.map((p) => p.text).join(""), "the text is kept whole").toBe("read store.py and test_store.py; mystore.py no");
  });
});

describe("long columns", () => {
  it("keep the ends and every carrier, and count what they leave out", () => {
    const idx = Array.from({ length: 20 }, (_, i) => i);
    const got = thinColumn(idx, new Map([[10, ["store.py"]]]), 6);
    expect(got, "0-2, a gap of 7, the carrier 10, a gap of 6, 17-19").toEqual([
      { index: 0 }, { index: 1 }, { index: 2 }, { gap: 7 }, { index: 10 }, { gap: 6 }, { index: 17 }, { index: 18 }, { index: 19 },
    ]);
    expect(thinColumn([1, 2], new Map(), 6), "short columns are drawn whole").toEqual([{ index: 1 }, { index: 2 }]);
  });
});
