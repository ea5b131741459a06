// The fleet table of the Post-mortem tab: every session of the source, from the index (core
// brings it up to date first), with severity, re-reads, compactions, cost and verdict. Any
// column sorts (click its header; again to reverse); the verdict wraps in its column so the
// table fits the pane. Each row opens its session. Sorting is `fleetSort`'s. Rows of sessions
// being written update in place as their lines land (`fleet-rows` events, diagnosed by the
// app's alert thread); "Running" shows only those, most severe first.
import { useEffect, useMemo, useState } from "react";
import type { FleetRow } from "../bindings/FleetRow";
import { call, onEvent, whileMounted } from "../ipc";
import { usePieceProgress } from "../tasks";
import { LongTask } from "../components/LongTask";
import { useCommand } from "../useCommand";
import { percent } from "../components/MessageLinks";
import { dollars, firstDir, sortFleet, type FleetKey, type SortDir } from "./fleetSort";

/** Sources with at most this many sessions get the fleet table without asking. */
const FLEET_AUTO = 25;

/** A session counts as running this long after its last line came in. */
export const RUNNING_MS = 5 * 60_000;

/** The live rows of `path` after a `fleet-rows` batch: each row with when it came in. */
export function withLiveRows(
  live: Map<string, { row: FleetRow; at: number }>,
  batch: { source: string; row: FleetRow }[],
  path: string,
  at: number,
): Map<string, { row: FleetRow; at: number }> {
  const next = new Map(live);
  for (const u of batch) if (u.source === path) next.set(u.row.session_id, { row: u.row, at });
  return next;
}

/** The fleet's rows with the live ones laid over them (and added, for sessions new since);
 *  only those that came in within `RUNNING_MS` of `now` when `running`. */
export function fleetRows(base: FleetRow[], live: Map<string, { row: FleetRow; at: number }>, running: boolean, now: number): FleetRow[] {
  const byId = new Map(base.map((r) => [r.session_id, r]));
  for (const [id, l] of live) byId.set(id, l.row);
  const all = [...byId.values()];
  return running ? all.filter((r) => now - (live.get(r.session_id)?.at ?? -Infinity) < RUNNING_MS) : all;
}

/** The live rows of source `path`, kept while the view is open. */
function useLiveRows(path: string) {
  const [live, setLive] = useState<Map<string, { row: FleetRow; at: number }>>(new Map());
  useEffect(() => {
    setLive(new Map());
    return whileMounted(onEvent("fleet-rows", (batch) => setLive((m) => withLiveRows(m, batch, path, Date.now()))));
  }, [path]);
  return live;
}

// Seven columns fit the main pane at 1280 × 800 beside the sidebar and inspector; the format
// rides under the title, usable summaries beside the compaction count.
const COLUMNS: { key: FleetKey; label: string; num?: boolean }[] = [
  { key: "severity", label: "severity" },
  { key: "session", label: "session" },
  { key: "calls", label: "calls", num: true },
  { key: "reread_rate", label: "re-reads", num: true },
  { key: "compactions", label: "compactions (usable)", num: true },
  { key: "cost", label: "cost", num: true },
  { key: "verdict", label: "verdict" },
];

/** Sources whose fleet the user asked for, kept outside the view: the tab mounts it again
 *  when its session reloads (a live session that grew, a page of rows coming in under load),
 *  and a click on "Diagnose all" must not be forgotten then. */
const askedSources = new Set<string>();

