//! What the app's cut and request views receive: each compaction as three columns (what was
//! dropped, the summary, what the model kept verbatim) with what became of every file whose
//! content the dropped messages carried, and the context of request N as timeline rows with its
//! pairing findings under both providers' rules.
//!
//! Composes `compaction::anatomy`, `compaction::lint` and `compaction::context` with the file-access
//! classification of [`crate::analysis::reads`]; drawing is the UI's business. A "carrier" is a
//! message holding the result of a call that read a file (`cat store.py`, `Read`, `read_file`,
//! a `text_editor` view): the file's text reached the model through it. A re-appended copy of a
//! carrier carries the same file.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::compaction::anatomy::{CompactionAnatomy, anatomy};
use crate::compaction::context::{Eras, RequestInfo};
use crate::compaction::health::HealthProfile;
use crate::compaction::lint::{Finding, LintReport, lint_session};
mod brief;
pub mod micro;
use crate::analysis::paths::file_name;
use crate::analysis::reads::AccessKind;
use crate::compaction::request::Api;
use crate::model::{Session, Trigger};
use crate::tokens::Counter;
use crate::views::timeline::TimelineRow;
pub use brief::{CutBrief, CutsBrief};
pub use micro::ClearedResult;

/// A message that carried a file's content to the model: the result of a call that read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FileCarrier {
    /// Stored index of the message holding the result.
    pub index: usize,
    /// Stored index of the message holding the call.
    pub call_index: usize,
    /// The tool as stored (`developer__shell`, `Read`).
    pub tool: String,
    /// The files read, as the session knows them (relative to its working dir when inside it).
    pub paths: Vec<String>,
}

/// Where a file's content stands after a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum CutFileFate {
    /// A message the model still sees carries it verbatim.
    KeptVerbatim,
    /// Every carrier was dropped; the summary names the file, so it survives only as prose.
    OnlyInSummary,
    /// Every carrier was dropped and the summary does not name the file.
    Lost,
    /// A microcompact cleared the results that carried it: the model sees a placeholder.
    Cleared,
}

/// What one compaction did to one file the context carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutFile {
    /// The file, as the session knows it.
    pub path: String,
    /// Where its content stands.
    pub fate: CutFileFate,
    /// Dropped messages that carried it.
    pub dropped_carriers: Vec<usize>,
    /// Results that carried it and were cleared (a microcompact).
    pub cleared_carriers: Vec<usize>,
    /// Kept messages (tail, copies) that carry it.
    pub kept_carriers: Vec<usize>,
    /// The first message after the cut block that read it again, if any.
    pub reread_at: Option<usize>,
    /// The fate in words, e.g. `store.py: dropped verbatim, only in the summary`.
    pub sentence: String,
}

/// One compaction as the three-column view draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutDetail {
    /// The anatomy (cut, trigger, tokens, health, tail, preserved message...).
    pub anatomy: CompactionAnatomy,
    /// Every message the compaction dropped from the context, in order (stored indices).
    pub dropped: Vec<usize>,
    /// For a microcompact: the tool results it cleared (empty for other cuts).
    pub cleared: Vec<ClearedResult>,
    /// For a microcompact: the tokens it saved, as the agent recorded them.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub tokens_saved_recorded: Option<u64>,
    /// For a microcompact: the tokens the cleared results held, by our count.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_saved_counted: u64,
    /// What the model kept verbatim across the cut: the kept tail, then the preserved copy.
    pub kept: Vec<usize>,
    /// The summary's text as the model receives it.
    pub summary_text: Option<String>,
    /// Every file a dropped or kept message carried, by path.
    pub files: Vec<CutFile>,
}

/// A session's compactions, requests, file carriers and pairing findings, for the ribbon, the
/// cut view and the finding badges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionCuts {
    /// Every compaction, by cut.
    pub cuts: Vec<CutDetail>,
    /// Every request; the last one is the next request.
    pub requests: Vec<RequestInfo>,
    /// The summary profile applied.
    pub profile: HealthProfile,
    /// Every message that carried a file's content.
    pub carriers: Vec<FileCarrier>,
    /// Pairing lint under OpenAI's rules, then Anthropic's.
    pub lint: Vec<LintReport>,
}

/// The context of one request as the app draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestView {
    /// The request number (1-based).
    pub request: usize,
    /// How many requests there are, counting the next one.
    pub requests: usize,
    /// The assistant message that answered it; `None` for the next request.
    pub answer_index: Option<usize>,
    /// The cut of the latest compaction applied before it.
    pub after_cut: Option<usize>,
    /// The messages sent, in order, as timeline rows.
    pub rows: Vec<TimelineRow>,
    /// Our token count of the context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_counted: u64,
    /// How `tokens_counted` was obtained.
    pub token_method: String,
    /// Pairing findings in this request's context, OpenAI's then Anthropic's, with the exact
    /// error each provider returns for it.
    pub findings: Vec<Finding>,
}

