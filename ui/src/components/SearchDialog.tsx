// Ctrl+K: search every session of the sources shown — user and assistant text, thinking, tool
// arguments and results, summaries — through core's index (`search`). Results list the
// session's title, the message index and a snippet with the match marked; ↑/↓ move, Enter
// opens the message in the timeline and inspector, Esc closes. Matching is core's.
import { useEffect, useRef, useState } from "react";
import type { Hit } from "../bindings/Hit";
import { useCommand } from "../useCommand";

/** The snippet cut at the match: offsets count characters (code points), as core gives them. */
export function splitSnippet(h: Pick<Hit, "snippet" | "match_start" | "match_end">): [string, string, string] {
  const cs = Array.from(h.snippet);
  return [cs.slice(0, h.match_start).join(""), cs.slice(h.match_start, h.match_end).join(""), cs.slice(h.match_end).join("")];
}

const LIMIT = 200;

export function SearchDialog({ paths, onOpen, onClose }: { paths: string[]; onOpen: (h: Hit) => void; onClose: () => void }) {
  const [query, setQuery] = useState("");
  const [regex, setRegex] = useState(false);
  const [cursor, setCursor] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => input.current?.focus(), []);
  // Typing settles for 200 ms before a search is asked; the matches shown are the latest ask's.
  const searched = useCommand("search", query.trim() ? { query, regex, paths, limit: LIMIT } : null, [query, regex, paths], {
    delayMs: 200,
    // The same query asked again (the sources reloaded) keeps its hits and cursor on screen.
    keepFor: `${regex}|${query}`,
  });
  const { data: hits, error: err, loading: busy } = searched;
  // The cursor goes back to the top when the question changes, not when the same answer lands again.
  useEffect(() => setCursor(0), [query, regex]);
  useEffect(() => setCursor((c) => Math.min(c, Math.max(0, (hits?.length ?? 1) - 1))), [hits]);
  useEffect(() => {
    list.current?.querySelector(`[data-pos="${cursor}"]`)?.scrollIntoView({ block: "nearest" });
  }, [cursor]);
  const onKey = (e: React.KeyboardEvent) => {
    const n = hits?.length ?? 0;
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    } else if (e.key === "ArrowDown" && n) {
      e.preventDefault();
      setCursor((c) => Math.min(n - 1, c + 1));
    } else if (e.key === "ArrowUp" && n) {
      e.preventDefault();
      setCursor((c) => Math.max(0, c - 1));
    } else if (e.key === "Enter" && hits?.[cursor]) {
      e.preventDefault();
      onOpen(hits[cursor]);
    }
  };
  return (
    <div className="overlay search-overlay" role="dialog" aria-label="Search every session" onClick={onClose} data-testid="search-dialog">
      <div className="dialog search-dialog" onClick={(e) => e.stopPropagation()} onKeyDown={onKey}>
        <div className="search-bar">
          <input
            ref={input}
            type="search"
            placeholder="Search every session: text, thinking, tool calls and results, summaries"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="search-input"
            aria-label="Search"
          />
          <label className="small">
            <input type="checkbox" checked={regex} onChange={(e) => setRegex(e.target.checked)} /> regex
          </label>
        </div>
        <p className="muted small" data-testid="search-status">
          {busy
            ? "Searching (the index reads only new and changed sessions)…"
            : err
              ? `Error (${err.code}): ${err.message}`
              : hits === null
                ? `${paths.length} source${paths.length === 1 ? "" : "s"} · ↑/↓ move · Enter opens the message · Esc closes`
                : hits.length === 0
                  ? "No match."
                  : `${hits.length}${hits.length === LIMIT ? "+" : ""} match${hits.length === 1 ? "" : "es"}, newest session first`}
        </p>
        {hits && hits.length > 0 && (
          <ol className="search-results" ref={list} data-testid="search-results">
            {hits.map((h, i) => {
              const [pre, hit, post] = splitSnippet(h);
              return (
                <li
                  key={`${h.path}|${h.session_id}|${h.index}|${i}`}
                  data-pos={i}
                  className={i === cursor ? "current" : undefined}
                  aria-selected={i === cursor}
                  onMouseEnter={() => setCursor(i)}
                  onClick={() => onOpen(h)}
                  data-testid="search-hit"
                  data-session-id={h.session_id}
                  data-index={h.index}
                >
                  <div className="search-hit-head">
                    <strong className="search-title">{h.title}</strong>
                    <span className="muted small">
                      #{h.index} · {h.role === "tool" ? "" : `${h.role} `}
                      {h.part.replace("_", " ")}
                      {h.tool ? ` (${h.tool})` : ""} · {h.format}
                    </span>
                  </div>
                  <div className="search-snippet">
                    {pre}
                    <mark>{hit}</mark>
                    {post}
                  </div>
                </li>
              );
            })}
          </ol>
        )}
      </div>
    </div>
  );
}
