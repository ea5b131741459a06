// Live following in the window: the `live` events the app's background thread emits
// (src-tauri/src/live.rs), applied to the open timeline and the sidebar's sources. The apply
// functions are pure and merge by message index, so an event seen twice, or one that raced a
// timeline load, never duplicates a row (live.test.ts); goose's delete-and-reinsert compaction
// arrives from core already diffed by content fingerprint.
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from "react";
import { onEvent } from "./ipc";
import type { LiveEvent } from "./bindings/LiveEvent";
import type { Timeline } from "./bindings/Timeline";
import type { TimelineRow } from "./bindings/TimelineRow";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { SessionKey } from "./components/Sidebar";


/**
 * `value`, passed on once it has stopped changing for `quietMs`, or `maxMs` after the first
 * change not passed yet when it never stops: what a live session's growth makes a view ask core
 * again for. An agent writes in bursts (a response, then a tool runs), so the ask lands in a
 * pause of the writer instead of between two of its lines, where it held the next line's row
 * back. A change of `key` (another session), or a first value after none, passes at once.
 */
export function useSettled<T>(value: T, quietMs: number, maxMs: number, key: string): T {
  // Decided during render, so a value that passes at once reaches the caller in the same
  // render: one render later, the caller would ask core twice (once with the old value).
  const held = useRef({ passed: value, latest: value, key, changedAt: 0, since: 0 });
  const [tick, wake] = useState(0);
  const h = held.current;
  const now = Date.now();
  // A value where there was none (a timeline every row of which is now in) is not growth to
  // wait out: held, it was passed on a second time a moment later.
  const first = (h.passed === null || h.passed === undefined) && value !== null && value !== undefined;
  if (h.key !== key || first) {
    held.current = { passed: value, latest: value, key, changedAt: now, since: now };
  } else if (!Object.is(h.latest, value)) {
    if (Object.is(h.passed, h.latest)) h.since = now;
    h.latest = value;
    h.changedAt = now;
  }
  const c = held.current;
  if (!Object.is(c.passed, c.latest) && (now - c.changedAt >= quietMs || now - c.since >= maxMs)) {
    c.passed = c.latest;
  }
  useEffect(() => {
    const { passed, latest, changedAt, since } = held.current;
    if (Object.is(passed, latest)) return;
    // A later change replaces this timer; one that fires early renders and sets the next.
    const due = Math.min(changedAt + quietMs, since + maxMs) - Date.now();
    const t = setTimeout(() => wake((n) => n + 1), Math.max(0, due));
    return () => clearTimeout(t);
  }, [value, key, quietMs, maxMs, tick]);
  return c.passed;
}

/** A session counts as live for this long after its last change. */
export const LIVE_FOR_MS = 120_000;

export function sessionKey(path: string, id: string): string {
  return `${path}\u0000${id}`;
}

