//! A big Claude Code transcript for the big-session measurements, made from a real one: the
//! transcript is written again and again under one session id, each copy's record, message and
//! tool ids made distinct (so no two copies merge or pair across), until the file reaches the
//! size asked for. Shaped like a real long session (the real one's cuts, tool traffic, hooks,
//! subagent calls, repeated), and made by this code rather than committed (`palimpsest-big`).

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use regex::Regex;

/// Write `copies of from` to `out` until it holds at least `bytes`; returns the copies written.
pub fn grow(from: &Path, out: &Path, bytes: u64) -> anyhow::Result<usize> {
    let text =
        std::fs::read_to_string(from).with_context(|| format!("cannot read {}", from.display()))?;
    // The session id stays (one session); every other UUID, message id and tool-use id is
    // made unique per copy.
    let session = from
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let uuid = Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{12})")?;
    let ids = Regex::new(r"\b(msg_|toolu_|req_)([A-Za-z0-9]+)")?;
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    let mut w = BufWriter::new(file);
    let (mut written, mut copies) = (0u64, 0usize);
    while written < bytes.max(1) {
        let k = copies as u64;
        for line in text.lines() {
            let line = if k == 0 {
                line.to_owned()
            } else {
                let line = uuid.replace_all(line, |c: &regex::Captures| {
                    let all = &c[0];
                    if all == session {
                        return all.to_owned();
                    }
                    let tail = u64::from_str_radix(&c[1], 16).unwrap_or(0) ^ (k << 20);
                    format!("{}{:012x}", &all[..24], tail & 0xffff_ffff_ffff)
                });
                ids.replace_all(&line, |c: &regex::Captures| {
                    format!("{}{}x{k}", &c[1], &c[2])
                })
                .into_owned()
            };
            w.write_all(line.as_bytes())?;
            w.write_all(b"\n")?;
            written += line.len() as u64 + 1;
        }
        copies += 1;
    }
    w.flush()?;
    Ok(copies)
}

/// A big transcript being written, for the live measurements: [`grow`] `from` to `bytes`, write
/// all but its last `held` lines to `dir/<session>.jsonl` (a project folder as Claude Code
/// keeps one) and hand back that file and the held lines, to append as the agent would.
pub fn followed(
    from: &Path,
    dir: &Path,
    bytes: u64,
    held: usize,
) -> anyhow::Result<(std::path::PathBuf, Vec<String>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = from.file_name().context("a transcript file name")?;
    let grown = dir.with_extension("grown.jsonl");
    grow(from, &grown, bytes)?;
    let text = std::fs::read_to_string(&grown)?;
    std::fs::remove_file(&grown)?;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let rest = lines.split_off(lines.len().saturating_sub(held));
    let file = dir.join(name);
    std::fs::write(&file, lines.join("\n") + "\n")
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok((file, rest))
}
