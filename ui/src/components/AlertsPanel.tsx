// The alerts raised while workers run, at the window's bottom right: newest first, each naming
// the session, the finding in words and the message that tipped it; a click opens the session
// at that message. Quiet hides the list until asked for; the count stays in the bottom bar.
// Thresholds… opens the settings (`AlertsSettings`).
import { useState } from "react";
import type { Alert } from "../bindings/Alert";
import { alertKey, type AlertsState } from "../alerts";
import { AlertsSettings } from "./AlertsSettings";

/** Alerts on screen at once; the rest are counted. */
const ON_SCREEN = 3;

export interface AlertsPanelProps {
  state: AlertsState;
  /** Show the list even when quiet (the bottom bar's count was clicked). */
  expanded: boolean;
  onCollapse: () => void;
  onOpen: (a: Alert) => void;
}

export function AlertsPanel({ state, expanded, onCollapse, onOpen }: AlertsPanelProps) {
  const { shown, quiet, setQuiet, rules, setRules, dismiss, dismissAll } = state;
  const [settings, setSettings] = useState(false);
  if (!expanded && (shown.length === 0 || quiet)) return null;
  const list = expanded ? shown : shown.slice(0, ON_SCREEN);
  return (
    <aside className="alerts" data-testid="alerts" aria-label="Alerts">
      <header>
        <strong>Alerts</strong>
        <label className="small">
          <input type="checkbox" checked={quiet} onChange={(e) => (setQuiet(e.target.checked), e.target.checked && onCollapse())} data-testid="alerts-quiet" /> Quiet
        </label>
        <button type="button" className="link" onClick={() => setSettings((o) => !o)} data-testid="alerts-thresholds">
          Thresholds…
        </button>
        <button type="button" className="link" onClick={() => (dismissAll(), onCollapse())}>
          Dismiss all
        </button>
      </header>
      {settings && rules && (
        <AlertsSettings
          rules={rules}
          onApply={(r) => (setRules(r), setSettings(false))}
          onDefaults={() => (setRules(null), setSettings(false))}
        />
      )}
      {shown.length === 0 && <p className="muted small">No alert yet: a followed worker that turns stuck while this window is open is listed here.</p>}
      <ul>
        {list.map((a) => (
          <li key={alertKey(a)} className="alert">
            <button type="button" data-testid="alert" data-kind={a.kind} data-session-id={a.session_id} onClick={() => onOpen(a)} title={a.path}>
              <span className={`badge sev-${a.severity}`}>{a.severity}</span> <span className="alert-name">{a.name}</span>
              <span className="alert-words">
                {a.words} · #{a.message_index}
              </span>
            </button>
            <button type="button" className="link dismiss" aria-label="Dismiss" onClick={() => dismiss(a)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      {shown.length > list.length && <p className="muted small">and {shown.length - list.length} more</p>}
    </aside>
  );
}
