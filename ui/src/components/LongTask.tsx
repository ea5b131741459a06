// A fleet-wide task's line while it runs and after a Cancel (the fleet table's, Tune's): how
// many sessions are done of those to do, Cancel, and once cancelled how far it got with a
// button to ask again. Test ids are `<name>-progress`, `-cancel`, `-cancelled`, `-again`.
export function LongTask({
  name,
  busy,
  cancelled,
  done,
  counting,
  waiting,
  cancel,
  again,
  againLabel,
}: {
  name: string;
  busy: boolean;
  cancelled: boolean;
  /** Sessions done of those to do, once the first is reported. */
  done: { done: number; total: number } | null;
  /** The line with a count. */
  counting: (done: number, total: number) => string;
  /** The line before the first count. */
  waiting: string;
  cancel: () => void;
  again: () => void;
  againLabel: string;
}) {
  const counted = done && done.total > 0 ? done : null;
  return (
    <>
      {busy && (
        <p className="hint" data-testid={`${name}-progress`}>
          <span className="spinner" aria-hidden="true" />
          {counted ? counting(counted.done, counted.total) : waiting}
          <button type="button" className="link" onClick={cancel} data-testid={`${name}-cancel`}>
            Cancel
          </button>
        </p>
      )}
      {cancelled && (
        <p className="hint" data-testid={`${name}-cancelled`}>
          Cancelled{counted ? ` after ${counted.done} of ${counted.total} sessions (kept in the index)` : ""}.{" "}
          <button type="button" onClick={again} data-testid={`${name}-again`}>
            {againLabel}
          </button>
        </p>
      )}
    </>
  );
}
