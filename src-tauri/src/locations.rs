//! Where the app looks for sessions on start: a path argument, else the user's goose sessions
//! (goose's default location), else the fixtures bundled with Palimpsest.
//!
//! goose's location is core's (`sources::goose::default_locations`, goose's own rules); the
//! fixtures are found from `PALIMPSEST_FIXTURES`, then next to the executable
//! (`target/debug/..` in a checkout), then in the working directory. Reading the sessions is
//! core's job; this only picks paths.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use palimpsest_core::rpc::SourceOrigin;

use crate::state::StartupSource;

/// The sources to open on start, given the process arguments (without the program name).
pub fn startup_sources(args: impl Iterator<Item = OsString>) -> Vec<StartupSource> {
    let env = |k: &str| std::env::var_os(k);
    if let Some(p) = path_argument(args) {
        let label = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string());
        return vec![StartupSource {
            label,
            path: p,
            origin: SourceOrigin::Argument,
        }];
    }
    let goose: Vec<StartupSource> = palimpsest_core::sources::goose::default_locations()
        .into_iter()
        .filter(|d| holds_goose_sessions(d))
        .map(|path| StartupSource {
            label: "goose".into(),
            path,
            origin: SourceOrigin::Goose,
        })
        .collect();
    if !goose.is_empty() {
        return goose;
    }
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    fixtures_dir(&env, exe.as_deref(), cwd.as_deref())
        .map(|path| StartupSource {
            label: "fixtures".into(),
            path,
            origin: SourceOrigin::Fixtures,
        })
        .into_iter()
        .collect()
}

/// The first argument that is not a flag, made absolute against the working directory.
pub fn path_argument(args: impl Iterator<Item = OsString>) -> Option<PathBuf> {
    let arg = args
        .map(PathBuf::from)
        .find(|a| !a.to_string_lossy().starts_with('-'))?;
    Some(std::path::absolute(&arg).unwrap_or(arg))
}

/// True when `dir` holds a goose database or legacy session files.
fn holds_goose_sessions(dir: &Path) -> bool {
    if dir.join("sessions.db").is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
    })
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
