// Generated from palimpsest_core::replay::defaults::DEFAULTS by `make bindings`. Do not edit.
import type { ReplayDefaults } from "./ReplayDefaults";

export const DEFAULTS: ReplayDefaults = {
  "threshold": 0.8,
  "context_window": 128000,
  "trigger_cap": 250000,
  "coworker_tool_result_cap": 10000,
  "summary_tokens": 2000,
  "legacy_summary_tokens": 3000
};
