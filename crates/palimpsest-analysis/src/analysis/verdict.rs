//! The one-line verdict and the session's severity (`stuck` | `watch` | `ok`): the most severe,
//! most telling finding first, then at most two more, joined by `; `.
//!
//! Order of precedence follows what costs a stuck worker most: re-reading files a compaction
//! took away (the seeds' case), spill loops, repeated calls, error streaks, timeouts, then a
//! session that mostly looks, then long stretches without a write.
//! The findings it ranks come from the other analysis modules; it only words and orders them.

use serde::{Deserialize, Serialize};

use super::Diagnosis;
use super::loops::LoopKind;

/// A file re-read this many times is a worker stuck on it.
pub const REREAD_STUCK: usize = 3;
/// A look-only share at or above this, over enough calls, is "mostly exploring".
pub const EXPLORING_SHARE: f64 = 0.5;
/// Fewer calls than this say nothing about exploration.
pub const EXPLORING_MIN_CALLS: usize = 10;

/// `1 re-read`, `3 re-reads`: a count with its noun, singular for one.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `41234` → `41k tokens`; small counts stay exact.
pub fn tokens(n: usize) -> String {
    if n < 1000 {
        format!("{n} tokens")
    } else {
        format!("{}k tokens", (n + 500) / 1000)
    }
}

/// How many items (numbers or ranges) a compaction list names before it says "and N more".
const LIST_ITEMS: usize = 6;

/// `[1]` → `compaction 1`, `[1, 2]` → `compactions 1 and 2`, `[1, 2, 3, 5]` →
/// `compactions 1–3 and 5`. Runs of three or more are ranges, and past `LIST_ITEMS` items the
/// rest is counted, so 779 compactions stay one short line.
pub fn compaction_list(numbers: &[usize]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut items: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        if j - i >= 2 {
            items.push(format!("{}–{}", sorted[i], sorted[j]));
        } else {
            items.extend(sorted[i..=j].iter().map(usize::to_string));
        }
        i = j + 1;
    }
    let single = sorted.len() == 1;
    if items.len() > LIST_ITEMS {
        let shown = items[..LIST_ITEMS].join(", ");
        return format!(
            "compactions {shown} and {} more ({} in all)",
            items.len() - LIST_ITEMS,
            sorted.len()
        );
    }
    match items.len() {
        0 => String::new(),
        1 if single => format!("compaction {}", items[0]),
        1 => format!("compactions {}", items[0]),
        n => format!(
            "compactions {} and {}",
            items[..n - 1].join(", "),
            items[n - 1]
        ),
    }
}

/// How bad a session is: `stuck` needs a person, `watch` is worth a look, `ok` is neither.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Going round in circles: re-reading what a compaction took, spill loops, the same call
    /// with the same answer, one call failing unchanged, compactions that free nothing.
    Stuck,
    /// Worth a look, not proof of a stuck worker: re-reads of what was still in view, streaks
    /// of different failing calls, timeouts, a writer that mostly looks, long stretches
    /// without a write, a session that ended while a call ran.
    Watch,
    /// No finding.
    #[default]
    Ok,
}

impl Severity {
    /// The stable name (`stuck`, `watch`, `ok`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Stuck => "stuck",
            Severity::Watch => "watch",
            Severity::Ok => "ok",
        }
    }
}

