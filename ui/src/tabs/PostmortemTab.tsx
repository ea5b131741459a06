// The Post-mortem tab: why a worker got stuck. The one-line verdict, then each finding (re-reads
// per file, exploration, loops, spill loops, compactions and what their summaries lost) with the
// messages that prove it as links into the timeline and inspector. For a source holding several
// sessions, the fleet table across them, each row opening its session. Analysis is core's
// (`diagnose`, `diagnose_fleet`); everything transcript-derived is rendered as text.
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { TabContext } from "./context";
import type { Diagnosis } from "../bindings/Diagnosis";
import type { LossKind } from "../bindings/LossKind";
import { useCommand } from "../useCommand";
import { useSteps } from "../steps";
import { MessageLinks, percent } from "../components/MessageLinks";
import { plural } from "../timeline/rows";
import { FleetView } from "./FleetView";
import { TuneView } from "./TuneView";

const LOSS_LABEL: Record<LossKind, string> = { path: "file path", identifier: "identifier", failing_test: "failing test", open_task: "open task" };

export function PostmortemTab({ path, timeline, selectMessage, selectSession, sourceSessionCount, openReplayAt }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const size = timeline?.rows.length ?? 0;
  // The session diagnosed last: a live one that grew is diagnosed again once its writes pause
  // for a moment, its last diagnosis shown meanwhile.
  const lastId = useRef<string | null>(null);
  // Landed as a transition: React renders the findings in slices between frames, so a 200 MB
  // session's post-mortem never holds the window (the e2e long-task probe checks).
  const { data: d, error: err } = useCommand("diagnose", path && id ? { path, id } : null, [path, id, size], {
    keepFor: path && id ? `${path}\n${id}` : undefined,
    transition: true,
    delayMs: lastId.current === id ? 400 : 0,
  });
  useEffect(() => {
    if (d) lastId.current = d.session_id;
  }, [d]);

  if (!timeline || !path) return <div className="empty-pane">Select a session in the sidebar to see its post-mortem.</div>;
  if (err) return <div className="empty-pane error-text">Could not diagnose this session ({err.code}): {err.message}</div>;
  const current = d && d.session_id === timeline.meta.id ? d : null;
  return (
    <div className="analysis" data-testid="postmortem">
      {!current ? (
        <p className="hint">
          <span className="spinner" aria-hidden="true" />
          Diagnosing {timeline.meta.name} (counting re-read tokens)…
        </p>
      ) : (
        <Findings d={current} select={selectMessage} />
      )}
      {sourceSessionCount > 1 && <FleetView path={path} count={sourceSessionCount} current={timeline.meta.id} selectSession={(sid) => selectSession({ path, id: sid })} />}
      {sourceSessionCount > 1 && openReplayAt && <TuneView path={path} openReplayAt={openReplayAt} />}
    </div>
  );
}

/** Rows a long list draws before "show more": a 200 MB session has thousands of findings, and
 * drawing them all at once froze the window. */
const LIST_STEP = 30;
/** The steps the findings are drawn in (see `Findings`). */
const STEPS = 3;
/** Lost identifiers listed under each compaction. */
const LOSSES_SHOWN = 12;

/** "N of M shown · Show more" under a capped list; nothing when all are shown. */
function More({ total, shown, what, onMore }: { total: number; shown: number; what: string; onMore: () => void }): ReactNode {
  if (total <= shown) return null;
  return (
    <p className="muted small" data-testid="show-more">
      {shown} of {total} {what} shown ·{" "}
      <button type="button" className="link" onClick={onMore}>
        show {Math.min(LIST_STEP * 10, total - shown)} more
      </button>
    </p>
  );
}

