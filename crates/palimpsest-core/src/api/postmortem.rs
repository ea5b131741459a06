//! The post-mortem operations of [`super`]: one session's diagnosis, the fleet view of a folder,
//! and the spill review, with the options they share. The analyses themselves are
//! `crate::analysis`'s; this only composes them with token counting and loading.

use std::path::Path;

use super::Problem;
use crate::error::Result;
use crate::model::Session;
use crate::sources;

/// Options of [`diagnose`], [`diagnose_fleet`] and [`spills`].
#[derive(Debug, Clone, Default)]
pub struct DiagnoseOptions {
    /// A user spill-marker pattern: a regex with a named group `path`.
    pub spill_pattern: Option<String>,
    /// Count re-read tokens as characters / 4 instead of with the model's BPE vocabulary.
    pub estimate_tokens: bool,
    /// Folders the user added: spill files there may be opened.
    pub extra_roots: Vec<std::path::PathBuf>,
    /// For [`spills`]: read up to this many bytes of each present spill file; 0 reads none.
    pub max_text_bytes: usize,
    /// The price table fleet rows are costed with; `None` is the shipped snapshot.
    pub prices: Option<crate::cost::PriceTable>,
}

impl DiagnoseOptions {
    /// The price table to cost sessions with.
    pub fn price_table(&self) -> &crate::cost::PriceTable {
        self.prices
            .as_ref()
            .unwrap_or_else(|| crate::cost::PriceTable::bundled())
    }
}

fn spill_regex(opts: &DiagnoseOptions) -> Result<Option<regex::Regex>> {
    opts.spill_pattern
        .as_deref()
        .map(crate::analysis::spills::custom_pattern)
        .transpose()
}

/// The post-mortem of a loaded session (re-reads, exploration, loops, spill loops, summary
/// losses, verdict). Tokens are BPE counts for the session's model unless asked to estimate.
pub fn diagnose(session: &Session, opts: &DiagnoseOptions) -> Result<crate::analysis::Diagnosis> {
    let re = spill_regex(opts)?;
    let enc = crate::tokens::Encoding::for_model(session.meta.model.as_deref());
    let bpe = move |t: &str| enc.count(t) as usize;
    let o = crate::analysis::Options {
        count_tokens: if opts.estimate_tokens {
            &crate::analysis::chars_div_4
        } else {
            &bpe
        },
        spill_pattern: re.as_ref(),
    };
    Ok(crate::analysis::diagnose(session, &o))
}

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
                    let cost =
                        crate::cost::session_cost(&s, opts.price_table()).and_then(|c| c.total_usd);
                    rows.push(crate::analysis::fleet::row(&s.meta, &d, cost));
                }
                Err(e) => problems.push(Problem::from(&e)),
            }
        }
    }
    Ok(crate::analysis::fleet::fleet(rows, problems))
}

/// Every spill file of a loaded session, with sizes, the capped result beside it, and the calls
/// that read it. Files outside the session's folders and `extra_roots` are never opened.
pub fn spills(session: &Session, opts: &DiagnoseOptions) -> Result<crate::analysis::SpillReview> {
    let re = spill_regex(opts)?;
    let o = crate::analysis::review::ReviewOptions {
        extra_roots: opts.extra_roots.clone(),
        spill_pattern: re.as_ref(),
        max_text_bytes: opts.max_text_bytes,
        scratch_base: None,
    };
    Ok(crate::analysis::review_spills(session, &o))
}
