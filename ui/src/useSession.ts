// The open session as the window loads it: its rows (the first screen at once, the rest in
// pages behind it: a 200 MB session's rows are megabytes of JSON, and the IPC would hold the
// first row back) and the selected message whole for the inspector. The rows live in App, as
// live updates patch them too; what each answer holds is core's (`get_timeline`, `get_message`).
import { useCallback, useEffect, useState } from "react";
import type { Timeline } from "./bindings/Timeline";
import type { MessageDetail } from "./bindings/MessageDetail";
import type { Problem } from "./bindings/Problem";
import type { SessionKey } from "./components/Sidebar";
import { call, toIpcError } from "./ipc";
import { caughtUp, mergeRows } from "./live";

/** Rows the first answer carries: more than a screen at 1280 × 800, a few kilobytes. */
export const FIRST_SCREEN_ROWS = 200;
/** Rows per page after it. */
export const ROW_PAGE = 20000;

/**
 * True while `t`'s rows stand in for the session's own until its whole read replaces them: the
 * index's rows of a file that grew since it was indexed, or the rows of a big file's first lines.
 */
export function standIn(t: Timeline | null): boolean {
  return !!(t?.grown_bytes || t?.unread_bytes);
}

/** Rows still coming in after the first screen. */
export interface RowsIn {
  have: number;
  total: number;
}

/**
 * Load `selected`'s rows into `setTimeline` whenever it changes. The index's rows of a file
 * that grew since it was indexed, and the rows of the first lines of a big file no index holds,
 * are replaced by the session's own once it is read whole behind them; `done` gets the timeline once every row is in, `catchUp` brings it up to what the live
 * follower saw meanwhile.
 */
export function useSessionRows(
  selected: SessionKey | null,
  setTimeline: (f: Timeline | null | ((cur: Timeline | null) => Timeline | null)) => void,
  setCursor: (pos: number) => void,
  setError: (e: Problem | null) => void,
  done: (t: Timeline) => void,
  catchUp: (t: Timeline) => Timeline,
): { loading: boolean; rowsIn: RowsIn | null } {
  const [loading, setLoading] = useState(false);
  const [rowsIn, setRowsIn] = useState<RowsIn | null>(null);
  useEffect(() => {
    if (!selected) return;
    let live = true;
    setLoading(true);
    setError(null);
    setRowsIn(null);
    const rest = async (t: Timeline): Promise<void> => {
      let have = t.rows.length;
      while (live && have < t.total_rows) {
        const page = await call("get_timeline", { ...selected, from: have, limit: ROW_PAGE });
        if (!live || page.rows.length === 0) break;
        have += page.rows.length;
        setTimeline((cur) => (cur && cur.meta.id === t.meta.id ? { ...cur, rows: mergeRows(cur.rows, page.rows) } : cur));
        setRowsIn({ have, total: t.total_rows });
      }
      if (!live) return;
      if (standIn(t)) {
        // The index's rows of a file that grew since, or the rows of a big file's first lines:
        // the session's own replace them once it is read whole behind them (the status bar
        // says so meanwhile).
        setRowsIn(null);
        const whole = await call("get_timeline", { ...selected, from: 0, limit: ROW_PAGE, whole: true });
        if (!live) return;
        setTimeline((cur) => (cur && cur.meta.id === whole.meta.id ? caughtUp(cur, whole) : cur));
        if (whole.total_rows > whole.rows.length) setRowsIn({ have: whole.rows.length, total: whole.total_rows });
        return rest(whole);
      }
      setRowsIn(null);
      setTimeline((cur) => (cur && cur.meta.id === t.meta.id ? catchUp(cur) : cur));
      done(t);
    };
    call("get_timeline", { ...selected, from: 0, limit: FIRST_SCREEN_ROWS })
      .then((t) => {
        if (!live) return;
        setTimeline(t);
        setCursor(t.rows.length > 0 ? 0 : -1);
        setLoading(false);
        if (t.total_rows > t.rows.length) setRowsIn({ have: t.rows.length, total: t.total_rows });
        return rest(t);
      })
      .catch((e) => live && (setTimeline(null), setError(toIpcError(e))))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // A new selection starts over; the callbacks are those of the render that selected it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected]);
  return { loading, rowsIn };
}

/**
 * The message at `index` of `selected` whole, fetched a moment after the selection settles
 * (holding j does not fetch every row); the raw stored text only while `raw` is on (a big
 * single-file log may have to be read again to find one row). `fetch` asks at once.
 */
export function useMessageDetail(selected: SessionKey | null, raw: boolean, index: number | undefined, timeline: Timeline | null) {
  const [detail, setDetail] = useState<MessageDetail | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => setDetail(null), [selected]);
  const fetch = useCallback(
    (i: number) => {
      if (!selected) return () => {};
      let live = true;
      setLoading(true);
      call("get_message", { ...selected, index: i, raw })
        .then((d) => live && (setDetail(d), setError(null)))
        .catch((e) => live && setError(toIpcError(e)))
        .finally(() => live && setLoading(false));
      return () => {
        live = false;
      };
    },
    [selected, raw],
  );
  useEffect(() => {
    if (index === undefined || !timeline) return;
    let cancel = () => {};
    const t = setTimeout(() => (cancel = fetch(index)), 60);
    return () => {
      clearTimeout(t);
      cancel();
    };
  }, [index, timeline, fetch]);
  return { detail, loading, error, fetch };
}
