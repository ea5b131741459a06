// The sidebar's sources on start: `list_sources` names and counts every group at once (cheap),
// then each group is listed by its own `load_source` call, so a slow or broken folder shows
// "listing…" or its error in its own group while the others are already browsable. Which
// session opens first is the App's; what a group holds is core's.
import { useEffect, useState, type Dispatch, type SetStateAction } from "react";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { Problem } from "./bindings/Problem";
import { call, toIpcError } from "./ipc";

/** Replace the group at `g.path` (a listing that came in), keeping the others and their order. */
export function replaceGroup(groups: SourceGroup[] | null, g: SourceGroup): SourceGroup[] | null {
  return groups ? groups.map((x) => (x.path === g.path ? g : x)) : groups;
}

/** The group at `path` marked listed with `e` as its problem, naming the folder that failed. */
export function failGroup(groups: SourceGroup[] | null, path: string, e: Problem): SourceGroup[] | null {
  const message = e.message.includes(path) ? e.message : `${path}: ${e.message}`;
  return groups
    ? groups.map((x) => (x.path === path ? { ...x, loaded: true, problems: [...x.problems, { code: e.code, message }] } : x))
    : groups;
}

/**
 * The groups with one session's counts set to what loading it found: a listing counts cheaply
 * (a byte scan), the load exactly; once a session is open the sidebar says what the status bar
 * says. The same groups when nothing differs (no re-render).
 */
export function withLoadedCounts(groups: SourceGroup[] | null, path: string, id: string, messages: number, cuts: number): SourceGroup[] | null {
  const g = groups?.find((x) => x.path === path);
  const s = g?.sessions.find((x) => x.id === id);
  if (!groups || !s || (s.message_count === messages && s.compaction_count === cuts)) return groups;
  return groups.map((x) =>
    x.path === path ? { ...x, sessions: x.sessions.map((m) => (m.id === id ? { ...m, message_count: messages, compaction_count: cuts } : m)) } : x,
  );
}

/** True once every group is listed and none holds a session: the window says what to do next. */
export function nothingFound(groups: SourceGroup[] | null): boolean {
  return groups !== null && groups.every((g) => g.loaded && g.sessions.length === 0);
}

/**
 * Start-up sources, loaded group by group. `onListed` is called with each group as its
 * sessions come in (the App opens the first session it gets), and before that with the session
 * a file of one conversation names at once (`opens`: a 2 GB transcript's listing reads it
 * whole); `onError` when even the list of groups could not be had.
 */
export function useStartupSources(
  onListed: (g: SourceGroup) => void,
  onError: (e: Problem) => void,
  onOpens: (path: string, id: string) => void = () => {},
): [SourceGroup[] | null, Dispatch<SetStateAction<SourceGroup[] | null>>] {
  const [sources, setSources] = useState<SourceGroup[] | null>(null);
  useEffect(() => {
    let live = true;
    call("list_sources", {})
      .then((groups) => {
        if (!live) return;
        setSources(groups);
        for (const g of groups) if (g.opens) onOpens(g.path, g.opens);
        for (const g of groups) {
          call("load_source", { path: g.path })
            .then((full) => {
              if (!live) return;
              setSources((cur) => replaceGroup(cur, full));
              onListed(full);
            })
            .catch((e) => live && setSources((cur) => failGroup(cur, g.path, toIpcError(e))));
        }
      })
      .catch((e) => {
        if (!live) return;
        setSources([]);
        onError(toIpcError(e));
      });
    return () => {
      live = false;
    };
    // Runs once: the callbacks only set state.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return [sources, setSources];
}
