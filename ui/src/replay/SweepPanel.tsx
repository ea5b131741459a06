// The sweep: core's heatmap as a picture, and under it the same grid as a table of buttons —
// clicking (or Enter on) a cell sets side A to that keep-tail / trigger cap and tool-result cap.
// The metric, the last answer and a sweep on its way are the session's (store.ts), not the
// panel's.
import { useRef } from "react";
import type { Metric } from "../bindings/Metric";
import type { ReplayOptions } from "../bindings/ReplayOptions";
import { DEFAULTS } from "../bindings/defaults";
import { call, toIpcError } from "../ipc";
import { SvgImage } from "../components/SvgImage";
import { useSystemTheme } from "../theme";
import type { ThemeName } from "../bindings/ThemeName";
import { cellOptions, isCell, short } from "./diff";
import { updateReplay, useReplayState } from "./store";
import { sessionKey } from "../live";

const METRICS: { metric: Metric; label: string }[] = [
  { metric: "tokens-after", label: "mean tokens after a cut" },
  { metric: "compactions", label: "compactions" },
  { metric: "tokens-processed", label: "tokens processed" },
  { metric: "last-read-kept", label: "last-read file kept verbatim" },
  { metric: "orphans", label: "orphans" },
];

export interface SweepPanelProps {
  path: string;
  id: string;
  options: ReplayOptions;
  onPick: (o: ReplayOptions) => void;
}

/** Ask core for session `key`'s sweep; the answer lands in the session's Replay state even
 * when no panel shows it any more. */
export function runSweep(key: string, req: { path: string; id: string; options: ReplayOptions; metric: Metric; theme: ThemeName }) {
  updateReplay(key, { sweeping: true, sweepError: null });
  call("replay_sweep", req)
    .then((v) => {
      // An answer without a grid would leave the button as if nothing had been asked.
      if (!v?.grid) throw new Error("the sweep came back without a grid");
      updateReplay(key, { sweep: v, sweeping: false });
    })
    .catch((e) => updateReplay(key, { sweepError: toIpcError(e).message, sweeping: false }));
}

export function SweepPanel({ path, id, options, onPick }: SweepPanelProps) {
  const theme = useSystemTheme();
  const key = sessionKey(path, id);
  const [{ metric, sweep, sweeping: busy, sweepError: error }, update] = useReplayState(key);
  const setMetric = (m: Metric) => update({ metric: m });
  // When this panel was mounted: the end-to-end test checks that a sweep outlasts a panel
  // mounted afresh under it.
  const mounted = useRef(String(Date.now()));
  const run = () => runSweep(key, { path, id, options, metric, theme });
  const grid = sweep?.grid;
  const capInForce = options.tool_result_cap ?? (options.policy === "goose" ? 0 : DEFAULTS.coworker_tool_result_cap);
  return (
    <section className="sweep" data-testid="sweep" data-mounted={mounted.current}>
      <div className="sweep-head">
        <strong>Sweep</strong>
        <label>
          metric{" "}
          <select value={metric} onChange={(e) => setMetric(e.target.value as Metric)} data-testid="sweep-metric">
            {METRICS.map((m) => (
              <option key={m.metric} value={m.metric}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={run} disabled={busy} data-testid="sweep-run">
          {busy ? "Sweeping…" : sweep ? "Sweep again" : "Run sweep"}
        </button>
        <span className="muted small">
          {options.policy === "goose" ? "keep-tail 0–8" : options.policy === "opencode" ? "tail turns 0–8" : options.policy === "gemini" ? "kept 10–70 %" : "trigger caps ¼–1 × window"} × tool-result caps, around setting A. Click a cell to set A.
        </span>
      </div>
      {error && <p className="error-text">{error}</p>}
      {sweep && grid && (
        <>
          <SvgImage svg={sweep.svg} alt={`Sweep heatmap of ${grid.metric}`} />
          <table className="sweep-grid" data-testid="sweep-grid">
            <thead>
              <tr>
                <th>
                  {grid.rows.axis} ↓ / {grid.cols.axis} →
                </th>
                {grid.cols.values.map((v, c) => (
                  <th key={c}>{short(v)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {grid.rows.values.map((rv, r) => (
                <tr key={r}>
                  <th>{short(rv)}</th>
                  {grid.cols.values.map((_, c) => {
                    const v = grid.values[r]?.[c] ?? null;
                    const here = isCell(grid, r, c, options, capInForce);
                    return (
                      <td key={c}>
                        <button
                          type="button"
                          className={here ? "cell current" : "cell"}
                          aria-pressed={here}
                          data-row={r}
                          data-col={c}
                          title={`${grid.rows.axis} ${rv}, ${grid.cols.axis} ${grid.cols.values[c]}: set A to this`}
                          onClick={() => onPick(cellOptions(grid, r, c, options))}
                        >
                          {v === null ? "–" : grid.metric === "last-read-kept" ? `${Math.round(v * 100)}%` : short(v)}
                          {here && " ◀"}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
