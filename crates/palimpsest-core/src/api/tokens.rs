//! Token accounting (`crate::tokens`) as the CLI and the app ask for it: a loaded session's
//! report, the one the index keeps, the counts every view shares, and the Tokens charts
//! (`crate::charts`, `crate::views::panels`). Counting itself is `tokens`'s; which report a
//! front end shows is its own choice.

use crate::error::Result;
use crate::model::Session;
use crate::tokens::TokenCache;
use crate::tokens::counter::Counted;

/// Options of [`token_report`].
#[derive(Debug, Clone, Default)]
pub struct TokenOptions {
    /// The vocabulary; `None` picks it from the session's model.
    pub encoding: Option<crate::tokens::Encoding>,
    /// Where the count cache lives; `None` counts without caching.
    pub cache_dir: Option<std::path::PathBuf>,
    /// Views: how many top tools/parts, which trigger line.
    pub report: crate::views::tokens::ReportOptions,
    /// The price table; `None` is the shipped snapshot.
    pub prices: Option<crate::cost::PriceTable>,
}

/// Count a loaded session's tokens (reusing and filling the cache) and build the Tokens view.
/// `progress` is called as counting advances; setting `cancel` stops it with `Error::Cancelled`.
pub fn token_report(
    session: &Session,
    opts: &TokenOptions,
    progress: &mut dyn FnMut(crate::tokens::Progress),
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<crate::views::tokens::TokenReport> {
    use crate::tokens::{self, Encoding, TokenCache};
    let encoding = opts
        .encoding
        .unwrap_or_else(|| Encoding::for_model(session.meta.model.as_deref()));
    // A cache that cannot be opened (a read-only or full cache folder, another user's file)
    // is done without, and the report says so.
    let (cache, unopened) = match opts.cache_dir.as_deref().map(TokenCache::open) {
        Some(Ok(c)) => (Some(c), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    let counts = tokens::count_session(session, encoding, cache.as_ref(), progress, cancel)?;
    let mut report = crate::views::tokens::build(session, &counts, opts.report);
    if let Some(e) = unopened {
        report.cache_note = Some(format!("counted without the token cache: {e}"));
    } else if let Some(why) = report.cache_note.take() {
        report.cache_note = Some(format!("the token cache stopped being used: {why}"));
    }
    let table = opts
        .prices
        .as_ref()
        .unwrap_or_else(|| crate::cost::PriceTable::bundled());
    report.cost = crate::cost::session_cost(session, table);
    Ok(report)
}

/// The Tokens view as one SVG (final-context share, processed share, context per request with
/// compaction cuts, top tools), in the light or dark theme.
pub fn token_charts_svg(
    report: &crate::views::tokens::TokenReport,
    theme: crate::charts::ThemeName,
) -> Result<String> {
    crate::charts::tokens_svg(report, theme)
}

/// How the cut view, the compactions and the request contexts count a session's messages: the
/// Tokens tab's BPE counts once the session is counted (`counts`), so one message shows one
/// number everywhere; characters / 4 before that, labelled an estimate, so no view waits for a
/// whole count.
pub fn view_counter(counts: Option<&Counted>) -> &dyn crate::tokens::Counter {
    match counts {
        Some(counted) => counted,
        None => &crate::tokens::counter::CharEstimate,
    }
}

/// The session's BPE counts in its model's vocabulary, as the Tokens tab has them, when
/// `cache` (the token cache the caller opened) holds them; `None` before it is counted. Making
/// them reads every text of the session, so a caller that keeps the session (the app) keeps
/// them too, and passes them to each view.
pub fn session_counts(session: &Session, cache: Option<&TokenCache>) -> Option<Counted> {
    let enc = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    crate::tokens::counter::counted(session, enc, cache?)
}

/// The Tokens panel's four charts, one SVG each, in the light or dark theme.
pub fn token_charts(
    report: &crate::views::tokens::TokenReport,
    theme: crate::charts::ThemeName,
) -> Result<crate::views::panels::TokenCharts> {
    crate::views::panels::token_charts(report, theme)
}