/// Every message of `session` that carried a file's content, in stored order, from its calls
/// `classified`.
pub fn carriers(classified: &crate::analysis::classified::Classified<'_>) -> Vec<FileCarrier> {
    let mut out: Vec<FileCarrier> = classified
        .calls
        .iter()
        .zip(&classified.classes)
        .filter(|(c, _)| !c.is_error)
        .filter_map(|(c, class)| {
            let index = c.result_index?;
            let mut paths: Vec<String> = class
                .accesses
                .iter()
                .filter(|a| a.kind == AccessKind::Read)
                .map(|a| a.path.clone())
                .collect();
            paths.dedup();
            (!paths.is_empty()).then(|| FileCarrier {
                index,
                call_index: c.call_index,
                tool: c.name.to_owned(),
                paths,
            })
        })
        .collect();
    out.sort_by_key(|c| c.index);
    out
}

/// Take every compaction of `session` apart for the cut view, with file fates and both lints.
pub fn session_cuts(session: &Session, counter: &dyn Counter) -> SessionCuts {
    session_cuts_classified(
        session,
        counter,
        &crate::analysis::classified::Classified::of(session),
    )
}

/// [`session_cuts`] of a session whose calls come `classified`.
pub fn session_cuts_classified(
    session: &Session,
    counter: &dyn Counter,
    classified: &crate::analysis::classified::Classified<'_>,
) -> SessionCuts {
    let eras = Eras::new(session);
    let profile = HealthProfile::for_format(session.meta.format);
    let carriers = carriers(classified);
    let pos_of = session.positions();
    // Looked up by every cut; made once, so a session of hundreds of cuts stays linear.
    let carried: HashMap<usize, &[String]> =
        carriers.iter().map(|c| (c.index, &c.paths[..])).collect();
    // Where each file is read, in message order: a cut asks for the first read of each of its
    // files after its block, which a scan of every carrier made quadratic.
    let mut read_at: HashMap<&str, Vec<usize>> = HashMap::new();
    for c in &carriers {
        for p in &c.paths {
            read_at.entry(p.as_str()).or_default().push(c.index);
        }
    }
    let calls = micro::Calls::new(session);
    counter.recall(&micro::cleared_sources(session, &calls));
    let cuts = anatomy(session, &eras, counter, &profile)
        .into_iter()
        .map(|a| {
            let at = Lookups {
                read_at: &read_at,
                carried: &carried,
                pos_of: &pos_of,
                calls: &calls,
            };
            detail(session, &eras, &at, counter, a)
        })
        .collect();
    let lint = [Api::Openai, Api::Anthropic]
        .into_iter()
        .map(|api| lint_session(session, &eras, crate::compaction::shape_for(session, api)))
        .collect();
    SessionCuts {
        cuts,
        requests: eras.requests(),
        profile,
        carriers,
        lint,
    }
}

/// What [`detail`] looks up, made once per session.
struct Lookups<'a> {
    /// Where each file is read (its carriers' message indices, ascending).
    read_at: &'a HashMap<&'a str, Vec<usize>>,
    /// What each message carried, by message index.
    carried: &'a HashMap<usize, &'a [String]>,
    /// Position in the session of each message index.
    pos_of: &'a HashMap<usize, usize>,
    calls: &'a micro::Calls<'a>,
}

