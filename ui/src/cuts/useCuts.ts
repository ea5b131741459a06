// The open session's compactions, requests and pairing lint (`get_cuts`), fetched once per
// loaded timeline (a followed session that grows is fetched again) and shared by the ribbon,
// the cut rules, the cut view and the Requests tab.
import type { SessionCuts } from "../bindings/SessionCuts";
import type { Problem } from "../bindings/Problem";
import type { Timeline } from "../bindings/Timeline";
import { useCommand } from "../useCommand";

export interface CutsState {
  data: SessionCuts | null;
  loading: boolean;
  error: Problem | null;
}

export function useCuts(session: { path: string; id: string } | null, timeline: Timeline | null): CutsState {
  const key = session ? `${session.path}\n${session.id}` : "";
  // Another session's cuts never reach the views while this one's are on their way; a grown
  // timeline of the same session keeps its cuts until the new ones land.
  return useCommand("get_cuts", session && timeline ? { path: session.path, id: session.id } : null, [key, timeline], {
    keepFor: key,
  });
}

/** What the tabs receive about cuts (TabContext.cuts). */
export interface CutsContext extends CutsState {
  /** Ordinal (0-based, in cut order) of the cut open in the inspector, or null. */
  openCut: number | null;
  /** Open cut `ordinal` in the inspector and select the row it opens. */
  openCutAt: (ordinal: number) => void;
}
