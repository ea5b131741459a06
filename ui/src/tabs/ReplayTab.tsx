// The Replay tab: compact the open session offline under a setting (goose or coworker policy,
// K, threshold, window, caps, summary size, switches) and see the agent view that would follow,
// in the timeline's own rows; optionally beside a second setting (A | B) with the differences
// marked; the run-forward summary of each; and the sweep heatmap, whose cells set A. What it
// holds per session lives in replay/store.ts, so it outlasts the tab.
import { useCallback, useEffect, useMemo } from "react";
import type { TabContext } from "./context";
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { ReplayPanel } from "../bindings/ReplayPanel";
import type { SimulationSummary } from "../bindings/SimulationSummary";
import { useCommand } from "../useCommand";
import { ReplayControls } from "../replay/ReplayControls";
import { ReplayColumn } from "../replay/ReplayColumn";
import { SweepPanel } from "../replay/SweepPanel";
import { onlyIn } from "../replay/diff";
import { useReplayState } from "../replay/store";
import { sessionKey } from "../live";

/** Wait this long after the last knob move before replaying. */
const DEBOUNCE_MS = 200;

interface Side {
  panel: ReplayPanel | null;
  summary: SimulationSummary | null;
  busy: boolean;
  error: string | null;
}

/** Replays `options` (debounced) whenever it or the session changes. The compacted view is
 * quick; the run forward counts every request, so it lands after it. One session's answers stay
 * on screen while a knob moves, never under another session. */
function useReplay(path: string | null, id: string | null, options: ReplayOptions, enabled: boolean): Side {
  const req = path && id && enabled ? { path, id, options } : null;
  const deps = [path, id, options, enabled];
  const opts = { delayMs: DEBOUNCE_MS, keepFor: path && id ? `${path}\n${id}` : undefined };
  const panel = useCommand("replay_panel", req, deps, opts);
  const summary = useCommand("replay_summary", req, deps, opts);
  return {
    panel: panel.data,
    summary: summary.data,
    busy: panel.loading || summary.loading,
    error: (panel.error ?? summary.error)?.message ?? null,
  };
}

export function ReplayTab({ path, timeline, selectMessage, setWide }: TabContext) {
  const id = timeline?.meta.id ?? null;
  // Kept per session outside the tab (replay/store.ts): another tab and back keeps A, B and the sweep.
  const key = sessionKey(path ?? "", id ?? "");
  const [{ a, b, compare, focus }, update] = useReplayState(key);
  // A knob moved by hand leaves the re-read Tune opened the setting at.
  const setA = useCallback((o: ReplayOptions) => update({ a: o, focus: null }), [update]);
  const setB = useCallback((o: ReplayOptions) => update({ b: o }), [update]);
  const setCompare = (on: boolean) => update({ compare: on });
  const sideA = useReplay(path, id, a, true);
  const sideB = useReplay(path, id, b, compare);
  // A | B needs the width: the inspector folds away while comparing (at 1280 × 800 each side
  // showed 2–3 characters of a row beside it).
  useEffect(() => {
    setWide?.(compare);
    return () => setWide?.(false);
  }, [compare, setWide]);
  const onlyA = useMemo(() => (compare && sideA.panel && sideB.panel ? onlyIn(sideA.panel.rows, sideB.panel.rows) : new Set<number>()), [compare, sideA.panel, sideB.panel]);
  const onlyB = useMemo(() => (compare && sideA.panel && sideB.panel ? onlyIn(sideB.panel.rows, sideA.panel.rows) : new Set<number>()), [compare, sideA.panel, sideB.panel]);

  if (!timeline || !path || !id) return <div className="empty-pane">Select a session in the sidebar to replay its compaction.</div>;
  if (timeline.rows.length === 0) return <div className="empty-pane">This session holds no messages to replay.</div>;
  return (
    <div className="pane-scroll replay" data-testid="replay">
      <div className="replay-settings">
        <ReplayControls side="A" options={a} onChange={setA} />
        {compare ? (
          <ReplayControls side="B" options={b} onChange={setB} />
        ) : (
          <div className="replay-compare-off">
            <button type="button" onClick={() => setCompare(true)} data-testid="replay-compare">
              Compare with a second setting (B)
            </button>
          </div>
        )}
      </div>
      {compare && (
        <p className="muted small">
          Rows marked <span className="tag tag-only">only in A</span> / <span className="tag tag-only">only in B</span> are missing from the other side;
          Δ marks totals that changed; the inspector is folded away while comparing.{" "}
          <button type="button" className="link" onClick={() => setCompare(false)} data-testid="replay-compare-stop">
            Stop comparing
          </button>
        </p>
      )}
      {focus && (
        <p className="hint" data-testid="replay-focus">
          Opened from Tune at this setting: the recorded re-read at{" "}
          <button type="button" className="link" onClick={() => selectMessage(focus.call)}>
            #{focus.call}
          </button>{" "}
          would have been spared, its earlier read{" "}
          <button type="button" className="link" onClick={() => selectMessage(focus.previous)}>
            #{focus.previous}
          </button>{" "}
          still in the view at that request. The rows below are the view after this setting's last compaction; both are marked
          there when it still holds them.
        </p>
      )}
      <div className={compare ? "replay-sides two" : "replay-sides"}>
        <ReplayColumn side="A" {...sideA} only={onlyA} other={compare ? { panel: sideB.panel, summary: sideB.summary } : null} selectMessage={selectMessage} focus={focus} />
        {compare && <ReplayColumn side="B" {...sideB} only={onlyB} other={{ panel: sideA.panel, summary: sideA.summary }} selectMessage={selectMessage} />}
      </div>
      <SweepPanel path={path} id={id} options={a} onPick={setA} />
    </div>
  );
}
