//! The page a report is: escaping, the head (a strict Content-Security-Policy, the CSS) and
//! small builders. Everything a transcript wrote goes through [`esc`]; charts are SVG images
//! (`data:` URIs), so no transcript text enters the page as markup and nothing needs a script.

use std::fmt::Write;

/// HTML-escape text for an element or a quoted attribute.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The first `n` characters of `s` on one line, escaped, with `…` when cut.
pub fn preview(s: &str, n: usize) -> String {
    let one: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(n)
        .collect();
    let cut = s.chars().count() > n;
    format!("{}{}", esc(&one), if cut { "…" } else { "" })
}

/// An anchor id for a session (ids are untrusted text: only safe characters survive).
pub fn session_anchor(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("s-{safe}")
}

/// A link to message `index` of the session whose anchor prefix is `at`.
pub fn msg_link(at: &str, index: usize) -> String {
    format!("<a href=\"#{at}-m{index}\">#{index}</a>")
}

/// Links to every message of `indices`, the first `max` of them.
pub fn msg_links(at: &str, indices: &[usize], max: usize) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|i| seen.insert(*i))
        .collect();
    let mut out: Vec<String> = unique.iter().take(max).map(|&i| msg_link(at, i)).collect();
    if unique.len() > max {
        out.push(format!("… {} more", unique.len() - max));
    }
    out.join(" ")
}

/// An SVG chart as an image: it can hold no markup of the page, and runs nothing.
pub fn svg_img(svg: &str, alt: &str) -> String {
    use base64::Engine;
    format!(
        "<img class=\"chart\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">",
        esc(alt),
        base64::engine::general_purpose::STANDARD.encode(svg)
    )
}

/// The policy every report carries: no script, no network, styles and `data:` images only.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS: &str = "
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px; color: #1d2128; }
h1 { font-size: 20px; margin: 4px 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d8dce3; }
h3 { font-size: 15px; margin: 16px 0 6px; } code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.muted { color: #667085; } .small { font-size: 12px; }
.sev { font-weight: 700; padding: 1px 6px; border-radius: 4px; }
.sev-stuck { background: #fde2e1; color: #a1261c; } .sev-watch { background: #fff1d6; color: #8a5a00; } .sev-ok { background: #e3f4e8; color: #1f6b3a; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; vertical-align: top; padding: 3px 6px; border-bottom: 1px solid #eceef2; }
th { font-size: 12px; color: #475467; } td.num { text-align: right; white-space: nowrap; }
.cut { display: grid; grid-template-columns: 1fr 1.3fr 1fr; gap: 10px; }
.cut > div { border: 1px solid #d8dce3; border-radius: 6px; padding: 6px 8px; min-width: 0; }
.cut h4 { margin: 0 0 4px; font-size: 13px; } .cut ul { margin: 0; padding-left: 18px; }
.cut pre { max-height: 40em; overflow: auto; }
.chart { max-width: 100%; height: auto; display: block; margin: 6px 0; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.hidden-model { color: #98a2b3; } details summary { cursor: pointer; }
tr:target { background: #fff6cc; }
";

/// A whole page: `title` (escaped here) and the body's HTML.
pub fn page(title: &str, body: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head><body>\n{body}\n\
         <p class=\"muted small\">Made by Palimpsest, which wrote this file and nothing else; it \
         needs no network and runs no script.</p></body></html>\n",
        esc(title)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_stays_text() {
        assert_eq!(
            esc(r#"<img src=x onerror="alert('1')">&"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;",
            "every character that could open markup or end an attribute is escaped"
        );
        assert_eq!(
            session_anchor("../<b>x"),
            "s-----b-x",
            "an id becomes a safe anchor"
        );
        assert_eq!(preview("a\nb<c", 3), "a b…", "one line, cut, escaped");
    }
}
