// The opened cut on data shaped like goose-compacted's (fixtures/README.md): three columns, the
// file carrier framed, the summary's mention marked, the fate in words, and a hostile summary
// staying text.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { CutView } from "./CutView";
import type { CutBrief } from "../bindings/CutBrief";
import type { CutDetail } from "../bindings/CutDetail";
import type { TimelineRow } from "../bindings/TimelineRow";

afterEach(cleanup);

const row = (index: number, preview: string, part_type = "text"): TimelineRow => ({
  index,
  role: index % 2 ? "assistant" : "user",
  kind: index === 7 ? "preserved_copy" : "ordinary",
  created: null,
  agent_visible: index >= 5,
  user_visible: true,
  parts: [{ part_type, label: null, preview, size: preview.length, is_error: false }],
  error: null,
  tokens: null,
  more_parts: 0,
  size: preview.length,
});

const rows = new Map(
  [row(0, "add a retry to fetch_rows in store.py"), row(1, '{"cmd":"cat store.py"}', "tool_call"), row(2, "def fetch_rows(conn, q):", "tool_result"), row(3, "pytest -q"), row(4, "1 failed"), row(6, "Your context was compacted."), row(7, "add a retry to fetch_rows in store.py")].map((r) => [r.index, r]),
);

const cut = (summary: string): CutDetail => ({
  anatomy: {
    ordinal: 0,
    cut_index: 5,
    trigger: "auto",
    pre_tokens: null,
    post_tokens: null,
    pre_tokens_counted: 64,
    post_tokens_counted: 174,
    token_method: "estimate: characters / 4",
    summary_index: 5,
    summary_chars: 414,
    health: [{ code: "few_sections", message: "only 4 of 9 sections present", present: 4, total: 9, missing: ["Current Work"] }],
    summary_health: null,
    continuation_index: 6,
    kept_tail: [],
    kept_copies_of: [],
    dropped: [0, 4],
    dropped_count: 5,
    preserved_index: 7,
    preserved_source: 0,
    preserved_duplicate: false,
    chained_summaries: [],
    context_before: 5,
    context_after: 3,
    block_end: 8,
  },
  dropped: [0, 1, 2, 3, 4],
  cleared: [],
  tokens_saved_recorded: null,
  tokens_saved_counted: 0,
  kept: [7],
  summary_text: summary,
  files: [
    {
      path: "store.py",
      fate: "only_in_summary",
      dropped_carriers: [2],
      cleared_carriers: [],
      kept_carriers: [],
      reread_at: 9,
      sentence: "store.py: dropped verbatim, only in the summary; read again at #9",
    },
  ],
});

/** The cut's whole answer (`get_cut`) as it stands: in, on its way, or failed. */
const landed = (c: CutDetail) => ({ data: c, loading: false, error: null });

function show(summary: string, onShow = vi.fn()) {
  const c = cut(summary);
  render(<CutView cut={c} whole={landed(c)} ordinal={0} count={1} rowsByIndex={rows} onPrev={vi.fn()} onNext={vi.fn()} onClose={vi.fn()} onShow={onShow} />);
  return onShow;
}

const cards = (testid: string) =>
  within(screen.getByTestId(testid))
    .queryAllByTestId("cut-card")
    .map((c) => [Number(c.dataset.index), c.dataset.carrier]);

