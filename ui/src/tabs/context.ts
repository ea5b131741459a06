// What every tab receives: the open session and the shared selection, so tabs stay in step
// (selecting a message in one tab selects it in the inspector and the others).
import type { Timeline } from "../bindings/Timeline";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { View } from "../bindings/View";
import type { CutsContext } from "../cuts/useCuts";
import type { RunChoice } from "./CompareTab";
import type { OpenReplayAt } from "./TuneView";

export interface TabContext {
  /** Source path of the open session (the `path` every command takes). */
  path: string | null;
  /** The open session, or null while none is selected or it is loading. */
  timeline: Timeline | null;
  view: View;
  /** The rows of the current view, in order. */
  rows: TimelineRow[];
  /** Position of the selected row in `rows`, or -1. */
  cursor: number;
  setCursor: (position: number) => void;
  /** Show the row at `position` whole in the inspector now. */
  openRow: (position: number) => void;
  /** Open another session (the Post-mortem fleet table's rows). */
  selectSession: (key: { path: string; id: string }) => void;
  /** How many sessions the open session's source lists (a fleet needs several). */
  sourceSessionCount: number;
  /** Rows from this message index on arrived since the user last looked (live), or null. */
  newFrom: number | null;
  /** Select stored message `index` (switching to All when the view hides it). */
  selectMessage: (index: number) => void;
  /** The session's compactions, requests and pairing lint (`get_cuts`) and the cut open in
   * the inspector; absent in tests that do not need them. */
  cuts?: CutsContext;
  /** Ask for the inspector's width while the tab shows two columns of its own (Replay's
   * A | B); absent in tests that do not need it. */
  setWide?: (wide: boolean) => void;
  /** Open session `key` in the Replay tab at `options`, at a re-read Tune found spared (the
   *  Tune view's links); absent in tests that do not need it. */
  openReplayAt?: OpenReplayAt;
  /** Every session the sidebar lists, for Compare with…; absent in tests that do not need it. */
  runs?: RunChoice[];
}
