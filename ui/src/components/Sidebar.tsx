// The sidebar: one section per source (an agent family's default folder, the path argument,
// a folder the user added), each with a header naming it (its path on hover), its session count
// and a collapse toggle, then its sessions (name, id, updated, messages, compactions). The
// filter narrows every section at once. Problems (files that failed to open) are listed under
// their source; a source still being listed says so. The order is the listing's, or by update,
// severity, cost or compactions (`sessionSort`; severity and cost from the index's fleet rows,
// shown on each row once fetched).
import { forwardRef, useState } from "react";
import type { SourceGroup } from "../bindings/SourceGroup";
import type { SessionMeta } from "../bindings/SessionMeta";
import { formatTime } from "../timeline/rows";
import { sessionKey } from "../live";
import type { FleetRow } from "../bindings/FleetRow";
import { sortSessions, type SessionSort } from "./sessionSort";

export interface SessionKey {
  path: string;
  id: string;
}

export interface SidebarProps {
  sources: SourceGroup[];
  selected: SessionKey | null;
  filter: string;
  onFilter: (f: string) => void;
  onSelect: (key: SessionKey) => void;
  /** Keys (`sessionKey`) of sessions that changed lately: shown with a ● live mark. */
  live?: Set<string>;
  /** The session order. */
  sort?: SessionSort;
  onSort?: (s: SessionSort) => void;
  /** Fleet rows from the index, by `sessionKey`: severity and cost, once fetched. */
  facts?: Map<string, FleetRow>;
  /** The index is being brought up to date for the order asked. */
  ranking?: boolean;
}

export function matchesFilter(s: SessionMeta, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  return [s.name, s.id, s.working_dir ?? "", s.model ?? ""].some((v) => v.toLowerCase().includes(f));
}

/**
 * Sessions in sidebar order: each top-level session followed by its children (subagent and
 * compactor runs, `parent_id`), one level in; a child whose parent is not listed stays at the
 * top. Order within each level is the listing's.
 */
export function nestSessions(sessions: SessionMeta[]): { s: SessionMeta; depth: number }[] {
  const ids = new Set(sessions.map((s) => s.id));
  const children = new Map<string, SessionMeta[]>();
  for (const s of sessions) {
    if (s.parent_id && ids.has(s.parent_id)) children.set(s.parent_id, [...(children.get(s.parent_id) ?? []), s]);
  }
  const out: { s: SessionMeta; depth: number }[] = [];
  for (const s of sessions) {
    if (s.parent_id && ids.has(s.parent_id)) continue;
    out.push({ s, depth: 0 });
    for (const c of children.get(s.id) ?? []) out.push({ s: c, depth: 1 });
  }
  return out;
}

/**
 * Claude Code sessions grouped by project (their working directory), projects in the order
 * their first session is listed; each session keeps its children under it. `null` when the
 * section holds one project or none (no header is worth drawing then).
 */
export function byProject(rows: { s: SessionMeta; depth: number }[]): { project: string; rows: { s: SessionMeta; depth: number }[] }[] | null {
  const groups: { project: string; rows: { s: SessionMeta; depth: number }[] }[] = [];
  let current: { project: string; rows: { s: SessionMeta; depth: number }[] } | null = null;
  for (const r of rows) {
    if (r.depth === 0) {
      const project = r.s.format === "claude-code" ? (r.s.working_dir ?? "") : "";
      current = groups.find((g) => g.project === project) ?? null;
      if (!current) groups.push((current = { project, rows: [] }));
    }
    current?.rows.push(r);
  }
  return groups.length > 1 ? groups : null;
}

/**
 * The header's count: the listed conversations (subagent and compactor runs are counted with
 * their parent, as the cheap count of transcript files counts them), else the cheap count,
 * else "…" while unknown.
 */
export function groupCount(g: SourceGroup, shown: number, filter: string): string {
  const top = g.sessions.filter((s) => !s.parent_id).length;
  const total = g.loaded ? String(top) : g.session_count === null ? "…" : String(g.session_count);
  return filter.trim() && g.loaded ? `${shown}/${total}` : total;
}

