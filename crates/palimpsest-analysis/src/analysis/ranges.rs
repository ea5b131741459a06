//! Which lines of a file a read returned, so that paging through a file is not mistaken for
//! re-reading it: Claude's `Read` `offset`/`limit`, `read_file`'s `start_line`/`end_line` or
//! `line_range`, `text_editor`'s `view_range`, and the shell's `sed -n 'a,bp'`, `head -n N`,
//! `tail -n N` / `tail -n +K`. Anything else is the whole file.
//! Which calls are reads is `reads`'; what counts as a re-read is `rereads`'.

use serde_json::Value;

/// Lines `start..=end`, 1-based. [`WHOLE`] is the whole file.
pub type LineRange = (u64, u64);

/// The whole file.
pub const WHOLE: LineRange = (1, u64::MAX);

/// `tail -n N` returns the last N lines, wherever they start: placed at the top of the line
/// space, they overlap a whole read and any other tail, never a page from the start.
fn tail(n: u64) -> LineRange {
    (u64::MAX - n.max(1) + 1, u64::MAX)
}

/// True when the two ranges share a line.
pub fn overlaps(a: LineRange, b: LineRange) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

fn num(v: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| {
        let x = v.get(*k)?;
        x.as_u64()
            .or_else(|| x.as_i64().map(|i| i.max(0) as u64))
            .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

fn pair(v: &Value, keys: &[&str]) -> Option<(u64, Option<u64>)> {
    let a = keys
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_array))?;
    let start = a.first().and_then(Value::as_i64)?.max(1) as u64;
    // `view_range: [10, -1]` reads to the end.
    let end = a
        .get(1)
        .and_then(Value::as_i64)
        .filter(|&e| e > 0)
        .map(|e| e as u64);
    Some((start, end))
}

/// The lines a file-reading tool's arguments ask for.
pub fn of_arguments(args: &Value) -> LineRange {
    if let Some((start, end)) = pair(args, &["view_range", "line_range", "lines"]) {
        return (start, end.unwrap_or(u64::MAX).max(start));
    }
    let start = num(
        args,
        &["start_line", "startLine", "line_start", "from_line"],
    );
    let end = num(args, &["end_line", "endLine", "line_end", "to_line"]);
    if start.is_some() || end.is_some() {
        let s = start.unwrap_or(1).max(1);
        return (s, end.unwrap_or(u64::MAX).max(s));
    }
    // Claude's Read: `offset` is the first line (1-based), `limit` how many.
    let offset = num(args, &["offset"]);
    let limit = num(args, &["limit"]).filter(|&l| l > 0);
    match (offset, limit) {
        (None, None) => WHOLE,
        (o, l) => {
            let s = o.unwrap_or(1).max(1);
            (s, l.map_or(u64::MAX, |l| s.saturating_add(l - 1)))
        }
    }
}

/// The lines a shell read program returns, from its words (program first).
pub fn of_shell(prog: &str, words: &[String]) -> LineRange {
    match prog {
        "head" => count_arg(words).map_or((1, 10), |n| (1, n.max(1))),
        "tail" => {
            if let Some(from) = words
                .iter()
                .skip(1)
                .find_map(|w| w.strip_prefix('+').and_then(|n| n.parse::<u64>().ok()))
            {
                return (from.max(1), u64::MAX);
            }
            tail(count_arg(words).unwrap_or(10))
        }
        "sed" if words.iter().any(|w| w == "-n" || w == "--quiet") => words
            .iter()
            .skip(1)
            .find_map(|w| sed_print_range(w))
            .unwrap_or(WHOLE),
        _ => WHOLE,
    }
}

/// The lines a read's result says it showed, when the tool cut the file short: Claude Code's
/// `[Truncated: PARTIAL view — showing lines 1-842 of 1074 total …]`, OpenCode's `(Showing lines
/// 1-500. … Use offset=501 to continue.)`, file viewers' `[Showing lines 1-123 of 123 total]`.
/// A read that continues from there is a next page, not a re-read. Only the ends of the text are
/// looked at: a note in the middle is the file's own content.
pub fn shown(result: &str) -> Option<LineRange> {
    static SHOWN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\bshowing lines (\d+)\s*[-–]\s*(\d+)").expect("static regex")
    });
    const END: usize = 1024;
    let cut = |i: usize| {
        (0..=i.min(result.len()))
            .rev()
            .find(|&j| result.is_char_boundary(j))
    };
    let head = &result[..cut(END).unwrap_or(0)];
    let tail_from = cut(result.len().saturating_sub(END)).unwrap_or(0);
    let tail = &result[tail_from..];
    let c = SHOWN.captures(head).or_else(|| SHOWN.captures(tail))?;
    let a: u64 = c[1].parse().ok()?;
    let b: u64 = c[2].parse().ok()?;
    (a >= 1 && b >= a).then_some((a, b))
}

