// The open session's compactions, requests and pairing lint (`get_cuts`), fetched once per
// loaded timeline and shared by the ribbon, the cut rules, the cut view and the Requests tab;
// each cut's summary and file fates only when it is opened (`get_cut`, `useOpenCut`): on a
// 200 MB session they were 1.8 MB of the 3.2 MB answer, taken in at every growth.
// A followed session that grows is fetched again once its writer pauses (LIVE_CUTS_QUIET_MS
// without a new line), at most LIVE_CUTS_MAX_MS late while it never does, and at once when it
// records a new cut. Core makes the answer from the whole session (1.4 MB on 200 MB, 3.2 MB with the summaries):
// asked after every line it kept core's copy busy while the next lines came, and asked every
// 3 s it held back the row of the line that came while the window took the answer in. A session
// whose answer takes long (seconds on 2 GB) waits for a pause and a delay in step with it: a line
// that comes while core still reads the session makes the live follower copy the session to go
// on (`model::Current`), and on 2 GB that copy held a row back 11 s.
import type { CutsBrief } from "../bindings/CutsBrief";
import type { CutDetail } from "../bindings/CutDetail";
import type { Problem } from "../bindings/Problem";
import type { Timeline } from "../bindings/Timeline";
import { useRef } from "react";
import { useCommand, type CommandState } from "../useCommand";
import { useSettled } from "../live";

/** How long a growing session must not grow before its cuts and requests are asked for again. */
export const LIVE_CUTS_QUIET_MS = 1000;
/** How late they may be while it grows without a pause. */
export const LIVE_CUTS_MAX_MS = 10_000;
/** The pause, and the delay, as multiples of how long the last answer took, when that is more. */
export const LIVE_CUTS_PAUSE_PER_ANSWER = 2;
export const LIVE_CUTS_MAX_PER_ANSWER = 10;

export interface CutsState {
  data: CutsBrief | null;
  loading: boolean;
  error: Problem | null;
}

export function useCuts(session: { path: string; id: string } | null, timeline: Timeline | null): CutsState {
  const key = session ? `${session.path}\n${session.id}` : "";
  // Another session's cuts never reach the views while this one's are on their way; a grown
  // timeline of the same session keeps its cuts until the new ones land.
  const took = useRef({ key, since: null as number | null, ms: 0 });
  if (took.current.key !== key) took.current = { key, since: null, ms: 0 };
  const { ms } = took.current;
  const quiet = Math.max(LIVE_CUTS_QUIET_MS, LIVE_CUTS_PAUSE_PER_ANSWER * ms);
  const late = Math.max(LIVE_CUTS_MAX_MS, LIVE_CUTS_MAX_PER_ANSWER * ms);
  const grown = useSettled(timeline, quiet, late, key);
  const cuts = timeline?.meta.compaction_count;
  const state = useCommand("get_cuts", session && timeline ? { path: session.path, id: session.id } : null, [key, grown, cuts, timeline !== null], {
    keepFor: key,
  });
  // How long the answer took, from the render that shows it asked to the one that shows it in.
  const t = took.current;
  if (state.loading && t.since === null) t.since = Date.now();
  else if (!state.loading && t.since !== null) {
    t.ms = Date.now() - t.since;
    t.since = null;
  }
  return state;
}

/**
 * Cut `ordinal` of the session whole (its summary and file fates), asked when it is opened and
 * again when the session's cuts were fetched again (it grew); while that is on its way the
 * cut's last answer stays, never another cut's.
 */
export function useOpenCut(session: { path: string; id: string } | null, ordinal: number | null, cuts: CutsBrief | null): CommandState<CutDetail> {
  const ask = session && ordinal !== null && cuts ? { path: session.path, id: session.id, cut: ordinal } : null;
  const key = ask ? `${ask.path}\n${ask.id}\n${ask.cut}` : "";
  return useCommand("get_cut", ask, [key, cuts], { keepFor: key });
}

/** What the tabs receive about cuts (TabContext.cuts). */
export interface CutsContext extends CutsState {
  /** Ordinal (0-based, in cut order) of the cut open in the inspector, or null. */
  openCut: number | null;
  /** Open cut `ordinal` in the inspector and select the row it opens. */
  openCutAt: (ordinal: number) => void;
}
