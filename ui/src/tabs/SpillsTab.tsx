// The Spills tab: every spill file of the session (capped results, large-response notices,
// compaction transcripts, links, outputs a harness pruned but kept) with its size, status and
// the calls that read it later.
// Selecting one shows what the model saw (head, the elided middle marked, tail) beside the spill
// file. Paths come from untrusted text: core opens only files inside the session's folders
// (`spill_text`); anything else shows its full path and is read only after the user clicks
// "Open anyway: <path>" (`open_spill_anyway`). Nothing is ever written.
import { useEffect, useState } from "react";
import type { TabContext } from "./context";
import type { SpillReview } from "../bindings/SpillReview";
import type { SpillEntry } from "../bindings/SpillEntry";
import type { SpillStatus } from "../bindings/SpillStatus";
import type { SpillKind } from "../bindings/SpillKind";
import type { Problem } from "../bindings/Problem";
import { useCommand } from "../useCommand";
import { call, toIpcError } from "../ipc";
import { MessageLinks } from "../components/MessageLinks";
import { formatSize } from "../timeline/rows";

/** Status as icon + word: never colour alone. */
export const STATUS_LABEL: Record<SpillStatus, [string, string]> = {
  present: ["✓", "present"],
  missing: ["✖", "missing"],
  not_saved: ["∅", "not saved"],
  needs_confirmation: ["?", "needs confirmation"],
  unreadable: ["⚠", "unreadable"],
  stored: ["◆", "kept in session"],
};
const KIND_LABEL: Record<SpillKind, string> = {
  cap_marker: "capped result",
  cap_json: "capped result (JSON)",
  goose_large_response: "large response",
  claude_tool_results: "tool result file",
  opencode_tool_output: "tool output file",
  compaction_transcript: "compaction transcript",
  pruned: "pruned output",
  link: "link",
  custom: "custom marker",
};

