//! Which policy a replay applies and why its preserved ask is the one it is, in words: a Claude
//! Code or Codex session has no goose compaction of its own, so a goose replay of it must say
//! so, and goose's rule (the most recent user text message the model still sees) then often
//! preserves an earlier compaction's summary, which is user-role text. The replay itself is
//! `goose`'s and `coworker`'s; this only reads the same rule again to name its choice.

use serde::{Deserialize, Serialize};

use super::goose;
use super::options::{PolicyName, ReplayOptions};
use crate::model::{Message, MessageKind, Session, SourceFormat};

/// What a replay applies, said plainly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PolicyNote {
    /// The policy applied.
    pub policy: PolicyName,
    /// The session's own agent runs this policy (a goose session under goose, a coworker one
    /// under coworker); false when another agent's session is replayed under it.
    pub native: bool,
    /// goose: stored index of the user message the rule preserves (`None`: none, or manual).
    pub preserved_index: Option<usize>,
    /// goose: that message is an earlier compaction's summary.
    pub preserved_is_summary: bool,
    /// The "skip earlier summaries" variant is on (not goose's own rule).
    pub variant: bool,
    /// The whole explanation, one or two sentences.
    pub text: String,
}

fn family(f: SourceFormat) -> &'static str {
    match f {
        SourceFormat::Goose | SourceFormat::GooseLegacy => "goose",
        SourceFormat::ClaudeCode => "Claude Code",
        SourceFormat::Codex => "Codex",
        SourceFormat::Coworker => "coworker",
        SourceFormat::MessageLog => "message-log",
        SourceFormat::OpenCode => "OpenCode",
        SourceFormat::Kilo => "Kilo Code",
        SourceFormat::CopilotCli => "Copilot CLI",
        SourceFormat::GeminiCli => "Gemini CLI",
        SourceFormat::Crush => "Crush",
        SourceFormat::Cline => "Cline",
        SourceFormat::QwenCode => "Qwen Code",
        SourceFormat::Aider => "Aider",
    }
}

/// The note for replaying `session` under `opts`.
pub fn policy_note(session: &Session, opts: &ReplayOptions) -> PolicyNote {
    let format = session.meta.format;
    let native = match opts.policy {
        PolicyName::Goose => matches!(format, SourceFormat::Goose | SourceFormat::GooseLegacy),
        PolicyName::Coworker => format == SourceFormat::Coworker,
        PolicyName::OpenCode => matches!(format, SourceFormat::OpenCode | SourceFormat::Kilo),
        PolicyName::Gemini => matches!(format, SourceFormat::GeminiCli | SourceFormat::QwenCode),
    };
    let name = match opts.policy {
        PolicyName::Goose => "goose",
        PolicyName::Coworker => "coworker",
        PolicyName::OpenCode => "OpenCode",
        PolicyName::Gemini if format == SourceFormat::QwenCode => "Qwen Code",
        PolicyName::Gemini => "Gemini CLI",
    };
    let a = |word: &str| {
        if word.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        }
    };
    let mut text = if native {
        format!("{name}'s own rules: this is {} {name} session.", a(name))
    } else {
        format!(
            "Replayed under {name}'s rules (the policy chosen here): {} {} session has no {name} compaction of its own.",
            a(family(format)),
            family(format)
        )
    };
    let mut note = PolicyNote {
        policy: opts.policy,
        native,
        preserved_index: None,
        preserved_is_summary: false,
        variant: opts.policy == PolicyName::Goose && opts.skip_summaries,
        text: String::new(),
    };
    if opts.policy == PolicyName::Goose {
        let history: Vec<&Message> = session.iter().collect();
        let rule = goose::Rule {
            keep_tail: opts.keep_tail,
            naive: opts.naive,
            manual: opts.manual,
            skip_summaries: opts.skip_summaries,
        };
        let preserved = goose::plan(&history, true, rule)
            .preserved
            .map(|p| history[p]);
        note.preserved_index = preserved.map(|m| m.index);
        note.preserved_is_summary = preserved.is_some_and(|m| m.kind == MessageKind::Summary);
        text.push(' ');
        text.push_str(&match (opts.manual, preserved, note.variant) {
            (true, _, _) => "A manual /compact preserves no ask.".to_owned(),
            (false, None, false) => {
                "No user text message is still seen by the model, so no ask is preserved."
                    .to_owned()
            }
            (false, None, true) => "Variant, not goose: earlier summaries are skipped, and no other user text message is still seen by the model, so no ask is preserved.".to_owned(),
            (false, Some(m), true) => format!(
                "Variant, not goose: earlier summaries are skipped, so the preserved ask is #{}, the last user text message the model still sees.",
                m.index
            ),
            (false, Some(m), false) if note.preserved_is_summary => format!(
                "goose preserves the most recent user text message the model still sees: #{}, an earlier compaction's summary (user-role text). \"Skip earlier summaries\" shows the variant that preserves the last real ask.",
                m.index
            ),
            (false, Some(m), false) => format!(
                "goose preserves the most recent user text message the model still sees: #{}.",
                m.index
            ),
        });
    }
    note.text = text;
    note
}
