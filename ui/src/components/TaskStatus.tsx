// The running task in the status bar: what, how far (a bar and a percentage, fed by the app's
// `task-progress` events) and a Cancel button. Nothing when no task runs.
import { cancelRunning, useRunningTask, useTaskProgressEvents } from "../tasks";

export function TaskStatus() {
  useTaskProgressEvents();
  const t = useRunningTask();
  if (!t) return null;
  const pct = t.fraction === null ? null : Math.round(t.fraction * 100);
  return (
    <span className="task-status" data-testid="task-status">
      <span className="spinner" aria-hidden="true" />
      {t.label}
      {pct !== null && (
        <>
          {" "}
          {pct}%{" "}
          <span className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
            <span style={{ width: `${pct}%` }} />
          </span>
        </>
      )}
      <button type="button" className="link" onClick={cancelRunning} data-testid="task-cancel" title="Stop (counts made so far stay cached)">
        Cancel
      </button>
    </span>
  );
}
