// The knobs of one replay setting: policy, keep-tail K, OpenCode's tail turns and budget,
// Gemini's kept fraction and response budget, threshold, context window, trigger cap, tool-result cap, summary size and the
// legacy/manual/naive switches. Empty number fields mean
// "the default" (the session's window, the policy's caps), as core reads `null`.
import type { ReplayOptions } from "../bindings/ReplayOptions";
import type { PolicyName } from "../bindings/PolicyName";
import { DEFAULTS } from "../bindings/defaults";
import { GEMINI_PRESERVE, GEMINI_THRESHOLD, OPENCODE_TAIL_TURNS } from "./diff";

export interface ReplayControlsProps {
  side: "A" | "B";
  options: ReplayOptions;
  onChange: (o: ReplayOptions) => void;
}

export function ReplayControls({ side, options: o, onChange }: ReplayControlsProps) {
  const set = (patch: Partial<ReplayOptions>) => onChange({ ...o, ...patch });
  const goose = o.policy === "goose";
  const opencode = o.policy === "opencode";
  const gemini = o.policy === "gemini";
  const threshold = o.threshold ?? (gemini ? GEMINI_THRESHOLD : DEFAULTS.threshold);
  const id = (name: string) => `replay-${side}-${name}`;
  return (
    <fieldset className="replay-controls" data-testid={`replay-controls-${side}`}>
      <legend>Setting {side}</legend>
      <label htmlFor={id("policy")}>policy</label>
      <select id={id("policy")} value={o.policy} onChange={(e) => set({ policy: e.target.value as PolicyName })} data-knob="policy">
        <option value="goose">goose</option>
        <option value="coworker">coworker</option>
        <option value="opencode">OpenCode</option>
        <option value="gemini">Gemini / Qwen</option>
      </select>

      <label htmlFor={id("k")}>keep-tail K</label>
      <span className="knob">
        <input id={id("k")} type="range" min={0} max={20} value={o.keep_tail} disabled={!goose} onChange={(e) => set({ keep_tail: Number(e.target.value) })} data-knob="keep_tail" />
        <output>{o.keep_tail}</output>
      </span>

      <label htmlFor={id("threshold")}>threshold</label>
      <span className="knob">
        <input
          id={id("threshold")}
          type="range"
          min={gemini ? 0.1 : 0.5}
          max={0.95}
          step={0.05}
          value={threshold}
          disabled={opencode}
          title={opencode ? "OpenCode compacts at the usable window, not at a threshold" : undefined}
          onChange={(e) => set({ threshold: Number(e.target.value) })}
          data-knob="threshold"
        />
        {/* Left to its default, Gemini's threshold is the harness's: 0.5, or 0.7 on a Qwen Code session. */}
        <output title={gemini && o.threshold === null ? "Gemini CLI 0.5, Qwen Code 0.7" : undefined}>{gemini && o.threshold === null ? "default" : threshold.toFixed(2)}</output>
      </span>

      <NumberKnob id={id("turns")} label="tail turns" value={o.tail_turns} placeholder={String(OPENCODE_TAIL_TURNS)} disabled={!opencode} onChange={(v) => set({ tail_turns: v })} knob="tail_turns" />
      <NumberKnob id={id("preserve")} label="tail budget (tokens)" value={o.preserve_tokens} placeholder="¼ of the window, 2k–8k" disabled={!opencode} onChange={(v) => set({ preserve_tokens: v })} knob="preserve_tokens" />
      <label htmlFor={id("kept")}>kept fraction</label>
      <span className="knob">
        <input
          id={id("kept")}
          type="range"
          min={0.05}
          max={0.95}
          step={0.05}
          value={o.preserve_fraction ?? GEMINI_PRESERVE}
          disabled={!gemini}
          title="Gemini CLI / Qwen Code: the share of the history kept verbatim"
          onChange={(e) => set({ preserve_fraction: Number(e.target.value) })}
          data-knob="preserve_fraction"
        />
        <output>{(o.preserve_fraction ?? GEMINI_PRESERVE).toFixed(2)}</output>
      </span>
      <NumberKnob id={id("budget")} label="response budget (tokens)" value={o.response_budget} placeholder="50 000" disabled={!gemini} onChange={(v) => set({ response_budget: v })} knob="response_budget" />
      <NumberKnob id={id("window")} label="context window" value={o.context_window} placeholder={`session's / ${DEFAULTS.context_window}`} onChange={(v) => set({ context_window: v })} knob="context_window" />
      <NumberKnob id={id("trigger")} label="trigger cap" value={o.trigger_cap} placeholder={String(DEFAULTS.trigger_cap)} disabled={o.policy !== "coworker"} onChange={(v) => set({ trigger_cap: v })} knob="trigger_cap" />
      <NumberKnob id={id("cap")} label="tool-result cap (bytes)" value={o.tool_result_cap} placeholder={o.policy === "coworker" ? String(DEFAULTS.coworker_tool_result_cap) : "off"} onChange={(v) => set({ tool_result_cap: v })} knob="tool_result_cap" />
      <NumberKnob id={id("summary")} label="summary tokens" value={o.summary_tokens} placeholder={String(o.legacy ? DEFAULTS.legacy_summary_tokens : DEFAULTS.summary_tokens)} onChange={(v) => set({ summary_tokens: v })} knob="summary_tokens" />

      <span className="switches">
        <Switch label="naive tail" title="goose: slice the last K messages without walking back to a tool call" checked={o.naive} disabled={!goose} onChange={(naive) => set({ naive })} knob="naive" />
        <Switch label="manual" title="goose: a /compact (no user message preserved)" checked={o.manual} disabled={!goose} onChange={(manual) => set({ manual })} knob="manual" />
        <Switch
          label="skip earlier summaries (variant)"
          title="Not goose's rule: the preserved ask skips earlier compactions' summaries (user-role text goose would preserve)"
          checked={o.skip_summaries}
          disabled={!goose || o.manual}
          onChange={(skip_summaries) => set({ skip_summaries })}
          knob="skip_summaries"
        />
        <Switch
          label="at the recorded compactions"
          title="Compact where the session compacted as well as where the policy's trigger fires (goose, OpenCode, Gemini; as Tune replays a fleet)"
          checked={o.at_recorded}
          disabled={o.policy === "coworker"}
          onChange={(at_recorded) => set({ at_recorded })}
          knob="at_recorded"
        />
        <Switch label="legacy" title={`coworker: legacy block layout and ${DEFAULTS.legacy_summary_tokens}-token summary`} checked={o.legacy} disabled={o.policy !== "coworker"} onChange={(legacy) => set({ legacy })} knob="legacy" />
      </span>
    </fieldset>
  );
}

function NumberKnob(p: {
  id: string;
  label: string;
  value: number | null;
  placeholder: string;
  disabled?: boolean;
  knob: string;
  onChange: (v: number | null) => void;
}) {
  return (
    <>
      <label htmlFor={p.id}>{p.label}</label>
      <input
        id={p.id}
        type="number"
        min={0}
        value={p.value ?? ""}
        placeholder={p.placeholder}
        disabled={p.disabled}
        data-knob={p.knob}
        onChange={(e) => {
          const v = e.target.value.trim();
          const n = Number(v);
          p.onChange(v === "" || !Number.isFinite(n) || n < 0 ? null : Math.round(n));
        }}
      />
    </>
  );
}

function Switch(p: { label: string; title: string; checked: boolean; disabled: boolean; knob: string; onChange: (v: boolean) => void }) {
  return (
    <label className="switch" title={p.title}>
      <input type="checkbox" checked={p.checked} disabled={p.disabled} onChange={(e) => p.onChange(e.target.checked)} data-knob={p.knob} /> {p.label}
    </label>
  );
}
