//! The replay knobs' defaults, defined once: the policies (`options`, `coworker`, `cap`) read
//! them here, the CLI's help prints them, and `make bindings` writes them into
//! `ui/src/bindings/defaults.ts` for the window's placeholders, so a changed default cannot
//! leave one front end behind. What each knob does is the policies'.

use serde::{Deserialize, Serialize};

/// Every replay knob's value when none is given.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayDefaults {
    /// Compaction threshold, a fraction of the context window (goose and coworker).
    pub threshold: f64,
    /// Context window in tokens when neither the user nor the session gives one.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub context_window: u64,
    /// coworker's trigger cap in tokens (`compaction_cap_tokens`).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub trigger_cap: u64,
    /// coworker's tool-result cap on arrival, bytes (goose has none: 0).
    pub coworker_tool_result_cap: usize,
    /// Placeholder summary size in tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub summary_tokens: u64,
    /// coworker's legacy rules' summary size in tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub legacy_summary_tokens: u64,
}

/// The defaults.
pub const DEFAULTS: ReplayDefaults = ReplayDefaults {
    threshold: 0.8,
    context_window: 128_000,
    trigger_cap: 250_000,
    coworker_tool_result_cap: 10_000,
    summary_tokens: 2_000,
    legacy_summary_tokens: 3_000,
};

/// `ui/src/bindings/defaults.ts`: the values, typed by the generated `ReplayDefaults`.
pub fn typescript() -> String {
    let json = serde_json::to_string_pretty(&DEFAULTS).unwrap_or_default();
    format!(
        "// Generated from palimpsest_core::replay::defaults::DEFAULTS by `make bindings`. Do not edit.\n\
         import type {{ ReplayDefaults }} from \"./ReplayDefaults\";\n\n\
         export const DEFAULTS: ReplayDefaults = {json};\n"
    )
}

#[cfg(all(test, feature = "ts"))]
mod export {
    /// Named like ts-rs's own exports so `make bindings` (`--lib export_bindings`) writes the
    /// values beside the types, into the folder it writes them to.
    #[test]
    fn export_bindings_replay_defaults_values() {
        let dir = std::env::var("TS_RS_EXPORT_DIR").unwrap_or_else(|_| "bindings".into());
        std::fs::create_dir_all(&dir).expect("the bindings folder can be made");
        std::fs::write(
            std::path::Path::new(&dir).join("defaults.ts"),
            super::typescript(),
        )
        .expect("defaults.ts is written");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_typescript_holds_every_default_as_the_policies_use_it() {
        let ts = super::typescript();
        for line in [
            "\"threshold\": 0.8",
            "\"context_window\": 128000",
            "\"trigger_cap\": 250000",
            "\"coworker_tool_result_cap\": 10000",
            "\"summary_tokens\": 2000",
            "\"legacy_summary_tokens\": 3000",
        ] {
            assert!(ts.contains(line), "defaults.ts says {line}: {ts}");
        }
        assert_eq!(
            crate::replay::coworker::Settings::default().trigger(),
            102_400,
            "coworker's default budget is min(0.8 × 128 000, 250 000), from the same values"
        );
    }
}
