//! The post-mortem operations of [`super`]: one session's diagnosis, the fleet view of a folder,
//! and the spill review, with the options they share. The analyses themselves are
//! `crate::analysis`'s; this only composes them with token counting and loading.

use std::path::Path;

use super::Problem;
use crate::error::Result;
use crate::model::Session;
use crate::sources;

use crate::analysis::asked::spill_regex;
pub use crate::analysis::asked::{DiagnoseOptions, diagnose};

/// [`diagnose`] of session `id` under `path` (no id: the one session there) from the index,
/// when it holds the file as it is now and `opts` are what it diagnoses with (the defaults;
/// the price table does not enter a diagnosis): no transcript is read. `None` otherwise.
pub fn diagnosis_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    opts: &DiagnoseOptions,
) -> Result<Option<crate::analysis::Diagnosis>> {
    if opts.spill_pattern.is_some() || opts.estimate_tokens || !opts.extra_roots.is_empty() {
        return Ok(None);
    }
    index.diagnosis(path, id)
}

/// The fleet view: every session under `path` diagnosed, one row each, with totals. Sessions
/// that fail to load are listed in `problems`; the rest still count.
pub fn diagnose_fleet(path: &Path, opts: &DiagnoseOptions) -> Result<crate::analysis::Fleet> {
    let catalog = sources::open(path)?;
    let mut problems: Vec<Problem> = catalog.problems.iter().map(Problem::from).collect();
    let mut rows = Vec::new();
    let mut requests: Vec<crate::cost::RequestCost> = Vec::new();
    // Each session is loaded by the source that listed it: asking the catalog would list
    // every source again for every session (quadratic in a home of hundreds).
    for source in &catalog.sources {
        let metas = match source.list() {
            Ok(m) => m,
            Err(e) => {
                problems.push(Problem::from(&e));
                continue;
            }
        };
        for meta in &metas {
            match source
                .load(&meta.id)
                .and_then(|s| diagnose(&s, opts).map(|d| (s, d)))
            {
                Ok((s, d)) => {
                    let cost = crate::cost::session_cost(&s, opts.price_table());
                    let usd = cost.as_ref().and_then(|c| c.total_usd);
                    requests.extend(cost.into_iter().flat_map(|c| c.per_request));
                    rows.push(crate::analysis::fleet::row(&s.meta, &d, usd));
                }
                Err(e) => problems.push(Problem::from(&e)),
            }
        }
    }
    let shared = crate::cost::shared(
        requests
            .iter()
            .filter_map(|r| Some((r.request_id.as_deref()?, r.model.as_deref(), &r.usage))),
        opts.price_table(),
    );
    Ok(crate::analysis::fleet::fleet(rows, problems, shared))
}

/// Every spill file of a loaded session, with sizes, the capped result beside it, and the calls
/// that read it. Files outside the session's folders and `extra_roots` are never opened.
pub fn spills(session: &Session, opts: &DiagnoseOptions) -> Result<crate::analysis::SpillReview> {
    let re = spill_regex(opts)?;
    Ok(crate::analysis::review_spills(
        session,
        &review_options(opts, re.as_ref()),
    ))
}

fn review_options<'a>(
    opts: &DiagnoseOptions,
    pattern: Option<&'a regex::Regex>,
) -> crate::analysis::review::ReviewOptions<'a> {
    crate::analysis::review::ReviewOptions {
        extra_roots: opts.extra_roots.clone(),
        spill_pattern: pattern,
        max_text_bytes: opts.max_text_bytes,
        scratch_base: None,
    }
}

/// [`spills`] of session `id` under `path` from the spill files the index found in it, with
/// the disk looked at now, when the index holds the file as it is and no marker pattern of the
/// user's is asked for (the index finds the built-in ones): the transcript is not read.
/// `None` otherwise.
pub fn spills_indexed(
    index: &crate::index::Index,
    path: &Path,
    id: Option<&str>,
    opts: &DiagnoseOptions,
) -> Result<Option<crate::analysis::SpillReview>> {
    if opts.spill_pattern.is_some() {
        return Ok(None);
    }
    Ok(index.spill_refs(path, id)?.map(|(meta, refs)| {
        crate::analysis::review_refs(&meta, &refs, &review_options(opts, None))
    }))
}
