//! A big Claude Code transcript of the other shape: generated, with many distinct files and
//! results, where [`crate::big`] repeats one real transcript. Each turn reads files nobody read
//! before (their text made from a seeded generator, so nothing repeats and nothing packs as well
//! as a repeated transcript does), runs commands whose output differs every time, edits, and now
//! and then re-reads a file; responses are streamed over several lines as Claude Code 2.1 writes
//! them; the context grows until a compaction (auto, sometimes manual) or a microcompact cuts it.
//! Performance measurements use both shapes (`palimpsest-big --distinct`).

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use serde_json::json;

use crate::claude::Transcript;

/// A small deterministic generator (xorshift64*): the same seed writes the same file.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An identifier of two to four syllables.
    fn word(&mut self) -> String {
        const SYL: [&str; 24] = [
            "ka", "lo", "mir", "tan", "ve", "sup", "dro", "fi", "gen", "hal", "jum", "qua", "rex",
            "sol", "tib", "ur", "wen", "yor", "zel", "bam", "cor", "dex", "pli", "nox",
        ];
        let n = 2 + self.below(3);
        (0..n).map(|_| SYL[self.below(24) as usize]).collect()
    }

    /// `lines` lines of Python-looking source, every name drawn afresh.
    fn source(&mut self, lines: u64) -> String {
        let mut out = String::new();
        for i in 0..lines {
            let (a, b, c) = (self.word(), self.word(), self.word());
            let n = self.below(10_000);
            out.push_str(&match i % 4 {
                0 => format!("def {a}_{b}({c}):\n"),
                1 => format!("    {a} = {c}.{b}({n})\n"),
                2 => format!("    if {a} > {n}:\n        return {b}_{c}({a})\n"),
                _ => format!("    return {a} + {n}  # {b} {c}\n"),
            });
        }
        out
    }

    /// A test run's output: one line per test, a few failing with a traceback.
    fn test_log(&mut self, tests: u64) -> String {
        let mut out = String::new();
        for _ in 0..tests {
            let (m, t) = (self.word(), self.word());
            let ms = self.below(900);
            if self.below(12) == 0 {
                let n = self.below(500);
                out.push_str(&format!(
                    "FAILED tests/test_{m}.py::test_{t} ({ms} ms)\n  File \"src/{m}.py\", line {n}\n    AssertionError: expected {n}, got {}\n",
                    self.below(500)
                ));
            } else {
                out.push_str(&format!("PASSED tests/test_{m}.py::test_{t} ({ms} ms)\n"));
            }
        }
        out
    }
}

/// Write a generated transcript of session `id` to `out` until it holds at least `bytes`;
/// returns the turns written.
pub fn generate(out: &Path, id: &str, bytes: u64, seed: u64) -> anyhow::Result<usize> {
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    let mut w = BufWriter::new(file);
    let mut noise = Noise(seed | 1);
    let mut t = Transcript::new(id);
    let (mut written, mut turns) = (0u64, 0usize);
    let mut context = 20_000u64;
    let mut read: Vec<String> = Vec::new();
    let mut calls_since_micro: Vec<String> = Vec::new();
    while written < bytes.max(1) {
        turns += 1;
        let module = noise.word();
        t.user(&format!(
            "Turn {turns}: make `{module}` handle the {} case and keep the tests green.",
            noise.word()
        ));
        // A streamed response: thinking, then text, over three lines under one message id.
        let think = format!("Looking at {module}: {}", noise.source(3));
        t.streamed(
            if turns % 7 == 0 {
                "claude-sonnet-4-5"
            } else {
                "claude-opus-4-6"
            },
            &[
                json!({"type": "thinking", "thinking": think, "signature": "sig"}),
                json!({"type": "text", "text": format!("I'll read {module} first.")}),
            ],
            [12, context, 600],
            &[10, 10 + noise.below(400)],
        );
        for f in 0..(2 + noise.below(4)) {
            // Mostly a new file; sometimes one read before, as real workers do.
            let path = if !read.is_empty() && noise.below(5) == 0 {
                read[noise.below(read.len() as u64) as usize].clone()
            } else {
                let p = format!("/home/dev/app/src/{module}/{}_{f}.py", noise.word());
                read.push(p.clone());
                p
            };
            let lines = 40 + noise.below(360);
            let body = noise.source(lines);
            context += body.len() as u64 / 4;
            calls_since_micro.push(t.tool("Read", json!({"file_path": path}), &body, context));
        }
        let tests = 20 + noise.below(120);
        let log = noise.test_log(tests);
        context += log.len() as u64 / 4;
        calls_since_micro.push(t.tool(
            "Bash",
            json!({"command": format!("pytest tests/test_{module}.py -q"), "description": "Run the tests"}),
            &log,
            context,
        ));
        let (old, new) = (noise.source(4), noise.source(6));
        let path = read.last().cloned().unwrap_or_default();
        t.tool(
            "Edit",
            json!({"file_path": path, "old_string": old, "new_string": new}),
            &format!("The file {path} has been updated."),
            context,
        );
        t.say(&format!("Done with {module}: {}", noise.word()), context);
        if context > 150_000 {
            let summary = format!(
                "1. Primary request: {}\n2. Files: {}\n3. Pending: {}",
                noise.source(6),
                read.iter()
                    .rev()
                    .take(12)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                noise.source(4)
            );
            t.compact(
                if turns % 5 == 0 { "manual" } else { "auto" },
                context,
                &summary,
            );
            context = 12_000 + noise.below(8_000);
            calls_since_micro.clear();
        } else if calls_since_micro.len() > 40 {
            let cleared: Vec<String> = calls_since_micro.drain(..30).collect();
            t.micro(context, context / 3, &cleared);
            context -= context / 3;
        }
        for line in t.lines.drain(..) {
            let text = line.to_string();
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")?;
            written += text.len() as u64 + 1;
        }
    }
    w.flush()?;
    Ok(turns)
}
