//! Search every indexed part: user and assistant text, thinking, tool arguments, tool results,
//! summaries. A query is a literal, matched case-insensitively anywhere in a part (like
//! `grep -iF`), or with `regex` a regular expression (the `regex` crate's syntax).
//!
//! FTS5's trigram index (kept without positions) narrows the parts to those holding every
//! trigram of the literal (for a regex: of one of the literals every match must start with,
//! when the `regex-syntax` extractor finds them, three characters or longer); each candidate is
//! then checked here, so a hit is exactly what a plain
//! scan finds ([`scan`], the reference the tests hold it to). Queries FTS cannot narrow (under
//! three characters, a regex without such literals) scan the stored text.
//! Hits come newest session first, then in message order.

use regex::Regex;
use rusqlite::params_from_iter;
use serde::{Deserialize, Serialize};

use super::Index;
use super::rows::PartText;
use crate::error::{Error, Result};
use crate::model::Session;

/// What to look for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The literal, or the regex with `regex`.
    pub text: String,
    /// Treat `text` as a regular expression.
    pub regex: bool,
    /// Only parts of this role (`user`, `assistant`, `tool`, `system`).
    pub role: Option<String>,
    /// Only parts of this kind (`text`, `thinking`, `tool_call`, `tool_result`, `summary`).
    pub part: Option<String>,
    /// Only calls to or results of this tool.
    pub tool: Option<String>,
    /// At most this many hits.
    pub limit: usize,
}

/// One hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Hit {
    /// The session.
    pub session_id: String,
    /// The file it lives in.
    pub path: String,
    /// Its format.
    pub format: String,
    /// Its title.
    pub title: String,
    /// The message.
    pub index: usize,
    /// Its role (`tool` for tool results).
    pub role: String,
    /// The part's kind.
    pub part: String,
    /// The tool, for calls and results.
    pub tool: Option<String>,
    /// Text around the match, on one line.
    pub snippet: String,
    /// Where the match starts in `snippet`, in characters.
    pub match_start: usize,
    /// Where it ends in `snippet`, in characters.
    pub match_end: usize,
    /// The match is in a tool result a microcompact cleared: the text searched is the result
    /// as stored, which the model no longer receives.
    #[serde(default)]
    pub cleared: bool,
}

/// How a part's text is matched.
pub enum Matcher {
    /// Lower-cased literal.
    Literal(String),
    /// A regex.
    Regex(Regex),
}

impl Matcher {
    /// Build the matcher for `q`; a bad regex is an error naming it.
    pub fn new(q: &Query) -> Result<Matcher> {
        if q.regex {
            Regex::new(&q.text).map(Matcher::Regex).map_err(|e| {
                Error::format(std::path::Path::new("--regex"), format!("bad regex: {e}"))
            })
        } else {
            Ok(Matcher::Literal(lowered(&q.text).0))
        }
    }

    /// The first match in `text`, as a byte range.
    pub fn find(&self, text: &str) -> Option<(usize, usize)> {
        match self {
            Matcher::Regex(r) => r.find(text).map(|m| (m.start(), m.end())),
            Matcher::Literal(l) if l.is_empty() => None,
            Matcher::Literal(l) => {
                // Lower-casing can change byte lengths: search a lowered copy mapped back by
                // characters, not bytes.
                let (lower, map) = lowered(text);
                let at = lower.find(l.as_str())?;
                let end = at + l.len();
                Some((map[at], map.get(end).copied().unwrap_or(text.len())))
            }
        }
    }
}

/// `text` folded for a case-insensitive match, with the byte offset in `text` of each byte of
/// the result. Query and text are folded alike, one character at a time: lower case, and the
/// case pairs lower-casing alone does not unite — Greek final ς with σ (`ΟΔΟΣ` is `οδος` as a
/// word and `οδοσ` by letters), Turkish İ and ı with i.
fn lowered(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len() + 1);
    for (i, c) in text.char_indices() {
        let mut push = |l: char| {
            out.push(l);
            map.extend(std::iter::repeat_n(i, l.len_utf8()));
        };
        match c {
            'ς' => push('σ'),
            'İ' | 'ı' => push('i'),
            _ => c.to_lowercase().for_each(push),
        }
    }
    map.push(text.len());
    (out, map)
}

/// The literals FTS can narrow `q` by: the literal itself, or a regex's required prefixes;
/// `None` when it cannot (some is shorter than a trigram).
fn narrowing(q: &Query) -> Option<Vec<String>> {
    if !q.regex {
        return (q.text.chars().count() >= 3).then(|| vec![q.text.clone()]);
    }
    let hir = regex_syntax::Parser::new().parse(&q.text).ok()?;
    let seq = regex_syntax::hir::literal::Extractor::new().extract(&hir);
    let lits = seq.literals()?;
    let out: Vec<String> = lits
        .iter()
        .map(|l| String::from_utf8(l.as_bytes().to_vec()).ok())
        .collect::<Option<_>>()?;
    (!out.is_empty() && out.iter().all(|s| s.chars().count() >= 3)).then_some(out)
}

/// Letters whose case pairs FTS5's folding does not unite as [`lowered`] does (Σ σ ς; I i İ ı):
/// a trigram holding one narrows nothing, it could only miss.
const LOOSE: &[char] = &['Σ', 'σ', 'ς', 'I', 'i', 'İ', 'ı'];

