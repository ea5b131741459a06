// The Timeline tab: the session message by message (virtualised), the palimpsest view.
import { useMemo } from "react";
import type { TabContext } from "./context";
import { TimelineList } from "../components/TimelineList";
import { cutsByIndex } from "../timeline/rows";

export function TimelineTab({ timeline, view, rows, cursor, setCursor, openRow }: TabContext) {
  const cuts = useMemo(() => cutsByIndex(timeline?.compactions ?? []), [timeline]);
  if (!timeline) return <div className="empty-pane">Select a session in the sidebar, or open a file or folder (Ctrl+O, or drop it on the window).</div>;
  if (rows.length === 0)
    return (
      <div className="empty-pane">
        {timeline.rows.length === 0 ? "This session holds no messages." : `No message of this session is in the ${view} view.`}
      </div>
    );
  return (
    <>
      <div className="timeline-head" aria-hidden="true">
        <span className="c-idx">#</span>
        <span className="c-role">role</span>
        <span className="c-kind">kind</span>
        <span className="c-parts">parts</span>
        <span className="c-size">size</span>
        <span className="badge-head">seen by</span>
      </div>
      <TimelineList rows={rows} cuts={cuts} dimInvisible={view !== "agent"} cursor={cursor} onSelect={setCursor} onOpen={openRow} />
    </>
  );
}
