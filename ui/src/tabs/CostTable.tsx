// What the session cost, beside its recorded usage in the Tokens tab: the total, then each
// model's requests, tokens by price tier and dollars, with the price table's date. Prices are
// core's (`cost`, a dated snapshot of LiteLLM's table); a model without a price says so.
import type { SessionCost } from "../bindings/SessionCost";
import { dollars } from "./fleetSort";
import { thousands } from "../tokens/format";

/** `requests`: how many requests the cost priced (the window does not receive their list). */
export function CostTable({ cost, requests }: { cost: SessionCost | null; requests: number }) {
  if (!cost)
    return (
      <section className="usage" data-testid="cost">
        <h3>Cost</h3>
        <p className="muted">No recorded usage: nothing to price.</p>
      </section>
    );
  return (
    <section className="usage" data-testid="cost">
      <table className="num-table">
        <caption>
          Cost: <strong data-testid="cost-total">{cost.total_usd === null ? `${dollars(cost.priced_usd)} priced` : dollars(cost.total_usd)}</strong> over {requests} requests · prices of{" "}
          {cost.table_date}
        </caption>
        <thead>
          <tr>
            <th className="left">model</th>
            <th>requests</th>
            <th>input</th>
            <th>output</th>
            <th>cache read</th>
            <th>cache write</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {cost.per_model.map((m) => (
            <tr key={m.model}>
              <th className="left">{m.model}</th>
              <td>{m.requests}</td>
              <td>{thousands(m.usage.input)}</td>
              <td>{thousands(m.usage.output)}</td>
              <td>{thousands(m.usage.cache_read)}</td>
              <td>{thousands(m.usage.cache_write + m.usage.cache_write_1h)}</td>
              <td>{m.usd === null ? "no price" : dollars(m.usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {cost.unpriced_models.length > 0 && <p className="note">No price in the table for {cost.unpriced_models.join(", ")}: not counted, never guessed.</p>}
    </section>
  );
}
