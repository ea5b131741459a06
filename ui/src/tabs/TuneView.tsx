// The Tune view of the Post-mortem tab's fleet section: every session of the source replayed at
// every setting of a grid (core's `tune`, as `palimpsest tune --json` prints it), shown as a
// heatmap of the re-reads after a compaction each setting spares, the Pareto chart of spared
// re-reads against tokens carried with its knee, and the sessions under the chosen setting,
// each opening Replay at that setting on its first spared re-read. Filters (harness, model,
// project, dates) ask core again; cells come back from the index, so only the first run waits.
// Tuning, the front and the knee are core's; this lays them out.
import { useRef, useState } from "react";
import type { PolicyName } from "../bindings/PolicyName";
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { TuneFilter } from "../bindings/TuneFilter";
import type { TuneView as Tuned } from "../bindings/TuneView";
import { call } from "../ipc";
import { usePieceProgress } from "../tasks";
import { LongTask } from "../components/LongTask";
import { useCommand } from "../useCommand";
import { dollars } from "./fleetSort";
import { heatmapOf, knobsOf, paretoPoints } from "./tuneLayout";

/** A re-read to open Replay on: the re-reading call and the earlier read still in view. */
export interface Focus {
  call: number;
  previous: number;
}

export type OpenReplayAt = (key: { path: string; id: string }, options: ReplayOptions, focus: Focus | null) => void;

const POLICIES: PolicyName[] = ["goose", "opencode", "gemini", "coworker"];
const NO_FILTER: TuneFilter = { formats: [], models: [], projects: [], since: null, until: null };

/** `YYYY-MM-DD` as ms since the epoch (midnight UTC), or null when empty. */
const dayMs = (v: string) => (v ? Date.parse(`${v}T00:00:00Z`) : null);
const dayOf = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString().slice(0, 10));

