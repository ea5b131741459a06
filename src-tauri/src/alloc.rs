//! The app's allocator: mimalloc, as the command's (see the workspace manifest), giving memory
//! back to the system as soon as it is freed.
//!
//! mimalloc purges a freed page (hands it back with `madvise`) 10 ms after it is freed, but
//! only when the thread that owns the page next calls into the allocator. The app's heavy
//! work runs on threads that end or go idle right after it: the background index update's
//! workers, the read ahead for the live follower, the commands' runtime. Their delayed purges
//! never ran, so a 210 MB transcript followed live kept about 120 MB of freed pages resident
//! for as long as the window stayed open (417–440 MB, against 295–305 MB purged at once).
//!
//! mimalloc reads its options from the environment when the process starts, before `main`,
//! and setting one from Rust is `unsafe` (forbidden here): the app asks to be started again
//! with the variable set (`relaunch`). The command ends when its work does and keeps the
//! default.

use std::ffi::OsString;

/// mimalloc's variable for the delay before a freed page is purged, in milliseconds.
pub const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// The variable to start the app with, unless the user set it (their choice is kept).
pub fn wanted(var: impl Fn(&str) -> Option<OsString>) -> Option<(&'static str, &'static str)> {
    var(PURGE_DELAY).is_none().then_some((PURGE_DELAY, "0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_pages_are_purged_at_once_unless_the_user_chose_a_delay() {
        assert_eq!(
            wanted(|_| None),
            Some((PURGE_DELAY, "0")),
            "nothing set: the app starts with purging at once"
        );
        assert_eq!(
            wanted(|name| (name == PURGE_DELAY).then(|| OsString::from("250"))),
            None,
            "a delay the user set is theirs, kept"
        );
    }
}