/// The lines two ranges share, when they share any.
pub fn within(a: LineRange, b: LineRange) -> Option<LineRange> {
    overlaps(a, b).then(|| (a.0.max(b.0), a.1.min(b.1)))
}

/// `-n 20`, `-n20`, `--lines=20`, `-20`.
fn count_arg(words: &[String]) -> Option<u64> {
    let mut it = words.iter().skip(1);
    while let Some(w) = it.next() {
        let v = if w == "-n" || w == "--lines" {
            it.next().map(String::as_str)
        } else if let Some(v) = w.strip_prefix("--lines=") {
            Some(v)
        } else if let Some(v) = w.strip_prefix("-n") {
            Some(v)
        } else {
            w.strip_prefix('-')
                .filter(|v| v.bytes().all(|b| b.is_ascii_digit()))
        };
        if let Some(n) = v.and_then(|v| v.trim_start_matches('+').parse().ok()) {
            return Some(n);
        }
    }
    None
}

/// `'120,180p'` → lines 120–180; `'5p'` → line 5.
fn sed_print_range(script: &str) -> Option<LineRange> {
    let s = script.trim_matches(|c| c == '\'' || c == '"');
    let body = s.strip_suffix('p')?;
    let (a, b) = match body.split_once(',') {
        Some((a, b)) => (a, b),
        None => (body, body),
    };
    let a: u64 = a.trim().parse().ok()?;
    let b: u64 = if b.trim() == "$" {
        u64::MAX
    } else {
        b.trim().parse().ok()?
    };
    Some((a.max(1), b.max(a.max(1))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn pages_are_ranges() {
        assert_eq!(
            of_arguments(&json!({"file_path": "a", "offset": 501, "limit": 500})),
            (501, 1000),
            "Read offset 501 limit 500 is lines 501–1000"
        );
        assert_eq!(
            of_arguments(&json!({"path": "a", "view_range": [10, -1]})),
            (10, u64::MAX),
            "view_range to -1 reads to the end"
        );
        assert_eq!(
            of_arguments(&json!({"path": "a"})),
            WHOLE,
            "no range: whole"
        );
        assert_eq!(
            of_shell("sed", &w("sed -n 120,180p f")),
            (120, 180),
            "sed -n a,bp"
        );
        assert_eq!(of_shell("head", &w("head -n 40 f")), (1, 40), "head -n");
        assert_eq!(
            of_shell("tail", &w("tail -n +41 f")),
            (41, u64::MAX),
            "tail -n +K"
        );
        assert!(
            !overlaps((1, 500), (501, 1000)) && overlaps(WHOLE, (501, 1000)),
            "disjoint pages do not overlap; a whole read overlaps every page"
        );
        assert_eq!(
            shown(
                "<system-reminder>[Truncated: PARTIAL view — showing lines 1-842 of 1074 total (25872 tokens, cap 25000). Call Read with offset=843 limit=842 for the next page.]</system-reminder>\n     1\tx"
            ),
            Some((1, 842)),
            "Claude Code's partial view names the lines it showed"
        );
        assert_eq!(
            shown(
                "1: a\n2: b\n\n(Showing lines 1-500. More lines exist. Use offset=501 to continue.)"
            ),
            Some((1, 500)),
            "OpenCode's note at the end"
        );
        let middle = format!("{}showing lines 1-2{}", "x".repeat(2000), "y".repeat(2000));
        assert_eq!(shown(&middle), None, "a note in the middle is file content");
        assert!(
            overlaps(of_shell("tail", &w("tail -5 f")), WHOLE)
                && !overlaps(of_shell("tail", &w("tail -5 f")), (1, 40)),
            "a tail overlaps a whole read, not a head"
        );
    }
}
