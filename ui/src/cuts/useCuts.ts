// The open session's compactions, requests and pairing lint (`get_cuts`), fetched once per
// loaded timeline (a followed session that grows is fetched again) and shared by the ribbon,
// the cut rules, the cut view and the Requests tab.
import { useEffect, useState } from "react";
import type { SessionCuts } from "../bindings/SessionCuts";
import type { IpcError } from "../bindings/IpcError";
import type { Timeline } from "../bindings/Timeline";
import { call, toIpcError } from "../ipc";

export interface CutsState {
  data: SessionCuts | null;
  loading: boolean;
  error: IpcError | null;
}

export function useCuts(session: { path: string; id: string } | null, timeline: Timeline | null): CutsState {
  const [state, setState] = useState<CutsState & { key: string }>({ key: "", data: null, loading: false, error: null });
  const key = session ? `${session.path}\n${session.id}` : "";
  useEffect(() => {
    if (!session || !timeline) {
      setState({ key, data: null, loading: false, error: null });
      return;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    call("get_cuts", { path: session.path, id: session.id })
      .then((data) => live && setState({ key, data, loading: false, error: null }))
      .catch((e) => live && setState({ key, data: null, loading: false, error: toIpcError(e) }));
    return () => {
      live = false;
    };
  }, [key, timeline]); // eslint-disable-line react-hooks/exhaustive-deps
  // Another session's cuts never reach the views while this one's are on their way.
  return state.key === key ? state : { data: null, loading: true, error: null };
}

/** What the tabs receive about cuts (TabContext.cuts). */
export interface CutsContext extends CutsState {
  /** Ordinal (0-based, in cut order) of the cut open in the inspector, or null. */
  openCut: number | null;
  /** Open cut `ordinal` in the inspector and select the row it opens. */
  openCutAt: (ordinal: number) => void;
}
