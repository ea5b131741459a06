// Alerts in the window: the `alerts` events the app's alert thread emits (src-tauri/src/alerts.rs)
// when a followed session turns stuck or bad, kept newest first, and the `open-alert` event a
// click on a desktop notification sends. Quiet keeps them in the list and off the desktop and
// the screen; it and the thresholds the user set are remembered across launches. When an alert is raised is core's
// (palimpsest_core::watch::alerts); opening one is the window's (App.tsx).
import { useCallback, useEffect, useRef, useState } from "react";
import { call, onEvent, whileMounted } from "./ipc";
import type { Alert } from "./bindings/Alert";
import type { AlertRules } from "./bindings/AlertRules";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { SessionKey } from "./components/Sidebar";

/** Alerts kept in the list; older ones are dropped. */
export const KEPT = 50;

const QUIET_KEY = "palimpsest.alerts.quiet";
const RULES_KEY = "palimpsest.alerts.rules";

/** `batch` before `list` (newest first), at most `KEPT`. */
export function withAlerts(list: Alert[], batch: Alert[]): Alert[] {
  return [...[...batch].reverse(), ...list].slice(0, KEPT);
}

/** The session an alert names, under the source it was followed in (else any that lists it). */
export function alertTarget(sources: SourceGroup[], a: Alert): SessionKey | null {
  const path = a.source ?? sources.find((g) => g.sessions.some((s) => s.id === a.session_id))?.path;
  return path ? { path, id: a.session_id } : null;
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
  /** The thresholds in effect, as the app answered (null until it did). */
  rules: AlertRules | null;
  /** New thresholds; null: the post-mortem's own. */
  setRules: (r: AlertRules | null) => void;
  dismiss: (a: Alert) => void;
  dismissAll: () => void;
}

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // A window without storage forgets it at the next launch.
  }
}

function storedRules(): AlertRules | null {
  try {
    return JSON.parse(stored(RULES_KEY) ?? "null") as AlertRules | null;
  } catch {
    return null;
  }
}

/** The alerts of this run; `open` is called for a notification clicked on the desktop. */
export function useAlerts(open: (a: Alert) => void): AlertsState {
  const [alerts, setAlerts] = useState<Alert[]>([]);
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const [quiet, setQuietState] = useState(() => stored(QUIET_KEY) === "1");
  // What the user set (null: the defaults), and what the app says is in effect.
  const [asked, setAsked] = useState<AlertRules | null>(storedRules);
  const [rules, setEffective] = useState<AlertRules | null>(null);
  const openRef = useRef(open);
  openRef.current = open;
  useEffect(() => whileMounted(onEvent("alerts", (batch) => setAlerts((cur) => withAlerts(cur, batch)))), []);
  useEffect(() => whileMounted(onEvent("open-alert", (a) => openRef.current(a))), []);
  useEffect(() => {
    call("set_alerts", { on: true, notify: !quiet, ...(asked ? { rules: asked } : {}) })
      .then(setEffective)
      .catch(() => undefined);
  }, [quiet, asked]);
  const setQuiet = useCallback((q: boolean) => {
    store(QUIET_KEY, q ? "1" : "0");
    setQuietState(q);
  }, []);
  const setRules = useCallback((r: AlertRules | null) => {
    store(RULES_KEY, r === null ? null : JSON.stringify(r));
    setAsked(r);
  }, []);
  const dismiss = useCallback((a: Alert) => setDismissed((d) => new Set(d).add(alertKey(a))), []);
  const dismissAll = useCallback(() => setDismissed(new Set(alerts.map(alertKey))), [alerts]);
  const shown = alerts.filter((a) => !dismissed.has(alertKey(a)));
  return { alerts, shown, quiet, setQuiet, rules, setRules, dismiss, dismissAll };
}
