//! Where each agent family keeps its sessions by default, and how many are there.
//!
//! [`discover`] takes the home folder and the environment as arguments (tests pass their own),
//! lists every family's default location whether or not it exists, then the folders the user
//! added. Counting stays cheap: Claude Code and Codex sessions are counted by file name
//! (one `.jsonl` per session), database-backed families through their reader's listing, which
//! reads the database's rows and no message. Message logs have no default location.
//!
//! goose's and coworker's rules (environment overrides, platform defaults) are their readers'
//! (`goose::locations_from`, `coworker::default_locations`); this module only feeds them `home`
//! and `env`. Claude Code and Codex have no reader-side rule, so theirs are here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Family;

/// One place sessions may live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Location {
    /// The family (`unknown` for an added folder nothing recognised).
    pub family: Family,
    /// The folder.
    pub path: String,
    /// True when the folder exists.
    pub exists: bool,
    /// Sessions found there (0 when it does not exist).
    pub session_count: usize,
}

/// The default location of each family that has one, in a fixed order. `env` looks up an
/// environment variable (empty values count as unset).
pub fn default_locations(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<(Family, PathBuf)> {
    // The readers' rules look `HOME` up like any variable: answer it with `home`.
    let lookup = |k: &str| -> Option<OsString> {
        if k == "HOME" {
            home.map(|h| h.as_os_str().to_owned())
        } else {
            env(k).filter(|v| !v.is_empty()).map(OsString::from)
        }
    };
    let mut out = Vec::new();
    let goose = super::goose::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(goose.into_iter().map(|p| (Family::Goose, p)));
    out.extend(home.map(|h| (Family::ClaudeCode, h.join(".claude").join("projects"))));
    let codex = lookup("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".codex")));
    // Codex moves archived rollouts, flat, into `archived_sessions` beside `sessions/YYYY/MM/DD`.
    if let Some(c) = codex {
        out.push((Family::Codex, c.join("sessions")));
        out.push((Family::Codex, c.join("archived_sessions")));
    }
    let coworker = super::coworker::default_locations(lookup, None);
    out.extend(coworker.into_iter().map(|p| (Family::Coworker, p)));
    let opencode = super::opencode::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(opencode.into_iter().map(|(f, p)| (f.family(), p)));
    let copilot = super::copilot::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(copilot.into_iter().map(|p| (Family::CopilotCli, p)));
    let gemini = super::gemini::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(gemini.into_iter().map(|p| (Family::GeminiCli, p)));
    let crush = super::crush::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(crush.into_iter().map(|p| (Family::Crush, p)));
    let cline = super::cline::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(cline.into_iter().map(|p| (Family::Cline, p)));
    let qwen = super::qwen::locations_from(|k| lookup(k).map(PathBuf::from));
    out.extend(qwen.into_iter().map(|p| (Family::QwenCode, p)));
    out
}

/// Every default location plus the `added` folders, with session counts.
pub fn discover(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    added: &[PathBuf],
) -> Vec<Location> {
    let mut out: Vec<Location> = default_locations(home, env)
        .into_iter()
        .map(|(family, path)| {
            let exists = path.is_dir();
            let session_count = if !exists {
                0
            } else {
                match family {
                    Family::ClaudeCode => {
                        count_files(&path, 1, &|p| p.extension().is_some_and(|e| e == "jsonl"))
                    }
                    Family::Codex => {
                        // `rollout-….jsonl`, or its `.jsonl.zst` when there is no plain twin.
                        let rollout = |p: &Path| {
                            let plain = super::compressed::plain_name(p);
                            let text = plain.as_deref().unwrap_or(p);
                            text.extension().is_some_and(|e| e == "jsonl")
                                && !super::compressed::has_plain_twin(p)
                                && p.file_name()
                                    .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
                        };
                        let depth = if path.ends_with("archived_sessions") {
                            0
                        } else {
                            3
                        };
                        count_files(&path, depth, &rollout)
                    }
                    _ => count_listed(&path).1,
                }
            };
            Location {
                family,
                path: path.display().to_string(),
                exists,
                session_count,
            }
        })
        .collect();
    for p in added {
        let exists = p.exists();
        let (family, session_count) = if exists {
            count_listed(p)
        } else {
            (Family::Unknown, 0)
        };
        out.push(Location {
            family,
            path: p.display().to_string(),
            exists,
            session_count,
        });
    }
    out
}

/// Files matching `want` exactly `depth` folders below `dir` (0 = in `dir` itself).
fn count_files(dir: &Path, depth: usize, want: &dyn Fn(&Path) -> bool) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| match (depth, p.is_dir()) {
            (0, false) => usize::from(want(&p)),
            (0, true) => 0,
            (_, true) => count_files(&p, depth - 1, want),
            (_, false) => 0,
        })
        .sum()
}

