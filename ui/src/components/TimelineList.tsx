// The virtualised timeline: one row per message of the current view, only the rows in (or near)
// the viewport are in the DOM, so 100k-message sessions scroll smoothly. Every piece of
// transcript text is rendered as a React text node, never as HTML: transcripts are untrusted.
import { useEffect, useRef } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { PartPreview } from "../bindings/PartPreview";
import { KIND_LABEL, formatSize, isModelOnly, timeCell } from "../timeline/rows";

export const ROW_HEIGHT = 28;
export const CUT_HEIGHT = 22;

export interface TimelineListProps {
  rows: TimelineRow[];
  /** Message index -> cut banner text, drawn above that row. */
  cuts: Map<number, string>;
  /** Dim rows the model does not see (All and User views). */
  dimInvisible: boolean;
  /** Position of the selected row in `rows`, or -1. */
  cursor: number;
  onSelect: (position: number) => void;
  onOpen: (position: number) => void;
  /** Message index -> a pairing-lint badge drawn on that row (text, never colour alone). */
  marks?: Map<number, string>;
  /** Clicking a cut banner: the message index of the row it sits on. */
  onOpenCut?: (index: number) => void;
  /** Rows from this message index on arrived since the user last looked (marked "new"). */
  newFrom?: number | null;
}

export function TimelineList({ rows, cuts, marks, onOpenCut, dimInvisible, cursor, onSelect, onOpen, newFrom }: TimelineListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => ROW_HEIGHT + (cuts.has(rows[i]?.index ?? -1) ? CUT_HEIGHT : 0),
    overscan: 10,
    getItemKey: (i) => rows[i]?.index ?? i,
  });

  // Row heights depend on which rows open a cut: re-measure when the rows change. Not on mount:
  // the first render measured these rows already, and measuring again is a second pass over
  // every row (265 000 of them on a 2 GB session, each visit of the tab).
  const mounted = useRef(false);
  useEffect(() => {
    if (!mounted.current) {
      mounted.current = true;
      return;
    }
    virtualizer.measure();
  }, [rows, cuts, virtualizer]);

  useEffect(() => {
    if (cursor >= 0 && cursor < rows.length) virtualizer.scrollToIndex(cursor, { align: "auto" });
  }, [cursor, rows.length, virtualizer]);

  return (
    <div className="timeline" ref={scrollRef} role="grid" aria-rowcount={rows.length} data-testid="timeline">
      <div className="timeline-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          const cut = cuts.get(row.index);
          return (
            <div
              key={item.key}
              className={rowClass(row, item.index === cursor, dimInvisible) + (newFrom != null && row.index >= newFrom ? " new" : "")}
              style={{ transform: `translateY(${item.start}px)`, height: item.size }}
              role="row"
              aria-selected={item.index === cursor}
              data-testid="row"
              data-index={row.index}
              data-kind={row.kind}
              data-agent-visible={String(row.agent_visible)}
              data-user-visible={String(row.user_visible)}
              onClick={() => onSelect(item.index)}
              onDoubleClick={() => onOpen(item.index)}
            >
              {cut !== undefined && (
                <div className="cut-banner" role="separator" data-testid="cut">
                  {onOpenCut ? (
                    <button
                      type="button"
                      className="cut-rule-btn"
                      data-testid="cut-open"
                      title="Open this cut: dropped | summary | kept verbatim"
                      onClick={(e) => {
                        e.stopPropagation();
                        onOpenCut(row.index);
                      }}
                    >
                      {cut}
                    </button>
                  ) : (
                    <span>{cut}</span>
                  )}
                </div>
              )}
              <Row row={row} previous={rows[item.index - 1]?.created ?? null} />
              {marks?.has(row.index) && (
                <span className="finding-badge" data-testid="finding-badge" title={`Pairing problem: ${marks.get(row.index)}`}>
                  ⚠ {marks.get(row.index)}
                </span>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function rowClass(row: TimelineRow, selected: boolean, dimInvisible: boolean): string {
  const c = ["row"];
  if (selected) c.push("selected");
  if (dimInvisible && !row.agent_visible) c.push("invisible");
  if (isModelOnly(row)) c.push("model-only");
  if (row.error !== null) c.push("has-error");
  return c.join(" ");
}

/** One row's cells; the Replay panel draws its replayed contexts with it too (`indexLabel`
 * replaces the index for messages a policy wrote, which have none). `previous`: the time of the
 * row above, for the gap (the timeline passes it; the Replay panel shows no times). */
export function Row({ row, indexLabel, previous }: { row: TimelineRow; indexLabel?: string; previous?: number | null }) {
  const modelOnly = isModelOnly(row);
  const time = previous === undefined ? null : timeCell(row.created, previous);
  return (
    <div className="row-main">
      <span className="c-idx">{indexLabel ?? row.index}</span>
      <span className={`c-role role-${row.role}`}>{row.role}</span>
      <span className="c-kind">
        {modelOnly && (
          <span className="mark-model-only" title="Seen by the model, never shown to the user" data-testid="model-only">
            ◆
          </span>
        )}
        {KIND_LABEL[row.kind]}
      </span>
      <span className="c-parts">
        {row.error !== null && <span className="part part-error">⚠ {row.error}</span>}
        {row.parts.map((p, i) => (
          <PartChip key={i} part={p} />
        ))}
        {row.more_parts > 0 && (
          <span className="part part-more" title="Parts not previewed in the row: the inspector shows the whole message">
            +{row.more_parts} parts
          </span>
        )}
      </span>
      {time && (
        <span className={`c-time${time.gap ? " gap" : ""}`} title={time.title} data-testid="row-time">
          {time.text}
        </span>
      )}
      <span className="c-size">{formatSize(row.size)}</span>
      <Badge on={row.agent_visible} who="model" />
      <Badge on={row.user_visible} who="user" />
    </div>
  );
}

/** Visibility badge: shape (● / ○) and strike-through carry the state, not colour alone. */
export function Badge({ on, who }: { on: boolean; who: "model" | "user" }) {
  const text = `${on ? "Seen" : "Not seen"} by the ${who}`;
  return (
    <span className={`badge badge-${who} ${on ? "on" : "off"}`} title={text} aria-label={text} data-badge={who} data-on={String(on)}>
      <span aria-hidden="true">{on ? "●" : "○"}</span> <span className="badge-label">{who}</span>
    </span>
  );
}

function PartChip({ part }: { part: PartPreview }) {
  switch (part.part_type) {
    case "text":
      return <span className="part part-text">{part.preview}</span>;
    case "thinking":
      return <span className="part part-thinking">thinking: {part.preview}</span>;
    case "tool_call":
      return (
        <span className="part part-call">
          <span className="tool-name">{part.label}</span>({part.preview})
        </span>
      );
    case "tool_result":
      return (
        <span className={`part part-result${part.is_error ? " part-error" : ""}`}>
          {part.is_error ? "✖ error" : "→ result"} {formatSize(part.size)}: {part.preview}
        </span>
      );
    case "image":
      return (
        <span className="part part-image">
          [image {part.label} {formatSize(part.size)}]
        </span>
      );
    default:
      return (
        <span className="part part-other">
          [{part.label ?? part.part_type}] {part.preview}
        </span>
      );
  }
}