export const Sidebar = forwardRef<HTMLInputElement, SidebarProps>(function Sidebar(
  { sources, selected, filter, onFilter, onSelect, live, sort = "listed", onSort, facts, ranking },
  filterRef,
) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const toggle = (path: string) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  return (
    <nav className="sidebar" aria-label="Sources and sessions">
      <input
        ref={filterRef}
        className="filter"
        type="search"
        placeholder="Filter sessions  (/)"
        value={filter}
        onChange={(e) => onFilter(e.target.value)}
        data-testid="session-filter"
      />
      {onSort && (
        <label className="sort-sessions small muted">
          order{" "}
          <select value={sort} onChange={(e) => onSort(e.target.value as SessionSort)} data-testid="session-sort">
            <option value="listed">as listed</option>
            <option value="updated">last updated</option>
            <option value="severity">severity (stuck first)</option>
            <option value="cost">cost</option>
            <option value="compactions">compactions</option>
          </select>
          {ranking && <span data-testid="session-ranking"> · indexing…</span>}
        </label>
      )}
      <div className="sources">
        {sources.map((g) => {
          const shown = sortSessions(
            g.sessions.filter((s) => matchesFilter(s, filter)),
            sort,
            (id) => facts?.get(sessionKey(g.path, id)),
          );
          const nested = nestSessions(shown);
          // Projects are Claude Code's way of filing sessions: only its sections are grouped.
          const claude = g.family === "claude-code" || (shown.length > 0 && shown.every((s) => s.format === "claude-code"));
          const projects = claude ? byProject(nested) : null;
          const shownTop = shown.filter((s) => !s.parent_id).length;
          return (
            <section
              key={g.path}
              className="source"
              data-testid="source"
              data-origin={g.origin}
              data-family={g.family}
              data-loaded={g.loaded}
            >
              <h3 title={g.path}>
                <button
                  type="button"
                  className="source-toggle"
                  aria-expanded={!collapsed.has(g.path)}
                  onClick={() => toggle(g.path)}
                  data-testid="source-toggle"
                  title={`${g.path}\n${collapsed.has(g.path) ? "Show" : "Hide"} its sessions`}
                >
                  <span aria-hidden="true">{collapsed.has(g.path) ? "▸" : "▾"}</span>{" "}
                  <span data-testid="source-label">{g.label}</span>{" "}
                  <span className="muted" data-testid="source-count" title="sessions">
                    {groupCount(g, shownTop, filter)}
                  </span>
                </button>
              </h3>
              {!g.loaded && <p className="muted small source-note">Listing {g.path}…</p>}
              {!collapsed.has(g.path) && g.problems.map((p, i) => (
                <p key={i} className="problem" title={p.message}>
                  ⚠ {p.message}
                </p>
              ))}
              <ul hidden={collapsed.has(g.path)}>
                {(projects ?? [{ project: null, rows: nested }]).flatMap(({ project, rows }) => [
                  ...(project !== null
                    ? [
                        <li key={`project:${project}`} className="project" data-testid="project" title={project || "no working directory recorded"}>
                          {project ? project.split("/").filter(Boolean).pop() : "(no project)"}
                        </li>,
                      ]
                    : []),
                  ...rows.map(({ s, depth }) => {
                  const isSel = selected?.path === g.path && selected.id === s.id;
                  return (
                    <li key={`${s.path}#${s.id}`} className={depth ? "child" : undefined}>
                      <button
                        type="button"
                        className={`session${isSel ? " selected" : ""}`}
                        data-depth={depth}
                        aria-current={isSel}
                        onClick={() => onSelect({ path: g.path, id: s.id })}
                        data-testid="session"
                        data-session-id={s.id}
                        title={s.working_dir ?? s.path}
                      >
                        <span className="session-name">
                          {live?.has(sessionKey(g.path, s.id)) && (
                            <span className="live-dot" title="Live: changed in the last two minutes" data-testid="live-dot">
                              ● <span className="live-word">live</span>{" "}
                            </span>
                          )}
                          {s.name}
                        </span>
                        <span className="session-meta">
                          <span className="session-id">{s.id}</span>
                          <span>{formatTime(s.updated)}</span>
                        </span>
                        {(() => {
                          const f = facts?.get(sessionKey(g.path, s.id));
                          return f ? (
                            <span className="session-meta" data-testid="session-facts" data-severity={f.severity}>
                              <span className={`sev sev-${f.severity}`}>{f.severity === "stuck" ? "⚠ stuck" : f.severity === "watch" ? "● watch" : "✓ ok"}</span>
                              <span>{f.cost_usd === null ? "no price" : `$${f.cost_usd.toFixed(2)}`}</span>
                            </span>
                          ) : null;
                        })()}
                        <span className="session-meta">
                          <span>{s.message_count} msgs</span>
                          <span>
                            {s.compaction_count} {s.compaction_count === 1 ? "cut" : "cuts"}
                          </span>
                          <span className="muted">{s.format}</span>
                        </span>
                      </button>
                    </li>
                  );
                  }),
                ])}
                {shown.length === 0 && g.sessions.length > 0 && <li className="muted small">No session matches “{filter}”.</li>}
                {g.loaded && g.sessions.length === 0 && g.problems.length === 0 && (
                  <li className="muted small source-note">No sessions in {g.path}.</li>
                )}
              </ul>
            </section>
          );
        })}
      </div>
    </nav>
  );
});
