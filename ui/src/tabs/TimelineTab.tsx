// The Timeline tab: the session message by message (virtualised), the palimpsest view.
import { useMemo } from "react";
import type { TabContext } from "./context";
import { TimelineList } from "../components/TimelineList";
import { cutsByIndex } from "../timeline/rows";
import { Ribbon } from "../components/Ribbon";
import { cutBanners, cutPositions, findingBadges, positionAt } from "../cuts/model";

export function TimelineTab({ cuts: cutsCtx, timeline, view, rows, cursor, setCursor, openRow, newFrom }: TabContext) {
  const data = cutsCtx?.data ?? null;
  const recorded = useMemo(() => cutsByIndex(timeline?.compactions ?? []), [timeline]);
  // Core's anatomy labels each cut with its trigger and tokens before → after and places it on
  // the first row of this view at or after the cut; until it arrives the recorded cuts stand in.
  const cuts = useMemo(() => (data ? cutBanners(data.cuts, rows) : recorded), [data, rows, recorded]);
  const marks = useMemo(() => findingBadges(data ? data.lint.flatMap((l) => l.findings) : []), [data]);
  if (!timeline) return <div className="empty-pane">Select a session in the sidebar, or open a file or folder (Ctrl+O, or drop it on the window).</div>;
  if (rows.length === 0)
    return (
      <div className="empty-pane">
        {timeline.rows.length === 0 ? "This session holds no messages." : `No message of this session is in the ${view} view.`}
      </div>
    );
  return (
    <>
      {data && (
        <Ribbon
          all={timeline.rows}
          cuts={data.cuts}
          selectedIndex={rows[cursor]?.index}
          openCut={cutsCtx?.openCut ?? null}
          onSeek={(f) => {
            const p = positionAt(f, timeline.rows, rows);
            if (p >= 0) setCursor(p);
          }}
          onOpenCut={(o) => cutsCtx?.openCutAt(o)}
        />
      )}
      <div className="timeline-head" aria-hidden="true">
        <span className="c-idx">#</span>
        <span className="c-role">role</span>
        <span className="c-kind">kind</span>
        <span className="c-parts">parts</span>
        <span className="c-time">time</span>
        <span className="c-size">size</span>
        <span className="badge-head">seen by</span>
      </div>
      <TimelineList
        rows={rows}
        cuts={cuts}
        marks={marks}
        onOpenCut={(index) => {
          const hit = data && cutPositions(data.cuts, rows).find((c) => rows[c.position]?.index === index);
          if (hit) cutsCtx?.openCutAt(hit.ordinal);
        }}
        dimInvisible={view !== "agent"} cursor={cursor} onSelect={setCursor} onOpen={openRow} newFrom={newFrom} />
    </>
  );
}
