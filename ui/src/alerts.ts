// Alerts in the window: the `alerts` events the app's alert thread emits (src-tauri/src/alerts.rs)
// when a followed session turns stuck or bad, kept newest first, and the `open-alert` event a
// click on a desktop notification sends. Quiet keeps them in the list and off the desktop and
// the screen; it is remembered across launches. When an alert is raised is core's
// (palimpsest_core::watch::alerts); opening one is the window's (App.tsx).
import { useCallback, useEffect, useRef, useState } from "react";
import { call, onEvent } from "./ipc";
import type { Alert } from "./bindings/Alert";

/** Alerts kept in the list; older ones are dropped. */
export const KEPT = 50;

const QUIET_KEY = "palimpsest.alerts.quiet";

/** `batch` before `list` (newest first), at most `KEPT`. */
export function withAlerts(list: Alert[], batch: Alert[]): Alert[] {
  return [...[...batch].reverse(), ...list].slice(0, KEPT);
}

/** The key an alert is dismissed by: one per session and kind, as core raises them. */
export function alertKey(a: Alert): string {
  return `${a.session_id}\u0000${a.kind}\u0000${a.raised_at}`;
}

export interface AlertsState {
  alerts: Alert[];
  /** Alerts raised and not dismissed (shown on screen unless quiet). */
  shown: Alert[];
  quiet: boolean;
  setQuiet: (q: boolean) => void;
  dismiss: (a: Alert) => void;
  dismissAll: () => void;
}

function storedQuiet(): boolean {
  try {
    return localStorage.getItem(QUIET_KEY) === "1";
  } catch {
    return false;
  }
}

/** The alerts of this run; `open` is called for a notification clicked on the desktop. */
export function useAlerts(open: (a: Alert) => void): AlertsState {
  const [alerts, setAlerts] = useState<Alert[]>([]);
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const [quiet, setQuietState] = useState(storedQuiet);
  const openRef = useRef(open);
  openRef.current = open;
  useEffect(() => {
    const offs = [
      onEvent("alerts", (batch) => setAlerts((cur) => withAlerts(cur, batch))),
      onEvent("open-alert", (a) => openRef.current(a)),
    ];
    return () => offs.forEach((p) => void p.then((off) => off()));
  }, []);
  useEffect(() => {
    call("set_alerts", { on: true, notify: !quiet }).catch(() => undefined);
  }, [quiet]);
  const setQuiet = useCallback((q: boolean) => {
    try {
      localStorage.setItem(QUIET_KEY, q ? "1" : "0");
    } catch {
      // A window without storage forgets it at the next launch.
    }
    setQuietState(q);
  }, []);
  const dismiss = useCallback((a: Alert) => setDismissed((d) => new Set(d).add(alertKey(a))), []);
  const dismissAll = useCallback(() => setDismissed(new Set(alerts.map(alertKey))), [alerts]);
  const shown = alerts.filter((a) => !dismissed.has(alertKey(a)));
  return { alerts, shown, quiet, setQuiet, dismiss, dismissAll };
}
