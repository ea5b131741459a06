//! What a summary lost: file paths, identifiers (function names), failing test names and open
//! tasks (TODO, "next", unchecked boxes) that appear in the span a compaction dropped and
//! nowhere in its summary or the tail it kept verbatim. Also the usable-summary gate.
//!
//! Extraction is deliberately narrow so the list stays readable: paths come from tool-call
//! arguments and conversation text (not from file contents), identifiers from definitions
//! (`def`/`fn`/`class`/`function`/`func`) and `name(` mentions in conversation text, tests from
//! runner output, tasks from conversation text and todo-tool arguments.
//! Where the cuts are and what they kept is `cuts`'.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::cuts::{Cut, dropped_span, kept_after, kept_after_until};
use super::paths::{file_name, normalise};
use crate::model::{Part, Session};

/// A summary shorter than this is not usable (coworker's gate uses the same floor).
pub const SUMMARY_MIN_CHARS: usize = 400;

/// What kind of thing was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// A file path.
    Path,
    /// A function or class name.
    Identifier,
    /// A failing test.
    FailingTest,
    /// A TODO, "next" step or unchecked box.
    OpenTask,
}

/// One item the summary lost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SummaryLoss {
    /// The compaction (1-based).
    pub compaction: usize,
    /// What kind.
    pub kind: LossKind,
    /// The item as it appeared.
    pub value: String,
    /// Message indices in the dropped span where it appears.
    pub messages: Vec<usize>,
}

/// Why a summary is not usable, or `None` when it is.
pub fn summary_problem(text: &str, trimmed: bool) -> Option<String> {
    let t = text.trim();
    if trimmed {
        return Some("trimmed: no summary was made".into());
    }
    if t.is_empty() {
        return Some("empty".into());
    }
    let n = t.chars().count();
    (n < SUMMARY_MIN_CHARS).then(|| format!("too short ({n} chars, minimum {SUMMARY_MIN_CHARS})"))
}

static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:~?/)?(?:[\w.\-]+/)*[\w\-][\w.\-]*\.(?:py|rs|ts|tsx|js|jsx|go|java|kt|rb|c|h|cc|cpp|hpp|cs|swift|md|toml|json|ya?ml|txt|sh|sql|html|css|cfg|ini|lock)\b")
        .expect("static regex")
});
static DEF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:def|fn|class|function|func|struct|interface)\s+([A-Za-z_]\w{2,})")
        .expect("static regex")
});
/// Identifiers in prose: `name(` calls, backticked names, snake_case words.
static MENTIONED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_]\w{2,})\(|`([A-Za-z_]\w{2,})`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
        .expect("static regex")
});
static TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)FAILED (?P<a>[\w/.\-]+::[\w\[\]\-.:]+)|\bfailed:? (?P<b>test_\w+)|^test (?P<c>[\w:]+) \.\.\. FAILED|--- FAIL: (?P<d>\w+)|(?P<e>test_\w+) (?:FAILED|FAIL)\b")
        .expect("static regex")
});
static TASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:[-*]\s*)?(?:\[ \]\s*.+|(?:TODO|FIXME)\b:?.+|next(?: step)?:\s*.+)$|\bTODO:?\s+[^\n]+")
        .expect("static regex")
});

/// Compile this module's patterns now (see [`super::warm_up`]).
pub(super) fn warm_up() {
    LazyLock::force(&PATH);
    LazyLock::force(&DEF);
    LazyLock::force(&MENTIONED);
    LazyLock::force(&TEST);
    LazyLock::force(&TASK);
}

/// True for a name only code would use: `snake_case`, `camelCase`, `PascalCase`, digits in it.
/// Prose words (`first`, `Read`, `persisted`) are not identifiers, even in backticks: listing
/// them as lost says nothing about what the session worked on.
fn looks_like_code(name: &str) -> bool {
    let inner_upper = name.chars().skip(1).any(|c| c.is_ascii_uppercase());
    let inner_lower = name.chars().any(|c| c.is_ascii_lowercase());
    name.contains('_') && name.chars().any(|c| c.is_ascii_alphabetic())
        || name.chars().any(|c| c.is_ascii_digit()) && name.chars().any(|c| c.is_ascii_alphabetic())
        || inner_upper && inner_lower
}

/// The first of `cuts` (a position) whose losses may differ from those a diagnosis of the
/// session's first `known_before` messages found: the first that is no microcompact and whose
/// span, summary or kept tail reaches a message at or after `known_before` (or runs to the
/// end). The losses of the cuts before it read only messages before `known_before`, which are
/// as they were (the caller's promise: an appended transcript read on from its last offset),
/// and the session's working directory, which an append does not change.
pub fn first_changed(session: &Session, cuts: &[Cut], known_before: usize) -> usize {
    (0..cuts.len())
        .find(|&k| {
            !cuts[k].micro
                && kept_after_until(session, cuts, k)
                    .1
                    .is_none_or(|end| end >= known_before)
        })
        .unwrap_or(cuts.len())
}

