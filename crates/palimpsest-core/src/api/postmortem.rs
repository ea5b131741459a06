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

pub(crate) fn review_options<'a>(
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