/** Put `incoming` rows in place by index: replace what is there, append the rest in order. */
export function mergeRows(rows: TimelineRow[], incoming: TimelineRow[]): TimelineRow[] {
  if (incoming.length === 0) return rows;
  // The usual case: the next rows, in order, after the last one.
  const contiguous = incoming.every((r, k) => r.index === rows.length + k);
  const last = rows[rows.length - 1];
  if (contiguous && (!last || last.index === rows.length - 1)) return rows.concat(incoming);
  const byIndex = new Map(rows.map((r) => [r.index, r]));
  for (const r of incoming) byIndex.set(r.index, r);
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/**
 * The open timeline once the session's own rows start to come in over the index's rows of a
 * file that grew since it was indexed (`cur.grown_bytes` set): `whole`'s listing, cuts and rows
 * replace those the index had, by index, and rows the index has that `whole` has yet to send
 * stay until their page comes.
 */
export function caughtUp(cur: Timeline, whole: Timeline): Timeline {
  const rows = mergeRows(cur.rows, whole.rows).filter((r) => r.index < whole.total_rows);
  return { ...whole, rows };
}

/** The open timeline after one event (the same object when the event is about another session). */
export function applyToTimeline(t: Timeline, path: string, e: LiveEvent): Timeline {
  if (e.event === "session_added" || e.event === "problem") return t;
  if (e.path !== path || e.session_id !== t.meta.id) return t;
  switch (e.event) {
    case "appended":
      return withCount({ ...t, rows: mergeRows(t.rows, e.rows) });
    case "rewritten":
      return withCount({ ...t, rows: mergeRows(t.rows.filter((r) => r.index < e.from_index), e.rows) });
    case "visibility_changed": {
      const vis = new Map(e.rows.map(([i, agent, user]) => [i, [agent, user] as const]));
      const rows = t.rows.map((r) => {
        const v = vis.get(r.index);
        return v && (v[0] !== r.agent_visible || v[1] !== r.user_visible) ? { ...r, agent_visible: v[0], user_visible: v[1] } : r;
      });
      return { ...t, rows };
    }
    case "compaction":
      if (t.compactions.some((c) => c.cut_index === e.record.cut_index)) return t;
      return {
        ...t,
        compactions: [...t.compactions, e.record].sort((a, b) => a.cut_index - b.cut_index),
        meta: { ...t.meta, compaction_count: t.meta.compaction_count + 1 },
      };
  }
}

function withCount(t: Timeline): Timeline {
  return { ...t, meta: { ...t.meta, message_count: t.rows.length } };
}

/** The sidebar's sources after a batch: new sessions listed (newest first), counts updated. */
export function applyToSources(groups: SourceGroup[], events: LiveEvent[]): SourceGroup[] {
  let out = groups;
  for (const e of events) {
    const gi = out.findIndex((g) => g.path === e.path);
    const g = out[gi];
    if (!g) continue;
    let sessions = g.sessions;
    let problems = g.problems;
    switch (e.event) {
      case "session_added":
        if (!sessions.some((s) => s.id === e.session.id)) sessions = [e.session, ...sessions];
        break;
      case "appended":
      case "rewritten": {
        const last = e.rows[e.rows.length - 1];
        if (!last) break;
        sessions = sessions.map((s) =>
          s.id === e.session_id ? { ...s, message_count: Math.max(e.event === "rewritten" ? 0 : s.message_count, last.index + 1), updated: Date.now() } : s,
        );
        break;
      }
      case "compaction":
        sessions = sessions.map((s) => (s.id === e.session_id ? { ...s, compaction_count: s.compaction_count + 1 } : s));
        break;
      case "problem":
        if (!problems.some((p) => p.message === e.problem.message)) problems = [...problems, e.problem];
        break;
      case "visibility_changed":
        break;
    }
    if (sessions !== g.sessions || problems !== g.problems) {
      out = out.slice();
      out[gi] = { ...g, sessions, problems };
    }
  }
  return out;
}

/** Calls `onBatch` with every batch of live events the app emits. */
export function useLiveEvents(onBatch: (events: LiveEvent[]) => void) {
  const ref = useRef(onBatch);
  ref.current = onBatch;
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let gone = false;
    onEvent("live", (events) => ref.current(events))
      .then((u) => (gone ? u() : (unlisten = u)))
      .catch(() => {
        // Outside the app (tests, a plain browser) there is nothing to follow.
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, []);
}

export interface LiveState {
  /** `sessionKey`s of the sessions that changed in the last LIVE_FOR_MS. */
  liveSessions: Set<string>;
  /** The last problem a followed source reported, naming the file. */
  problem: string | null;
  /** A freshly loaded timeline with the changes that arrived while it loaded. */
  catchUp: (t: Timeline) => Timeline;
}

/** Applies live events to the window's state: sidebar sources, the open timeline (events that
 * race its load are replayed onto it), live dots, and opens the first session that appears in an
 * empty window. */
export function useLive(
  selected: SessionKey | null,
  setSources: Dispatch<SetStateAction<SourceGroup[] | null>>,
  setTimeline: Dispatch<SetStateAction<Timeline | null>>,
  setSelected: Dispatch<SetStateAction<SessionKey | null>>,
): LiveState {
  const [liveAt, setLiveAt] = useState<Map<string, number>>(new Map());
  const [now, setNow] = useState(() => Date.now());
  const [problem, setProblem] = useState<string | null>(null);
  // Events of the open session since it was selected, replayed onto its timeline when it loads.
  const log = useRef<LiveEvent[]>([]);
  const sel = useRef(selected);
  if (sel.current?.path !== selected?.path || sel.current?.id !== selected?.id) {
    sel.current = selected;
    log.current = [];
  }
  useLiveEvents((events) => {
    setSources((g) => (g ? applyToSources(g, events) : g));
    const at = Date.now();
    setNow(at);
    setLiveAt((m) => {
      const next = new Map(m);
      for (const e of events) if (e.event !== "problem") next.set(sessionKey(e.path, e.event === "session_added" ? e.session.id : e.session_id), at);
      return next;
    });
    const last = events.filter((e) => e.event === "problem").pop();
    if (last && last.event === "problem") setProblem(last.problem.message);
    const cur = sel.current;
    if (cur) {
      const mine = events.filter((e) => e.event !== "problem" && e.event !== "session_added" && e.path === cur.path && e.session_id === cur.id);
      if (mine.length) {
        log.current.push(...mine);
        setTimeline((t) => (t ? mine.reduce((acc, e) => applyToTimeline(acc, cur.path, e), t) : t));
      }
    } else {
      const added = events.find((e) => e.event === "session_added");
      if (added && added.event === "session_added") setSelected((c) => c ?? { path: added.path, id: added.session.id });
    }
  });
  // Live dots go out LIVE_FOR_MS after the last change.
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(t);
  }, []);
  const liveSessions = new Set([...liveAt].filter(([, t]) => now - t < LIVE_FOR_MS).map(([k]) => k));
  const catchUp = useCallback((t: Timeline) => {
    const cur = sel.current;
    return cur ? log.current.reduce((acc, e) => applyToTimeline(acc, cur.path, e), t) : t;
  }, []);
  return { liveSessions, problem, catchUp };
}

/** Follow mode and the "new since you last looked" marker for the open timeline. */
export function useFollow(timeline: Timeline | null, cursorIndex: number | undefined, lastPosition: number, setCursor: (pos: number) => void) {
  const [follow, setFollow] = useState(false);
  const [seenUpTo, setSeenUpTo] = useState(Infinity);
  const total = timeline?.rows.length ?? 0;
  const id = timeline?.meta.id;
  // A newly opened session starts with everything seen.
  const opened = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (id !== opened.current) {
      opened.current = id;
      setSeenUpTo(total);
    }
  }, [id, total]);
  // Follow keeps the newest row selected, and so in view.
  useEffect(() => {
    if (follow && lastPosition >= 0) setCursor(lastPosition);
  }, [follow, lastPosition, setCursor]);
  // Looking at a row (with the window focused) marks it and everything before it seen.
  useEffect(() => {
    if (cursorIndex !== undefined && document.hasFocus()) setSeenUpTo((s) => Math.max(s === Infinity ? 0 : s, cursorIndex + 1));
  }, [cursorIndex]);
  // Until the effect above has marked a newly opened session seen, nothing in it is new: the
  // render before it must not count every row.
  const unseen = seenUpTo === Infinity || id !== opened.current ? 0 : (timeline?.rows.filter((r) => r.index >= seenUpTo).length ?? 0);
  return { follow, toggleFollow: () => setFollow((f) => !f), newFrom: unseen > 0 ? seenUpTo : null, unseen };
}
