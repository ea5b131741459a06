//! Summary health: is a compaction summary a summary at all?
//!
//! The rules come from a real failure (seed 001): a summariser that read the transcript last
//! continued its voice and answered "The output got truncated. Let me re-run the remaining
//! checks." — 61 characters standing in for 75 turns. coworker's gate (`summary_quality_problem`,
//! coworker-format.md §2) refuses empty text, text under 400 characters, text without a
//! `primary request` heading and text with fewer than 4 of its 8 section markers. The same shape
//! of check applies to every format with the headings of that format's template:
//! goose's classic 9 sections (and HEAD's "# Conversation Summary" rendering of the same), and
//! Claude Code's 9 numbered sections as they appear in its real `isCompactSummary` lines.
//! Formats whose summary has no template (Codex, message logs) get the length and
//! next-action checks only. Every profile is plain data, so callers can configure their own.

use serde::{Deserialize, Serialize};

use crate::model::SourceFormat;

/// One expected section: its name and the lower-cased phrases any of which marks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Section {
    /// Display name.
    pub name: String,
    /// Lower-cased markers; the section is present when the lower-cased text contains one.
    pub markers: Vec<String>,
}

/// What a healthy summary of one format looks like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct HealthProfile {
    /// Profile name (`coworker`, `goose`, `claude-code`, `plain`).
    pub name: String,
    /// Minimum length in characters after trimming (coworker: 400).
    pub min_chars: usize,
    /// A section that must be present (coworker and Claude Code: the primary request).
    pub required: Option<Section>,
    /// The template's sections.
    pub sections: Vec<Section>,
    /// How many of `sections` must be present.
    pub min_sections: usize,
    /// The summariser's output budget in tokens, when the format has one.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub budget_tokens: Option<u64>,
    /// The budget older releases used, for comparison.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub legacy_budget_tokens: Option<u64>,
}

fn section(name: &str, markers: &[&str]) -> Section {
    Section {
        name: name.to_owned(),
        markers: markers.iter().map(|m| (*m).to_owned()).collect(),
    }
}

impl HealthProfile {
    /// The profile for summaries written by `format`'s compactor.
    pub fn for_format(format: SourceFormat) -> Self {
        match format {
            SourceFormat::Coworker => Self::coworker(),
            SourceFormat::Goose | SourceFormat::GooseLegacy => Self::goose(),
            SourceFormat::ClaudeCode => Self::claude_code(),
            SourceFormat::OpenCode | SourceFormat::Kilo => Self::opencode(),
            SourceFormat::Codex
            | SourceFormat::MessageLog
            | SourceFormat::CopilotCli
            | SourceFormat::GeminiCli
            | SourceFormat::Crush
            | SourceFormat::Cline
            | SourceFormat::QwenCode
            | SourceFormat::Aider => Self::plain(),
        }
    }

    /// coworker's gate, exactly: `primary request` plus at least 4 of 8 markers, 400 chars;
    /// budget 16 000 tokens (3 000 before the fix).
    pub fn coworker() -> Self {
        let markers = [
            "primary request",
            "key concepts",
            "artifacts and files",
            "errors and fixes",
            "user messages",
            "pending tasks",
            "current work",
            "next step",
        ];
        HealthProfile {
            name: "coworker".into(),
            min_chars: 400,
            required: Some(section("primary request", &["primary request"])),
            sections: markers.iter().map(|m| section(m, &[m])).collect(),
            min_sections: 4,
            budget_tokens: Some(16_000),
            legacy_budget_tokens: Some(3_000),
        }
    }

    /// goose's classic template (sections 1–9) and HEAD's Markdown rendering of its JSON.
    pub fn goose() -> Self {
        HealthProfile {
            name: "goose".into(),
            min_chars: 400,
            required: None,
            sections: vec![
                section("User Intent", &["user intent"]),
                section("Technical Concepts", &["technical concepts"]),
                section(
                    "Files + Code",
                    &["files + code", "files and code", "files & code", "## files"],
                ),
                section(
                    "Errors + Fixes",
                    &["errors + fixes", "errors and fixes", "errors & fixes"],
                ),
                section("Problem Solving", &["problem solving"]),
                section("User Messages", &["user messages"]),
                section("Pending Tasks", &["pending tasks"]),
                section("Current Work", &["current work"]),
                section("Next Step", &["next step"]),
            ],
            min_sections: 5,
            budget_tokens: None,
            legacy_budget_tokens: None,
        }
    }

    /// Claude Code's template as its real summaries show it: "1. Primary Request and Intent:"
    /// … "9. Optional Next Step:".
    pub fn claude_code() -> Self {
        HealthProfile {
            name: "claude-code".into(),
            min_chars: 400,
            required: Some(section("Primary Request and Intent", &["primary request"])),
            sections: vec![
                section("Primary Request and Intent", &["primary request"]),
                section("Key Technical Concepts", &["key technical concepts"]),
                section("Files and Code Sections", &["files and code sections"]),
                section("Errors and Fixes", &["errors and fixes"]),
                section("Problem Solving", &["problem solving"]),
                section("All User Messages", &["all user messages"]),
                section("Pending Tasks", &["pending tasks"]),
                section("Current Work", &["current work"]),
                section("Optional Next Step", &["next step"]),
            ],
            min_sections: 5,
            budget_tokens: None,
            legacy_budget_tokens: None,
        }
    }

