// The Tokens tab: real BPE counts of the open session (core's `count_tokens`, cached on disk):
// the final agent-visible context and everything processed over the run by category, context
// per request with cuts and trigger, top tools and parts (each links to its message), and the
// usage the source recorded beside our estimate. Charts are core's SVGs; a table under each
// gives the exact numbers. Counting reports progress in the status bar and can be cancelled.
import { CostTable } from "./CostTable";
import { useEffect, useState } from "react";
import type { TabContext } from "./context";
import { useCommand } from "../useCommand";
import { useSteps } from "../steps";
import type { TokenView } from "../bindings/TokenView";
import type { TokenReport } from "../bindings/TokenReport";
import type { TokenCharts } from "../bindings/TokenCharts";
import type { CategoryTotals } from "../bindings/CategoryTotals";
import { cancelRunning, setRunning, useEncoding } from "../tasks";
import { useSystemTheme } from "../theme";
import { SvgImage } from "../components/SvgImage";
import { plural } from "../timeline/rows";
import { CATEGORY_LABEL, barOrder, percent, requestAt, rowAt, thousands, usageNote } from "../tokens/format";

export function TokensTab({ path, timeline, selectMessage }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const [encoding] = useEncoding();
  const theme = useSystemTheme();
  const [attempt, setAttempt] = useState(0);
  const [everyOpen, setEveryOpen] = useState(false);
  const [everyShown, setEveryShown] = useState(2000);

  // A new count (another session, encoding or attempt) supersedes this one; its answer lands
  // as a transition, so the tables and charts of a big session render in slices between frames.
  const asked = useCommand("count_tokens", path && id ? { path, id, encoding } : null, [path, id, encoding, attempt], {
    transition: true,
  });
  // The report without its long per-request lists (core's `tokens::report::shown`): a line per
  // request is what this tab draws of them; the chart is drawn by core from the whole report.
  const shownView: TokenView | null = asked.data;
  const report = shownView?.report ?? null;
  const requests = shownView?.requests ?? [];
  const counting = asked.loading;
  // The status bar shows the count while it runs (its progress comes as events).
  useEffect(() => {
    if (!counting) return;
    setRunning({ task: "tokens", label: "Counting tokens", fraction: null });
    return () => setRunning(null);
  }, [counting]);

  // Leaving the tab: the count is no longer wanted.
  useEffect(
    () => () => {
      cancelRunning();
      setRunning(null);
    },
    [],
  );

  // The app keeps the report it sent: only which one to draw goes back. Drawn as a transition.
  const drawn = useCommand("token_charts", report && path && id ? { path, id, encoding, theme } : null, [report, theme], {
    transition: true,
  });
  const charts: TokenCharts | null = drawn.data;
  const error = asked.error ?? drawn.error;
  // Drawn in steps (`useSteps`): the final context; what was processed, the usage and the cost;
  // the requests and the tools; the top parts. In one go, the first visit of a 200 MB session's
  // report held the window 70–190 ms.
  const step = useSteps(3, report);

  if (!timeline || !path) return <div className="empty-pane">Select a session in the sidebar to count its tokens.</div>;
  if (error)
    return (
      <div className="empty-pane" data-testid="tokens-error">
        <p>{error.code === "cancelled" ? "Counting was cancelled." : `Counting failed (${error.code}): ${error.message}`}</p>
        <button type="button" onClick={() => setAttempt((a) => a + 1)}>
          Count again
        </button>
      </div>
    );
  if (counting || !report)
    return (
      <div className="empty-pane" data-testid="tokens-counting">
        <p>Counting tokens… progress is in the status bar; counts are cached, so the next time is quick.</p>
        <button type="button" onClick={cancelRunning}>
          Cancel
        </button>
      </div>
    );

  const open = (index: number) => selectMessage(index);
  const cutAt = new Set(report.compactions.map((c) => c.request));
  const finalBars = barOrder(report.final_context);
  const processedBars = barOrder(report.processed);
  const tools = report.top_tools;
  return (
    <div className="pane-scroll tokens" data-testid="tokens">
      <p className="pane-head">
        Encoding <strong data-testid="tokens-encoding">{report.encoding}</strong> ·{" "}
        {plural(requests.length, "answered request")} · {plural(report.compactions.length, "compaction")} ·{" "}
        <span className="muted">
          {plural(report.stats.cache_hits, "piece")} from the cache, {report.stats.counted.toLocaleString()} counted now
        </span>
      </p>

      <section>
        {charts && (
          <SvgImage
            svg={charts.final_context}
            alt="Share of the final agent-visible context by category"
            hover={(_, y) => shareTip(finalBars, rowAt(y, 64, 30, finalBars.length))}
          />
        )}
        <CategoryTable totals={report.final_context} testId="final-table" caption="Final agent-visible context" />
      </section>

      {step >= 1 && (
      <>
      <section>
        {charts && (
          <SvgImage
            svg={charts.processed}
            alt="Share of all tokens processed over the run by category"
            hover={(_, y) => shareTip(processedBars, rowAt(y, 64, 30, processedBars.length))}
          />
        )}
        <CategoryTable totals={report.processed} testId="processed-table" caption="All tokens processed over the run (the cost view)" />
      </section>

      <Usage report={report} />
      <CostTable cost={report.cost} requests={shownView?.priced_requests ?? 0} />
      </>
      )}

      {step >= 2 && (
      <>

      <section>
        {charts && (
          <SvgImage
            svg={charts.per_request}
            alt="Context per request by category, compaction cuts as vertical lines, the trigger as a horizontal one"
            hover={(x) => {
              const r = requests[requestAt(x, requests.length)];
              return r
                ? `request ${r.request} (message #${r.message_index}): ${thousands(r.total)} tokens` +
                    (r.recorded !== null ? ` · recorded ${thousands(r.recorded)}` : "")
                : null;
            }}
          />
        )}
        <details onToggle={(e) => setEveryOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>
            Every request ({requests.length}){report.trigger_tokens !== null && ` · trigger at ${thousands(report.trigger_tokens)} tokens`}
            {report.context_limit !== null && ` · window ${thousands(report.context_limit)}`}
          </summary>
          {/* Drawn only while open, and in steps: a 200 MB session answers 12 000 requests. */}
          {everyOpen && (
            <>
              <table className="num-table" data-testid="requests-table">
                <thead>
                  <tr>
                    <th>request</th>
                    <th>message</th>
                    <th>estimate</th>
                    <th>recorded</th>
                    <th>cut before</th>
                  </tr>
                </thead>
                <tbody>
                  {requests.slice(0, everyShown).map((r) => (
                    <tr key={r.request}>
                      <td>{r.request}</td>
                      <td>
                        <MessageLink index={r.message_index} open={open} />
                      </td>
                      <td>{thousands(r.total)}</td>
                      <td>{r.recorded === null ? "—" : thousands(r.recorded)}</td>
                      <td>{cutAt.has(r.request) ? "✂ cut" : ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {requests.length > everyShown && (
                <p className="muted small">
                  {everyShown} of {requests.length} requests shown ·{" "}
                  <button type="button" className="link" onClick={() => setEveryShown((n) => n + 2000)}>
                    show more
                  </button>
                </p>
              )}
            </>
          )}
        </details>
      </section>

      <section>
        {charts && (
          <SvgImage
            svg={charts.top_tools}
            alt="Top tools by tokens"
            hover={(_, y) => {
              const t = tools[rowAt(y, 70, 30, Math.min(tools.length, 15))];
              return t ? `${t.name}: ${thousands(t.total)} tokens in ${t.calls} call${t.calls === 1 ? "" : "s"}` : null;
            }}
          />
        )}
        <table className="num-table" data-testid="tools-table">
          <caption>Top tools</caption>
          <thead>
            <tr>
              <th className="left">tool</th>
              <th className="left">kind</th>
              <th>calls</th>
              <th>arguments</th>
              <th>bodies</th>
              <th>results</th>
              <th>total</th>
              <th>largest</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((t) => (
              <tr key={t.name}>
                <td className="left mono">{t.name}</td>
                <td className="left">{t.kind}</td>
                <td>{t.calls}</td>
                <td>{thousands(t.arguments)}</td>
                <td>{thousands(t.bodies)}</td>
                <td>{thousands(t.results)}</td>
                <td>{thousands(t.total)}</td>
                <td>
                  <MessageLink index={t.largest_message_index} open={open} />
                </td>
              </tr>
            ))}
            {tools.length === 0 && (
              <tr>
                <td colSpan={8} className="left muted">
                  No tool traffic in this session.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>

      </>
      )}

      {step >= 3 && (
      <section>
        <table className="num-table" data-testid="parts-table">
          <caption>Top parts by tokens</caption>
          <thead>
            <tr>
              <th>message</th>
              <th>part</th>
              <th className="left">category</th>
              <th className="left">tool</th>
              <th>tokens</th>
              <th>bytes</th>
              <th className="left">in final context</th>
            </tr>
          </thead>
          <tbody>
            {report.top_parts.map((p) => (
              <tr key={`${p.message_index}-${p.part_index}`}>
                <td>
                  <MessageLink index={p.message_index} open={open} />
                </td>
                <td>{p.part_index}</td>
                <td className="left">{CATEGORY_LABEL[p.category] ?? p.category}</td>
                <td className="left mono">{p.tool ?? ""}</td>
                <td>{thousands(p.tokens)}</td>
                <td>{thousands(p.bytes)}</td>
                <td className="left">{p.agent_visible ? "● yes" : "○ no (cut away)"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      )}
    </div>
  );
}

function shareTip(bars: { name: string; tokens: number; share: number }[], i: number): string | null {
  const b = bars[i];
  return b ? `${CATEGORY_LABEL[b.name] ?? b.name}: ${thousands(b.tokens)} tokens (${percent(b.share)})` : null;
}

function MessageLink({ index, open }: { index: number; open: (index: number) => void }) {
  return (
    <button type="button" className="link" onClick={() => open(index)} title={`Select message #${index} in the timeline and inspector`} data-message-link={index}>
      #{index}
    </button>
  );
}

function CategoryTable({ totals, caption, testId }: { totals: CategoryTotals; caption: string; testId: string }) {
  return (
    <table className="num-table" data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th className="left">category</th>
          <th>tokens</th>
          <th>share</th>
        </tr>
      </thead>
      <tbody>
        {barOrder(totals).map((c) => (
          <tr key={c.name} data-category={c.name}>
            <td className="left">{CATEGORY_LABEL[c.name] ?? c.name}</td>
            <td>{thousands(c.tokens)}</td>
            <td>{percent(c.share)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th className="left">total</th>
          <th data-testid={`${testId}-total`} data-total={totals.total}>
            {thousands(totals.total)}
          </th>
          <th>100%</th>
        </tr>
      </tfoot>
    </table>
  );
}

function Usage({ report }: { report: TokenReport }) {
  const u = report.recorded_usage;
  if (!u)
    return (
      <section className="usage" data-testid="usage">
        <h3>Recorded usage</h3>
        <p className="muted">This session recorded no token usage; only our estimate is shown.</p>
      </section>
    );
  const diff = u.difference;
  return (
    <section className="usage" data-testid="usage">
      <table className="num-table">
        <caption>Recorded usage beside our estimate (last recorded request)</caption>
        <tbody>
          <tr>
            <th className="left">recorded context (input + cache reads + cache writes)</th>
            <td>{u.recorded_context === null ? "—" : thousands(u.recorded_context)}</td>
          </tr>
          <tr>
            <th className="left">our estimate of the same request</th>
            <td>{thousands(u.estimated_context)}</td>
          </tr>
          <tr>
            <th className="left">difference (estimate − recorded)</th>
            <td data-testid="usage-difference">
              {diff === null ? "—" : `${diff > 0 ? "+" : ""}${thousands(diff)}`}
              {u.difference_share !== null && ` (${u.difference_share > 0 ? "+" : ""}${percent(u.difference_share)})`}
            </td>
          </tr>
          <tr>
            <th className="left">requests with recorded usage</th>
            <td>{u.requests_with_usage}</td>
          </tr>
          {u.recorded_processed !== null && (
            <tr>
              <th className="left">recorded tokens processed over the run</th>
              <td>{thousands(u.recorded_processed)}</td>
            </tr>
          )}
        </tbody>
      </table>
      <p className="note">{usageNote(u)}</p>
    </section>
  );
}