export function FleetView({ path, count, current, selectSession }: { path: string; count: number; current: string; selectSession: (id: string) => void }) {
  // Whether the user asked for this source's fleet; a small source is asked for without a click.
  const [askedFor, setAskedFor] = useState<string | null>(() => (askedSources.has(path) ? path : null));
  const ask = () => {
    askedSources.add(path);
    setAskedFor(path);
  };
  // Bumped by "Diagnose again" after a Cancel: the same request, asked once more.
  const [round, setRound] = useState(0);
  const asked = count <= FLEET_AUTO || askedFor === path || askedSources.has(path);
  const [sort, setSort] = useState<{ key: FleetKey; dir: SortDir }>({ key: "severity", dir: "asc" });
  const { data: fleet, error: err, loading: busy } = useCommand("diagnose_fleet", asked ? { path } : null, [asked, path, count, round]);
  const done = usePieceProgress("fleet", path, busy);
  const cancelled = err?.code === "cancelled";
  const live = useLiveRows(path);
  const [running, setRunning] = useState(false);
  const rows = useMemo(
    () => (fleet ? sortFleet(fleetRows(fleet.sessions, live, running, Date.now()), sort.key, sort.dir) : []),
    [fleet, live, running, sort],
  );
  const t = fleet?.totals;
  const sortBy = (key: FleetKey) =>
    setSort((s) => (s.key === key ? { key, dir: s.dir === "asc" ? "desc" : "asc" } : { key, dir: firstDir(key) }));
  return (
    <section className="fleet" data-testid="fleet">
      <h3>Fleet: all {count} sessions of this source</h3>
      {live.size > 0 && (
        <label className="small" data-testid="fleet-running-label">
          <input
            type="checkbox"
            checked={running}
            onChange={(e) => {
              setRunning(e.target.checked);
              if (e.target.checked) setSort({ key: "severity", dir: "asc" });
            }}
            data-testid="fleet-running"
          />{" "}
          Running: only the sessions written in the last five minutes, most severe first
        </label>
      )}
      {!asked && (
        <button type="button" onClick={ask} data-testid="fleet-run">
          Diagnose all {count} sessions
        </button>
      )}
      <LongTask
        name="fleet"
        busy={busy}
        cancelled={cancelled}
        done={done}
        counting={(n, of) => `Reading ${n} of ${of} new or changed sessions (the others come from the index)… `}
        waiting={`Diagnosing ${count} sessions (from the index: only new and changed ones are read)… `}
        cancel={() => void call("cancel_fleet", {}).catch(() => {})}
        again={() => setRound((r) => r + 1)}
        againLabel="Diagnose again"
      />
      {err && !cancelled && <p className="error-text">Could not diagnose the fleet ({err.code}): {err.message}</p>}
      {fleet && t && (
        <>
          <p data-testid="fleet-totals">
            {t.sessions} sessions: <strong className="sev-stuck">{t.stuck_sessions} stuck</strong>, <span className="sev-watch">{t.watch_sessions} to watch</span>, {t.ok_sessions} ok ·
            cost <strong>{dollars(t.cost_usd)}</strong>
            {t.shared.requests ? (
              <span title="A transcript resumed into a new file carries the requests it copied: each is counted once in the total (the rows keep their own files' cost)." data-testid="fleet-shared">
                {" "}({t.shared.requests} requests held by two sessions counted once)
              </span>
            ) : null}
            {t.unpriced_sessions ? ` (${t.unpriced_sessions} without a price)` : ""} · re-read rate <strong>{percent(t.reread_rate)}</strong> ({t.rereads} of {t.reads} reads) · {t.compactions} compactions · usable summaries{" "}
            <strong>{t.usable_summary_rate === null ? "n/a" : percent(t.usable_summary_rate)}</strong>
          </p>
          <table className="grid-table fleet-table" data-testid="fleet-table">
            <colgroup>
              {COLUMNS.map((c) => (
                <col key={c.key} className={`fleet-col-${c.key}`} />
              ))}
            </colgroup>
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c.key} className={c.num ? "num" : undefined} aria-sort={sort.key === c.key ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}>
                    <button type="button" className="sort-button" onClick={() => sortBy(c.key)} data-testid={`fleet-sort-${c.key}`}>
                      {c.label}
                      {sort.key === c.key ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.path}#${r.session_id}`} className={r.session_id === current ? "current" : ""} aria-current={r.session_id === current} data-severity={r.severity}>
                  <td className={`sev sev-${r.severity}`}>{r.severity === "stuck" ? "⚠ stuck" : r.severity === "watch" ? "● watch" : "✓ ok"}</td>
                  <td className="session-cell">
                    <button type="button" className="link-button" onClick={() => selectSession(r.session_id)} data-testid="fleet-session" data-session-id={r.session_id} title={r.session_id}>
                      {r.title}
                    </button>
                    <div className="muted small">
                      {r.format}
                      {live.has(r.session_id) && (
                        <span data-testid="fleet-live">
                          {" "}· ● last line {new Date(live.get(r.session_id)!.at).toLocaleTimeString()}
                        </span>
                      )}
                    </div>
                  </td>
                  <td className="num">{r.calls}</td>
                  <td className="num">
                    {percent(r.reread_rate)}
                    <div className="muted small">
                      {r.rereads}/{r.reads}
                    </div>
                  </td>
                  <td className="num">
                    {r.compactions ? `${r.compactions} (${r.usable_summaries})` : "—"}
                    {r.microcompacts ? <div className="muted small">+{r.microcompacts} micro</div> : null}
                  </td>
                  <td className="num" data-testid="fleet-cost">{dollars(r.cost_usd)}</td>
                  <td className="verdict-cell">{r.verdict}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {fleet.problems.map((p, i) => (
            <p key={i} className="problem">
              ⚠ {p.message}
            </p>
          ))}
        </>
      )}
    </section>
  );
}