function Findings({ d, select }: { d: Diagnosis; select: (i: number) => void }) {
  const rereads = d.rereads.filter((f) => f.rereads > 0);
  // Drawn in steps (`useSteps`): the verdict; the re-reads and exploration; loops and spill
  // loops; the compactions.
  const step = useSteps(STEPS, d);
  const [shown, setShown] = useState({ rereads: LIST_STEP, loops: LIST_STEP, compactions: 10 });
  // Each compaction's losses, grouped once (not filtered again per compaction).
  const lossesOf = useMemo(() => {
    const m = new Map<number, Diagnosis["summary_losses"]>();
    for (const l of d.summary_losses) m.set(l.compaction, [...(m.get(l.compaction) ?? []), l]);
    return m;
  }, [d]);
  const more = (k: keyof typeof shown) => setShown((s) => ({ ...s, [k]: s[k] + LIST_STEP * 10 }));
  const e = d.exploration;
  return (
    <>
      <section className="verdict-box">
        <h2>
          Verdict{" "}
          <span className={`sev sev-${d.severity}`} data-testid="severity">
            {d.severity === "stuck" ? "⚠ stuck" : d.severity === "watch" ? "● watch" : "✓ ok"}
          </span>
        </h2>
        <p className="verdict" data-testid="verdict">
          {d.verdict}
        </p>
        {d.findings.length > 1 && (
          <ol className="findings" data-testid="findings">
            {d.findings.map((f, i) => (
              <li key={i}>{f}</li>
            ))}
          </ol>
        )}
      </section>

      {step >= 1 && (
        <>
        <section data-testid="rereads">
          <h3>Re-reads per file</h3>
          {rereads.length === 0 ? (
            <p className="muted">No file was read twice.</p>
          ) : (
            <table className="grid-table rereads-table" data-testid="rereads-table">
              <colgroup>
                <col className="rereads-col-file" />
                <col className="rereads-col-n" />
                <col className="rereads-col-n" />
                <col className="rereads-col-wide" />
                <col className="rereads-col-wide" />
                <col className="rereads-col-n" />
                <col className="rereads-col-at" />
              </colgroup>
              <thead>
                <tr>
                  <th>file</th>
                  <th title="successful reads">reads</th>
                  <th title="reads of a file already read">re-reads</th>
                  <th title="a compaction had dropped the earlier read from the model's view">after compaction</th>
                  <th title="the earlier read was still in the model's view: pure waste">still visible</th>
                  <th title="tokens spent on re-reads">tokens</th>
                  <th>re-read at</th>
                </tr>
              </thead>
              <tbody>
                {rereads.slice(0, shown.rereads).map((f) => (
                  <tr key={f.path}>
                    <td className="path-cell" title={f.path}>
                      <bdi>{f.path}</bdi>
                    </td>
                    <td className="num">{f.reads}</td>
                    <td className="num">{f.rereads}</td>
                    <td className="num">{f.after_compaction}</td>
                    <td className="num">{f.while_visible}</td>
                    <td className="num">{f.tokens}</td>
                    <td>
                      <MessageLinks indices={f.reread_messages} onSelect={select} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <More total={rereads.length} shown={shown.rereads} what="files" onMore={() => more("rereads")} />
        </section>

        <section data-testid="exploration">
          <h3>Exploration</h3>
          <p>
            <strong>{percent(d.exploration_share)}</strong> of {e.calls} calls only look ({e.look_calls} look, {e.write_calls} write)
            {e.seconds_per_call !== null && <> · {e.seconds_per_call.toFixed(1)} s per call</>}
            {e.seconds_per_look_call !== null && <> · {e.seconds_per_look_call.toFixed(1)} s per look-only call</>}
            {e.timed_calls < e.calls && e.calls > 0 && <span className="muted"> ({e.timed_calls} of {e.calls} calls timed)</span>}
          </p>
          {e.look_messages.length > 0 && (
            <p className="small">
              Look-only calls: <MessageLinks indices={e.look_messages} onSelect={select} />
            </p>
          )}
        </section>
        </>
      )}
      {step >= 2 && (
        <>
        <section data-testid="loops">
          <h3>Loops</h3>
          {d.loops.length === 0 ? (
            <p className="muted">No repeated calls, error streaks, long stretches without a write or timeouts.</p>
          ) : (
            <ul className="finding-list">
              {d.loops.slice(0, shown.loops).map((l, i) => (
                <li key={i}>
                  <span className="tag">{l.kind.replace(/_/g, " ")}</span> {l.description} <MessageLinks indices={l.messages} onSelect={select} />
                </li>
              ))}
            </ul>
          )}
          <More total={d.loops.length} shown={shown.loops} what="loops" onMore={() => more("loops")} />
        </section>

        <section data-testid="spill-loops">
          <h3>Spill loops</h3>
          {d.spill_loops.length === 0 ? (
            <p className="muted">No spill file was read only to be capped again.</p>
          ) : (
            d.spill_loops.map((s, i) => (
              <div key={i} className="spill-loop">
                <p>
                  On <code>{s.origin}</code>: {s.respilled} re-spills{s.ended_in_timeout ? ", ended in a timeout" : ""}{" "}
                  <MessageLinks indices={s.messages} onSelect={select} />
                </p>
                <ol className="small">
                  {s.steps.slice(0, LIST_STEP).map((st, k) => (
                    <li key={k}>
                      <button type="button" className="msg-link" onClick={() => select(st.call_index)}>
                        #{st.call_index}
                      </button>{" "}
                      read <code>{st.read_path}</code>
                      {st.spilled_to ? (
                        <>
                          {" "}
                          → capped, spilled to <code>{st.spilled_to}</code>
                        </>
                      ) : null}
                      {st.timed_out && <strong> ✖ timed out</strong>}
                    </li>
                  ))}
                </ol>
                {s.steps.length > LIST_STEP && <p className="muted small">+{s.steps.length - LIST_STEP} more steps (the links above reach every message)</p>}
              </div>
            ))
          )}
        </section>

        </>
      )}
      {step >= 3 && (
        <>
        <section data-testid="compactions">
          <h3>Compactions and what the summaries lost</h3>
          {d.compactions.length === 0 && <p className="muted">No compaction.</p>}
          {d.compactions.slice(0, shown.compactions).map((c) => {
            const lost = lossesOf.get(c.number) ?? [];
            return (
              <div key={c.number} className="compaction-item">
                {c.micro ? (
                  <p data-testid="microcompact">
                    <strong>Compaction {c.number}</strong> at <MessageLinks indices={[c.cut_index]} onSelect={select} /> is a microcompact: it cleared the results of{" "}
                    {plural(c.cleared, "earlier message")} and wrote no summary (none is needed); no message was dropped.
                  </p>
                ) : (
                <p>
                  <strong>Compaction {c.number}</strong> at <MessageLinks indices={[c.cut_index]} onSelect={select} /> dropped {plural(c.dropped, "message")}; summary{" "}
                  {c.summary_index !== null && <MessageLinks indices={[c.summary_index]} onSelect={select} />} {c.summary_chars} characters:{" "}
                  {c.usable ? <span className="ok">✓ usable</span> : <span className="bad">✖ not usable: {c.problem}</span>}
                </p>
                )}
                {lost.length > 0 && (
                  <ul className="finding-list" data-testid="losses">
                    {lost.slice(0, LOSSES_SHOWN).map((l, i) => (
                      <li key={i}>
                        lost {LOSS_LABEL[l.kind]} <code>{l.value}</code> <MessageLinks indices={l.messages} onSelect={select} />
                      </li>
                    ))}
                  </ul>
                )}
                {lost.length > LOSSES_SHOWN && <p className="muted small">+{lost.length - LOSSES_SHOWN} more lost identifiers (`palimpsest diagnose --json` lists them all)</p>}
              </div>
            );
          })}
          <More total={d.compactions.length} shown={shown.compactions} what="compactions" onMore={() => more("compactions")} />
        </section>
        </>
      )}
    </>
  );
}
