// Window-wide state that lives outside any one tab: the token encoding chosen in the toolbar and
// the long task in progress (fed by the app's `task-progress` events), shown in the status bar.
// A tiny store read with useSyncExternalStore, so the toolbar, the status bar and the tabs stay
// in step without threading props through App.
import { useEffect, useState, useSyncExternalStore } from "react";
import type { Encoding } from "./bindings/Encoding";
import type { TaskProgress } from "./bindings/TaskProgress";
import { call, onEvent, whileMounted } from "./ipc";

/** `null` = the encoding of the session's model. */
export type EncodingChoice = Encoding | null;

export interface RunningTask {
  task: string;
  label: string;
  /** 0..1, or null before the first report. */
  fraction: number | null;
}

interface State {
  encoding: EncodingChoice;
  running: RunningTask | null;
}

let state: State = { encoding: null, running: null };
const subscribers = new Set<() => void>();

function set(next: Partial<State>) {
  state = { ...state, ...next };
  subscribers.forEach((f) => f());
}

function subscribe(f: () => void) {
  subscribers.add(f);
  return () => subscribers.delete(f);
}

export function useEncoding(): [EncodingChoice, (e: EncodingChoice) => void] {
  const e = useSyncExternalStore(subscribe, () => state.encoding);
  return [e, (encoding) => set({ encoding })];
}

export function useRunningTask(): RunningTask | null {
  return useSyncExternalStore(subscribe, () => state.running);
}

/** Mark a task as started (`fraction` null until progress arrives) or finished (`null`). */
export function setRunning(task: RunningTask | null) {
  set({ running: task });
}

/** Fraction done of a progress event (bytes; pieces when there are no bytes). */
export function fractionOf(p: TaskProgress["progress"]): number {
  if (p.total_bytes > 0) return Math.min(1, p.done_bytes / p.total_bytes);
  if (p.total_pieces > 0) return Math.min(1, p.done_pieces / p.total_pieces);
  return 1;
}

/** Feed `task-progress` events into the running task while mounted (once, in the status bar). */
export function useTaskProgressEvents() {
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let gone = false;
    onEvent("task-progress", (p) => {
      const r = state.running;
      if (r && r.task === p.task) set({ running: { ...r, fraction: fractionOf(p.progress) } });
    })
      .then((u) => (gone ? u() : (unlisten = u)))
      .catch(() => {
        // Outside the app (unit tests) there are no events.
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, []);
}

/** Ask the app to stop the running task (only token counting can be stopped). */
export function cancelRunning() {
  if (state.running?.task === "tokens") void call("cancel_tokens", {}).catch(() => {});
}

/** Sessions done of those to do for task `task` on `id` (the fleet table's, Tune's), from the
 *  app's `task-progress` events while `busy`; null before the first report. */
export function usePieceProgress(task: string, id: string, busy: boolean): { done: number; total: number } | null {
  const [done, setDone] = useState<{ done: number; total: number } | null>(null);
  useEffect(() => {
    if (!busy) return;
    setDone(null);
    return whileMounted(
      onEvent("task-progress", (p) => {
        if (p.task === task && p.id === id) setDone({ done: p.progress.done_pieces, total: p.progress.total_pieces });
      }),
    );
  }, [task, id, busy]);
  return done;
}