/// Summary losses of the compactions with a summary among `cuts[from..]`.
pub(crate) fn losses_from(session: &Session, cuts: &[Cut], from: usize) -> Vec<SummaryLoss> {
    let wd = session.meta.working_dir.as_deref();
    let mut out = Vec::new();
    for k in from..cuts.len() {
        if cuts[k].micro {
            // A microcompact writes no summary and drops no message: nothing to lose by one.
            continue;
        }
        let kept: String = kept_after(session, cuts, k)
            .into_iter()
            .filter_map(|i| session.messages.get(i))
            .map(|m| all_text(m))
            .chain(std::iter::once(cuts[k].summary_text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        let kept_lower = kept.to_lowercase();
        let mut found: BTreeMap<(LossKind, String), Vec<usize>> = BTreeMap::new();
        let mut order: Vec<(LossKind, String)> = Vec::new();
        let mut note = |kind: LossKind, value: String, idx: usize| {
            let e = found.entry((kind, value.clone())).or_default();
            if e.is_empty() {
                order.push((kind, value));
            }
            if !e.contains(&idx) {
                e.push(idx);
            }
        };
        for i in dropped_span(session, cuts, k) {
            let m = &session.messages[i];
            for p in &m.parts {
                match p {
                    Part::Text { text } => {
                        for c in PATH.find_iter(text) {
                            note(LossKind::Path, normalise(c.as_str(), ".", wd), i);
                        }
                        for c in DEF.captures_iter(text) {
                            if looks_like_code(&c[1]) {
                                note(LossKind::Identifier, c[1].to_owned(), i);
                            }
                        }
                        for c in MENTIONED.captures_iter(text) {
                            let Some(m) = c.get(1).or(c.get(2)).or(c.get(3)) else {
                                continue;
                            };
                            if looks_like_code(m.as_str()) && !inside_path(text, m.start(), m.end())
                            {
                                note(LossKind::Identifier, m.as_str().to_owned(), i);
                            }
                        }
                        for c in TASK.find_iter(text) {
                            note(LossKind::OpenTask, c.as_str().trim().to_owned(), i);
                        }
                    }
                    Part::ToolCall {
                        arguments, name, ..
                    } => {
                        let args = arguments.to_string();
                        for c in PATH.find_iter(&args) {
                            note(LossKind::Path, normalise(c.as_str(), ".", wd), i);
                        }
                        if name.to_lowercase().contains("todo") {
                            for c in TASK.find_iter(&args.replace("\\n", "\n")) {
                                note(LossKind::OpenTask, c.as_str().trim().to_owned(), i);
                            }
                        }
                    }
                    Part::ToolResult { text, .. } => {
                        let text = &*text.text();
                        for c in DEF.captures_iter(text) {
                            // Dunders and short names (`get`) are everywhere; they say
                            // nothing about what this session worked on.
                            if c[1].len() >= 4 && !c[1].starts_with("__") {
                                note(LossKind::Identifier, c[1].to_owned(), i);
                            }
                        }
                        for c in TEST.captures_iter(text) {
                            let t = ["a", "b", "c", "d", "e"]
                                .iter()
                                .find_map(|g| c.name(g))
                                .map(|m| m.as_str());
                            if let Some(t) = t {
                                note(LossKind::FailingTest, t.to_owned(), i);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for (kind, value) in order {
            if survives(kind, &value, &kept, &kept_lower) {
                continue;
            }
            let messages = found.remove(&(kind, value.clone())).unwrap_or_default();
            out.push(SummaryLoss {
                compaction: cuts[k].number,
                kind,
                value,
                messages,
            });
        }
    }
    out.sort_by_key(|a| (a.compaction, a.kind));
    out
}

/// True when the kept text still carries the item.
fn survives(kind: LossKind, value: &str, kept: &str, kept_lower: &str) -> bool {
    match kind {
        LossKind::Path => kept.contains(value) || kept.contains(file_name(value)),
        LossKind::Identifier => kept.contains(value),
        LossKind::FailingTest => kept.contains(value.rsplit("::").next().unwrap_or(value)),
        LossKind::OpenTask => {
            // Prose is reworded by a summariser: count the task covered when most of its
            // substantial words survive.
            let words: Vec<String> = value
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| {
                    w.len() >= 4
                        && !matches!(
                            w.to_lowercase().as_str(),
                            "todo" | "next" | "step" | "fixme"
                        )
                })
                .map(str::to_lowercase)
                .collect();
            if words.is_empty() {
                return kept_lower.contains(&value.to_lowercase());
            }
            let hit = words
                .iter()
                .filter(|w| kept_lower.contains(w.as_str()))
                .count();
            hit * 5 >= words.len() * 3
        }
    }
}

/// True when `text[start..end]` is part of a file name (`test_store` in `test_store.py`).
fn inside_path(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    matches!(before, Some('/' | '.'))
        || matches!(after, Some('/' | '.'))
            && text[end..]
                .chars()
                .nth(1)
                .is_some_and(char::is_alphanumeric)
}

/// Every text a message carries: text parts, call arguments, result text.
fn all_text(m: &crate::model::Message) -> String {
    m.parts
        .iter()
        .map(|p| match p {
            Part::Text { text } | Part::Thinking { text, .. } => text.clone(),
            Part::ToolCall { arguments, .. } => arguments.to_string(),
            Part::ToolResult { text, .. } => text.text().into_owned(),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
