// The Replay tab: compact the open session offline under a setting (goose or coworker policy,
// K, threshold, window, caps, summary size, switches) and see the agent view that would follow,
// in the timeline's own rows; optionally beside a second setting (A | B) with the differences
// marked; the run-forward summary of each; and the sweep heatmap, whose cells set A.
import { useEffect, useMemo, useState } from "react";
import type { TabContext } from "./context";
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { ReplayPanel } from "../bindings/ReplayPanel";
import type { SimulationSummary } from "../bindings/SimulationSummary";
import { call, toIpcError } from "../ipc";
import { ReplayControls } from "../replay/ReplayControls";
import { ReplayColumn } from "../replay/ReplayColumn";
import { SweepPanel } from "../replay/SweepPanel";
import { DEFAULT_OPTIONS, onlyIn } from "../replay/diff";

/** Wait this long after the last knob move before replaying. */
const DEBOUNCE_MS = 200;

interface Side {
  panel: ReplayPanel | null;
  summary: SimulationSummary | null;
  busy: boolean;
  error: string | null;
}

const EMPTY: Side = { panel: null, summary: null, busy: false, error: null };

/** Replays `options` (debounced) whenever it or the session changes. */
function useReplay(path: string | null, id: string | null, options: ReplayOptions, enabled: boolean): Side {
  const [side, setSide] = useState<Side>(EMPTY);
  useEffect(() => {
    if (!path || !id || !enabled) return setSide(EMPTY);
    let live = true;
    setSide((s) => ({ ...s, busy: true }));
    const t = setTimeout(() => {
      const req = { path, id, options };
      // The compacted view is quick; the run forward counts every request, so it follows.
      call("replay_panel", req)
        .then((panel) => live && setSide((s) => ({ ...s, panel, error: null })))
        .catch((e) => live && setSide((s) => ({ ...s, error: toIpcError(e).message })));
      call("replay_summary", req)
        .then((summary) => live && setSide((s) => ({ ...s, summary, busy: false })))
        .catch((e) => live && setSide((s) => ({ ...s, error: toIpcError(e).message, busy: false })));
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [path, id, options, enabled]);
  return side;
}

export function ReplayTab({ path, timeline, selectMessage, setWide }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const [a, setA] = useState<ReplayOptions>(DEFAULT_OPTIONS);
  const [b, setB] = useState<ReplayOptions>({ ...DEFAULT_OPTIONS, keep_tail: 3 });
  const [compare, setCompare] = useState(false);
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
      <div className={compare ? "replay-sides two" : "replay-sides"}>
        <ReplayColumn side="A" {...sideA} only={onlyA} other={compare ? { panel: sideB.panel, summary: sideB.summary } : null} selectMessage={selectMessage} />
        {compare && <ReplayColumn side="B" {...sideB} only={onlyB} other={{ panel: sideA.panel, summary: sideA.summary }} selectMessage={selectMessage} />}
      </div>
      <SweepPanel key={`${path}\u0000${id}`} path={path} id={id} options={a} onPick={setA} />
    </div>
  );
}