/// The FTS5 query for a literal: every trigram of it, ANDed (the index keeps no positions,
/// so it cannot match a phrase; the candidates are checked after); `None` when every trigram
/// holds a [`LOOSE`] letter.
fn fts_all_trigrams(s: &str) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut grams: Vec<String> = chars
        .windows(3)
        .filter(|w| !w.iter().any(|c| LOOSE.contains(c)))
        .map(|w| format!("\"{}\"", w.iter().collect::<String>().replace('"', "\"\"")))
        .collect();
    grams.sort();
    grams.dedup();
    (!grams.is_empty()).then(|| format!("({})", grams.join(" AND ")))
}

/// Around `range` of `text`: up to 80 characters before and 160 after, newlines as spaces.
pub fn snippet(text: &str, (start, end): (usize, usize)) -> (String, usize, usize) {
    let before: Vec<char> = text[..start].chars().collect();
    let lead = before.len().saturating_sub(80);
    let head: String = before[lead..].iter().collect();
    let hit: String = text[start..end].chars().collect();
    let tail: String = text[end..].chars().take(160).collect();
    let flat = |s: &str| s.replace(['\n', '\r', '\t'], " ");
    let prefix = if lead > 0 { "…" } else { "" };
    let snippet = format!("{prefix}{}{}{}", flat(&head), flat(&hit), flat(&tail));
    let s = prefix.chars().count() + head.chars().count();
    (snippet, s, s + hit.chars().count())
}

fn passes(q: &Query, p: &PartText) -> bool {
    q.role.as_deref().is_none_or(|r| r == p.role)
        && q.part.as_deref().is_none_or(|k| k == p.part)
        && q.tool.as_deref().is_none_or(|t| p.tool == Some(t))
}

/// The plain scan: every part of the given sessions (newest first), checked one by one.
pub fn scan(sessions: &[Session], q: &Query) -> Result<Vec<Hit>> {
    let m = Matcher::new(q)?;
    let mut order: Vec<&Session> = sessions.iter().collect();
    order.sort_by(|a, b| {
        b.meta
            .updated
            .cmp(&a.meta.updated)
            .then(a.meta.id.cmp(&b.meta.id))
    });
    let mut out = Vec::new();
    for s in order {
        for p in super::rows::part_texts(s, 0) {
            if !passes(q, &p) {
                continue;
            }
            if let Some(r) = m.find(&p.text) {
                out.push(hit(&s.meta, &p, r));
                if out.len() >= q.limit.max(1) {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

fn hit(meta: &crate::model::SessionMeta, p: &PartText, r: (usize, usize)) -> Hit {
    let (snippet, match_start, match_end) = snippet(&p.text, r);
    Hit {
        session_id: meta.id.clone(),
        path: meta.path.clone(),
        format: meta.format.as_str().to_owned(),
        title: meta.name.clone(),
        index: p.index,
        role: p.role.to_owned(),
        part: p.part.to_owned(),
        tool: p.tool.map(str::to_owned),
        snippet,
        match_start,
        match_end,
        cleared: p.cleared,
    }
}

impl Index {
    /// Search the indexed sessions under `paths` (all of them when empty).
    pub fn search(&self, paths: &[std::path::PathBuf], q: &Query) -> Result<Vec<Hit>> {
        let m = Matcher::new(q)?;
        let roots: Vec<std::path::PathBuf> = paths.iter().map(|p| super::canonical(p)).collect();
        let sql_err = |e: rusqlite::Error| super::index_error(self.path(), e);
        let mut args: Vec<String> = Vec::new();
        let fts = narrowing(q).and_then(|lits| {
            lits.iter()
                .map(|l| fts_all_trigrams(l))
                .collect::<Option<Vec<_>>>()
        });
        let mut cond = match fts {
            Some(each) => {
                args.push(each.join(" OR "));
                "parts MATCH ?1".to_owned()
            }
            None => "1".to_owned(),
        };
        for (col, v) in [("role", &q.role), ("part", &q.part), ("tool", &q.tool)] {
            if let Some(v) = v {
                args.push(v.clone());
                cond.push_str(&format!(" AND parts.{col} = ?{}", args.len()));
            }
        }
        let sql = format!(
            "SELECT s.session_id, s.file, s.format, s.title, parts.idx, parts.role, parts.part,
                    parts.tool, parts.text, parts.cleared
             FROM parts JOIN sessions s ON s.id = (parts.rowid >> {bits})
             WHERE {cond}
             ORDER BY s.updated DESC, s.session_id, parts.rowid",
            bits = super::store::PART_BITS
        );
        let mut stmt = self.conn().prepare(&sql).map_err(sql_err)?;
        let mut rows = stmt.query(params_from_iter(args.iter())).map_err(sql_err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(sql_err)? {
            let file: String = r.get(1).map_err(sql_err)?;
            if !roots.is_empty() && !super::under(&file, &roots) {
                continue;
            }
            let text: String = r.get(8).map_err(sql_err)?;
            let Some(range) = m.find(&text) else { continue };
            let (snippet, match_start, match_end) = snippet(&text, range);
            out.push(Hit {
                session_id: r.get(0).map_err(sql_err)?,
                path: file,
                format: r.get(2).map_err(sql_err)?,
                title: r.get(3).map_err(sql_err)?,
                index: r.get::<_, i64>(4).map_err(sql_err)? as usize,
                role: r.get(5).map_err(sql_err)?,
                part: r.get(6).map_err(sql_err)?,
                tool: r.get(7).map_err(sql_err)?,
                snippet,
                match_start,
                match_end,
                cleared: r
                    .get::<_, Option<bool>>(9)
                    .map_err(sql_err)?
                    .unwrap_or(false),
            });
            if out.len() >= q.limit.max(1) {
                break;
            }
        }
        Ok(out)
    }
}
