//! The machine core works on: the user's home, Palimpsest's cache and config folders, and the
//! environment variables that move agents' folders (`CLAUDE_CONFIG_DIR`, `GOOSE_PATH_ROOT`,
//! `COWORKER_SCRATCH_BASE`, …). Core never reads the process environment itself: the CLI and
//! the app read it once at start and hand it over ([`install`]); a test passes its own
//! ([`Machine::new`], [`with`]). With nothing installed everything is empty (no default
//! folders, no caches, no user price table), so core computes the same wherever it runs.
//!
//! Which variable means what stays with the code that uses it (`sources::discovery`,
//! `sources::goose`, `sources::coworker`, `analysis::spill_roots`); this only carries them.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What core may know of the machine.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// The user's home folder.
    pub home: Option<PathBuf>,
    /// Palimpsest's cache folder (`$XDG_CACHE_HOME/palimpsest`): the index, token counts and
    /// database snapshots live there.
    pub cache_dir: Option<PathBuf>,
    /// Palimpsest's config folder (`$XDG_CONFIG_HOME/palimpsest`): the user's price table.
    pub config_dir: Option<PathBuf>,
    vars: BTreeMap<OsString, OsString>,
}

impl Machine {
    /// A machine with this home, the platform's cache and config folders (Palimpsest's own are
    /// `palimpsest` inside them) and these environment variables (empty values count as
    /// unset). The CLI and the app pass `dirs::home_dir()`, `dirs::cache_dir()`,
    /// `dirs::config_dir()` and `std::env::vars_os()`.
    pub fn new(
        home: Option<PathBuf>,
        cache_base: Option<PathBuf>,
        config_base: Option<PathBuf>,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Machine {
        Machine {
            home,
            cache_dir: cache_base.map(|d| d.join("palimpsest")),
            config_dir: config_base.map(|d| d.join("palimpsest")),
            vars: vars.into_iter().filter(|(_, v)| !v.is_empty()).collect(),
        }
    }

    /// The base of the user's state folders (goose keeps its logs there): `$XDG_STATE_HOME`
    /// when absolute, else `~/.local/state`.
    pub fn state_home(&self) -> Option<PathBuf> {
        self.var("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| self.home.as_ref().map(|h| h.join(".local/state")))
    }

    /// The variable `key`, when set and not empty.
    pub fn var(&self, key: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(key)).map(OsString::as_os_str)
    }

    /// The variable `key` as text, when set, not empty and UTF-8.
    pub fn var_str(&self, key: &str) -> Option<String> {
        self.var(key).and_then(OsStr::to_str).map(str::to_owned)
    }

    /// The variable `key` as a path.
    pub fn var_path(&self, key: &str) -> Option<PathBuf> {
        self.var(key).map(PathBuf::from)
    }

    /// The home folder, as `home` gives it.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}

static INSTALLED: OnceLock<Machine> = OnceLock::new();

thread_local! {
    static LOCAL: std::cell::RefCell<Option<&'static Machine>> = const { std::cell::RefCell::new(None) };
}

/// Hand core the machine, once, at start (the CLI's and the app's `main`); later calls are
/// ignored, so the first reading of the environment is the one everything uses. A program that
/// installs none gets no default folders, no caches, and no home to keep spill lookups out of.
pub fn install(machine: Machine) {
    let _ = INSTALLED.set(machine);
}

/// The machine core works on: the one [`with`] set on this thread, else the installed one,
/// else an empty one.
pub fn machine() -> &'static Machine {
    static EMPTY: OnceLock<Machine> = OnceLock::new();
    LOCAL
        .with(|l| *l.borrow())
        .or_else(|| INSTALLED.get())
        .unwrap_or_else(|| EMPTY.get_or_init(Machine::default))
}

/// Run `f` with `machine` as this thread's machine (tests: a home and variables of their own,
/// without touching the process environment other tests share).
pub fn with<T>(machine: Machine, f: impl FnOnce() -> T) -> T {
    let leaked: &'static Machine = Box::leak(Box::new(machine));
    let before = LOCAL.with(|l| l.replace(Some(leaked)));
    let out = f();
    LOCAL.with(|l| *l.borrow_mut() = before);
    out
}
