// The window: toolbar, sidebar, the active tab, inspector, bottom tabs and status bar (see
// ui.md). Holds the shared state (sources, open session, view, selection) and the keyboard map;
// every view of the session is a tab under tabs/.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Timeline } from "./bindings/Timeline";
import type { View } from "./bindings/View";
import type { Problem } from "./bindings/Problem";
import { call, toIpcError } from "./ipc";
import { Toolbar } from "./components/Toolbar";
import { Sidebar, nestSessions, type SessionKey } from "./components/Sidebar";
import { Inspector } from "./components/Inspector";
import { BottomBar } from "./components/BottomBar";
import { KeyHelp } from "./components/KeyHelp";
import { TABS } from "./tabs";
import { countRows, rowsInView } from "./timeline/rows";
import { statusLine } from "./timeline/status";
import { useKeyboard } from "./keyboard";
import { CutView } from "./components/CutView";
import { useCuts, useOpenCut } from "./cuts/useCuts";
import { cutPositions as cutRows } from "./cuts/model";
import { openDialog, useFileDrop } from "./files";
import { sessionKey, useFollow, useLive } from "./live";
import { standIn, useMessageDetail, useSessionRows } from "./useSession";
import { nothingFound, useStartupSources, withLoadedCounts } from "./sources";
import { SearchDialog } from "./components/SearchDialog";
import { useCopy } from "./clipboard";
import { useExportReport } from "./exportReport";
import { hitTarget } from "./search";
import type { Hit } from "./bindings/Hit";
import type { FleetRow } from "./bindings/FleetRow";
import type { Link } from "./bindings/Link";
import { needsFleet, type SessionSort } from "./components/sessionSort";
import { alertTarget, useAlerts } from "./alerts";
import { useOpenAt } from "./useOpenAt";
import { updateReplay } from "./replay/store";
import type { OpenReplayAt } from "./tabs/TuneView";
import { AlertsPanel } from "./components/AlertsPanel";
import type { Alert } from "./bindings/Alert";

