//! `palimpsest-big FROM OUT MB`: a big Claude Code transcript for the big-session measurements,
//! FROM (a real transcript) written again and again under its one session id until OUT holds MB
//! megabytes. How the copies are kept apart is `palimpsest_fixtures::big`'s.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [from, out, mb] = args.as_slice() else {
        anyhow::bail!("usage: palimpsest-big FROM.jsonl OUT.jsonl MB");
    };
    let mb: u64 = mb.parse()?;
    let copies =
        palimpsest_fixtures::big::grow(&PathBuf::from(from), &PathBuf::from(out), mb << 20)?;
    println!("{out}: {copies} copies of {from}");
    Ok(())
}
