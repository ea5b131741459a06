// The opened cut, in the (widened) inspector: three columns — what was dropped | the summary |
// what the model kept verbatim — with the messages that carried a file's content marked on
// both sides, what became of each file in words, the summary's health and its length against
// the budget. All transcript text is rendered as text nodes. The cut's shape comes with every
// cut (`get_cuts`); its summary and file fates when it is opened (`get_cut`), so until then
// the summary column says it is reading it and no carrier is marked.
import { useMemo } from "react";
import type { CutBrief } from "../bindings/CutBrief";
import type { CutDetail } from "../bindings/CutDetail";
import type { CommandState } from "../useCommand";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { CutFile } from "../bindings/CutFile";
import type { SummaryHealth } from "../bindings/SummaryHealth";
import { KIND_LABEL, formatSize, plural } from "../timeline/rows";
import { baseName, carriedFiles, cutRuleLabel, splitMentions, thinColumn } from "../cuts/model";

export interface CutViewProps {
  cut: CutBrief;
  /** The same cut whole (`get_cut`): its summary's text and file fates. */
  whole: CommandState<CutDetail>;
  ordinal: number;
  count: number;
  /** Every stored row, to draw messages by index. */
  rowsByIndex: Map<number, TimelineRow>;
  onPrev: () => void;
  onNext: () => void;
  onClose: () => void;
  /** Show stored message `index` in the timeline. */
  onShow: (index: number) => void;
  /** Copy the whole cut, or only its summary, as Markdown (absent: no copy buttons). */
  onCopy?: (what: "cut" | "summary") => void;
}

const FATE_MARK: Record<CutFile["fate"], string> = {
  kept_verbatim: "✓",
  only_in_summary: "≈",
  lost: "✖",
  cleared: "⌫",
};

const NO_FILES: CutDetail["files"] = [];

