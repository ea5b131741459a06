//! Starting the app again with the environment it needs, before anything else runs: what
//! `painting` and `alloc` ask for is read by WebKit's renderer process and by mimalloc when
//! a process starts, and setting a variable in a running process is `unsafe` in Rust 2024
//! (the workspace forbids `unsafe`). So the app executes itself again with them set: the same
//! process id, arguments and environment otherwise. Once they are set nothing is asked for, so
//! it happens at most once.

use std::os::unix::process::CommandExt;

/// Run this program again with `vars` set, when there are any. Returns only when it does not:
/// nothing to set, or the exec failed (then the app runs as it is, which costs speed or
/// memory, never correctness).
pub fn with(vars: &[(&str, &str)]) {
    if vars.is_empty() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .envs(vars.iter().copied())
        .exec();
    let names: Vec<&str> = vars.iter().map(|(name, _)| *name).collect();
    eprintln!(
        "palimpsest-app: cannot restart with {} set ({error}); running without",
        names.join(", ")
    );
}