/// Every finding as a short clause with its severity, most telling first.
pub(crate) fn findings(d: &Diagnosis) -> Vec<(Severity, String)> {
    use Severity::{Stuck, Watch};
    let mut out = Vec::new();
    for t in &d.thrash {
        out.push((Stuck, format!("compaction thrash: {}", t.description)));
    }
    for f in d.rereads.iter().filter(|f| f.rereads >= REREAD_STUCK) {
        let mut compactions = f.compactions.clone();
        compactions.sort_unstable();
        if f.after_compaction > 0 {
            out.push((
                Stuck,
                format!(
                    "stuck re-reading {} after {}: {}, {}",
                    f.path,
                    compaction_list(&compactions),
                    count(f.rereads, "re-read"),
                    tokens(f.tokens)
                ),
            ));
        } else {
            out.push((
                Watch,
                format!(
                    "re-reading {} while it was still in view: {}, {}",
                    f.path,
                    count(f.rereads, "re-read"),
                    tokens(f.tokens)
                ),
            ));
        }
    }
    for s in &d.spill_loops {
        out.push((
            Stuck,
            format!(
                "spill loop on {}: {} spill files re-read and capped again{}",
                s.origin,
                s.respilled,
                if s.ended_in_timeout {
                    ", ended in a timeout"
                } else {
                    ""
                }
            ),
        ));
    }
    // A repeated pure read is already told by the re-read clause.
    let reread_calls: Vec<usize> = d.reread_events.iter().map(|r| r.call_index).collect();
    for l in &d.loops {
        match l.kind {
            LoopKind::RepeatedCall
                if !l.messages.iter().skip(1).all(|m| reread_calls.contains(m)) =>
            {
                out.push((Stuck, format!("repeating {}", l.description)));
            }
            // The same call failing unchanged names its tool; different calls do not.
            LoopKind::ErrorStreak if l.tool.is_some() => {
                out.push((Stuck, l.description.clone()));
            }
            LoopKind::ErrorStreak => out.push((Watch, l.description.clone())),
            _ => {}
        }
    }
    // Where the worker stopped: the last thing it did never came back.
    for r in &d.ended_while_running {
        out.push((
            Watch,
            format!(
                "ended while {} ({}) was running; no output recorded",
                r.name, r.id
            ),
        ));
    }
    let timeouts = d
        .loops
        .iter()
        .filter(|l| l.kind == LoopKind::Timeout)
        .count();
    let timeouts_in_spill_loops = d.spill_loops.iter().filter(|s| s.ended_in_timeout).count();
    if timeouts > timeouts_in_spill_loops {
        out.push((
            Watch,
            format!(
                "{timeouts} call{} timed out",
                if timeouts == 1 { "" } else { "s" }
            ),
        ));
    }
    let e = &d.exploration;
    // Looking is an explorer's job: only a worker expected to write "mostly explores".
    if d.expects_writes && e.calls >= EXPLORING_MIN_CALLS && e.share >= EXPLORING_SHARE {
        out.push((
            Watch,
            format!(
                "mostly exploring: {:.0}% of {} calls only look",
                e.share * 100.0,
                e.calls
            ),
        ));
    }
    if d.expects_writes
        && let Some(l) = d
            .loops
            .iter()
            .filter(|l| l.kind == LoopKind::NoWriteStretch)
            .max_by_key(|l| l.count)
    {
        out.push((Watch, format!("{} calls without a write", l.count)));
    }
    // Most severe first; within a severity, the order above.
    out.sort_by_key(|(s, _)| *s);
    for (_, clause) in &mut out {
        clip(clause);
    }
    out
}

/// The longest clause, in characters: a path or a call's arguments can be thousands of
/// characters (one real verdict line was 17 886), and a verdict is read in a table cell.
pub const CLAUSE_MAX: usize = 240;

/// Cut `clause` to [`CLAUSE_MAX`] characters, the cut marked with `…`.
fn clip(clause: &mut String) {
    if let Some((at, _)) = clause.char_indices().nth(CLAUSE_MAX - 1) {
        clause.truncate(at);
        clause.push('…');
    }
}

/// The session's severity: its worst finding's.
pub(crate) fn severity(findings: &[(Severity, String)]) -> Severity {
    findings
        .iter()
        .map(|(s, _)| *s)
        .min()
        .unwrap_or(Severity::Ok)
}

/// The verdict line.
pub(crate) fn verdict(d: &Diagnosis, f: &[(Severity, String)]) -> String {
    if f.is_empty() {
        let rereads: usize = d.rereads.iter().map(|r| r.rereads).sum();
        return if d.exploration.calls == 0 {
            "no tool calls".to_owned()
        } else {
            format!(
                "no sign of a stuck worker: {}, {}, {}",
                count(d.exploration.calls, "call"),
                count(d.exploration.write_calls, "write"),
                count(rereads, "re-read")
            )
        };
    }
    f.iter()
        .take(3)
        .map(|(_, s)| s.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clause_is_at_most_240_characters() {
        let mut long = format!("stuck re-reading /{}", "deep/".repeat(4_000));
        clip(&mut long);
        assert_eq!(
            long.chars().count(),
            CLAUSE_MAX,
            "cut to the limit, the mark included"
        );
        assert!(long.ends_with("deep/…") || long.ends_with('…'), "{long}");
        let mut short = "3 calls timed out".to_owned();
        clip(&mut short);
        assert_eq!(short, "3 calls timed out", "a short clause is left whole");
    }

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(tokens(41_234), "41k tokens", "thousands are rounded to k");
        assert_eq!(tokens(812), "812 tokens", "small counts stay exact");
        assert_eq!(compaction_list(&[2]), "compaction 2", "singular");
        assert_eq!(
            (count(1, "re-read"), count(3, "re-read")),
            ("1 re-read".to_owned(), "3 re-reads".to_owned()),
            "one re-read, not \"1 re-reads\""
        );
        assert_eq!(compaction_list(&[1, 2]), "compactions 1 and 2", "two");
        assert_eq!(
            compaction_list(&[1, 2, 3, 5, 8, 9]),
            "compactions 1–3, 5, 8 and 9",
            "a run of three or more is a range; pairs stay numbers"
        );
        let all: Vec<usize> = (1..=779).collect();
        assert_eq!(
            compaction_list(&all),
            "compactions 1–779",
            "779 compactions in a row are one range, not a 15 KB line"
        );
        let odd: Vec<usize> = (1..=779).step_by(2).collect();
        assert_eq!(
            compaction_list(&odd),
            "compactions 1, 3, 5, 7, 9, 11 and 384 more (390 in all)",
            "past six items the rest is counted"
        );
    }
}
