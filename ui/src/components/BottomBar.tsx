// The bottom strip: one tab per view of the session (tabs/index.ts) and the status line.
import type { TabDef } from "../tabs";
import { TaskStatus } from "./TaskStatus";

export interface BottomBarProps {
  tabs: TabDef[];
  active: string;
  onTab: (id: string) => void;
  status: string;
  busy: boolean;
  /** Alerts raised and not dismissed: counted here, a click shows or hides their list. */
  alerts?: number;
  onAlerts?: () => void;
}

export function BottomBar({ tabs, active, onTab, status, busy, alerts = 0, onAlerts }: BottomBarProps) {
  return (
    <footer className="bottombar">
      <div className="tabs" role="tablist" aria-label="Views">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={t.id === active}
            className={t.id === active ? "active" : ""}
            onClick={() => onTab(t.id)}
            data-tab={t.id}
          >
            {t.label}
          </button>
        ))}
      </div>
      <TaskStatus />
      {onAlerts && (
        <button type="button" className={`status-alerts${alerts ? "" : " none"}`} data-testid="alerts-count" onClick={onAlerts} title="Show or hide the alerts and their thresholds">
          {alerts ? `⚠ ${alerts} alert${alerts === 1 ? "" : "s"}` : "alerts"}
        </button>
      )}
      <div className="status" role="status" data-testid="status">
        {busy && <span className="spinner" aria-hidden="true" />}
        {status}
      </div>
    </footer>
  );
}
