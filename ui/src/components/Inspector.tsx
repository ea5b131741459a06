// The inspector pane: the selected message whole (every part in full, tool arguments pretty
// printed) and, on demand, the raw stored text. Assistant text and summaries render as Markdown
// (`Markdown`: elements only, no HTML from transcripts), unless "Plain text" is on; edit calls
// show as diffs (`DiffBlock`) with their arguments folded; everything else is text nodes. Its
// links (a subagent's or compactor run's transcript, a compaction's transcript, a spill file)
// open what they name through `onLink`; "Copy as Markdown" goes through `onCopy`.
import { useEffect, useRef, useState } from "react";
import type { MessageDetail } from "../bindings/MessageDetail";
import type { Part } from "../bindings/Part";
import type { Problem } from "../bindings/Problem";
import type { Link } from "../bindings/Link";
import { Badge } from "./TimelineList";
import type { EditDiff } from "../bindings/EditDiff";
import { KIND_LABEL, formatSize, formatTime } from "../timeline/rows";
import { Markdown } from "./Markdown";
import { DiffBlock } from "./DiffBlock";

export interface InspectorProps {
  detail: MessageDetail | null;
  loading: boolean;
  error: Problem | null;
  showRaw: boolean;
  onToggleRaw: () => void;
  /** Open what a link names (absent: links are shown as text only). */
  onLink?: (link: Link) => void;
  /** Copy the message as Markdown (absent: no copy button). */
  onCopy?: () => void;
  /** Text a search matched in this message: marked (its first occurrence) and scrolled to. */
  mark?: string | null;
}

const LINK_LABEL: Record<Link["kind"], string> = { subagent: "subagent run", transcript: "transcript", spill_file: "spill file" };

