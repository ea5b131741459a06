//! The app's allocators, told at start to give memory back to the system as soon as it is
//! freed. What is decided here is which settings to make; `main` makes them, before any thread.
//!
//! mimalloc (the app's allocator, as the command's: see the workspace manifest) purges a freed
//! page 10 ms after it is freed, but only when the thread that owns the page next calls into
//! the allocator. The app's heavy work runs on threads that end or go idle right after it (the
//! background index update's workers, the read ahead for the live follower, the commands'
//! runtime), so those delayed purges never ran and a transcript followed live kept its freed
//! pages resident for as long as the window stayed open. A purge delay of 0 purges at once.
//!
//! The window's own libraries (GTK, WebKit, their IPC) allocate with glibc's malloc. After glibc
//! frees a big block (a page of rows handed to the page is one) it raises its trim threshold up
//! to 64 MB and keeps that much freed memory at the top of its heap. Setting the threshold
//! explicitly (to glibc's own default, 128 KiB) turns that adjustment off.
//!
//! Both allocators read their environment variables before `main` runs, so setting a variable
//! then would change nothing: the settings are made through each allocator's own call. A user
//! who set either variable chose for themselves, and is left alone. The command ends when its
//! work does and keeps the defaults.

use std::ffi::OsString;

/// mimalloc's variable for the delay before a freed page is purged, in milliseconds.
pub const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// glibc's variable for how much freed memory at the top of its heap it keeps, in bytes.
pub const TRIM_THRESHOLD: &str = "MALLOC_TRIM_THRESHOLD_";

/// mimalloc's `mi_option_purge_delay` in its v2 line (the line the workspace builds:
/// `include/mimalloc.h`'s `mi_option_e`, whose sys crate names no constant for it). The test
/// below reads the option's default back through this number.
pub const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// A setting to make at start: which allocator option, to what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// mimalloc's purge delay, in milliseconds.
    PurgeDelay(i32),
    /// glibc's trim threshold, in bytes.
    TrimThreshold(i32),
}

/// The settings to make, each unless the user set its variable (their choice is kept).
pub fn wanted(var: impl Fn(&str) -> Option<OsString>) -> Vec<Setting> {
    [
        (PURGE_DELAY, Setting::PurgeDelay(0)),
        (TRIM_THRESHOLD, Setting::TrimThreshold(131_072)),
    ]
    .into_iter()
    .filter(|(name, _)| var(name).is_none())
    .map(|(_, setting)| setting)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_goes_back_at_once_unless_the_user_chose_otherwise() {
        assert_eq!(
            wanted(|_| None),
            vec![Setting::PurgeDelay(0), Setting::TrimThreshold(131_072)],
            "nothing set: the app purges at once, with glibc's threshold held"
        );
        assert_eq!(
            wanted(|name| (name == PURGE_DELAY).then(|| OsString::from("250"))),
            vec![Setting::TrimThreshold(131_072)],
            "a delay the user set is theirs, kept; the threshold is still set"
        );
        assert_eq!(
            wanted(|_| Some(OsString::from("1"))),
            vec![],
            "both set by the user: nothing is changed for them"
        );
    }

    #[test]
    fn the_purge_delay_option_is_the_one_mimalloc_documents() {
        // mimalloc reads its variable for this option, when set, else the documented 10 ms.
        let expected = std::env::var(PURGE_DELAY)
            .ok()
            .and_then(|v| v.trim().parse::<std::os::raw::c_long>().ok())
            .unwrap_or(10);
        // SAFETY: reading an option only; mimalloc initialises it on first read.
        #[allow(unsafe_code)]
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(
            delay, expected,
            "option {MI_OPTION_PURGE_DELAY} is mimalloc v2's purge delay (default 10 ms)"
        );
    }
}
