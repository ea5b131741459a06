// A recorded request beside the request rebuilt from the session, item by item: what the agent
// sent (left) and what Palimpsest rebuilt (right), each differing step marked — `+` sent only,
// `−` rebuilt only, `~` the same call or result with other content. The diff is core's
// (`compaction::recorded`); this only lays it out. A rebuilt item shows its message on click.
import type { RecordedComparison } from "../bindings/RecordedComparison";
import type { Item } from "../bindings/Item";

const MARK = { same: " ", recorded_only: "+", rebuilt_only: "−", changed: "~" } as const;

function Cell({ item, from, onShow }: { item: Item | undefined; from?: number; onShow?: (index: number) => void }) {
  if (!item) return <div className="recorded-cell empty" />;
  const text = item.text.length > 400 ? `${item.text.slice(0, 400)}…` : item.text;
  return (
    <div className="recorded-cell">
      <span className="recorded-kind muted small">
        {item.role} · {item.kind}
        {from !== undefined && (
          <>
            {" · "}
            <button type="button" className="link" onClick={() => onShow?.(from)}>
              #{from}
            </button>
          </>
        )}
      </span>
      <pre>{text}</pre>
    </div>
  );
}

export function RecordedDiff({ c, onShow }: { c: RecordedComparison; onShow: (index: number) => void }) {
  return (
    <section className="recorded-diff" data-testid="recorded-diff" aria-label="Recorded request beside the rebuilt one">
      <p className="muted small" data-testid="recorded-head">
        {c.log.file}
        {c.log.model && ` · ${c.log.model}`} · {c.log.items.length} items sent, {c.rebuilt.length} rebuilt ·{" "}
        <strong>{c.differences === 0 ? "no difference" : `${c.differences} difference${c.differences === 1 ? "" : "s"}`}</strong>
        {c.system_items > 0 && ` · system prompt: ${c.system_items} item${c.system_items === 1 ? "" : "s"}, never stored in the session`}
        {c.log.error && ` · the call failed: ${c.log.error}`}
      </p>
      <div className="recorded-grid">
        <div className="recorded-col-head">sent (recorded)</div>
        <div className="recorded-col-head">rebuilt from the session</div>
        {c.diff.map((d, k) => {
          const sent = d.recorded !== null ? c.log.items[d.recorded] : undefined;
          const built = d.rebuilt !== null ? c.rebuilt[d.rebuilt] : undefined;
          const system = sent?.role === "system";
          return (
            <div key={k} className={`recorded-step op-${d.op}${system ? " system" : ""}`} data-testid="recorded-step" data-op={d.op}>
              <span className="recorded-mark" aria-hidden>
                {MARK[d.op]}
              </span>
              <Cell item={sent} />
              <Cell item={built} from={d.rebuilt !== null ? c.rebuilt_from[d.rebuilt] : undefined} onShow={onShow} />
            </div>
          );
        })}
      </div>
    </section>
  );
}
