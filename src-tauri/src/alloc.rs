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
//! The window's own libraries (GTK, WebKit, their IPC) allocate with glibc's malloc. After
//! glibc frees a big block (a page of rows handed to the page is one) it raises its trim
//! threshold up to 64 MB, and keeps that much freed memory at the top of its heap from then on.
//! Setting the threshold (to glibc's own default, 128 KiB) keeps it there: a 210 MB
//! transcript followed live held 124–151 MB of private memory (median 130), against 140–160 MB.
//!
//! Both allocators read their options from the environment when the process starts, before
//! `main`, and setting one from Rust is `unsafe` (forbidden here): the app asks to be started
//! again with the variables set (`relaunch`). The command ends when its work does and keeps
//! the defaults.

use std::ffi::OsString;

/// mimalloc's variable for the delay before a freed page is purged, in milliseconds.
pub const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// glibc's variable for how much freed memory at the top of its heap it keeps, in bytes.
pub const TRIM_THRESHOLD: &str = "MALLOC_TRIM_THRESHOLD_";

/// The variables to start the app with, each unless the user set it (their choice is kept).
pub fn wanted(var: impl Fn(&str) -> Option<OsString>) -> Vec<(&'static str, &'static str)> {
    [(PURGE_DELAY, "0"), (TRIM_THRESHOLD, "131072")]
        .into_iter()
        .filter(|(name, _)| var(name).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_goes_back_at_once_unless_the_user_chose_otherwise() {
        assert_eq!(
            wanted(|_| None),
            vec![(PURGE_DELAY, "0"), (TRIM_THRESHOLD, "131072")],
            "nothing set: the app starts purging at once, with glibc's threshold held"
        );
        assert_eq!(
            wanted(|name| (name == PURGE_DELAY).then(|| OsString::from("250"))),
            vec![(TRIM_THRESHOLD, "131072")],
            "a delay the user set is theirs, kept; the threshold is still set"
        );
        assert_eq!(
            wanted(|_| Some(OsString::from("1"))),
            vec![],
            "both set by the user: the app is not started again for them"
        );
    }
}