export function TuneView({ path, openReplayAt }: { path: string; openReplayAt: OpenReplayAt }) {
  const [policy, setPolicy] = useState<PolicyName>("goose");
  const [grid, setGrid] = useState("");
  const [atRecorded, setAtRecorded] = useState(true);
  const [filter, setFilter] = useState<TuneFilter>(NO_FILTER);
  const [asked, setAsked] = useState(false);
  const [round, setRound] = useState(0);
  const req = asked ? { paths: [path], policy, grid: grid.split(/\s+/).filter(Boolean), at_recorded: atRecorded, naive: false, filter } : null;
  const { data, error, loading } = useCommand("tune", req, [asked, path, policy, grid, atRecorded, filter, round]);
  // The last answer stays while a filter asks again, so the filters do not vanish under the click.
  const last = useRef<Tuned | null>(null);
  if (data) last.current = data;
  const view = data ?? (loading ? last.current : null);
  const done = usePieceProgress("tune", path, loading);
  const [picked, setPicked] = useState<number | null>(null);
  const t = view?.tune;
  const chosen = t ? (picked !== null && picked < t.settings.length ? picked : (t.knee ?? 0)) : null;
  const cancelled = error?.code === "cancelled";
  const knee = t && t.knee !== null ? t.settings[t.knee] : undefined;
  const options = view && chosen !== null ? view.options[chosen] : undefined;

  return (
    <section className="tune" data-testid="tune">
      <h3>Tune: which setting would have spared this fleet its re-reads</h3>
      <div className="tune-ask">
        <label>
          policy{" "}
          <select value={policy} onChange={(e) => setPolicy(e.target.value as PolicyName)} data-testid="tune-policy">
            {POLICIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          grid{" "}
          <input
            defaultValue={grid}
            placeholder={policy === "coworker" ? "trigger=100000,150000,…" : policy === "gemini" ? "preserve=10..70" : "K=0..8 cap=0,30000"}
            onBlur={(e) => setGrid(e.target.value.trim())}
            onKeyDown={(e) => e.key === "Enter" && setGrid((e.target as HTMLInputElement).value.trim())}
            data-testid="tune-grid"
          />
        </label>
        <label title="Compact where each session compacted as well as where the policy's trigger fires">
          <input type="checkbox" checked={atRecorded} onChange={(e) => setAtRecorded(e.target.checked)} /> at the recorded compactions
        </label>
        {!asked && (
          <button type="button" onClick={() => setAsked(true)} data-testid="tune-run">
            Tune this fleet
          </button>
        )}
      </div>
      <LongTask
        name="tune"
        busy={loading}
        cancelled={cancelled}
        done={done}
        counting={(n, of) => `Replaying ${n} of ${of} sessions at every setting (kept ones come from the index)… `}
        waiting="Listing the fleet… "
        cancel={() => void call("cancel_tune", {}).catch(() => {})}
        again={() => setRound((r) => r + 1)}
        againLabel="Tune again"
      />
      {error && !cancelled && <p className="error-text">Could not tune the fleet ({error.code}): {error.message}</p>}
      {view && t && chosen !== null && (
        <>
          <Filters view={view} filter={filter} setFilter={setFilter} />
          <p data-testid="tune-summary">
            {t.sessions.length} sessions, <strong>{t.recorded}</strong> re-reads after a compaction recorded · {t.settings.length} settings of {t.policy}
            {knee ? (
              <>
                {" "}· recommended <strong data-testid="tune-knee">{knee.label}</strong>: spares {knee.avoided} of {t.recorded}
              </>
            ) : t.recorded === 0 ? (
              " · no re-read after a compaction to spare"
            ) : (
              " · no recommendation: every setting orphans a tool result"
            )}
            {view.problems.length > 0 && <span className="muted"> · {view.problems.length} {view.problems.length === 1 ? "session" : "sessions"} could not be read</span>}
          </p>
          <div className="tune-charts">
            <Heatmap view={view} chosen={chosen} pick={setPicked} />
            <Pareto view={view} chosen={chosen} pick={setPicked} />
          </div>
          {options && <Sessions view={view} k={chosen} open={(id, focus) => openReplayAt({ path, id }, options, focus)} />}
        </>
      )}
    </section>
  );
}

function Filters({ view, filter, setFilter }: { view: Tuned; filter: TuneFilter; setFilter: (f: TuneFilter) => void }) {
  const f = view.facets;
  const one = <T extends string>(label: string, values: T[], chosen: T[], set: (v: T[]) => void, testid: string) => (
    <label>
      {label}{" "}
      <select value={chosen[0] ?? ""} onChange={(e) => set(e.target.value ? [e.target.value as T] : [])} data-testid={testid}>
        <option value="">all ({values.length})</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="tune-filters" data-testid="tune-filters">
      {one("harness", f.formats, filter.formats, (formats) => setFilter({ ...filter, formats }), "tune-harness")}
      {one("model", f.models, filter.models, (models) => setFilter({ ...filter, models }), "tune-model")}
      {one("project", f.projects, filter.projects, (projects) => setFilter({ ...filter, projects }), "tune-project")}
      <label>
        from <input type="date" value={dayOf(filter.since)} min={dayOf(f.first)} max={dayOf(f.last)} onChange={(e) => setFilter({ ...filter, since: dayMs(e.target.value) })} data-testid="tune-since" />
      </label>
      <label>
        before <input type="date" value={dayOf(filter.until)} onChange={(e) => setFilter({ ...filter, until: dayMs(e.target.value) })} data-testid="tune-until" />
      </label>
      <span className="muted small">
        {view.tune.sessions.length} of {f.sessions} sessions · {view.from_index} from the index, {view.replayed} replayed
      </span>
    </div>
  );
}

/** The grid over the fleet: re-reads spared per setting, two knobs as rows and columns. */
function Heatmap({ view, chosen, pick }: { view: Tuned; chosen: number; pick: (k: number) => void }) {
  const t = view.tune;
  const map = heatmapOf(t.settings.map((s) => s.setting));
  const most = Math.max(1, ...t.settings.map((s) => s.avoided));
  return (
    <table className="tune-heatmap" data-testid="tune-heatmap">
      <caption className="small muted">re-reads spared per setting ({knobsOf(t.settings.map((s) => s.setting)).join(" × ") || "defaults"})</caption>
      <tbody>
        {map.rows.map((row, r) => (
          <tr key={r}>
            {map.rowLabel && <th scope="row">{map.rowLabel(r)}</th>}
            {row.map((k, c) => {
              const s = k === null ? undefined : t.settings[k];
              if (k === null || !s) return <td key={c} />;
              const mark = t.knee === k ? " ◆" : t.front.includes(k) ? " *" : "";
              return (
                <td key={c}>
                  <button
                    type="button"
                    className={`cell${k === chosen ? " chosen" : ""}${s.orphans ? " orphaned" : ""}`}
                    style={{ background: `rgba(46, 125, 50, ${(0.1 + (0.8 * s.avoided) / most).toFixed(2)})` }}
                    title={`${s.label}: ${s.avoided} of ${t.recorded} re-reads spared, ${s.tokens_carried.toLocaleString()} tokens carried${s.usd !== null ? ` (${dollars(s.usd)})` : ""}, ${s.compactions} compactions (${s.storms} in storms)${s.orphans ? `, ${s.orphans} orphaned tool results` : ""}`}
                    onClick={() => pick(k)}
                    data-testid="tune-cell"
                    data-label={s.label}
                    data-avoided={s.avoided}
                  >
                    {map.colLabel ? `${map.colLabel(c)}: ` : `${s.label}: `}
                    {s.avoided}
                    {mark}
                    {s.orphans ? " ⚠" : ""}
                  </button>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Re-reads spared against tokens carried, the front joined, the knee a diamond. */
function Pareto({ view, chosen, pick }: { view: Tuned; chosen: number; pick: (k: number) => void }) {
  const W = 360;
  const H = 180;
  const pts = paretoPoints(view.tune, W, H, 36, 14);
  const front = view.tune.front.flatMap((k) => pts[k] ?? []);
  return (
    <svg className="tune-pareto" width={W} height={H} role="img" aria-label="Pareto chart of re-reads spared against tokens carried" data-testid="tune-pareto">
      <line x1={36} y1={H - 14} x2={W - 6} y2={H - 14} className="axis" />
      <line x1={36} y1={6} x2={36} y2={H - 14} className="axis" />
      <text x={W - 6} y={H - 2} textAnchor="end" className="axis-label">
        tokens carried →
      </text>
      <text x={4} y={12} className="axis-label">
        spared
      </text>
      <polyline points={front.map((p) => `${p.x},${p.y}`).join(" ")} className="front" />
      {pts.map((p, k) => {
        const s = view.tune.settings[k];
        if (!s) return null;
        const cls = `${k === chosen ? "chosen " : ""}${s.orphans ? "orphaned" : view.tune.front.includes(k) ? "on-front" : ""}`;
        return (
          <g key={k} onClick={() => pick(k)} className={`point ${cls}`} data-testid="tune-point" data-label={s.label}>
            <title>{`${s.label}: ${s.avoided} spared, ${s.tokens_carried.toLocaleString()} tokens${s.orphans ? `, ${s.orphans} orphans (never recommended)` : ""}`}</title>
            {view.tune.knee === k ? <rect x={p.x - 5} y={p.y - 5} width={10} height={10} transform={`rotate(45 ${p.x} ${p.y})`} /> : <circle cx={p.x} cy={p.y} r={4} />}
          </g>
        );
      })}
    </svg>
  );
}

/** The sessions under setting `k`, those it spares most first, each opening Replay there. */
function Sessions({ view, k, open }: { view: Tuned; k: number; open: (id: string, focus: Focus | null) => void }) {
  const s = view.tune.settings[k];
  if (!s) return null;
  const spared = (t: (typeof view.tune.sessions)[number]) => t.cells[k]?.avoided.length ?? 0;
  const rows = [...view.tune.sessions].sort((a, b) => spared(b) - spared(a) || a.name.localeCompare(b.name));
  return (
    <table className="grid-table tune-sessions" data-testid="tune-sessions" data-label={s.label}>
      <caption className="small">
        At <strong>{s.label}</strong>: {s.avoided} re-reads spared ({s.avoided_tokens.toLocaleString()} tokens), {s.tokens_carried.toLocaleString()} tokens carried
        {s.usd !== null ? ` ≈ ${dollars(s.usd)}` : ""}, {s.compactions} compactions, {s.storms} in storms, {s.over_window} requests past the window, {s.orphans} orphans
      </caption>
      <thead>
        <tr>
          <th>session</th>
          <th className="num">spared</th>
          <th className="num">tokens carried</th>
          <th className="num">compactions</th>
          <th className="num">orphans</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((t) => {
          const c = t.cells[k];
          if (!c) return null;
          const first = c.avoided[0];
          return (
            <tr key={`${t.path}\n${t.session_id}`} data-session-id={t.session_id} data-avoided={c.avoided.length}>
              <td>
                {t.name} <span className="muted small">{t.format}</span>
              </td>
              <td className="num">
                {c.avoided.length} of {t.recorded}
              </td>
              <td className="num">{c.tokens_carried.toLocaleString()}</td>
              <td className="num">
                {c.compactions}
                {c.storms ? ` (${c.storms} storms)` : ""}
              </td>
              <td className={`num${c.orphans ? " fact-warn" : ""}`}>{c.orphans}</td>
              <td>
                <button
                  type="button"
                  className="link"
                  onClick={() => open(t.session_id, first ? { call: first.call_index, previous: first.previous_index } : null)}
                  title={first ? `Replay at ${s.label}, at the re-read of ${first.path} (message ${first.call_index})` : `Replay at ${s.label}`}
                  data-testid="tune-open"
                >
                  {first ? `replay at #${first.call_index}` : "replay"}
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
