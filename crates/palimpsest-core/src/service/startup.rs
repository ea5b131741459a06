//! Where the window looks for sessions on start: a path argument, else every agent family's
//! default folder that exists on this machine (one sidebar group each), else the fixtures
//! bundled with Palimpsest.
//!
//! The default folders and their cheap counts are core's (`sources::discovery::discover`, each
//! family's own rules); the fixtures are found from `PALIMPSEST_FIXTURES`, then next to the
//! executable (`target/debug/..` in a checkout), then in the working directory. Listing the
//! sessions is core's job (`api::source_group`, one group at a time); this only picks paths.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::model::Family;
use crate::sources::discovery;
use crate::views::{SourceGroup, SourceOrigin};

/// A source the app opens on start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupSource {
    /// Sidebar label.
    pub label: String,
    /// File or folder.
    pub path: PathBuf,
    /// Why it is shown.
    pub origin: SourceOrigin,
    /// The agent family of a default folder; `None` for a path argument or the fixtures.
    pub family: Option<crate::model::Family>,
    /// Sessions counted without reading them (discovery's count); None when not counted.
    pub session_count: Option<usize>,
}

impl StartupSource {
    /// The sidebar group before its sessions are listed: name, path and count, and for a file
    /// of one conversation the session to open first (`api::first_conversation`).
    pub fn pending(&self) -> SourceGroup {
        SourceGroup {
            label: self.label.clone(),
            path: self.path.to_string_lossy().into_owned(),
            origin: self.origin,
            family: self.family,
            session_count: self.session_count,
            loaded: false,
            sessions: Vec::new(),
            problems: Vec::new(),
            opens: crate::api::first_conversation(&self.path),
        }
    }
}

/// The sources to open on start: `argument` alone when given, else every existing default
/// folder under `home` (as `env` places them), else the fixtures `fixtures` finds.
pub fn startup_sources(
    argument: Option<PathBuf>,
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    fixtures: impl FnOnce() -> Option<PathBuf>,
) -> Vec<StartupSource> {
    if let Some(p) = argument {
        let label = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string());
        return vec![StartupSource {
            label,
            path: p,
            origin: SourceOrigin::Argument,
            family: None,
            session_count: None,
        }];
    }
    let found: Vec<StartupSource> = discovery::discover(home, env, &[])
        .into_iter()
        .filter(|l| l.exists)
        .map(|l| StartupSource {
            // Codex's second folder gets its own name, so the two groups are told apart.
            label: if l.path.ends_with("archived_sessions") {
                format!("{} archived", family_label(l.family))
            } else {
                family_label(l.family).to_owned()
            },
            path: PathBuf::from(l.path),
            origin: SourceOrigin::Default,
            session_count: Some(l.session_count),
            family: Some(l.family),
        })
        .collect();
    if !found.is_empty() {
        return found;
    }
    fixtures()
        .map(|path| StartupSource {
            label: "fixtures".into(),
            path,
            origin: SourceOrigin::Fixtures,
            family: None,
            session_count: None,
        })
        .into_iter()
        .collect()
}

/// [`startup_sources`] on this machine: its home folder and environment as `main` read them
/// (`env::machine`), its executable and working directory.
pub fn startup_sources_here(argument: Option<PathBuf>) -> Vec<StartupSource> {
    let machine = crate::env::machine();
    let env = |k: &str| machine.var_str(k);
    startup_sources(argument, machine.home.as_deref(), &env, fixtures_here)
}

/// The bundled fixtures on this machine ([`fixtures_dir`] with its environment, executable
/// and working directory), for start-up and the empty window's "Open the bundled examples".
pub fn fixtures_here() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    let machine = crate::env::machine();
    fixtures_dir(
        &|k| machine.var(k).map(OsString::from),
        exe.as_deref(),
        cwd.as_deref(),
    )
}

/// The base of goose's state folder here (`env::Machine::state_home`, as `main` read it).
pub fn state_home() -> Option<PathBuf> {
    crate::env::machine().state_home()
}

/// The name a family's group has in the sidebar (its own spelling of itself).
pub fn family_label(family: Family) -> &'static str {
    match family {
        Family::ClaudeCode => "Claude Code",
        Family::Codex => "Codex",
        Family::MessageLog => "message logs",
        Family::OpenCode => "OpenCode",
        Family::Kilo => "Kilo Code",
        Family::CopilotCli => "Copilot CLI",
        Family::GeminiCli => "Gemini CLI",
        Family::Crush => "Crush",
        Family::Cline => "Cline",
        Family::QwenCode => "Qwen Code",
        Family::Aider => "Aider",
        other => other.as_str(),
    }
}

/// The first argument that is not a flag, made absolute against the working directory.
pub fn path_argument(args: impl Iterator<Item = OsString>) -> Option<PathBuf> {
    let arg = args
        .map(PathBuf::from)
        .find(|a| !a.to_string_lossy().starts_with('-'))?;
    Some(std::path::absolute(&arg).unwrap_or(arg))
}

