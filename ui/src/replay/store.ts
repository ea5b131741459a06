// What the Replay tab holds per session — settings A and B, A | B on or off, the sweep's metric,
// its last answer and the sweep on its way — kept outside the tab, so switching to another tab
// and back, or the tab being mounted again while a sweep runs, loses none of it: a sweep asked
// for lands in the session's state whether or not its panel is still on screen. The last few
// sessions are kept (a sweep's answer carries its heatmap's SVG).
import { useCallback, useSyncExternalStore } from "react";
import type { Metric } from "../bindings/Metric";
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { SweepView } from "../bindings/SweepView";
import { DEFAULT_OPTIONS } from "./diff";

export interface ReplayState {
  a: ReplayOptions;
  b: ReplayOptions;
  compare: boolean;
  metric: Metric;
  sweep: SweepView | null;
  /** A sweep is on its way. */
  sweeping: boolean;
  sweepError: string | null;
  /** A re-read Tune found spared at setting A: the re-reading call and the earlier read the
   *  replayed view still holds (stored indices), marked and scrolled to in A's rows. */
  focus: { call: number; previous: number } | null;
}

/** Sessions whose Replay state is kept. */
export const KEPT_SESSIONS = 8;

function initialReplayState(): ReplayState {
  return {
    a: DEFAULT_OPTIONS,
    b: { ...DEFAULT_OPTIONS, keep_tail: 3 },
    compare: false,
    metric: "tokens-after",
    sweep: null,
    sweeping: false,
    sweepError: null,
    focus: null,
  };
}

// Insertion order is recency: a session touched again moves to the end.
const states = new Map<string, ReplayState>();
const listeners = new Set<() => void>();

export function replayState(key: string): ReplayState {
  let s = states.get(key);
  if (!s) {
    s = initialReplayState();
    states.set(key, s);
    for (const old of states.keys()) {
      if (states.size <= KEPT_SESSIONS) break;
      if (old !== key) states.delete(old);
    }
  }
  return s;
}

/** Change session `key`'s state; every panel showing it renders again. */
export function updateReplay(key: string, patch: Partial<ReplayState>) {
  const cur = replayState(key);
  states.delete(key);
  states.set(key, { ...cur, ...patch });
  for (const l of listeners) l();
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Session `key`'s Replay state and its setter. */
export function useReplayState(key: string): [ReplayState, (patch: Partial<ReplayState>) => void] {
  const state = useSyncExternalStore(subscribe, () => replayState(key));
  const set = useCallback((patch: Partial<ReplayState>) => updateReplay(key, patch), [key]);
  return [state, set];
}

/** Forget every session's state (tests). */
export function clearReplayStates() {
  states.clear();
}