    /// OpenCode's compaction prompt asks for Goal, Instructions, Discoveries, Accomplished and
    /// Relevant files; a summary missing its goal has lost what the work was for.
    pub fn opencode() -> Self {
        HealthProfile {
            name: "opencode".into(),
            min_chars: 400,
            required: Some(section("Goal", &["## goal"])),
            sections: vec![
                section("Goal", &["## goal"]),
                section("Instructions", &["## instructions"]),
                section("Discoveries", &["## discoveries"]),
                section("Accomplished", &["## accomplished"]),
                section("Relevant files / directories", &["## relevant files"]),
            ],
            min_sections: 3,
            budget_tokens: None,
            legacy_budget_tokens: None,
        }
    }

    /// No template: length and next-action checks only.
    pub fn plain() -> Self {
        HealthProfile {
            name: "plain".into(),
            min_chars: 400,
            required: None,
            sections: Vec::new(),
            min_sections: 0,
            budget_tokens: None,
            legacy_budget_tokens: None,
        }
    }
}

/// One problem with a summary. `message` uses coworker's wording where coworker has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum HealthIssue {
    /// The compaction has no summary message (a trim, or the reader found none).
    Missing {
        /// Human text.
        message: String,
    },
    /// The summary is opaque to us (encrypted server-side summary): nothing to judge.
    Opaque {
        /// Human text.
        message: String,
    },
    /// Empty after trimming.
    Empty {
        /// Human text.
        message: String,
    },
    /// Shorter than the profile's minimum.
    TooShort {
        /// Human text.
        message: String,
        /// Length in characters.
        chars: usize,
        /// The minimum.
        min: usize,
    },
    /// The required heading is missing.
    NoRequiredHeading {
        /// Human text.
        message: String,
    },
    /// Too few of the template's sections.
    FewSections {
        /// Human text.
        message: String,
        /// Sections present.
        present: usize,
        /// Sections in the template.
        total: usize,
        /// The names of the missing ones.
        missing: Vec<String>,
    },
    /// Reads as the next action of an agent rather than a summary.
    NextAction {
        /// Human text.
        message: String,
    },
}

/// A summary's health: problems plus its size against the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SummaryHealth {
    /// The profile applied.
    pub profile: String,
    /// Characters after trimming.
    pub chars: usize,
    /// Estimated tokens (characters / 4, an estimate, not a tokenizer count).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_estimate: u64,
    /// The profile's budget in tokens.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub budget_tokens: Option<u64>,
    /// The older budget, for comparison.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub legacy_budget_tokens: Option<u64>,
    /// `tokens_estimate / budget_tokens`.
    pub budget_fraction: Option<f64>,
    /// Template sections found.
    pub sections_present: Vec<String>,
    /// Problems; empty = healthy.
    pub issues: Vec<HealthIssue>,
}

/// Phrases that open an agent's next move, not a record of what happened.
const ACTION_PHRASES: &[&str] = &[
    "let me ",
    "let's ",
    "i'll ",
    "i will ",
    "i'm going to ",
    "i need to ",
    "now i ",
    "next, i ",
    "i should ",
];

/// True when `text` reads as an agent's next action: no heading or list, at most three
/// sentences, and a first-person move ("Let me…", "I'll…").
pub fn reads_as_next_action(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > 600 {
        return false;
    }
    let structured = t.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('#') || l.starts_with("- ") || l.starts_with("* ") || l.starts_with("1.")
    });
    if structured {
        return false;
    }
    let sentences = t
        .split(['.', '!', '?'])
        .filter(|s| !s.trim().is_empty())
        .count();
    let lower = format!(" {}", t.to_lowercase());
    sentences <= 3
        && ACTION_PHRASES
            .iter()
            .any(|p| lower.contains(&format!(" {p}")) || lower.contains(&format!(".{p}")))
}

