//! `palimpsest-big FROM OUT MB`: a big Claude Code transcript for the big-session measurements,
//! FROM (a real transcript) written again and again under its one session id until OUT holds MB
//! megabytes. `palimpsest-big --distinct OUT MB`: the other shape, generated with many distinct
//! files and results. How each is made is `palimpsest_fixtures::big`'s and `::distinct`'s.

use std::path::PathBuf;

/// The generated transcript's session id (its file is named by it when the measurements put
/// it in a project folder).
const DISTINCT_ID: &str = "d1571c70-0000-4000-8000-000000000001";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, out, mb] if flag == "--distinct" => {
            let mb: u64 = mb.parse()?;
            let turns = palimpsest_fixtures::distinct::generate(
                &PathBuf::from(out),
                DISTINCT_ID,
                mb << 20,
                0x5eed,
            )?;
            println!("{out}: {turns} generated turns, session {DISTINCT_ID}");
        }
        [from, out, mb] => {
            let mb: u64 = mb.parse()?;
            let copies = palimpsest_fixtures::big::grow(
                &PathBuf::from(from),
                &PathBuf::from(out),
                mb << 20,
            )?;
            println!("{out}: {copies} copies of {from}");
        }
        _ => {
            anyhow::bail!("usage: palimpsest-big FROM.jsonl OUT.jsonl MB | --distinct OUT.jsonl MB")
        }
    }
    Ok(())
}