/// The family of what the readers find at `path` (the most common one) and its session count.
fn count_listed(path: &Path) -> (Family, usize) {
    let Ok(catalog) = crate::sources::open(path) else {
        return (Family::Unknown, 0);
    };
    let mut by_family: Vec<(Family, usize)> = Vec::new();
    for s in &catalog.sources {
        let family = s.format().family();
        let n = s.list().map(|l| l.len()).unwrap_or(0);
        match by_family.iter_mut().find(|(f, _)| *f == family) {
            Some((_, c)) => *c += n,
            None => by_family.push((family, n)),
        }
    }
    let total = by_family.iter().map(|(_, n)| n).sum();
    let family = by_family
        .iter()
        .max_by_key(|(_, n)| *n)
        .map_or(Family::Unknown, |(f, _)| *f);
    (family, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides_win_over_home() {
        let env = |k: &str| match k {
            "GOOSE_PATH_ROOT" => Some("/g".to_owned()),
            "CODEX_HOME" => Some("/c".to_owned()),
            "COWORKER_STATE_DIR" => Some(String::new()),
            _ => None,
        };
        let got = default_locations(Some(Path::new("/h")), &env);
        let want: Vec<(Family, PathBuf)> = vec![
            (Family::Goose, "/g/data/sessions".into()),
            (Family::ClaudeCode, "/h/.claude/projects".into()),
            (Family::Codex, "/c/sessions".into()),
            (Family::Codex, "/c/archived_sessions".into()),
            (Family::Coworker, "/h/.config/coworker".into()),
            (Family::OpenCode, "/h/.local/share/opencode".into()),
            (Family::Kilo, "/h/.local/share/kilo".into()),
            (Family::CopilotCli, "/h/.copilot/session-state".into()),
            (
                Family::CopilotCli,
                "/h/.copilot/history-session-state".into(),
            ),
            (Family::GeminiCli, "/h/.gemini/tmp".into()),
            (
                Family::Cline,
                "/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks".into(),
            ),
            (
                Family::Cline,
                "/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks".into(),
            ),
            (Family::Cline, "/h/.cline/data/tasks".into()),
            (Family::QwenCode, "/h/.qwen/projects".into()),
        ];
        assert_eq!(
            got, want,
            "GOOSE_PATH_ROOT and CODEX_HOME override (archived rollouts included); an empty \
             COWORKER_STATE_DIR counts as unset; OpenCode and Kilo Code under HOME's XDG data"
        );
    }

    #[test]
    fn coworker_state_dir_adds_to_the_platform_default() {
        let env = |k: &str| (k == "COWORKER_STATE_DIR").then(|| "/s".to_owned());
        let got: Vec<(Family, PathBuf)> = default_locations(Some(Path::new("/h")), &env)
            .into_iter()
            .filter(|(f, _)| *f == Family::Coworker)
            .collect();
        let platform = if cfg!(windows) {
            vec![]
        } else {
            vec![(Family::Coworker, PathBuf::from("/h/.config/coworker"))]
        };
        let mut want = vec![(Family::Coworker, PathBuf::from("/s"))];
        want.extend(platform);
        assert_eq!(
            got, want,
            "coworker's own rule: its state-dir variable, then the platform default"
        );
    }

    #[test]
    fn xdg_data_home_places_goose_and_opencode() {
        let env = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
        let got = default_locations(None, &env);
        assert_eq!(
            got,
            vec![
                (Family::Goose, PathBuf::from("/x/goose/sessions")),
                (Family::OpenCode, PathBuf::from("/x/opencode")),
                (Family::Kilo, PathBuf::from("/x/kilo")),
            ],
            "without a home only the XDG-derived folders are known"
        );
    }
}
