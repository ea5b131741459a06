// The Requests tab: "what the model saw at request N". A stepper and slider over the session's
// requests (the last is the request the agent would send next) show the exact agent-visible
// message list of that request as timeline rows, with its pairing-lint findings and the exact
// error text OpenAI and Anthropic return for each. Above: every finding of the session, each
// a link to the first request it broke. When the agent recorded the request it sent (goose's
// request logs, Aider's .aider.llm.history), "recorded request" sets it beside the rebuilt
// one, every difference marked.
// Keys while the tab is open: `,` / `.` step back / on.
import { useEffect, useMemo, useRef, useState } from "react";
import { useCommand } from "../useCommand";
import type { TabContext } from "./context";
import type { Finding } from "../bindings/Finding";
import { TimelineList } from "../components/TimelineList";
import { FINDING_LABEL, cutBanners, findingBadges, groupFindings } from "../cuts/model";
import { plural } from "../timeline/rows";
import { RecordedDiff } from "../components/RecordedDiff";

/** The session and request count the position was last set for. */
export interface Seen {
  id: string | null;
  count: number;
}

/**
 * The request to show once session `id` has `count` requests, `r` shown and `was` what it was
 * set for: another session opens on its next request, as does one that grew while its last
 * was shown (following it); otherwise the request stays where the user put it. The tab waits
 * for an answer (while there is none, the position stays): had it jumped, a cut view asked
 * again would throw the user back to the last request, and an open recorded request with it.
 */
export function requestAfter(r: number, was: Seen, id: string | null, count: number): number {
  if (id !== was.id || r === was.count || r < 1 || r > count) return count;
  return r;
}

