// The keyboard map (ui.md: keyboard first). Keys are ignored while typing in a text field,
// except Escape, which leaves it.
import { useEffect, useRef } from "react";
import type { View } from "./bindings/View";

export interface KeyActions {
  rowCount: number;
  /** Positions (in the current view) of the rows that open a new context after a cut. */
  cutPositions: number[];
  /** `[` / `]` landed on the cut row at `position`: open that cut in the inspector. */
  openCutAtPosition?: (position: number) => void;
  cursor: number;
  setCursor: (pos: number) => void;
  open: () => void;
  setView: (v: View) => void;
  toggleHelp: () => void;
  closeHelp: () => void;
  toggleRaw: () => void;
  focusFilter: () => void;
  openFile: () => void;
  /** Follow mode on / off (f). */
  toggleFollow?: () => void;
  /** Ctrl+K: search every session. */
  openSearch?: () => void;
}

/** What a key does, as a pure function of the key and the current position (tested). */
export function keyAction(
  e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean },
  cursor: number,
  rowCount: number,
  cutPositions: number[] = [],
): { move?: number; view?: View; cmd?: "open" | "cut" | "help" | "close" | "raw" | "filter" | "openFile" | "follow" | "search" } | null {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "o") return { cmd: "openFile" };
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") return { cmd: "search" };
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const last = rowCount - 1;
  switch (e.key) {
    case "j":
    case "ArrowDown":
      return rowCount ? { move: Math.min(last, cursor + 1) } : null;
    case "k":
    case "ArrowUp":
      return rowCount ? { move: Math.max(0, cursor - 1) } : null;
    case "g":
    case "Home":
      return rowCount ? { move: 0 } : null;
    case "G":
    case "End":
      return rowCount ? { move: last } : null;
    case "PageDown":
      return rowCount ? { move: Math.min(last, cursor + 20) } : null;
    case "PageUp":
      return rowCount ? { move: Math.max(0, cursor - 20) } : null;
    case "]": {
      const next = cutPositions.find((p) => p > cursor);
      return next === undefined ? null : { move: next, cmd: "cut" };
    }
    case "[": {
      const prev = [...cutPositions].reverse().find((p) => p < cursor);
      return prev === undefined ? null : { move: prev, cmd: "cut" };
    }
    case "Enter":
      return { cmd: "open" };
    case "1":
      return { view: "all" };
    case "2":
      return { view: "agent" };
    case "3":
      return { view: "user" };
    case "?":
      return { cmd: "help" };
    case "Escape":
      return { cmd: "close" };
    case "r":
      return { cmd: "raw" };
    case "/":
      return { cmd: "filter" };
    case "f":
      return { cmd: "follow" };
    default:
      return null;
  }
}

export function useKeyboard(actions: KeyActions) {
  const ref = useRef(actions);
  ref.current = actions;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      const typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
      if (typing) {
        if (e.key === "Escape") t.blur();
        // Ctrl+K searches from anywhere, the filter box included.
        if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k" && ref.current.openSearch) {
          e.preventDefault();
          ref.current.openSearch();
        }
        return;
      }
      const a = ref.current;
      const act = keyAction(e, a.cursor, a.rowCount, a.cutPositions);
      if (!act) return;
      e.preventDefault();
      if (act.move !== undefined) a.setCursor(act.move);
      if (act.view) a.setView(act.view);
      if (act.cmd === "open") a.open();
      if (act.cmd === "cut" && act.move !== undefined) a.openCutAtPosition?.(act.move);
      if (act.cmd === "help") a.toggleHelp();
      if (act.cmd === "close") a.closeHelp();
      if (act.cmd === "raw") a.toggleRaw();
      if (act.cmd === "filter") a.focusFilter();
      if (act.cmd === "openFile") a.openFile();
      if (act.cmd === "follow") a.toggleFollow?.();
      if (act.cmd === "search") a.openSearch?.();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
