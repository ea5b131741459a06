//! A session's cuts, requests and pairing lint as the index keeps them (its cut view, counted
//! in BPE when it was indexed): what the window's cut marks, `compactions` and `lint` answer
//! without reading a file the index holds as it is. Building the view is `compaction`'s;
//! keeping it is `index`'s.

use crate::compaction::{Api, CompactionsView, LintReport};
use crate::views::cuts::SessionCuts;

/// What [`super::compactions`] gives, out of the cut view [`super::session_cuts`] gives with
/// the same counts: both take the anatomy and the requests from one computation.
pub fn compactions_of(cuts: SessionCuts) -> CompactionsView {
    CompactionsView {
        compactions: cuts.cuts.into_iter().map(|c| c.anatomy).collect(),
        requests: cuts.requests,
        profile: cuts.profile,
    }
}

/// What [`super::lint`] gives for `api`, out of the cut view, which keeps OpenAI's lint, then
/// Anthropic's.
pub fn lint_of(cuts: SessionCuts, api: Api) -> Option<LintReport> {
    let at = match api {
        Api::Openai => 0,
        Api::Anthropic => 1,
    };
    cuts.lint.into_iter().nth(at)
}