export function RequestsTab({ path, timeline, selectMessage, cuts }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const data = cuts?.data ?? null;
  const count = data?.requests.length ?? 0;
  const [request, setRequest] = useState(0);
  const [cursor, setLocalCursor] = useState(-1);
  const [showRecorded, setShowRecorded] = useState(false);
  const session = path && id ? `${path}\n${id}` : undefined;

  // The requests the agent recorded, once per session (goose keeps the last ten).
  const recorded = useCommand("get_recorded", path && id ? { path, id } : null, [path, id]).data;

  // A new session opens on the request it would send next; see `requestAfter`.
  const seen = useRef<Seen>({ id: null, count: 0 });
  const answered = data !== null;
  useEffect(() => {
    if (!answered) return;
    const was = seen.current;
    seen.current = { id, count };
    setRequest((r) => requestAfter(r, was, id, count));
  }, [id, count, answered]);

  // Stepping through one session's requests keeps the one shown until the next arrives.
  const asked = useCommand("get_request", path && id && request >= 1 ? { path, id, request } : null, [path, id, request], {
    keepFor: session,
  });
  const { data: view, error, loading } = asked;
  useEffect(() => setLocalCursor(-1), [view]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA") && (t as HTMLInputElement).type !== "range") return;
      if (e.key === ",") setRequest((r) => Math.max(1, r - 1));
      else if (e.key === ".") setRequest((r) => Math.min(count, r + 1));
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [count]);

  const all = useMemo(() => (data ? [...data.lint[0]!.findings, ...data.lint[1]!.findings] : []), [data]);
  const sessionGroups = useMemo(() => groupFindings(all), [all]);
  const groups = useMemo(() => groupFindings(view?.findings ?? []), [view]);
  const badges = useMemo(() => findingBadges(view?.findings ?? []), [view]);
  const banners = useMemo(() => cutBanners(data?.cuts ?? [], view?.rows ?? []), [data, view]);

  if (!timeline) return <div className="empty-pane">Select a session in the sidebar, or open a file or folder.</div>;
  if (cuts?.error) return <div className="empty-pane error-text">Could not rebuild the requests: {cuts.error.message}</div>;
  if (!data) return <div className="empty-pane">Rebuilding the session's requests…</div>;
  const info = data.requests[request - 1];
  const sent = recorded?.matched.find((c) => c.request === request) ?? null;
  const recordedAt = recorded?.matched.map((c) => c.request).sort((a, b) => a - b) ?? [];
  // The inspector shows the message whole (the timeline switches to All when its view hides it:
  // a request's context holds messages later compactions dropped).
  const show = (index: number) => selectMessage(index);
  return (
    <div className="requests-tab" data-testid="requests-tab">
      <div className="request-stepper">
        <button type="button" onClick={() => setRequest((r) => Math.max(1, r - 1))} disabled={request <= 1} title="Previous request (,)">
          ◀
        </button>
        <label>
          Request{" "}
          <input
            type="number"
            min={1}
            max={count}
            value={request}
            onChange={(e) => setRequest(Math.min(count, Math.max(1, Number(e.target.value) || 1)))}
            data-testid="request-number"
          />{" "}
          of {count}{" "}
          <span className="muted small" data-testid="request-count-note" title="The Tokens tab counts the answered requests only">
            ({Math.max(0, count - 1)} answered + the next one)
          </span>
        </label>
        <button type="button" onClick={() => setRequest((r) => Math.min(count, r + 1))} disabled={request >= count} title="Next request (.)">
          ▶
        </button>
        <input
          className="request-slider"
          type="range"
          min={1}
          max={Math.max(1, count)}
          value={request}
          onChange={(e) => setRequest(Number(e.target.value))}
          aria-label="Request"
        />
        <span className="muted small" data-testid="request-summary">
          {info?.answer_index != null ? `answered by #${info.answer_index}` : "the next request"}
          {info?.after_cut != null && ` · after the cut at #${info.after_cut}`}
          {view && view.request === request && ` · ${plural(view.rows.length, "message")} · ${view.token_method.startsWith("estimate") ? "≈" : ""}${plural(view.tokens_counted, "token")}, ${view.token_method}`}
          {loading && " · loading…"}
        </span>
        {sent ? (
          <button
            type="button"
            className="recorded-toggle"
            aria-pressed={showRecorded}
            onClick={() => setShowRecorded((s) => !s)}
            data-testid="recorded-toggle"
            title="Set the request the agent recorded it sent beside the rebuilt one"
          >
            recorded request · {sent.differences === 0 ? "same" : `${sent.differences} diff.`}
          </button>
        ) : (
          recordedAt.length > 0 && (
            <span className="muted small" data-testid="recorded-elsewhere">
              recorded:{" "}
              {recordedAt.map((n, k) => (
                <span key={n}>
                  {k > 0 && ", "}
                  <button type="button" className="link" onClick={() => setRequest(n)}>
                    {n}
                  </button>
                </span>
              ))}
            </span>
          )
        )}
      </div>
      {sessionGroups.length > 0 ? (
        <details className="session-findings" open data-testid="session-findings">
          <summary>
            ⚠ {sessionGroups.length} pairing finding{sessionGroups.length === 1 ? "" : "s"} in this session
          </summary>
          <ul>
            {sessionGroups.map((g) => (
              <li key={g.key}>
                <button type="button" className="link" onClick={() => g.first.first_request && setRequest(g.first.first_request)}>
                  {FINDING_LABEL[g.first.kind]} <code>{g.first.call_id}</code> at #{g.first.message_index}, requests {g.first.first_request ?? "?"}–{g.first.last_request ?? "?"}
                  {g.first.caused_by_cut !== null && ` · caused by the cut at #${g.first.caused_by_cut}`}
                </button>
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p className="muted small session-findings" data-testid="session-findings">
          ✓ No pairing problem in any request of this session (OpenAI and Anthropic rules).
        </p>
      )}
      {error && <p className="error-text">{error.message}</p>}
      {groups.length > 0 && (
        <section className="request-findings" data-testid="request-findings" aria-label="Pairing findings of this request">
          {groups.map((g) => (
            <FindingCard key={g.key} group={g.byApi} onShow={show} />
          ))}
        </section>
      )}
      {sent && showRecorded ? (
        <RecordedDiff c={sent} onShow={show} />
      ) : view && (
        <div className="request-rows">
          <TimelineList
            rows={view.rows}
            cuts={banners}
            dimInvisible={false}
            cursor={cursor}
            onSelect={(p) => {
              setLocalCursor(p);
              const r = view.rows[p];
              if (r) show(r.index);
            }}
            onOpen={(p) => view.rows[p] && show(view.rows[p]!.index)}
            marks={badges}
          />
        </div>
      )}
    </div>
  );
}

function FindingCard({ group, onShow }: { group: Finding[]; onShow: (index: number) => void }) {
  const f = group[0]!;
  return (
    <article className="finding" data-testid="finding" data-kind={f.kind} data-index={f.message_index}>
      <h4>
        ✖ {FINDING_LABEL[f.kind]} <code>{f.call_id}</code> in{" "}
        <button type="button" className="link" onClick={() => onShow(f.message_index)}>
          #{f.message_index}
        </button>
        {f.caused_by_cut !== null && <span className="muted"> · caused by the cut at #{f.caused_by_cut}</span>}
      </h4>
      {group.map((g) => (
        <div key={g.api} className="finding-api" data-api={g.api}>
          <span className="api-name">{g.api === "openai" ? "OpenAI" : "Anthropic"}</span>
          {g.error_param && <code className="muted"> {g.error_param}</code>}
          <pre className="error-text" data-testid="finding-text">
            {g.error_text ?? "(no documented error text: the provider may accept it or fail differently)"}
          </pre>
        </div>
      ))}
    </article>
  );
}