fn detail(
    session: &Session,
    eras: &Eras,
    at: &Lookups<'_>,
    counter: &dyn Counter,
    a: CompactionAnatomy,
) -> CutDetail {
    let (read_at, carried, pos_of) = (at.read_at, at.carried, at.pos_of);
    let msgs = &session.messages;
    let block = eras.block(a.ordinal);
    let dropped: Vec<usize> = block.dropped.iter().map(|&p| msgs[p].index).collect();
    let record = &session.compactions[a.ordinal];
    let micro = matches!(a.trigger, Some(Trigger::Micro | Trigger::Replacement));
    let cleared = if micro {
        micro::cleared(session, record, at.calls, carried, counter)
    } else {
        Vec::new()
    };
    let mut kept = a.kept_tail.clone();
    kept.extend(a.preserved_index.filter(|p| !kept.contains(p)));
    // A cleared result stays in the context as a placeholder: it is not kept verbatim.
    let cleared_at: std::collections::HashSet<usize> = cleared.iter().map(|c| c.index).collect();
    kept.retain(|k| !cleared_at.contains(k));
    let summary_text = a
        .summary_index
        .and_then(|i| pos_of.get(&i))
        .map(|&p| msgs[p].text());

    // What each message carried (`carried`); a re-appended copy carries what its original did.
    // The copies are the last entries of `kept_tail`; `kept` may add the preserved copy.
    let first_copy = a.kept_tail.len() - a.kept_copies_of.len();
    let kept_carries = |k: usize, i: usize| -> &[String] {
        let original = i
            .checked_sub(first_copy)
            .and_then(|c| a.kept_copies_of.get(c).copied().flatten());
        carried
            .get(&k)
            .or_else(|| original.and_then(|o| carried.get(&o)))
            .copied()
            .unwrap_or(&[])
    };
    let mut files = Files::default();
    for &d in &dropped {
        for p in carried.get(&d).copied().unwrap_or(&[]) {
            files.entry(p).dropped_carriers.push(d);
        }
    }
    for (i, &k) in kept.iter().enumerate() {
        for p in kept_carries(k, i) {
            files.entry(p).kept_carriers.push(k);
        }
    }
    for c in &cleared {
        for p in &c.paths {
            files.entry(p).cleared_carriers.push(c.index);
        }
    }
    let mut files = files.list;
    let block_end_index = msgs.get(a.block_end).map(|m| m.index);
    let summary = summary_text.as_deref().unwrap_or("");
    for f in &mut files {
        f.reread_at = block_end_index.and_then(|end| {
            let reads = read_at.get(f.path.as_str())?;
            reads.get(reads.partition_point(|&r| r < end)).copied()
        });
        let named = summary.contains(f.path.as_str()) || summary.contains(file_name(&f.path));
        f.fate = if !f.kept_carriers.is_empty() {
            CutFileFate::KeptVerbatim
        } else if !f.cleared_carriers.is_empty() {
            CutFileFate::Cleared
        } else if named {
            CutFileFate::OnlyInSummary
        } else {
            CutFileFate::Lost
        };
        f.sentence = sentence(f);
    }
    CutDetail {
        tokens_saved_recorded: micro
            .then(|| micro::tokens_saved_recorded(record))
            .flatten(),
        tokens_saved_counted: cleared.iter().map(|c| c.tokens_counted).sum(),
        cleared,
        anatomy: a,
        dropped,
        kept,
        summary_text,
        files,
    }
}

/// A cut's files in the order first seen, each found by its path.
#[derive(Default)]
struct Files {
    list: Vec<CutFile>,
    at: HashMap<String, usize>,
}

impl Files {
    /// The fate entry of `path`, created on first sight.
    fn entry(&mut self, path: &str) -> &mut CutFile {
        let n = self.list.len();
        let i = *self.at.entry(path.to_owned()).or_insert(n);
        if i == n {
            self.list.push(CutFile {
                path: path.to_owned(),
                fate: CutFileFate::Lost,
                dropped_carriers: Vec::new(),
                cleared_carriers: Vec::new(),
                kept_carriers: Vec::new(),
                reread_at: None,
                sentence: String::new(),
            });
        }
        &mut self.list[i]
    }
}

fn list(ixs: &[usize]) -> String {
    ixs.iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sentence(f: &CutFile) -> String {
    let mut s = match f.fate {
        CutFileFate::KeptVerbatim if f.dropped_carriers.is_empty() => {
            format!("{}: kept verbatim ({})", f.path, list(&f.kept_carriers))
        }
        CutFileFate::KeptVerbatim => format!(
            "{}: kept verbatim ({}); {} dropped",
            f.path,
            list(&f.kept_carriers),
            list(&f.dropped_carriers)
        ),
        CutFileFate::OnlyInSummary => format!("{}: dropped verbatim, only in the summary", f.path),
        CutFileFate::Lost => format!(
            "{}: dropped verbatim and not named in the summary: gone",
            f.path
        ),
        CutFileFate::Cleared => format!(
            "{}: its result {} cleared by the microcompact; the model sees only the placeholder",
            f.path,
            list(&f.cleared_carriers)
        ),
    };
    if f.fate != CutFileFate::KeptVerbatim
        && let Some(r) = f.reread_at
    {
        s.push_str(&format!("; read again at #{r}"));
    }
    s
}

/// The context of request `number` as timeline rows, with the pairing findings whose request
/// range covers it (within an era a finding's entry indices do not move, so the session lint's
/// texts are this request's texts). `None` when there is no such request.
pub fn request_view(
    session: &Session,
    number: usize,
    counter: &dyn Counter,
) -> Option<RequestView> {
    let ctx = crate::compaction::request_context(session, number, counter)?;
    let eras = Eras::new(session);
    let findings = [Api::Openai, Api::Anthropic]
        .into_iter()
        .flat_map(|api| {
            lint_session(session, &eras, crate::compaction::shape_for(session, api)).findings
        })
        .filter(|f| {
            f.first_request.is_some_and(|a| a <= number)
                && f.last_request.is_some_and(|b| number <= b)
        })
        .collect();
    Some(RequestView {
        request: ctx.request,
        requests: ctx.requests,
        answer_index: ctx.answer_index,
        after_cut: ctx.after_cut,
        rows: ctx
            .messages
            .iter()
            .map(crate::views::timeline::row)
            .collect(),
        tokens_counted: ctx.tokens_counted,
        token_method: ctx.token_method,
        findings,
    })
}