/// Judge `text` against `profile`.
pub fn check(text: &str, profile: &HealthProfile) -> SummaryHealth {
    let t = text.trim();
    let chars = t.chars().count();
    let lower = t.to_lowercase();
    let has = |s: &Section| s.markers.iter().any(|m| lower.contains(m.as_str()));
    let sections_present: Vec<String> = profile
        .sections
        .iter()
        .filter(|s| has(s))
        .map(|s| s.name.clone())
        .collect();
    let mut issues = Vec::new();
    if t.is_empty() {
        issues.push(HealthIssue::Empty {
            message: "empty".into(),
        });
    } else {
        if chars < profile.min_chars {
            issues.push(HealthIssue::TooShort {
                message: format!("too short ({chars} chars, minimum {})", profile.min_chars),
                chars,
                min: profile.min_chars,
            });
        }
        if let Some(req) = &profile.required
            && !has(req)
        {
            issues.push(HealthIssue::NoRequiredHeading {
                message: format!("does not open the sections (no '{}' heading)", req.name),
            });
        }
        if sections_present.len() < profile.min_sections {
            issues.push(HealthIssue::FewSections {
                message: format!(
                    "only {} of {} sections present",
                    sections_present.len(),
                    profile.sections.len()
                ),
                present: sections_present.len(),
                total: profile.sections.len(),
                missing: profile
                    .sections
                    .iter()
                    .filter(|s| !has(s))
                    .map(|s| s.name.clone())
                    .collect(),
            });
        }
        if reads_as_next_action(t) {
            issues.push(HealthIssue::NextAction {
                message: "reads as a next-action sentence, not a summary".into(),
            });
        }
    }
    let tokens_estimate = crate::tokens::counter::estimate(chars);
    SummaryHealth {
        profile: profile.name.clone(),
        chars,
        tokens_estimate,
        budget_tokens: profile.budget_tokens,
        legacy_budget_tokens: profile.legacy_budget_tokens,
        budget_fraction: profile
            .budget_tokens
            .map(|b| tokens_estimate as f64 / b as f64),
        sections_present,
        issues,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUNCATED: &str = "The output got truncated. Let me re-run the remaining checks.";

    fn codes(h: &SummaryHealth) -> Vec<String> {
        h.issues
            .iter()
            .map(|i| {
                serde_json::to_value(i).unwrap()["code"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn the_61_character_sentence_fails_every_way_coworker_checks() {
        assert_eq!(TRUNCATED.len(), 61, "the seed's case is 61 characters");
        let h = check(TRUNCATED, &HealthProfile::coworker());
        assert_eq!(
            codes(&h),
            vec![
                "too_short",
                "no_required_heading",
                "few_sections",
                "next_action"
            ],
            "short, no primary request, 0 of 8 sections, and a next action"
        );
        let HealthIssue::TooShort { message, .. } = &h.issues[0] else {
            panic!("first issue must be the length")
        };
        assert_eq!(
            message, "too short (61 chars, minimum 400)",
            "coworker's wording"
        );
        assert!(
            matches!(&h.issues[2], HealthIssue::FewSections { message, .. } if message == "only 0 of 8 sections present"),
            "coworker's wording for the section count"
        );
    }

    #[test]
    fn coworker_gate_needs_primary_request_and_four_of_eight() {
        let body = "x".repeat(400);
        let three = format!(
            "## 1. Primary request and intent\n{body}\n## 2. Key concepts\n## 3. Artifacts and files\n"
        );
        let h = check(&three, &HealthProfile::coworker());
        assert_eq!(codes(&h), vec!["few_sections"], "3 of 8 is under half");
        let four = format!("{three}## 4. Errors and fixes\n");
        assert!(
            check(&four, &HealthProfile::coworker()).issues.is_empty(),
            "4 of 8 passes"
        );
        let no_primary = format!(
            "{body}\nkey concepts\nartifacts and files\nerrors and fixes\nuser messages\npending tasks"
        );
        assert_eq!(
            codes(&check(&no_primary, &HealthProfile::coworker())),
            vec!["no_required_heading"],
            "five sections but no primary request heading fails the gate"
        );
    }

    #[test]
    fn empty_is_only_empty() {
        let h = check("  \n ", &HealthProfile::coworker());
        assert_eq!(
            codes(&h),
            vec!["empty"],
            "an empty summary reports just that"
        );
        assert_eq!(
            h.budget_fraction,
            Some(0.0),
            "zero of the 16 000-token budget"
        );
    }

    #[test]
    fn goose_classic_and_head_headings_are_recognised() {
        let head = "# Conversation Summary\n## User Intent\n- fix\n## Technical Concepts\n## Files\n\
                    ## Errors + Fixes\n## Problem Solving\n## User Messages\n## Pending Tasks\n\
                    ## Current Work\n## Next Step\n";
        let h = check(
            &format!("{head}{}", "y".repeat(300)),
            &HealthProfile::goose(),
        );
        assert_eq!(
            h.sections_present.len(),
            9,
            "HEAD's rendering names all nine"
        );
        assert!(
            h.issues.is_empty(),
            "a full goose summary is healthy: {:?}",
            h.issues
        );
    }

    #[test]
    fn a_long_report_is_not_a_next_action() {
        assert!(
            reads_as_next_action(TRUNCATED),
            "the seed sentence is a next action"
        );
        assert!(
            !reads_as_next_action("1. Primary request: fix it. Let me know."),
            "a numbered list is structure, not a next action"
        );
        assert!(
            !reads_as_next_action("The user asked for a retry. Tests fail on test_retry."),
            "a past-tense record has no first-person move"
        );
    }
}