export function App() {
  const [selected, setSelected] = useState<SessionKey | null>(null);
  const [timeline, setTimeline] = useState<Timeline | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  // Start-up sources, each group listed on its own; the first session in opens so the window
  // is never blank.
  const [sources, setSources] = useStartupSources((g) => {
    // The session the sidebar shows first (a conversation, never one of its subagent runs).
    const s = nestSessions(g.sessions)[0]?.s;
    if (s) setSelected((cur) => cur ?? { path: g.path, id: s.id });
  }, setError, (path, id) => setSelected((cur) => cur ?? { path, id }));
  const [view, setView] = useState<View>("all");
  const [cursor, setCursor] = useState(-1);
  const [showRaw, setShowRaw] = useState(false);
  const [filter, setFilter] = useState("");
  const [tab, setTab] = useState(TABS[0]?.id ?? "timeline");
  // A tab showing two columns of its own (Replay's A | B) takes the inspector's width.
  const [wide, setWide] = useState(false);
  useEffect(() => setWide(false), [tab]);
  const [help, setHelp] = useState(false);
  const [searching, setSearching] = useState(false);
  const [sessionSort, setSessionSort] = useState<SessionSort>("listed");
  const [facts, setFacts] = useState<Map<string, FleetRow>>(new Map());
  const [ranking, setRanking] = useState(false);
  // The text a search hit matched, marked in the inspector while its message is shown.
  const [searchMark, setSearchMark] = useState<{ index: number; text: string } | null>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const liveView = useLive(selected, setSources, setTimeline, setSelected);
  // The selected session's rows, the first screen at once (rowsIn: those still coming).
  const { loading, rowsIn } = useSessionRows(selected, setTimeline, setCursor, setError, (t) => {
    if (selected) setSources((g) => withLoadedCounts(g, selected.path, selected.id, t.total_rows, t.compactions.length));
  }, liveView.catchUp);

  const rows = useMemo(() => rowsInView(timeline?.rows ?? [], view), [timeline, view]);
  const counts = useMemo(() => countRows(timeline?.rows ?? []), [timeline]);
  // Cuts are fetched once every row is in (not once per page).
  const cutsState = useCuts(selected, rowsIn ? null : timeline);
  const clip = useCopy(selected);
  const exporter = useExportReport(useMemo(() => (selected && timeline ? { ...selected, name: timeline.meta.name } : null), [selected, timeline]));
  // Where each cut lands in this view (first row at or after it): core's anatomy once it is in,
  // else the recorded cuts.
  const cutAt = useMemo(() => cutRows(cutsState.data?.cuts ?? [], rows), [cutsState.data, rows]);
  const cutPositions = useMemo(() => {
    if (cutsState.data) return cutAt.map((c) => c.position);
    const at = new Set((timeline?.compactions ?? []).map((c) => c.cut_index));
    return rows.flatMap((r, pos) => (at.has(r.index) ? [pos] : []));
  }, [cutsState.data, cutAt, timeline, rows]);
  // The cut open in the inspector (ordinal in cut order), shown while the row it opens stays
  // selected: moving on (j/k, a click) shows that message again, [ / ] come back to a cut.
  const [openCut, setOpenCut] = useState<number | null>(null);
  const rowsByIndex = useMemo(() => new Map((timeline?.rows ?? []).map((r) => [r.index, r])), [timeline]);

  const selectedIndex = rows[cursor]?.index;
  const { detail, loading: detailLoading, error: detailError, fetch: fetchDetail } = useMessageDetail(selected, showRaw, selectedIndex, timeline);

  // Switching views keeps the same message selected when it is in the new view, else the next.
  const switchView = useCallback(
    (v: View) => {
      const keep = rows[cursor]?.index ?? 0;
      const next = rowsInView(timeline?.rows ?? [], v);
      const pos = next.findIndex((r) => r.index >= keep);
      setView(v);
      setCursor(next.length === 0 ? -1 : pos === -1 ? next.length - 1 : pos);
    },
    [rows, cursor, timeline],
  );

  const openRow = useCallback(
    (pos: number) => {
      setCursor(pos);
      setOpenCut(null);
      const r = rows[pos];
      if (r) fetchDetail(r.index);
    },
    [rows, fetchDetail],
  );

  // Another tab points at a stored message: select it (in All when the view hides it); the
  // inspector follows the selection.
  const selectMessage = useCallback(
    (index: number) => {
      const pos = rows.findIndex((r) => r.index === index);
      if (pos !== -1) return setCursor(pos);
      const all = timeline?.rows ?? [];
      const at = all.findIndex((r) => r.index === index);
      if (at === -1) return;
      setView("all");
      setCursor(at);
    },
    [rows, timeline],
  );

  // Severity and cost orders need the fleet rows: one `diagnose_fleet` per loaded source, from
  // the index (only new and changed sessions are read).
  const loadedPaths = useMemo(() => (sources ?? []).filter((g) => g.loaded).map((g) => g.path).join("\n"), [sources]);
  useEffect(() => {
    if (!needsFleet(sessionSort) || !loadedPaths) return;
    let live = true;
    setRanking(true);
    Promise.all(
      loadedPaths.split("\n").map((p) =>
        call("diagnose_fleet", { path: p })
          .then((f) => f.sessions.map((r) => [sessionKey(p, r.session_id), r] as const))
          .catch(() => []),
      ),
    )
      .then((all) => live && setFacts(new Map(all.flat())))
      .finally(() => live && setRanking(false));
    return () => {
      live = false;
    };
  }, [sessionSort, loadedPaths]);

  const openAt = useOpenAt(selected, setSelected, useCallback(() => setTab("timeline"), []), selectMessage, timeline, rowsIn);
  const openHit = useCallback(
    (h: Hit) => {
      const key = hitTarget(sources ?? [], h);
      setSearching(false);
      if (!key) return;
      // The inspector marks the match and scrolls to it once the message is shown.
      setSearchMark({ index: h.index, text: Array.from(h.snippet).slice(h.match_start, h.match_end).join("") });
      openAt(key, h.index);
    },
    [sources, openAt],
  );
  // An alert (in the window's list, or its desktop notification clicked): its session at the
  // message that tipped it.
  const openAlert = useCallback(
    (a: Alert) => {
      const key = alertTarget(sources ?? [], a);
      if (key) openAt(key, a.message_index);
    },
    [sources, openAt],
  );
  // A session Tune found spared a re-read in: Replay at that setting, the re-read selected.
  const openReplayAt = useCallback<OpenReplayAt>(
    (key, options, focus) => {
      updateReplay(sessionKey(key.path, key.id), { a: options, compare: false, focus });
      openAt(key, focus?.call ?? 0);
      setTab("replay");
    },
    [openAt],
  );
  const alerts = useAlerts(openAlert);
  const [alertsOpen, setAlertsOpen] = useState(false);

  const firstRowAt = (index: number) => rows.findIndex((r) => r.index >= index);
  const openCutData = openCut !== null ? cutsState.data?.cuts[openCut] : undefined;
  const shownCut = openCutData && firstRowAt(openCutData.anatomy.cut_index) === cursor ? openCut : null;
  const shownCutWhole = useOpenCut(selected, shownCut, cutsState.data);
  const openCutAt = (ordinal: number) => {
    const c = cutsState.data?.cuts[ordinal];
    if (!c) return;
    const p = firstRowAt(c.anatomy.cut_index);
    if (p === -1) return;
    setCursor(p);
    setOpenCut(ordinal);
  };
  const openCutAtPosition = (position: number) => {
    const hit = cutAt.find((c) => c.position === position);
    if (hit) openCutAt(hit.ordinal);
  };
  // A message of the cut view, in the timeline: in this view when it is there, else in All.
  const showStored = (index: number) => {
    setOpenCut(null);
    const p = rows.findIndex((r) => r.index === index);
    if (p !== -1) return setCursor(p);
    const at = (timeline?.rows ?? []).findIndex((r) => r.index === index);
    if (at === -1) return;
    setView("all");
    setCursor(at);
  };

  const openPaths = useCallback(async (paths: string[]) => {
    for (const path of paths) {
      try {
        const g = await call("open_path", { path });
        setSources((cur) => [...(cur ?? []).filter((x) => x.path !== g.path), g]);
        const s = nestSessions(g.sessions)[0]?.s;
        if (s) setSelected({ path: g.path, id: s.id });
        else if (g.problems[0]) setError({ code: "bad_input", message: g.problems[0].message });
      } catch (e) {
        setError(toIpcError(e));
      }
    }
  }, []);
  const dragging = useFileDrop(openPaths);
  // An inspector link: a session the sidebar lists from that file opens in place, any other file
  // opens as a source of its own; a spill file is reviewed in the Spills tab.
  const openLink = useCallback(
    (l: Link) => {
      if (l.kind === "spill_file") return setTab("spills");
      for (const g of sources ?? []) {
        // One goose database holds many sessions: the link names which.
        const s = g.sessions.find((x) => x.path === l.path && (l.session === undefined || x.id === l.session));
        if (s) return setSelected({ path: g.path, id: s.id });
      }
      void openPaths([l.path]);
    },
    [sources, openPaths],
  );
  // Where the bundled fixtures are, asked only when the window found nothing to show.
  const [examples, setExamples] = useState<string | null>(null);
  const empty = nothingFound(sources);
  useEffect(() => {
    if (!empty) return;
    call("bundled_examples", {})
      .then(setExamples)
      .catch(() => setExamples(null));
  }, [empty]);
  const pick = useCallback(
    (directory: boolean) => {
      openDialog(directory)
        .then((p) => (p ? openPaths([p]) : undefined))
        .catch((e) => setError(toIpcError(e)));
    },
    [openPaths],
  );
  const openFile = useCallback(() => pick(false), [pick]);
  const openFolder = useCallback(() => pick(true), [pick]);

  // Rows paged in after the first screen are not "new": follow counts from the whole session.
  // Followed once every row of the session is in: the index's rows of a grown file are not yet.
  const follow = useFollow(rowsIn || standIn(timeline) ? null : timeline, rows[cursor]?.index, rows.length - 1, setCursor);

  useKeyboard({
    rowCount: rows.length,
    cutPositions,
    openCutAtPosition,
    cursor,
    setCursor,
    open: () => cursor >= 0 && openRow(cursor),
    setView: switchView,
    toggleHelp: () => setHelp((h) => !h),
    closeHelp: () => (setHelp(false), setOpenCut(null)),
    toggleRaw: () => setShowRaw((r) => !r),
    focusFilter: () => filterRef.current?.focus(),
    openFile,
    toggleFollow: follow.toggleFollow,
    openSearch: () => setSearching(true),
  });

  const group = sources?.find((g) => g.path === selected?.path) ?? null;
  // Keyed by the paths themselves: a source list reloaded with the same folders (a session
  // that grew) must not ask the open search again and drop the hit under the cursor.
  const searchKey = (sources ?? []).map((g) => g.path).join("\n");
  const searchPaths = useMemo(() => (searchKey ? searchKey.split("\n") : []), [searchKey]);
  const runs = useMemo(() => (sources ?? []).flatMap((g) => g.sessions.map((s) => ({ path: g.path, id: s.id, name: s.name, label: `${s.name} · ${g.label}` }))), [sources]);
  const ActiveTab = (TABS.find((t) => t.id === tab) ?? TABS[0])!.component;
  const status = statusLine({ loading, error, timeline, counts, view, shown: rows.length, rowsIn, looking: sources === null });

  const liveNote = [
    clip.note,
    exporter.note,
    follow.unseen > 0 ? `${follow.unseen} new since you last looked (G: newest)` : null,
    selected && liveView.liveSessions.has(sessionKey(selected.path, selected.id)) ? `● live${follow.follow ? ", following" : ""}` : null,
    liveView.problem ? `⚠ ${liveView.problem}` : null,
  ].filter(Boolean).join(" · ");

  return (
    <div className="app">
      <Toolbar
        sourceLabel={group?.label ?? null}
        sessionName={timeline?.meta.name ?? null}
        view={view}
        onView={switchView}
        onOpenFile={openFile}
        onOpenFolder={openFolder}
        onExport={selected && timeline ? () => void exporter.exportReport() : undefined}
        onCompare={timeline ? () => setTab("compare") : undefined}
        onHelp={() => setHelp(true)}
        follow={follow.follow}
        onFollow={follow.toggleFollow}
      />
      <div className={`panes${shownCut !== null ? " cut-open" : wide ? " wide" : ""}`}>
        {nothingFound(sources) && sources ? (
          <div className="sidebar empty-pane" data-testid="no-sources">
            <p>No sessions found{sources.length ? ` in ${sources.map((g) => g.path).join(", ")}` : ""}.</p>
            <p className="empty-actions">
              <button type="button" onClick={openFile}>
                Open file…
              </button>{" "}
              <button type="button" onClick={openFolder}>
                Open folder…
              </button>
            </p>
            {examples && (
              <p>
                <button type="button" data-testid="open-examples" onClick={() => openPaths([examples])} title={examples}>
                  Open the bundled examples
                </button>
              </p>
            )}
            <p className="muted small">Or drop a session file, database or folder on this window.</p>
            {sources.flatMap((g) => g.problems).map((p, i) => (
              <p key={i} className="problem">
                ⚠ {p.message}
              </p>
            ))}
          </div>
        ) : (
          <Sidebar
            ref={filterRef}
            sources={sources ?? []}
            selected={selected}
            filter={filter}
            onFilter={setFilter}
            onSelect={setSelected}
            live={liveView.liveSessions}
            sort={sessionSort}
            onSort={setSessionSort}
            facts={facts}
            ranking={ranking}
          />
        )}
        <main className="main" data-view={view} data-session-id={timeline?.meta.id}>
          <ActiveTab
            path={selected?.path ?? null}
            timeline={timeline}
            view={view}
            rows={rows}
            cursor={cursor}
            setCursor={setCursor}
            openRow={openRow}
            cuts={{ ...cutsState, openCut: shownCut, openCutAt }}
            selectSession={setSelected}
            sourceSessionCount={group?.sessions.length ?? 0}
            newFrom={follow.newFrom}
            selectMessage={selectMessage}
            setWide={setWide}
            runs={runs}
            openReplayAt={openReplayAt}
          />
        </main>
        {shownCut !== null && openCutData ? (
          <CutView
            cut={openCutData}
            whole={shownCutWhole}
            ordinal={shownCut}
            count={cutsState.data?.cuts.length ?? 0}
            rowsByIndex={rowsByIndex}
            onPrev={() => openCutAt(shownCut - 1)}
            onNext={() => openCutAt(shownCut + 1)}
            onClose={() => setOpenCut(null)}
            onShow={showStored}
            onCopy={(what) => clip.copy(what === "cut" ? { cut: shownCut } : { summary: shownCut })}
          />
        ) : wide ? null : (
          <Inspector
            detail={detail}
            loading={detailLoading}
            error={detailError}
            showRaw={showRaw}
            onToggleRaw={() => setShowRaw((r) => !r)}
            onLink={openLink}
            onCopy={detail ? () => clip.copy({ message: detail.message.index }) : undefined}
            mark={searchMark && detail?.message.index === searchMark.index ? searchMark.text : null}
          />
        )}
      </div>
      <BottomBar
        tabs={TABS}
        active={tab}
        onTab={setTab}
        status={liveNote ? `${liveNote} · ${status}` : status}
        busy={loading || rowsIn !== null || sources === null}
        alerts={alerts.shown.length}
        onAlerts={() => setAlertsOpen((o) => !o)}
      />
      <AlertsPanel state={alerts} expanded={alertsOpen} onCollapse={() => setAlertsOpen(false)} onOpen={(a) => (setAlertsOpen(false), openAlert(a))} />
      {help && <KeyHelp onClose={() => setHelp(false)} />}
      {searching && <SearchDialog paths={searchPaths} onOpen={openHit} onClose={() => setSearching(false)} />}
      {dragging && <div className="drop-overlay">Drop a session file, database or folder to open it</div>}
    </div>
  );
}
