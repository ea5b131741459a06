//! A small shell-command splitter: enough of POSIX sh to see which programs a tool call ran,
//! on which arguments, and where their output was redirected.
//!
//! It does not evaluate anything (no variables, globs or substitutions): a command the agent
//! ran is untrusted text and only its shape matters here. Which commands read or write files is
//! decided in `reads`; this module only splits.

/// One simple command of a command line: its words and its redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Words after quote removal, assignments (`A=b`) dropped.
    pub words: Vec<String>,
    /// Targets of output redirections (`>`, `>>`, `&>`, `1>`), file descriptors excluded.
    pub writes_to: Vec<String>,
    /// Sources of input redirections (`<`).
    pub reads_from: Vec<String>,
    /// The operator that joined this command to the previous one (`&&`, `||`, `;`, `|`, `&`,
    /// newline), empty for the first.
    pub joined_by: String,
}

impl SimpleCommand {
    /// The program name without its directory (`/usr/bin/cat` → `cat`).
    pub fn program(&self) -> &str {
        self.words
            .first()
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .unwrap_or("")
    }
}

/// Split a command line into simple commands. Here-document bodies are skipped.
pub fn split(line: &str) -> Vec<SimpleCommand> {
    let mut out = Vec::new();
    let mut cur = SimpleCommand::default();
    let mut word = String::new();
    let mut in_word = false;
    let mut pending_redirect: Option<Redirect> = None;
    let mut heredocs: Vec<String> = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;

    // Finishes the current word: either a redirect target or a plain word.
    let finish_word = |word: &mut String,
                       in_word: &mut bool,
                       cur: &mut SimpleCommand,
                       pending: &mut Option<Redirect>,
                       heredocs: &mut Vec<String>| {
        if !*in_word {
            return;
        }
        let w = std::mem::take(word);
        *in_word = false;
        match pending.take() {
            Some(Redirect::Out) => {
                if !w.starts_with('&') && w != "/dev/null" {
                    cur.writes_to.push(w);
                }
            }
            Some(Redirect::In) => cur.reads_from.push(w),
            Some(Redirect::HereDoc) => heredocs.push(w),
            None => {
                let is_assignment = cur.words.is_empty()
                    && w.find('=').is_some_and(|eq| {
                        eq > 0
                            && w[..eq]
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    });
                if !is_assignment {
                    cur.words.push(w);
                }
            }
        }
    };

    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\'
                        && i + 1 < chars.len()
                        && matches!(chars[i + 1], '"' | '\\' | '$' | '`')
                    {
                        i += 1;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
            }
            '\\' => {
                in_word = true;
                if i + 1 < chars.len() {
                    i += 1;
                    if chars[i] != '\n' {
                        word.push(chars[i]);
                    }
                }
            }
            ' ' | '\t' => finish_word(
                &mut word,
                &mut in_word,
                &mut cur,
                &mut pending_redirect,
                &mut heredocs,
            ),
            '>' | '<' => {
                // A word made only of digits or `&` right before is a file descriptor.
                let fd_prefix = in_word && word.chars().all(|ch| ch.is_ascii_digit() || ch == '&');
                if fd_prefix {
                    word.clear();
                    in_word = false;
                } else {
                    finish_word(
                        &mut word,
                        &mut in_word,
                        &mut cur,
                        &mut pending_redirect,
                        &mut heredocs,
                    );
                }
                if c == '<' && chars.get(i + 1) == Some(&'<') {
                    i += 1;
                    if chars.get(i + 1) == Some(&'-') {
                        i += 1;
                    }
                    pending_redirect = Some(Redirect::HereDoc);
                } else if c == '<' {
                    pending_redirect = Some(Redirect::In);
                } else {
                    if chars.get(i + 1) == Some(&'>') || chars.get(i + 1) == Some(&'|') {
                        i += 1;
                    }
                    // `>&2`: duplicating a descriptor, not a file.
                    if chars.get(i + 1) == Some(&'&') {
                        i += 1;
                        while i + 1 < chars.len() && chars[i + 1].is_ascii_digit() {
                            i += 1;
                        }
                    } else {
                        pending_redirect = Some(Redirect::Out);
                    }
                }
            }
            ';' | '|' | '&' | '\n' | '(' | ')' => {
                finish_word(
                    &mut word,
                    &mut in_word,
                    &mut cur,
                    &mut pending_redirect,
                    &mut heredocs,
                );
                let mut op = c.to_string();
                if (c == '&' || c == '|') && chars.get(i + 1) == Some(&c) {
                    op.push(c);
                    i += 1;
                }
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    // `&>file`: both streams to a file.
                    i += 1;
                    pending_redirect = Some(Redirect::Out);
                    i += 1;
                    continue;
                }
                if !cur.words.is_empty() || !cur.writes_to.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                cur.joined_by = op;
                if c == '\n' && !heredocs.is_empty() {
                    i = skip_heredocs(&chars, i + 1, &mut heredocs);
                    continue;
                }
            }
            '#' if !in_word => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
        i += 1;
    }
    finish_word(
        &mut word,
        &mut in_word,
        &mut cur,
        &mut pending_redirect,
        &mut heredocs,
    );
    if !cur.words.is_empty() || !cur.writes_to.is_empty() {
        out.push(cur);
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Redirect {
    Out,
    In,
    HereDoc,
}

/// Skip here-document bodies starting at `i` (just after a newline); returns the index after
/// the last terminator line.
fn skip_heredocs(chars: &[char], mut i: usize, heredocs: &mut Vec<String>) -> usize {
    while !heredocs.is_empty() && i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i] != '\n' {
            i += 1;
        }
        let line: String = chars[start..i].iter().collect();
        if line.trim() == heredocs[0] {
            heredocs.remove(0);
        }
        i += 1;
    }
    heredocs.clear();
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_operators_and_redirects() {
        let cmds = split("cd src && cat 'a b.py' | head -n 5 > out.txt 2>&1; ls");
        let words: Vec<Vec<&str>> = cmds
            .iter()
            .map(|c| c.words.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            words,
            vec![
                vec!["cd", "src"],
                vec!["cat", "a b.py"],
                vec!["head", "-n", "5"],
                vec!["ls"]
            ],
            "quotes are removed and operators split commands"
        );
        assert_eq!(
            cmds[2].writes_to,
            vec!["out.txt"],
            "`> out.txt` is a write; `2>&1` is not a file"
        );
        assert_eq!(cmds[1].joined_by, "&&", "joins are kept for `cd` tracking");
    }

    #[test]
    fn heredoc_body_is_not_commands() {
        let cmds = split("cat > notes.md <<'EOF'\nrm -rf /\nEOF\nwc -l notes.md");
        assert_eq!(
            cmds.len(),
            2,
            "the heredoc body is data, not a command: {cmds:?}"
        );
        assert_eq!(cmds[0].writes_to, vec!["notes.md"], "cat > file writes it");
        assert_eq!(
            cmds[1].program(),
            "wc",
            "the line after the terminator runs"
        );
    }

    #[test]
    fn assignments_and_dev_null_are_dropped() {
        let cmds = split("FOO=1 /usr/bin/cat x.py >/dev/null");
        assert_eq!(
            cmds[0].program(),
            "cat",
            "assignment prefix skipped, dir stripped"
        );
        assert!(
            cmds[0].writes_to.is_empty(),
            "/dev/null is not a file anyone reads back"
        );
    }
}
