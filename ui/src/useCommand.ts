// One way for a view to ask core for what it shows: call `cmd` with `req` whenever the
// dependencies change, and keep only the answer to the latest ask. A reply that arrives after
// the session, the setting or the view changed is dropped, so one session's answer is never
// drawn under another's. What is asked and how it is drawn stay with the view. Every view that
// asks one command per change uses it; the four flows that chain asks (the timeline's pages, the
// sources listed then each loaded, the fleet ranked across every source, the message the
// inspector fetches on a click as well as on selection) guard their chain the same way inline.
import { startTransition, useEffect, useState, type DependencyList } from "react";
import { call, toIpcError, type Command, type Req, type Res } from "./ipc";
import type { Problem } from "./bindings/Problem";

export interface CommandState<T> {
  /** The latest answer (kept while the next ask is on its way with `keep`). */
  data: T | null;
  /** Why the latest ask failed. */
  error: Problem | null;
  /** An ask is on its way. */
  loading: boolean;
}

export interface CommandOptions {
  /**
   * Keep the previous answer on screen while the next is on its way, and after a failed one,
   * as long as it was asked for this same thing (a session that grew, the next request of
   * one session): another session's answer is never shown.
   */
  keepFor?: string;
  /** Land the answer as a React transition: a big one renders in slices between frames. */
  transition?: boolean;
  /** Wait this long before asking (a live session's writes settle first); 0 asks at once. */
  delayMs?: number;
}

interface Held<T> extends CommandState<T> {
  /** What the answer was asked for (`keepFor`). */
  for?: string;
}

const IDLE = { data: null, error: null, loading: false };

/**
 * Ask `cmd` with `req` each time `deps` change; `req` null asks nothing and clears the state.
 * Only the latest ask's answer or error lands.
 */
export function useCommand<K extends Command>(
  cmd: K,
  req: Req<K> | null,
  deps: DependencyList,
  opts: CommandOptions = {},
): CommandState<Res<K>> {
  const [state, setState] = useState<Held<Res<K>>>(IDLE);
  const keepFor = opts.keepFor;
  useEffect(() => {
    if (req === null) {
      setState(IDLE);
      return;
    }
    let live = true;
    const kept = (s: Held<Res<K>>) => (keepFor !== undefined && s.for === keepFor ? s.data : null);
    setState((s) => ({ for: keepFor, data: kept(s), error: null, loading: true }));
    const ask = () =>
      call(cmd, req)
        .then((data) => {
          if (!live) return;
          const land = () => setState({ for: keepFor, data, error: null, loading: false });
          if (opts.transition) startTransition(land);
          else land();
        })
        .catch((e) => live && setState((s) => ({ for: keepFor, data: kept(s), error: toIpcError(e), loading: false })));
    const timer = opts.delayMs ? setTimeout(ask, opts.delayMs) : null;
    if (!timer) void ask();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
    // The caller names what the ask depends on; `req` is rebuilt on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  // Until the effect has asked for the new thing, what is held is another thing's.
  if (keepFor !== undefined && state.for !== keepFor) return { data: null, error: null, loading: req !== null };
  return state;
}