/// The bundled fixtures folder: `PALIMPSEST_FIXTURES`, else the nearest `fixtures/` above the
/// executable, else `fixtures/` in the working directory.
pub fn fixtures_dir(
    env: &dyn Fn(&str) -> Option<OsString>,
    exe: Option<&Path>,
    cwd: Option<&Path>,
) -> Option<PathBuf> {
    if let Some(p) = env("PALIMPSEST_FIXTURES").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let above_exe = exe
        .into_iter()
        .flat_map(Path::ancestors)
        .skip(1)
        .map(|d| d.join("fixtures"))
        .find(|d| d.is_dir());
    above_exe.or_else(|| cwd.map(|c| c.join("fixtures")).filter(|d| d.is_dir()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn fixtures_are_found_above_the_executable() {
        let tmp = std::env::temp_dir().join(format!("palimpsest-loc-{}", std::process::id()));
        let exe = tmp.join("target/debug/palimpsest-app");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::create_dir_all(tmp.join("fixtures")).unwrap();
        let none = env_of(&[]);
        assert_eq!(
            fixtures_dir(&none, Some(&exe), None),
            Some(tmp.join("fixtures")),
            "a checkout's binary finds the repo's fixtures/ two levels up"
        );
        let set = env_of(&[("PALIMPSEST_FIXTURES", "/elsewhere")]);
        assert_eq!(
            fixtures_dir(&set, Some(&exe), None),
            Some(PathBuf::from("/elsewhere")),
            "PALIMPSEST_FIXTURES wins over the search"
        );
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    /// A home folder holding one Claude Code transcript, one Codex rollout and goose's
    /// database, each where its agent writes it.
    fn home_with_three_families(home: &Path) {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let copy = |from: PathBuf, to: PathBuf| {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        };
        copy(
            repo.join("fixtures/real/claude-code/short.jsonl"),
            home.join(".claude/projects/-work-demo/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"),
        );
        let rollout = "rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl";
        copy(
            repo.join("fixtures/codex/sessions/2026/02/24")
                .join(rollout),
            home.join(".codex/sessions/2026/02/24").join(rollout),
        );
        copy(
            repo.join("fixtures/goose/sessions.db"),
            home.join(".local/share/goose/sessions/sessions.db"),
        );
    }

    /// A startup source as the test compares it: label, family, path, origin, count.
    type Group = (String, Option<Family>, PathBuf, SourceOrigin, Option<usize>);

    #[test]
    #[cfg(target_os = "linux")]
    fn without_an_argument_every_existing_default_folder_is_a_group() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        assert!(
            repo.join("fixtures/real").is_dir(),
            "the real transcripts are fixtures"
        );
        let home = std::env::temp_dir().join(format!("palimpsest-home-{}", std::process::id()));
        home_with_three_families(&home);
        let none = |_: &str| None;
        let got: Vec<Group> =
            startup_sources(None, Some(&home), &none, || panic!("fixtures not wanted"))
                .into_iter()
                .map(|s| (s.label, s.family, s.path, s.origin, s.session_count))
                .collect();
        let group = |label: &str, family: Family, dir: &str, n| {
            let path = home.join(dir);
            (
                label.into(),
                Some(family),
                path,
                SourceOrigin::Default,
                Some(n),
            )
        };
        let want = vec![
            group("goose", Family::Goose, ".local/share/goose/sessions", 7),
            group("Claude Code", Family::ClaudeCode, ".claude/projects", 1),
            group("Codex", Family::Codex, ".codex/sessions", 1),
        ];
        assert_eq!(
            got, want,
            "goose's 7 fixture sessions, one Claude transcript, one Codex rollout; no coworker \
             folder, so no coworker group, and no fixtures"
        );
        let arg = startup_sources(Some(home.join("x.db")), Some(&home), &none, || None);
        assert_eq!(
            arg.iter().map(|s| (&s.path, s.origin)).collect::<Vec<_>>(),
            vec![(&home.join("x.db"), SourceOrigin::Argument)],
            "a path argument is the only source, even with agent folders present"
        );
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn with_no_default_folder_the_fixtures_are_used() {
        let home = std::env::temp_dir().join(format!("palimpsest-empty-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let none = |_: &str| None;
        let got = startup_sources(None, Some(&home), &none, || Some("/fx".into()));
        assert_eq!(
            got.iter()
                .map(|s| (s.label.as_str(), s.path.as_path(), s.origin))
                .collect::<Vec<_>>(),
            vec![("fixtures", Path::new("/fx"), SourceOrigin::Fixtures)],
            "an empty home has no agent folder, so the bundled fixtures are the one source"
        );
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn path_argument_skips_flags_and_is_absolute() {
        let args = ["--verbose", "sessions.db"].map(OsString::from);
        let p = path_argument(args.into_iter()).expect("a path argument was given");
        assert!(
            p.is_absolute(),
            "relative paths are resolved: {}",
            p.display()
        );
        assert!(p.ends_with("sessions.db"), "the path itself is kept");
    }
}