export function CutView({ cut, whole, ordinal, count, rowsByIndex, onPrev, onNext, onClose, onShow, onCopy }: CutViewProps) {
  const a = cut.anatomy;
  const detail = whole.data;
  const files = detail?.files ?? NO_FILES;
  const carried = useMemo(() => carriedFiles(files), [files]);
  const names = useMemo(() => files.flatMap((f) => [f.path, baseName(f.path)]), [files]);
  const range = a.dropped ? `#${a.dropped[0]}–#${a.dropped[1]}` : "nothing";
  // A microcompact clears results in place; a content replacement swaps them for stubs: the
  // same anatomy (nothing dropped, no summary, the results it rewrote).
  const replacement = a.trigger === "replacement";
  const micro = a.trigger === "micro" || replacement;
  const verb = replacement ? "replaced" : "cleared";
  // "≈" marks the estimate (chars / 4); once the session is counted these are its BPE counts.
  const approx = a.token_method.startsWith("estimate") ? "≈" : "";
  return (
    <aside className="inspector cut-view" data-testid="cut-view" data-cut-index={a.cut_index} data-whole={detail !== null} aria-label={`Compaction cut ${ordinal + 1}`}>
      <header className="cut-head">
        <strong>✂ {cutRuleLabel(cut, ordinal + 1)}</strong>
        <span className="cut-nav">
          {onCopy && (
            <>
              <button type="button" onClick={() => onCopy("cut")} data-testid="copy-cut" title="Copy the cut as Markdown: what it dropped, the summary, what the model kept verbatim">
                Copy cut
              </button>
              {!micro && (
                <button type="button" onClick={() => onCopy("summary")} data-testid="copy-summary" title="Copy the summary as Markdown, as the model receives it">
                  Copy summary
                </button>
              )}
            </>
          )}
          <button type="button" onClick={onPrev} disabled={ordinal === 0} title="Previous cut ([)">
            ◀
          </button>
          <span className="muted small">
            {ordinal + 1} / {count}
          </span>
          <button type="button" onClick={onNext} disabled={ordinal + 1 >= count} title="Next cut (])">
            ▶
          </button>
          <button type="button" onClick={onClose} title="Back to the message (Esc)" data-testid="cut-close">
            ✕
          </button>
        </span>
      </header>
      {micro ? (
        <p className="cut-sub muted small" data-testid="micro-sub">
          {replacement ? "Content replacement" : "Microcompact"}: {plural(cut.cleared.length, "tool result")} {replacement ? "swapped for stubs" : "cleared"}, no message
          dropped, no summary · {replacement ? "tokens the stored results held" : "tokens saved"}:{" "}
          {cut.tokens_saved_recorded !== null ? `${cut.tokens_saved_recorded.toLocaleString()} recorded · ` : replacement ? "" : "none recorded · "}
          {approx}
          {cut.tokens_saved_counted.toLocaleString()} counted in the {verb} results
        </p>
      ) : (
      <p className="cut-sub muted small">
        {a.trigger === "collapse" && "Context collapse: one span replaced by its summary, the rest stays · "}
        Context {a.context_before} → {plural(a.context_after, "message")} · dropped {a.dropped_count} ({range}) · kept verbatim {cut.kept.length}
        {a.preserved_duplicate && " · the preserved ask is also in the kept tail: the model sees it twice"}
        {a.chained_summaries.length > 0 && ` · folds earlier summaries ${a.chained_summaries.map((i) => `#${i}`).join(", ")}`}
      </p>
      )}
      {files.length > 0 && <Files files={files} />}
      <div className={`cut-columns${micro ? " micro" : ""}`}>
        {micro ? (
          <section className="cut-col" data-testid="cut-cleared" aria-label="Cleared">
            <h4>
              {replacement ? "Replaced" : "Cleared"} <span className="muted">({cut.cleared.length})</span>
            </h4>
            {cut.cleared.length === 0 && <p className="muted small">The record names no result this session holds.</p>}
            {cut.cleared.map((c) => (
              <Card
                key={c.index}
                index={c.index}
                row={rowsByIndex.get(c.index)}
                files={c.paths.length ? c.paths : undefined}
                note={`${verb} ${c.tool ?? "result"}${c.call_index !== null ? ` of #${c.call_index}` : ""} · ${approx}${c.tokens_counted.toLocaleString()} tokens`}
                onShow={onShow}
              />
            ))}
          </section>
        ) : (
        <>
        <section className="cut-col" data-testid="cut-dropped" aria-label="Dropped">
          <h4>
            Dropped <span className="muted">({cut.dropped.length})</span>
          </h4>
          {cut.dropped.length === 0 && <p className="muted small">Nothing: the cut only added a summary.</p>}
          {thinColumn(cut.dropped, carried).map((e, k) =>
            "gap" in e ? (
              <p key={`gap-${k}`} className="cut-gap muted small">
                … {e.gap.toLocaleString()} more (no file content); the timeline holds them all
              </p>
            ) : (
              <Card key={e.index} index={e.index} row={rowsByIndex.get(e.index)} files={carried.get(e.index)} onShow={onShow} />
            ),
          )}
        </section>
        <section className="cut-col cut-summary" data-testid="cut-summary" aria-label="Summary">
          <h4>
            Summary {a.summary_index !== null && <span className="muted">#{a.summary_index}</span>}
          </h4>
          <Health health={a.summary_health} issues={a.health} />
          {detail === null ? (
            <p className="muted small" data-testid="summary-pending">
              {whole.error ? `The summary cannot be read: ${whole.error.message}` : "Reading the summary…"}
            </p>
          ) : detail.summary_text !== null ? (
            <pre className="summary-text" data-testid="summary-text">
              {splitMentions(detail.summary_text, names).map((p, k) =>
                p.mark ? (
                  <mark key={k} title="A file the dropped messages carried verbatim">
                    {p.text}
                  </mark>
                ) : (
                  p.text
                ),
              )}
            </pre>
          ) : (
            <p className="muted small">No summary message: the dropped messages are gone without one.</p>
          )}
          {a.continuation_index !== null && (
            <>
              <h4 className="sub">Continuation note</h4>
              <Card index={a.continuation_index} row={rowsByIndex.get(a.continuation_index)} onShow={onShow} />
            </>
          )}
        </section>
        </>
        )}
        <section className="cut-col" data-testid="cut-kept" aria-label="Kept verbatim">
          <h4>
            Kept verbatim <span className="muted">({cut.kept.length})</span>
          </h4>
          {cut.kept.length === 0 && <p className="muted small">Nothing: the model sees only the summary.</p>}
          {cut.kept.map((i) => (
            <Card
              key={i}
              index={i}
              row={rowsByIndex.get(i)}
              files={carried.get(i)}
              note={i === a.preserved_index ? `preserved copy${a.preserved_source !== null ? ` of #${a.preserved_source}` : ""}` : undefined}
              onShow={onShow}
            />
          ))}
        </section>
      </div>
    </aside>
  );
}

const FATE_ORDER: CutFile["fate"][] = ["lost", "cleared", "only_in_summary", "kept_verbatim"];

/** What became of each file, worst first; a long list folds behind its counts. */
function Files({ files }: { files: CutFile[] }) {
  const sorted = [...files].sort((a, b) => FATE_ORDER.indexOf(a.fate) - FATE_ORDER.indexOf(b.fate));
  const n = (f: CutFile["fate"]) => files.filter((x) => x.fate === f).length;
  const counts = [
    n("lost") && `${n("lost")} gone`,
    n("cleared") && `${n("cleared")} cleared`,
    n("only_in_summary") && `${n("only_in_summary")} only in the summary`,
    n("kept_verbatim") && `${n("kept_verbatim")} kept verbatim`,
  ].filter(Boolean);
  return (
    <details className="cut-files" data-testid="cut-files" open={files.length <= 6}>
      <summary>
        {files.length} file{files.length === 1 ? "" : "s"} the context carried verbatim: {counts.join(", ")}
      </summary>
      <ul aria-label="What became of each file">
        {sorted.map((f) => (
          <li key={f.path} className={`fate fate-${f.fate}`} data-fate={f.fate}>
            <span aria-hidden="true">{FATE_MARK[f.fate]}</span> {f.sentence}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Health({ health, issues }: { health: SummaryHealth | null; issues: CutDetail["anatomy"]["health"] }) {
  const budget =
    health && health.budget_tokens !== null
      ? ` of a ${health.budget_tokens.toLocaleString()}-token budget (${Math.round((health.budget_fraction ?? 0) * 100)}%)`
      : " (no budget for this format)";
  return (
    <div className="health" data-testid="summary-health">
      {health && (
        <p className="small">
          {health.chars.toLocaleString()} characters ≈ {health.tokens_estimate.toLocaleString()} tokens{budget} · profile {health.profile}
          {health.sections_present.length > 0 && ` · sections: ${health.sections_present.join(", ")}`}
        </p>
      )}
      {issues.length === 0 ? (
        <p className="small health-ok">✓ healthy summary</p>
      ) : (
        <ul className="health-issues">
          {issues.map((h, k) => (
            <li key={k} data-code={h.code}>
              ⚠ {h.message}
              {h.code === "few_sections" && h.missing.length > 0 && <span className="muted"> (missing: {h.missing.join(", ")})</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Card({ index, row, files, note, onShow }: { index: number; row: TimelineRow | undefined; files?: string[]; note?: string; onShow: (i: number) => void }) {
  const first = row?.parts[0];
  const preview = first ? `${first.label ? `${first.label} ` : ""}${first.part_type === "tool_result" ? "→ " : ""}${first.preview}` : "";
  return (
    <button
      type="button"
      className={`cut-card${files ? " carrier" : ""}`}
      onClick={() => onShow(index)}
      title="Show this message in the timeline"
      data-testid="cut-card"
      data-index={index}
      data-carrier={files ? "true" : "false"}
    >
      <span className="cut-card-head">
        <span className="c-idx">#{index}</span> <strong>{row?.role ?? "?"}</strong>
        {row && row.kind !== "ordinary" && <span className="kind-tag"> · {KIND_LABEL[row.kind]}</span>}
        {note && <span className="kind-tag"> · {note}</span>}
        {row && <span className="muted small"> · {formatSize(row.size)}</span>}
      </span>
      {files && <span className="file-chip">▤ file content: {files.map(baseName).join(", ")}</span>}
      <span className="cut-card-preview">{preview}</span>
    </button>
  );
}
