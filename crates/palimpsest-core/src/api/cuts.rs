//! A session's cuts, requests and pairing lint as the index keeps them (its cut view, counted
//! in BPE when it was indexed): what the window's cut marks, `compactions` and `lint` answer
//! without reading a file the index holds as it is. Building the view is `compaction`'s;
//! keeping it is `index`'s.

use std::path::Path;

use crate::compaction::{Api, CompactionsView, LintReport};
use crate::error::Result;
use crate::model::SessionMeta;
use crate::views::cuts::SessionCuts;

/// The cut view of session `id` under `path` as the index made it, when it holds the file as
/// it is: what [`super::session_cuts`] gives with the session's BPE counts, without reading
/// the file.
pub fn cut_view_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<SessionCuts>> {
    index.cut_view(path, id)
}

/// [`cut_view_indexed`] with the listing entry of the session it is of (a command given a
/// file of one session prints its id).
pub fn session_cuts_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<(SessionMeta, SessionCuts)>> {
    index.cut_view_of(path, id)
}

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

/// What the model saw at request `number` of session `id` under `path`, from the index when it
/// holds the file as it is (the same view [`super::request_view`] makes of the loaded session
/// with its BPE counts); `None` when it does not, or has no such request.
pub fn request_view_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    number: usize,
) -> Result<Option<crate::views::cuts::RequestView>> {
    index.request_view(path, id, Some(number))
}

/// What the model saw at request `number` (`None`: the next request) of session `id` under
/// `path`, its messages read back by offset, from the index when it holds the file as it is
/// (what [`super::request_context`] gives of the loaded session with its BPE counts); `None`
/// when it does not, or has no such request.
pub fn request_context_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    number: Option<usize>,
) -> Result<Option<crate::compaction::RequestContext>> {
    let Some(view) = index.request_view(path, id, number)? else {
        return Ok(None);
    };
    let Some(stored) = index.stored_messages(path, id)? else {
        return Ok(None);
    };
    let indices: Vec<usize> = view.rows.iter().map(|r| r.index).collect();
    let messages = stored.only(&indices).collect::<Result<Vec<_>>>()?;
    Ok(Some(crate::compaction::RequestContext {
        request: view.request,
        requests: view.requests,
        answer_index: view.answer_index,
        after_cut: view.after_cut,
        indices,
        messages,
        tokens_counted: view.tokens_counted,
        token_method: view.token_method,
    }))
}
