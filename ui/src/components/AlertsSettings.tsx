// The alerts' thresholds, one per kind, and which kinds are raised at all: the same settings as
// `palimpsest watch --alerts`' flags. Applying them starts judging afresh (each session against
// its state at its next line); Defaults goes back to the post-mortem's own.
import { useEffect, useState } from "react";
import type { AlertKind } from "../bindings/AlertKind";
import type { AlertRules } from "../bindings/AlertRules";

/** Each kind with what it is about and the threshold that rules it (null: none). */
const KINDS: { kind: AlertKind; label: string; field: keyof AlertRules | null; unit: string }[] = [
  { kind: "rereads_after_compaction", label: "a file re-read after a compaction", field: "rereads", unit: "re-reads" },
  { kind: "compaction_freed_little", label: "a compaction freeing little", field: "freed_below", unit: "% freed at most" },
  { kind: "compaction_storm", label: "compactions close together", field: "storm_requests", unit: "requests apart at most" },
  { kind: "prompt_too_long", label: "Prompt is too long after a compaction", field: null, unit: "" },
  { kind: "failing_loop", label: "the same call failing", field: "failing_calls", unit: "times in a row (3 at least)" },
  { kind: "repeated_call", label: "the same call, the same answer", field: "repeated_calls", unit: "times (3 at least)" },
  { kind: "spill_loop", label: "a spill file capped again", field: "spill_rereads", unit: "times (2 at least)" },
  { kind: "idle_after_compaction", label: "no request after a compaction", field: "idle_minutes", unit: "minutes" },
  { kind: "over_budget", label: "a session past a budget", field: "budget_usd", unit: "dollars (empty: none)" },
];

/** What a field shows: percentages for the freed share, empty for no budget. */
function shown(rules: AlertRules, field: keyof AlertRules): string {
  const v = rules[field];
  if (v === null) return "";
  return field === "freed_below" ? String(Math.round((v as number) * 1000) / 10) : String(v);
}

/** `rules` with `field` set from the text typed; unchanged when it is not a number. */
export function withField(rules: AlertRules, field: keyof AlertRules, text: string): AlertRules {
  if (field === "budget_usd" && text.trim() === "") return { ...rules, budget_usd: null };
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 0) return rules;
  return { ...rules, [field]: field === "freed_below" ? n / 100 : n };
}

export function AlertsSettings({ rules, onApply, onDefaults }: { rules: AlertRules; onApply: (r: AlertRules) => void; onDefaults: () => void }) {
  const [draft, setDraft] = useState(rules);
  useEffect(() => setDraft(rules), [rules]);
  return (
    <form
      className="alerts-settings"
      data-testid="alerts-settings"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      {KINDS.map(({ kind, label, field, unit }) => (
        <div key={kind} className="alerts-setting">
          <label>
            <input
              type="checkbox"
              checked={!draft.off.includes(kind)}
              onChange={(e) => setDraft({ ...draft, off: e.target.checked ? draft.off.filter((k) => k !== kind) : [...draft.off, kind] })}
              data-testid={`kind-${kind}`}
            />{" "}
            {label}
          </label>
          {field && (
            <span className="muted small">
              {" "}
              <input
                className="alerts-threshold"
                inputMode="decimal"
                key={`${field}-${shown(rules, field)}`}
                defaultValue={shown(draft, field)}
                onChange={(e) => setDraft((d) => withField(d, field, e.target.value))}
                data-testid={`rule-${field}`}
                aria-label={`${label}: ${unit}`}
              />{" "}
              {unit}
            </span>
          )}
        </div>
      ))}
      <p>
        <button type="submit" data-testid="rules-apply">
          Apply
        </button>{" "}
        <button type="button" onClick={onDefaults} data-testid="rules-defaults">
          Defaults
        </button>
      </p>
    </form>
  );
}
