//! `palimpsest-fixtures OUT_DIR`: (re)write every fixture under OUT_DIR (normally `fixtures/`).
//! `palimpsest-fixtures --runs DIR`: write the two recorded runs of one task (`runs`), which
//! are made on demand, not committed; `palimpsest-fixtures --alerting DIR` the fleet of workers
//! that turn stuck (`alerting`), whole. What each fixture holds is the modules' (and
//! fixtures/README.md's); this only dispatches.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "--runs") {
        let dir = args
            .get(2)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("usage: palimpsest-fixtures --runs DIR"))?;
        std::fs::create_dir_all(&dir)?;
        let (a, b) = palimpsest_fixtures::runs::write(&dir)?;
        println!("{}\n{}", a.display(), b.display());
        return Ok(());
    }
    if args.get(1).is_some_and(|a| a == "--tune") {
        let dir = args
            .get(2)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("usage: palimpsest-fixtures --tune DIR"))?;
        println!("{}", palimpsest_fixtures::tune::write(&dir)?.display());
        return Ok(());
    }
    if args.get(1).is_some_and(|a| a == "--alerting") {
        let dir = args
            .get(2)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("usage: palimpsest-fixtures --alerting DIR"))?;
        for p in palimpsest_fixtures::alerting::write(&dir)? {
            println!("{}", p.display());
        }
        return Ok(());
    }
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("usage: palimpsest-fixtures OUT_DIR (e.g. fixtures/)"))?;
    palimpsest_fixtures::goose::generate(&out)?;
    palimpsest_fixtures::claude::generate(&out)?;
    palimpsest_fixtures::coworker::generate(&out)?;
    palimpsest_fixtures::codex::generate(&out)?;
    palimpsest_fixtures::message_log::generate(&out)?;
    palimpsest_fixtures::opencode::generate(&out)?;
    palimpsest_fixtures::copilot::generate(&out)?;
    palimpsest_fixtures::gemini::generate(&out)?;
    palimpsest_fixtures::crush::generate(&out)?;
    palimpsest_fixtures::cline::generate(&out)?;
    palimpsest_fixtures::qwen::generate(&out)?;
    palimpsest_fixtures::aider::generate(&out)?;
    palimpsest_fixtures::stuck::generate(&out)?;
    Ok(())
}