export function SpillsTab({ path, timeline, selectMessage }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const size = timeline?.rows.length ?? 0;
  const [sel, setSel] = useState(0);
  // Folders the user chose to trust for this session (the recorded working directory is only
  // ever a suggestion): passed with every call, forgotten when another session opens.
  const [trusted, setTrusted] = useState<string[]>([]);
  useEffect(() => setTrusted([]), [path, id]);
  // A live session grows: its review is asked again, the last one shown meanwhile.
  const { data: review, error: err } = useCommand("spills", path && id ? { path, id, roots: trusted } : null, [path, id, size, trusted], {
    keepFor: path && id ? `${path}\n${id}` : undefined,
  });
  useEffect(() => setSel(0), [path, id]);

  if (!timeline || !path) return <div className="empty-pane">Select a session in the sidebar to review its spill files.</div>;
  if (err) return <div className="empty-pane error-text">Could not review spill files ({err.code}): {err.message}</div>;
  if (!review || review.session_id !== timeline.meta.id)
    return (
      <p className="hint">
        <span className="spinner" aria-hidden="true" />
        Looking for spill files…
      </p>
    );
  const suggestions = (
    <TrustSuggestions review={review} onTrust={(dir) => setTrusted((t) => (t.includes(dir) ? t : [...t, dir]))} />
  );
  if (review.spills.length === 0)
    return (
      <div className="empty-pane" data-testid="spills-empty">
        No spill files: no tool result of this session was capped, spilled or linked to a file.
        {suggestions}
      </div>
    );
  const entry = review.spills[Math.min(sel, review.spills.length - 1)]!;
  return (
    <div className="spills" data-testid="spills">
      <p className="spills-summary" data-testid="spills-summary">
        {review.spills.length} spill files: {review.present} present, {review.missing} missing, {review.not_saved} not saved, {review.needs_confirmation} need confirmation
        {review.stored > 0 ? `, ${review.stored} pruned outputs kept in the session` : ""} ·{" "}
        {formatSize(review.total_bytes)} present
      </p>
      {suggestions}
      <div className="spill-list" role="listbox" aria-label="Spill files">
        <table className="grid-table spills-table" data-testid="spills-table">
          <colgroup>
            <col className="spills-col-status" />
            <col className="spills-col-file" />
            <col className="spills-col-size" />
            <col className="spills-col-kind" />
            <col className="spills-col-named" />
            <col className="spills-col-read" />
          </colgroup>
          <thead>
            <tr>
              <th>status</th>
              <th>file</th>
              <th>size</th>
              <th>kind</th>
              <th>named at</th>
              <th>read later by</th>
            </tr>
          </thead>
          <tbody>
            {review.spills.map((s, i) => {
              const [icon, word] = STATUS_LABEL[s.status];
              return (
                <tr
                  key={i}
                  className={`spill-row status-${s.status}${i === sel ? " selected" : ""}`}
                  aria-selected={i === sel}
                  role="option"
                  tabIndex={0}
                  onClick={() => setSel(i)}
                  onKeyDown={(e) => e.key === "Enter" && setSel(i)}
                  data-testid="spill"
                  data-status={s.status}
                >
                  <td className="status-cell">
                    <span aria-hidden="true">{icon}</span> {word}
                  </td>
                  <td className="path-cell" title={s.resolved ?? s.path ?? ""}>
                    <bdi>{s.resolved ?? s.path ?? (s.status === "stored" ? "in the session" : "(full text not saved)")}</bdi>
                  </td>
                  <td className="num">{s.size_bytes !== null ? formatSize(s.size_bytes) : s.total_bytes !== null ? `(${formatSize(s.total_bytes)})` : "—"}</td>
                  <td>
                    {KIND_LABEL[s.kind]}
                    {s.tool ? <span className="muted"> · {s.tool}</span> : null}
                  </td>
                  <td onClick={(e) => e.stopPropagation()}>{s.message_index !== null ? <MessageLinks indices={[s.message_index]} onSelect={selectMessage} /> : "—"}</td>
                  <td onClick={(e) => e.stopPropagation()}>{s.read_by.length ? <MessageLinks indices={s.read_by} onSelect={selectMessage} /> : <span className="muted">never</span>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <SpillDetail
        key={`${review.session_id}:${sel}:${entry.status}:${entry.resolved ?? ""}`}
        path={path}
        id={review.session_id}
        entry={entry}
        roots={trusted}
        selectMessage={selectMessage}
      />
    </div>
  );
}

/**
 * Folders the transcript names (its recorded working directory) are not trusted: each is offered
 * with its full path, and only a click adds it to the folders spill files are read from.
 */
export function TrustSuggestions({ review, onTrust }: { review: SpillReview; onTrust: (dir: string) => void }) {
  if (review.suggested_roots.length === 0 && review.problems.length === 0) return null;
  return (
    <div className="trust" data-testid="spill-trust">
      {review.suggested_roots.map((dir) => (
        <p key={dir}>
          The session recorded <bdi>{dir}</bdi> as its working directory; spill files there are not read unless you trust it.{" "}
          <button type="button" onClick={() => onTrust(dir)} data-testid="trust-root">
            Trust {dir} for this session
          </button>
        </p>
      ))}
      {review.problems.map((p) => (
        <p key={p} className="muted small" data-testid="spill-problem">
          {p}
        </p>
      ))}
    </div>
  );
}

export function SpillDetail({ path, id, entry, roots, selectMessage }: { path: string; id: string; entry: SpillEntry; roots: string[]; selectMessage: TabContext["selectMessage"] }) {
  const [loaded, setLoaded] = useState<SpillEntry | null>(null);
  const [err, setErr] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const file = entry.resolved;
  const read = (confirmed: boolean) => {
    if (!file) return;
    setBusy(true);
    setErr(null);
    const p = confirmed ? call("open_spill_anyway", { path, id, roots, file, confirmed_path: file }) : call("spill_text", { path, id, roots, file });
    p.then(setLoaded)
      .catch((e) => setErr(toIpcError(e)))
      .finally(() => setBusy(false));
  };
  // Files inside the session's folders are shown at once; nothing else is read unasked.
  useEffect(() => {
    if (entry.status === "present") read(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const e = loaded ?? entry;
  return (
    <div className="spill-detail" data-testid="spill-detail">
      <section className="spill-side">
        <h4>What the model saw</h4>
        <CappedResult entry={e} />
      </section>
      <section className="spill-side">
        <h4>
          Spill file {e.size_bytes !== null && <span className="muted">· {formatSize(e.size_bytes)}</span>}
          {e.head_tail_match === false && <span className="bad"> · ✖ does not match the capped result</span>}
          {e.head_tail_match === true && <span className="ok"> · ✓ starts with the head, ends with the tail</span>}
        </h4>
        {entry.status === "needs_confirmation" && !loaded && (
          <div className="confirm" data-testid="spill-confirm">
            <p>
              This path comes from the transcript and lies outside the session's folders ({file}). It is not read unless you ask.
            </p>
            <button type="button" onClick={() => read(true)} disabled={busy} data-testid="open-anyway">
              Open anyway: {file}
            </button>
          </div>
        )}
        {entry.status === "missing" && <p className="bad">✖ Missing: {file} is not there (deleted, or the session was copied without it).</p>}
        {entry.status === "not_saved" && <p className="muted">∅ The session says the full text was never saved.</p>}
        {entry.status === "stored" && (
          <p className="muted" data-testid="spill-stored">
            ◆ Pruned from the model's view, kept whole in the session: the output is message{" "}
            {entry.message_index !== null ? <MessageLinks indices={[entry.message_index]} onSelect={selectMessage} /> : "—"}.
          </p>
        )}
        {entry.status === "unreadable" && !loaded && <p className="bad">⚠ {file} exists but could not be read.</p>}
        {busy && (
          <p className="hint">
            <span className="spinner" aria-hidden="true" />
            Reading…
          </p>
        )}
        {err && <p className="error-text">{err.message}</p>}
        {e.spill_text !== null && <SpillText entry={e} />}
      </section>
    </div>
  );
}

function CappedResult({ entry }: { entry: SpillEntry }) {
  if (!entry.head && !entry.tail)
    return <p className="muted">The session only names this file{entry.total_bytes !== null ? ` (${formatSize(entry.total_bytes)} in full)` : ""}; no capped text is recorded beside it.</p>;
  return (
    <pre className="spill-pre" data-testid="capped">
      {entry.head}
      <span className="elided" data-testid="elided">
        {` ⋯ ${entry.omitted_bytes !== null ? formatSize(entry.omitted_bytes) : "the middle"} elided from the model's view ⋯ `}
      </span>
      {entry.tail}
    </pre>
  );
}

/** The spill file's text; when it matches the capped result, the part the model never saw is marked. */
function SpillText({ entry }: { entry: SpillEntry }) {
  const text = entry.spill_text ?? "";
  const split = entry.head_tail_match === true && text.length >= entry.head.length + entry.tail.length;
  return (
    <>
      <pre className="spill-pre" data-testid="spill-text">
        {split ? (
          <>
            {entry.head}
            <mark className="elided-middle" title="Elided from the model's view">
              {text.slice(entry.head.length, text.length - entry.tail.length)}
            </mark>
            {entry.tail}
          </>
        ) : (
          text
        )}
      </pre>
      {entry.spill_text_truncated && <p className="muted small">Shown up to 1 MB; the file is longer.</p>}
    </>
  );
}
