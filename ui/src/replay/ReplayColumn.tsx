// One side of the Replay panel: the agent view after the replayed compaction, drawn with the
// timeline's own row (so it reads like the Agent view), with the kept tail, the preserved copy
// and orphaned tool results called out in words, and rows the other side lacks marked.
import { useEffect, useRef } from "react";
import type { ReplayPanel } from "../bindings/ReplayPanel";
import type { SimulationSummary } from "../bindings/SimulationSummary";
import { Row } from "../components/TimelineList";
import { thousands } from "../tokens/format";

export interface ReplayColumnProps {
  side: "A" | "B";
  panel: ReplayPanel | null;
  summary: SimulationSummary | null;
  busy: boolean;
  error: string | null;
  /** Positions only this side has (empty without a comparison). */
  only: Set<number>;
  /** The other side's panel and summary, to show changed totals. */
  other: { panel: ReplayPanel | null; summary: SimulationSummary | null } | null;
  selectMessage: (index: number) => void;
  /** A re-read Tune opened this setting at: its rows marked, the first scrolled to. */
  focus?: { call: number; previous: number } | null;
}

export function ReplayColumn({ side, panel, summary, busy, error, only, other, selectMessage, focus }: ReplayColumnProps) {
  const rowsRef = useRef<HTMLDivElement>(null);
  // Scrolled to once the rows of the setting Tune opened are in.
  useEffect(() => {
    if (!focus || !panel) return;
    rowsRef.current?.querySelector("[data-focus]")?.scrollIntoView({ block: "center" });
  }, [focus, panel]);
  if (error) return <div className="replay-column empty-pane error-text">{error}</div>;
  if (!panel) return <div className="replay-column empty-pane">{busy ? "Replaying…" : ""}</div>;
  const tail = panel.kept_tail;
  return (
    <div className="replay-column" data-testid={`replay-${side}`} data-busy={String(busy)}>
      <div className="replay-facts">
        <span>
          <strong>{panel.rows.length}</strong> rows
          <Delta now={panel.rows.length} was={other?.panel?.rows.length} />
        </span>
        <span data-testid={`replay-${side}-tokens`}>
          <strong>{thousands(panel.tokens)}</strong> tokens
          <Delta now={panel.tokens} was={other?.panel?.tokens} />
        </span>
        <span>
          cut at #{panel.cut_index}
          {panel.requested_cut_index !== panel.cut_index && ` (asked #${panel.requested_cut_index}, walked back to keep calls with results)`}
        </span>
        <span>kept tail: {tail.length ? `${tail.length} message${tail.length === 1 ? "" : "s"} (#${tail[0]}–#${tail[tail.length - 1]})` : "none"}</span>
        {panel.preserved_appended && <span className="fact-mark">preserved copy of the ask appended</span>}
        <span className={panel.orphans ? "fact-warn" : ""} data-testid={`replay-${side}-orphans`} data-orphans={panel.orphans}>
          {panel.orphans ? `⚠ ${panel.orphans} orphaned tool result${panel.orphans === 1 ? "" : "s"}` : "no orphans"}
          <Delta now={panel.orphans} was={other?.panel?.orphans} />
        </span>
      </div>
      <p className={`replay-note small${panel.note.native ? " muted" : ""}${panel.note.variant ? " variant" : ""}`} data-testid={`replay-${side}-note`}>
        {panel.note.text}
      </p>
      {summary && <Summary summary={summary} other={other?.summary ?? null} side={side} />}
      <div className="replay-rows" role="list" aria-label={`Agent view after compaction, setting ${side}`} ref={rowsRef}>
        {panel.rows.map((r) => (
          <div
            key={r.position}
            role="listitem"
            className={`replay-row${only.has(r.position) ? " only-here" : ""}${r.row.user_visible ? "" : " model-only"}`}
            data-testid="replay-row"
            data-position={r.position}
            data-source-index={r.source_index ?? ""}
            data-kind={r.row.kind}
            data-orphan={String(r.orphan)}
            data-kept-tail={String(r.kept_tail)}
            data-focus={focus && (r.source_index === focus.call || r.source_index === focus.previous) ? (r.source_index === focus.call ? "re-read" : "earlier-read") : undefined}
            onClick={() => r.source_index !== null && selectMessage(r.source_index)}
            title={r.source_index !== null ? `Stored message #${r.source_index}: click to select it` : "Written by the policy; not stored in the session"}
          >
            <Row row={r.row} indexLabel={r.source_index === null ? "new" : undefined} />
            <span className="replay-tags">
              <span className="c-size">{thousands(r.tokens)} tok</span>
              {r.kept_tail && <span className="tag tag-tail">tail</span>}
              {r.row.kind === "preserved_copy" && <span className="tag tag-copy">copy of #{r.source_index}</span>}
              {r.orphan && <span className="tag tag-orphan">⚠ orphan</span>}
              {focus && r.source_index === focus.previous && r.source_index !== null && (
                <span className="tag tag-tail" title="The read the re-read repeated: this setting's view still holds it">
                  earlier read, kept
                </span>
              )}
              {focus && r.source_index === focus.call && r.source_index !== null && (
                <span className="tag tag-only" title="The recorded re-read this setting would have spared">
                  re-read spared
                </span>
              )}
              {only.has(r.position) && <span className="tag tag-only">only in {side}</span>}
            </span>
          </div>
        ))}
      </div>
    </div>
  );
}

function Delta({ now, was }: { now: number; was: number | undefined }) {
  if (was === undefined || was === now) return null;
  const d = now - was;
  return (
    <span className="delta" title="Changed from the other setting">
      {" "}
      (Δ {d > 0 ? "+" : "−"}
      {thousands(Math.abs(d))})
    </span>
  );
}

function Summary({ summary, other, side }: { summary: SimulationSummary; other: SimulationSummary | null; side: string }) {
  const t = summary.totals;
  const o = other?.totals;
  const kept = t.last_read_cuts ? `${t.last_read_kept} of ${t.last_read_cuts} cuts` : "no cut saw a read";
  return (
    <div className="replay-sim" data-testid={`replay-${side}-simulation`}>
      <span className="muted">Run forward:</span>
      <span>
        {t.compactions} compaction{t.compactions === 1 ? "" : "s"}
        <Delta now={t.compactions} was={o?.compactions} />
      </span>
      <span>
        {thousands(t.tokens_processed)} tokens processed
        <Delta now={t.tokens_processed} was={o?.tokens_processed} />
      </span>
      <span>
        {t.orphans} orphan{t.orphans === 1 ? "" : "s"}
        <Delta now={t.orphans} was={o?.orphans} />
      </span>
      <span>last-read file kept verbatim: {kept}</span>
      <span className="muted">
        peak {thousands(t.peak_context)} · {t.requests} requests
      </span>
      {t.gave_up > 0 && (
        <span className="warn" data-testid={`replay-${side}-gave-up`} title="goose compacts once when a request would not fit the context limit and stops when the retry still does not fit">
          {t.gave_up} request{t.gave_up === 1 ? "" : "s"} over the limit even compacted: goose would stop
        </span>
      )}
      {summary.cost && (
        <span
          data-testid={`replay-${side}-cost`}
          title={`Answers as recorded ($${summary.cost.output_usd.toFixed(2)}); ${thousands(summary.cost.setting_prompt_tokens)} prompt tokens at the session's own $${(summary.cost.usd_per_prompt_token * 1e6).toFixed(2)} per million (cache reads and writes in it), ${thousands(summary.cost.overhead_per_request)} per request for what the transcript does not hold; prices of ${summary.cost.table_date}`}
        >
          cost ≈ <strong>${summary.cost.setting_usd.toFixed(2)}</strong> <span className="muted">(recorded ${summary.cost.recorded_usd.toFixed(2)})</span>
        </span>
      )}
    </div>
  );
}