export function Inspector({ detail, loading, error, showRaw, onToggleRaw, onLink, onCopy, mark }: InspectorProps) {
  const [plain, setPlain] = useState(false);
  const parts = useRef<HTMLDivElement>(null);
  useEffect(() => markFirst(parts.current, mark ?? null), [detail, mark, plain, showRaw]);
  if (error) {
    return (
      <aside className="inspector" data-testid="inspector">
        <p className="error-text">{error.message}</p>
      </aside>
    );
  }
  if (!detail) {
    return (
      <aside className="inspector empty" data-testid="inspector">
        <p className="hint">{loading ? "Loading…" : "Select a message (j/k, click) to see it whole here."}</p>
      </aside>
    );
  }
  const m = detail.message;
  const rewritten = rewrittenCalls(m.details);
  return (
    <aside className="inspector" data-testid="inspector" aria-busy={loading}>
      <header className="inspector-head">
        <div>
          <strong>#{m.index}</strong> {m.role}
          {m.kind !== "ordinary" && <span className="kind-tag"> · {KIND_LABEL[m.kind]}</span>}
        </div>
        <div className="inspector-badges">
          <Badge on={m.agent_visible} who="model" />
          <Badge on={m.user_visible} who="user" />
        </div>
      </header>
      <div className="inspector-sub">
        <span className="muted small">
          {[m.created !== null ? formatTime(m.created) : null, m.id !== null ? `id ${m.id}` : null].filter(Boolean).join(" · ")}
        </span>
        <span className="inspector-actions">
          {onCopy && (
            <button type="button" onClick={onCopy} data-testid="copy-message" title="Copy this message as Markdown (its edits as diffs)">
              Copy as Markdown
            </button>
          )}
          <button type="button" className={`toggle${plain ? " active" : ""}`} onClick={() => setPlain((p) => !p)} aria-pressed={plain} data-testid="plain-toggle" title="Show text as stored, without Markdown or diffs">
            Plain text
          </button>
          <button type="button" className={`toggle${showRaw ? " active" : ""}`} onClick={onToggleRaw} aria-pressed={showRaw} data-testid="raw-toggle" title="Show the stored text (r)">
            Raw JSON
          </button>
        </span>
      </div>
      {m.error && <pre className="part-block part-error">{m.error}</pre>}
      {showRaw ? (
        <>
          {detail.raw === null && (
            <p className="muted small">{loading ? "Reading the stored text…" : "The source keeps no separate stored text; this is the message as read."}</p>
          )}
          <pre className="raw" data-testid="raw">
            {detail.raw ?? JSON.stringify(m, null, 2)}
          </pre>
        </>
      ) : (
        <div className="parts" ref={parts}>
          {m.parts.map((p, i) => (
            <PartBlock key={i} part={p} markdown={!plain && (m.role === "assistant" || m.kind === "summary")} edits={plain ? [] : detail.edits.filter((e) => e.part === i)} rewritten={rewritten} />
          ))}
          {m.links && m.links.length > 0 && (
            <section className="part-block">
              <h4>Links</h4>
              <ul>
                {m.links.map((l, i) => (
                  <li key={i}>
                    {LINK_LABEL[l.kind]}: <code className="link-path">{l.session !== undefined ? `${l.session} in ${l.path}` : l.path}</code>
                    {delegationNote(m.details, l.session)}{" "}
                    {onLink && (
                      <button type="button" className="link" data-testid="inspector-link" data-kind={l.kind} onClick={() => onLink(l)}>
                        {l.kind === "spill_file" ? "review in Spills" : "open"}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </div>
      )}
    </aside>
  );
}

function PartBlock({ part, markdown, edits, rewritten }: { part: Part; markdown: boolean; edits: EditDiff[]; rewritten: Set<string> }) {
  switch (part.type) {
    case "text":
      return (
        <section className="part-block" data-part="text">
          {markdown ? <Markdown text={part.text} /> : <pre>{part.text}</pre>}
        </section>
      );
    case "thinking":
      return (
        <section className="part-block" data-part="thinking">
          <h4>Thinking{part.redacted ? " (redacted)" : ""}</h4>
          <pre>{part.text}</pre>
        </section>
      );
    case "tool_call":
      return (
        <section className="part-block" data-part="tool_call">
          <h4>
            Tool call <code>{part.name}</code> <span className="muted">{part.id}</span>
          </h4>
          {edits.length === 0 ? (
            <pre>{JSON.stringify(part.arguments, null, 2)}</pre>
          ) : (
            <>
              {edits.map((d, i) => (
                <DiffBlock key={i} diff={d} />
              ))}
              <details className="diff-args">
                <summary className="muted small">arguments</summary>
                <pre>{JSON.stringify(part.arguments, null, 2)}</pre>
              </details>
            </>
          )}
        </section>
      );
    case "tool_result":
      return (
        <section className={`part-block${part.is_error ? " part-error" : ""}`} data-part="tool_result">
          <h4>
            {part.is_error ? "✖ Tool error" : "Tool result"} <span className="muted">{part.call_id} · {formatSize(part.text.length)}</span>
          </h4>
          <pre>{part.text}</pre>
          {rewritten.has(part.call_id) && <StoredOriginal raw={part.raw} text={part.text} />}
        </section>
      );
    case "image":
      return (
        <section className="part-block" data-part="image">
          <h4>Image</h4>
          <p>
            {part.mime}, {formatSize(part.size)} (not displayed)
          </p>
        </section>
      );
    case "other":
      return (
        <section className="part-block" data-part="other">
          <h4>{part.original_type}</h4>
          <pre>{JSON.stringify(part.raw, null, 2)}</pre>
        </section>
      );
  }
}

/** Call ids whose results the reader rewrote for the model (`details.microcompacted`,
 * `details.replaced`): only these show what was stored beside what the model receives. */
export function rewrittenCalls(details: unknown): Set<string> {
  const out = new Set<string>();
  if (details === null || typeof details !== "object") return out;
  for (const key of ["microcompacted", "replaced"]) {
    const ids = (details as Record<string, unknown>)[key];
    if (Array.isArray(ids)) ids.forEach((id) => typeof id === "string" && out.add(id));
  }
  return out;
}

/** The result as stored, when the model receives other text in its place (a microcompact's
 * placeholder, a content replacement's stub). */
export function storedResult(raw: unknown): string | null {
  if (raw === null || typeof raw !== "object" || !("content" in raw)) return null;
  const c = (raw as { content: unknown }).content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((b) => (b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string" ? (b as { text: string }).text : ""))
      .filter((t) => t !== "")
      .join("\n");
  }
  return null;
}

function StoredOriginal({ raw, text }: { raw: unknown; text: string }) {
  const stored = storedResult(raw);
  if (stored === null || stored === text) return null;
  return (
    <details className="stored-original" data-testid="stored-original">
      <summary className="muted small">
        stored result, {formatSize(stored.length)}: the model receives the text above instead
      </summary>
      <pre>{stored}</pre>
    </details>
  );
}

/** How a goose session delegated the linked child (`details.delegations`, schema 17). */
export function delegationNote(details: unknown, session: string | undefined): string {
  if (session === undefined || details === null || typeof details !== "object") return "";
  const list = (details as { delegations?: unknown }).delegations;
  if (!Array.isArray(list)) return "";
  const d = list.find((x) => x && typeof x === "object" && (x as { session?: unknown }).session === session) as
    | { delegation?: { execution_mode?: unknown; result_delivered_to_parent?: unknown } }
    | undefined;
  const mode = d?.delegation?.execution_mode;
  const delivered = d?.delegation?.result_delivered_to_parent;
  const parts = [typeof mode === "string" ? mode : null, typeof delivered === "boolean" ? (delivered ? "result delivered" : "result not delivered") : null];
  const said = parts.filter((p) => p !== null);
  return said.length ? ` (${said.join(", ")})` : "";
}

/** The highlight a search hit's match is shown with (`::highlight(search-hit)` in the styles). */
const HIT = "search-hit";

/** Mark the first occurrence of `text` (case-insensitive) in `root` with the CSS highlight
 *  [`HIT`] and scroll it into view; clear the mark when there is no text. A highlight marks a
 *  range without touching the elements React renders. */
export function markFirst(root: HTMLElement | null, text: string | null) {
  const highlights = (globalThis as { CSS?: { highlights?: Map<string, unknown> } }).CSS?.highlights;
  highlights?.delete(HIT);
  if (!root || !text) return;
  const range = findText(root, text);
  if (!range) return;
  const Highlight = (globalThis as { Highlight?: new (r: Range) => unknown }).Highlight;
  if (highlights && Highlight) highlights.set(HIT, new Highlight(range));
  root.dataset.marked = range.toString();
  (range.startContainer.parentElement ?? root).scrollIntoView({ block: "center" });
}

/** The range of the first occurrence of `text` in one text node under `root`, case-insensitive. */
export function findText(root: HTMLElement, text: string): Range | null {
  const want = text.toLowerCase();
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const at = (n.textContent ?? "").toLowerCase().indexOf(want);
    if (at >= 0) {
      const r = root.ownerDocument.createRange();
      r.setStart(n, at);
      r.setEnd(n, at + text.length);
      return r;
    }
  }
  return null;
}
