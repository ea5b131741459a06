//! Patches as text, parsed into per-file hunks for [`super`]: Codex's `apply_patch`
//! format (`*** Begin Patch`, `*** Update File:` / `*** Add File:` / `*** Delete File:`,
//! `*** Move to:`, `@@` sections) and unified diffs (`--- a/x`, `+++ b/x`, `@@ -a,b +c,d @@`).
//! Nothing is applied; a line outside any file is ignored.

use super::{DiffLine, EditDiff, EditOp, Hunk, LineOp, patch_diff};

/// One file's part of a patch while it is read.
struct File {
    path: String,
    moved_to: Option<String>,
    op: EditOp,
    hunks: Vec<Hunk>,
}

impl File {
    fn new(path: &str, op: EditOp) -> Self {
        Self {
            path: path.trim().to_owned(),
            moved_to: None,
            op,
            hunks: Vec::new(),
        }
    }

    fn hunk(&mut self, header: Option<String>) {
        self.hunks.push(Hunk {
            header: header.filter(|h| !h.is_empty()),
            lines: Vec::new(),
        });
    }

    fn line(&mut self, op: LineOp, text: &str) {
        if self.hunks.is_empty() {
            self.hunk(None);
        }
        if let Some(h) = self.hunks.last_mut() {
            h.lines.push(DiffLine {
                op,
                text: text.strip_suffix('\r').unwrap_or(text).to_owned(),
            });
        }
    }
}

/// Every file the patch `text` changes, in order.
pub fn parse(tool: &str, text: &str) -> Vec<EditDiff> {
    let mut files: Vec<File> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(p) = line.strip_prefix("*** Update File: ") {
            files.push(File::new(p, EditOp::Edit));
        } else if let Some(p) = line.strip_prefix("*** Add File: ") {
            files.push(File::new(p, EditOp::Write));
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            files.push(File::new(p, EditOp::Delete));
        } else if let Some(p) = line.strip_prefix("*** Move to: ") {
            if let Some(f) = files.last_mut() {
                f.moved_to = Some(p.trim().to_owned());
            }
        } else if line.starts_with("*** ") {
            // Begin/End Patch, End of File: structure only.
        } else if let Some(old) = line.strip_prefix("--- ")
            && let Some(new) = lines.peek().and_then(|l| l.strip_prefix("+++ "))
        {
            let (old, new) = (unified_path(old), unified_path(new));
            lines.next();
            files.push(match (old, new) {
                (_, None) => File::new(old.unwrap_or_default(), EditOp::Delete),
                (None, Some(n)) => File::new(n, EditOp::Write),
                (Some(_), Some(n)) => File::new(n, EditOp::Edit),
            });
        } else if let Some(rest) = line.strip_prefix("@@") {
            if let Some(f) = files.last_mut() {
                f.hunk(Some(section(rest)));
            }
        } else if let Some(f) = files.last_mut() {
            match line.chars().next() {
                Some('+') => f.line(LineOp::Add, &line[1..]),
                Some('-') => f.line(LineOp::Remove, &line[1..]),
                Some(' ') => f.line(LineOp::Context, &line[1..]),
                // An empty line inside a hunk is an empty context line (editors strip the space).
                None if !f.hunks.is_empty() => f.line(LineOp::Context, ""),
                _ => {}
            }
        }
    }
    files
        .into_iter()
        .map(|f| patch_diff(tool, f.path, f.moved_to, f.op, f.hunks))
        .collect()
}

/// A unified diff's path without its `a/`/`b/` prefix and timestamp; `None` for `/dev/null`.
fn unified_path(s: &str) -> Option<&str> {
    let p = s.split('\t').next().unwrap_or(s).trim();
    if p == "/dev/null" {
        return None;
    }
    Some(p.strip_prefix("a/").or(p.strip_prefix("b/")).unwrap_or(p))
}

/// A hunk header's text: `@@ -1,3 +1,4 @@ fn f()` → `-1,3 +1,4 · fn f()`; Codex's `@@ fn f()` →
/// `fn f()`.
fn section(rest: &str) -> String {
    let rest = rest.trim();
    match rest.split_once("@@") {
        Some((ranges, ctx)) => [ranges.trim(), ctx.trim()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" · "),
        None => rest.to_owned(),
    }
}
