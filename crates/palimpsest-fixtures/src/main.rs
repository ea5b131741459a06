//! `palimpsest-fixtures OUT_DIR`: (re)write every fixture under OUT_DIR (normally `fixtures/`).
//! What each fixture holds is the modules' (and fixtures/README.md's); this only dispatches.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("usage: palimpsest-fixtures OUT_DIR (e.g. fixtures/)"))?;
    palimpsest_fixtures::goose::generate(&out)?;
    palimpsest_fixtures::claude::generate(&out)?;
    palimpsest_fixtures::coworker::generate(&out)?;
    palimpsest_fixtures::codex::generate(&out)?;
    palimpsest_fixtures::message_log::generate(&out)?;
    palimpsest_fixtures::stuck::generate(&out)?;
    Ok(())
}
