//! Compaction analysis over the session model: the anatomy of every cut, what the model saw at
//! each request, tool-pairing lint with the providers' exact errors, and summary health.
//!
//! Readers (in `sources/`) record each compaction as a [`crate::model::CompactionRecord`] and set
//! every message's final visibility and kind; nothing here looks at a file or knows a format's
//! quirks beyond the summary template a format's compactor is asked to follow ([`health`]).
//!
//! - [`context`]: visibility over time; the context of request N.
//! - `anatomy`: per compaction: cut, trigger, tokens, summary, kept tail, dropped span,
//!   preserved message, chained summaries.
//! - [`lint`]: pairing findings per request, and [`lint_messages`] for any list (replay).
//! - [`request`]: how messages map onto the OpenAI / Anthropic request arrays (error indices).
//! - [`health`]: is a summary a summary.
//! - [`recorded`]: a request a provider log recorded beside the one rebuilt here.

pub mod anatomy;
pub mod context;
pub mod health;
pub mod lint;
pub mod recorded;
pub mod request;

pub use anatomy::{CompactionAnatomy, anatomy};
pub use context::{Eras, RequestInfo};
pub use health::{HealthIssue, HealthProfile, SummaryHealth};
pub use lint::{Finding, FindingKind, LintReport, lint_messages, lint_session};
pub use request::{Api, RequestShape};

use crate::model::{Session, SourceFormat};

/// The request layout a session's agent uses: every agent format we read sends a system prompt
/// it stores outside the message list; a plain message log is sent as it is.
pub fn shape_for(session: &Session, api: Api) -> RequestShape {
    RequestShape {
        api,
        system_prompt: session.meta.format != SourceFormat::MessageLog,
    }
}

use serde::{Deserialize, Serialize};

use crate::model::Message;

/// A session's compactions and requests, as the ribbon and the three-column view draw them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompactionsView {
    /// Every compaction, by cut.
    pub compactions: Vec<CompactionAnatomy>,
    /// Every request with its context size; the last one is the next request.
    pub requests: Vec<RequestInfo>,
    /// The summary profile applied.
    pub profile: HealthProfile,
}

/// What the model saw at one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestContext {
    /// The request number (1-based).
    pub request: usize,
    /// How many requests there are, counting the next one.
    pub requests: usize,
    /// The assistant message that answered it; `None` for the next request.
    pub answer_index: Option<usize>,
    /// The cut of the latest compaction applied before it.
    pub after_cut: Option<usize>,
    /// Stored indices of the messages in its context, in order.
    pub indices: Vec<usize>,
    /// Those messages.
    pub messages: Vec<Message>,
    /// Our token count of the context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_counted: u64,
    /// How `tokens_counted` was obtained.
    pub token_method: String,
}

/// Take every compaction apart with the session format's summary profile.
pub fn view(session: &Session, counter: &dyn crate::tokens::Counter) -> CompactionsView {
    let eras = Eras::new(session);
    let profile = HealthProfile::for_format(session.meta.format);
    CompactionsView {
        compactions: anatomy(session, &eras, counter, &profile),
        requests: eras.requests(),
        profile,
    }
}

/// The context of request `number` (1-based; one past the last answered request is the next
/// request). `None` when there is no such request.
pub fn request_context(
    session: &Session,
    number: usize,
    counter: &dyn crate::tokens::Counter,
) -> Option<RequestContext> {
    let eras = Eras::new(session);
    let t = eras.request_point(number)?;
    let positions = eras.context_at(t);
    let messages: Vec<Message> = positions
        .iter()
        .map(|&p| Message::clone(&session.messages[p]))
        .collect();
    Some(RequestContext {
        request: number,
        requests: eras.request_count(),
        answer_index: (t < session.messages.len()).then(|| session.messages[t].index),
        after_cut: eras.cut_before(t),
        indices: messages.iter().map(|m| m.index).collect(),
        tokens_counted: messages.iter().map(|m| counter.count(m)).sum(),
        token_method: counter.method().to_owned(),
        messages,
    })
}
