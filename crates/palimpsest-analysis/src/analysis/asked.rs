//! The diagnosis as the CLI, the app and the index ask for it: their options, and the session's
//! diagnosis with BPE counts in its model's vocabulary (or the estimate, when asked). The
//! analyses are this module's siblings'; `crate::api` and `crate::index` both call this, so
//! neither needs the other for it.

use crate::error::Result;
use crate::model::Session;

/// Options of [`diagnose`], and of the fleet and the spill review (`crate::api`).
#[derive(Debug, Clone, Default)]
pub struct DiagnoseOptions {
    /// A user spill-marker pattern: a regex with a named group `path`.
    pub spill_pattern: Option<String>,
    /// Count re-read tokens as characters / 4 instead of with the model's BPE vocabulary.
    pub estimate_tokens: bool,
    /// Folders the user added: spill files there may be opened.
    pub extra_roots: Vec<std::path::PathBuf>,
    /// For the spill review: read up to this many bytes of each present spill file; 0 reads none.
    pub max_text_bytes: usize,
    /// The price table fleet rows are costed with; `None` is the shipped snapshot.
    pub prices: Option<crate::cost::PriceTable>,
    /// Set by the caller to stop a fleet's update between sessions (the window's Cancel):
    /// what was indexed so far is kept, and the update answers `Error::Cancelled`.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl DiagnoseOptions {
    /// True once the caller asked to stop ([`DiagnoseOptions::cancel`]).
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// True when a diagnosis under these options is the one the index keeps: the default spill
    /// pattern, BPE counts and no added roots (a price table or a cancel flag changes nothing
    /// it stores).
    pub fn kept_by_index(&self) -> bool {
        self.spill_pattern.is_none() && !self.estimate_tokens && self.extra_roots.is_empty()
    }

    /// The price table to cost sessions with.
    pub fn price_table(&self) -> &crate::cost::PriceTable {
        self.prices
            .as_ref()
            .unwrap_or_else(|| crate::cost::PriceTable::bundled())
    }
}

/// The user's spill-marker pattern, compiled.
pub fn spill_regex(opts: &DiagnoseOptions) -> Result<Option<regex::Regex>> {
    opts.spill_pattern
        .as_deref()
        .map(super::spills::custom_pattern)
        .transpose()
}

/// The post-mortem of a loaded session (re-reads, exploration, loops, spill loops, summary
/// losses, verdict). Tokens are BPE counts for the session's model unless asked to estimate.
pub fn diagnose(session: &Session, opts: &DiagnoseOptions) -> Result<super::Diagnosis> {
    let classified = super::classified::Classified::of(session);
    Ok(diagnose_known(session, opts, None, None, &classified)?.0)
}

/// Texts shorter than this are counted rather than looked up in a token cache: a lookup costs
/// about what counting a kilobyte does.
const LOOKED_UP_FROM: usize = 1024;

/// [`diagnose`] with the summary losses of only the compactions that may have changed since a
/// diagnosis of the session's first `known_before` messages ([`super::diagnose_known`]), and
/// the number of the first of them. Long texts' BPE counts (a re-read's result) are looked up
/// in `cache` first: the index's update counts every message through it, so a transcript's
/// re-reads, hundreds of files long, are not counted again at every appended line. The
/// session's calls come `classified` ([`super::classified::Classified`]).
pub fn diagnose_known(
    session: &Session,
    opts: &DiagnoseOptions,
    known_before: Option<usize>,
    cache: Option<&crate::tokens::TokenCache>,
    classified: &super::classified::Classified<'_>,
) -> Result<(super::Diagnosis, usize)> {
    let re = spill_regex(opts)?;
    let enc = crate::tokens::Encoding::for_model(session.meta.model.as_deref());
    let bpe = move |t: &str| {
        let cached = cache.filter(|_| t.len() >= LOOKED_UP_FROM).and_then(|c| {
            c.get_many(enc, &[crate::tokens::cache::Key::of(t)])
                .ok()
                .and_then(|hit| hit.first().copied().flatten())
        });
        cached.unwrap_or_else(|| enc.count(t)) as usize
    };
    let o = super::Options {
        count_tokens: if opts.estimate_tokens {
            &super::chars_div_4
        } else {
            &bpe
        },
        spill_pattern: re.as_ref(),
    };
    Ok(super::diagnose_known(session, &o, known_before, classified))
}
