//! `export --otlp`: the sessions under the given paths as OpenTelemetry traces. Which sessions
//! and at what prices is decided here; how a session becomes spans and where they go is
//! `crate::otlp`'s.

use std::path::PathBuf;

use super::DiagnoseOptions;
use crate::error::{Problem, Result};
use crate::otlp::{Exporter, Options, OtlpReport, Target};

/// Every session under `paths` (none: every default session folder) sent to `target`, one
/// trace each, costed at `opts`' prices. Each session is read whole: the model's view at every
/// request needs every message. One that cannot be read is a problem in the report, naming its
/// file; the rest are exported. A receiver that refuses a request stops the export.
pub fn export_otlp(
    paths: &[PathBuf],
    target: Target,
    otlp: Options,
    opts: &DiagnoseOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<OtlpReport> {
    let paths = if paths.is_empty() {
        super::default_paths()
    } else {
        paths.to_vec()
    };
    let mut out = Exporter::new(target, otlp)?;
    // Each session is loaded from the source that listed it: one id may be in several files
    // (a session copied into an older database, a legacy export beside it).
    let mut catalogs = Vec::new();
    let mut found = Vec::new();
    for root in &paths {
        let catalog = crate::sources::open(root)?;
        for p in &catalog.problems {
            out.problem(Problem::from(p));
        }
        for (k, source) in catalog.sources.iter().enumerate() {
            match source.list() {
                Ok(sessions) => {
                    found.extend(sessions.into_iter().map(|m| (catalogs.len(), k, m.id)))
                }
                Err(e) => out.problem(Problem::from(&e)),
            }
        }
        catalogs.push(catalog);
    }
    progress(0, found.len());
    for (done, (c, k, id)) in found.iter().enumerate() {
        match catalogs[*c].sources[*k].load(id) {
            Ok(session) => {
                let cost = crate::cost::session_cost(&session, opts.price_table());
                out.session(&session, cost.as_ref())?;
            }
            Err(e) => out.problem(Problem::from(&e)),
        }
        progress(done + 1, found.len());
    }
    out.finish()
}