describe("CutView", () => {
  it("draws dropped | summary | kept with the carrier framed on the dropped side", () => {
    const onShow = show("The user asked for a retry; store.py was read. test_store.py too.");
    expect(cards("cut-dropped"), "0-4 dropped, only #2 carried the file").toEqual([
      [0, "false"],
      [1, "false"],
      [2, "true"],
      [3, "false"],
      [4, "false"],
    ]);
    expect(cards("cut-kept"), "the preserved copy is all the model kept").toEqual([[7, "false"]]);
    expect(screen.getByTestId("cut-kept").textContent, "the copy names what it preserves").toContain("preserved copy of #0");
    const marks = Array.from(screen.getByTestId("summary-text").querySelectorAll("mark")).map((m) => m.textContent);
    expect(marks, "store.py is marked, test_store.py is not mistaken for it").toEqual(["store.py"]);
    expect(screen.getByTestId("cut-files").textContent, "the fate in words").toContain("store.py: dropped verbatim, only in the summary; read again at #9");
    expect(screen.getByTestId("summary-health").textContent, "the health flag").toContain("only 4 of 9 sections present");
    fireEvent.click(within(screen.getByTestId("cut-dropped")).getAllByTestId("cut-card")[2]!);
    expect(onShow, "a click shows that message in the timeline").toHaveBeenCalledWith(2);
  });

  it("draws the cut's shape at once and its summary and file fates when they come", () => {
    const c = cut("The user asked for a retry; store.py was read.");
    // What `get_cuts` gives of it: no summary, no files.
    const brief: CutBrief = { anatomy: c.anatomy, dropped: c.dropped, cleared: c.cleared, tokens_saved_recorded: c.tokens_saved_recorded, tokens_saved_counted: c.tokens_saved_counted, kept: c.kept };
    const whole = { data: null, loading: true, error: null };
    const { rerender } = render(<CutView cut={brief} whole={whole} ordinal={0} count={1} rowsByIndex={rows} onPrev={vi.fn()} onNext={vi.fn()} onClose={vi.fn()} onShow={vi.fn()} />);
    expect(cards("cut-dropped").length, "the dropped column is drawn from the shape alone").toBe(5);
    expect(screen.getByTestId("summary-pending").textContent, "the summary column says it is on its way").toBe("Reading the summary…");
    expect(screen.queryByTestId("cut-files"), "no file fate before the whole cut comes").toBeNull();
    expect(cards("cut-dropped")[2], "no carrier is marked before the fates come").toEqual([2, "false"]);
    rerender(<CutView cut={brief} whole={{ data: null, loading: false, error: { code: "io", message: "cannot read /x.jsonl" } }} ordinal={0} count={1} rowsByIndex={rows} onPrev={vi.fn()} onNext={vi.fn()} onClose={vi.fn()} onShow={vi.fn()} />);
    expect(screen.getByTestId("summary-pending").textContent, "a failed ask says why, naming the file").toBe("The summary cannot be read: cannot read /x.jsonl");
    rerender(<CutView cut={brief} whole={landed(c)} ordinal={0} count={1} rowsByIndex={rows} onPrev={vi.fn()} onNext={vi.fn()} onClose={vi.fn()} onShow={vi.fn()} />);
    expect(screen.getByTestId("summary-text").textContent, "the summary, once in").toContain("store.py was read");
    expect(cards("cut-dropped")[2], "and the carrier it names is marked").toEqual([2, "true"]);
  });

  it("keeps a hostile summary as text", () => {
    show("<img src=x onerror=alert(1)><script>alert(2)</script> store.py");
    const pre = screen.getByTestId("summary-text");
    expect(pre.querySelector("img, script"), "no element comes from the summary").toBeNull();
    expect(pre.textContent, "the markup is shown literally").toContain("<script>alert(2)</script>");
  });
});

describe("CutView on a microcompact", () => {
  it("lists what was cleared and the tokens saved, with no summary column", () => {
    const c = cut("");
    const micro = {
      ...c,
      anatomy: { ...c.anatomy, trigger: "micro" as const, summary_index: null, dropped: null, dropped_count: 0 },
      dropped: [],
      summary_text: null,
      kept: [7],
      cleared: [{ index: 2, call_id: "call_1", call_index: 1, tool: "shell", paths: ["store.py"], tokens_counted: 412 }],
      tokens_saved_recorded: 24000,
      tokens_saved_counted: 412,
      files: [{ path: "store.py", fate: "cleared" as const, dropped_carriers: [], cleared_carriers: [2], kept_carriers: [], reread_at: null, sentence: "store.py: its result #2 cleared by the microcompact; the model sees only the placeholder" }],
    };
    render(<CutView cut={micro} whole={landed(micro)} ordinal={0} count={1} rowsByIndex={rows} onPrev={vi.fn()} onNext={vi.fn()} onClose={vi.fn()} onShow={vi.fn()} />);
    expect(screen.queryByTestId("cut-summary"), "a microcompact writes no summary: no summary column").toBeNull();
    expect(screen.queryByTestId("cut-dropped"), "it drops nothing: no dropped column").toBeNull();
    const cleared = within(screen.getByTestId("cut-cleared"));
    expect(cleared.getAllByTestId("cut-card").map((e) => e.dataset.index), "the cleared result is listed").toEqual(["2"]);
    expect(cleared.getByText(/cleared shell of #1 · ≈412 tokens/), "what it was and its tokens").toBeTruthy();
    expect(screen.getByTestId("micro-sub").textContent, "recorded tokens saved beside our count").toContain("24,000 recorded");
    expect(screen.getByTestId("cut-files").textContent, "the file's fate says cleared, not kept verbatim").toContain("1 cleared");
  });
});
