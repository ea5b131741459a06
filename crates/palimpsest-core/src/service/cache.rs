//! The index's side of each session view: what [`super::SessionService`] asks before it
//! reads a file (each `None` when the index does not hold the file as it is, or, for the
//! `_grown` ones, as it was before lines were appended). The front ends call the service, never
//! these; tests hold each answer equal to the view made from the file.

use std::path::Path;

use crate::api::{self, DiagnoseOptions};
use crate::error::Result;
use crate::index::Index;
use crate::model::SessionMeta;
use crate::views::cuts::SessionCuts;

/// The cut view of session `id` under `path` as the index made it, when it holds the file as
/// it is: what [`crate::api::session_cuts`] gives with the session's BPE counts, without reading
/// the file.
pub fn cut_view_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<SessionCuts>> {
    index.cut_view(path, id)
}

/// [`cut_view_indexed`] with the listing entry of the session it is of (a command given a
/// file of one session prints its id).
pub fn session_cuts_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<(SessionMeta, SessionCuts)>> {
    index.cut_view_of(path, id)
}

/// What the model saw at request `number` of session `id` under `path`, from the index when it
/// holds the file as it is (the same view [`crate::api::request_view`] makes of the loaded session
/// with its BPE counts); `None` when it does not, or has no such request.
pub fn request_view_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    number: usize,
) -> Result<Option<crate::views::cuts::RequestView>> {
    index.request_view(path, id, Some(number))
}

/// What the model saw at request `number` (`None`: the next request) of session `id` under
/// `path`, its messages read back by offset, from the index when it holds the file as it is
/// (what [`crate::api::request_context`] gives of the loaded session with its BPE counts); `None`
/// when it does not, or has no such request.
pub fn request_context_indexed(
    index: &Index,
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

/// Message `at` of session `id` (no id: the one session) under `path` from the fleet index, read by its records' byte
/// offsets without reading the session (`Index::message`), with its stored text and edits;
/// `None` when the index cannot answer it (then load the session: [`crate::api::message_detail`]).
pub fn message_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    at: usize,
) -> Result<Option<crate::views::MessageDetail>> {
    message_as_of(index, path, id, at, crate::index::AsOf::Same)
}

/// [`message_indexed`], and also a message the index holds of a file that only grew since
/// (its kind and visibility as last indexed): the inspector while the window reads the session
/// whole behind the rows of [`timeline_indexed_grown`].
pub fn message_indexed_grown(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    at: usize,
) -> Result<Option<crate::views::MessageDetail>> {
    message_as_of(index, path, id, at, crate::index::AsOf::Grown)
}

fn message_as_of(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    at: usize,
    as_of: crate::index::AsOf,
) -> Result<Option<crate::views::MessageDetail>> {
    Ok(index
        .message_as_of(path, id, at, as_of)?
        .map(|(message, raw)| {
            let edits = crate::analysis::edits::of_message(&message);
            crate::views::MessageDetail {
                message,
                raw: Some(raw),
                edits,
                from_index: true,
            }
        }))
}

/// The timeline of session `id` (no id: the only one) under `path` from the index, when its file is unchanged since
/// it was indexed (`None` otherwise: load it). The index is not brought up to date first: this
/// is the answer that must come before anything is read.
pub fn timeline_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<crate::views::timeline::Timeline>> {
    index.timeline(path, id)
}

/// [`timeline_indexed`], and also the rows the index holds of a file that only grew since
/// (`grown_bytes` > 0 then): what the window shows of a transcript an agent went on writing
/// while it reads the session whole behind.
pub fn timeline_indexed_grown(
    index: &Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<crate::views::timeline::Timeline>> {
    index.timeline_as_of(path, id, crate::index::AsOf::Grown)
}

/// The first `limit` rows of [`timeline_indexed`] (with [`crate::index::AsOf::Grown`], of
/// [`timeline_indexed_grown`]), `total_rows` counting them all: the window's first page,
/// without reading every row.
pub fn timeline_indexed_head(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    as_of: crate::index::AsOf,
    limit: usize,
) -> Result<Option<crate::views::timeline::Timeline>> {
    index.timeline_head(path, id, as_of, limit)
}

/// [`crate::api::diagnose`] of session `id` under `path` (no id: the one session there) from the index,
/// when it holds the file as it is now and `opts` are what it diagnoses with (the defaults;
/// the price table does not enter a diagnosis): no transcript is read. `None` otherwise.
pub fn diagnosis_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    opts: &DiagnoseOptions,
) -> Result<Option<crate::analysis::Diagnosis>> {
    if !opts.kept_by_index() {
        return Ok(None);
    }
    index.diagnosis(path, id)
}

/// [`crate::api::spills`] of session `id` under `path` from the spill files the index found in it, with
/// the disk looked at now, when the index holds the file as it is and no marker pattern of the
/// user's is asked for (the index finds the built-in ones): the transcript is not read.
/// `None` otherwise.
pub fn spills_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    opts: &DiagnoseOptions,
) -> Result<Option<crate::analysis::SpillReview>> {
    if opts.spill_pattern.is_some() {
        return Ok(None);
    }
    Ok(index.spill_refs(path, id)?.map(|(meta, refs)| {
        crate::analysis::review_refs(&meta, &refs, &api::review_options(opts, None))
    }))
}

/// [`crate::api::token_report`] of session `id` under `path` from the index, as the window asks for it
/// first (the session model's vocabulary or the same one named, the shipped price table), when
/// the index holds the file as it is now: nothing is read or counted. `None` otherwise.
pub fn token_report_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    encoding: Option<crate::tokens::Encoding>,
) -> Result<Option<crate::views::tokens::TokenReport>> {
    Ok(index
        .token_report(path, id)?
        .filter(|r| encoding.is_none_or(|e| e.as_str() == r.encoding)))
}

/// [`token_report_indexed`] as `tokens` asks for it: its top lists cut to `opts.top` (the
/// index keeps the default report, whose lists are the longest `tokens` asks for by default and
/// sorted in a total order, so a shorter list is its head) and priced at `table`. `None` when
/// `opts` ask for more than the index keeps (a longer list, a trigger of their own).
pub fn token_report_indexed_as(
    index: &Index,
    path: &Path,
    id: Option<&str>,
    encoding: Option<crate::tokens::Encoding>,
    opts: &crate::views::tokens::ReportOptions,
    table: &crate::cost::PriceTable,
) -> Result<Option<crate::views::tokens::TokenReport>> {
    let kept = crate::views::tokens::ReportOptions::default();
    if opts.top > kept.top || opts.trigger_tokens != kept.trigger_tokens {
        return Ok(None);
    }
    Ok(
        token_report_indexed(index, path, id, encoding)?.map(|mut r| {
            r.top_tools.truncate(opts.top);
            r.top_parts.truncate(opts.top);
            r.cost = r.cost.as_ref().and_then(|c| crate::cost::reprice(c, table));
            r
        }),
    )
}

/// Session `id` under `path` message by message from the index, when it holds the file as it
/// is and can give back every message (a Claude Code transcript): `show` of a 200 MB
/// transcript then holds one message at a time ([`crate::index::StoredMessages`]).
pub fn messages_indexed(
    index: &Index,
    path: &Path,
    id: Option<&str>,
) -> Result<Option<crate::index::StoredMessages>> {
    index.stored_messages(path, id)
}
