//! One spill file's text for the app's Spills view, read only when the path is allowed.
//!
//! A spill path comes from untrusted transcript text. [`spill_text`] reads a file only when the
//! review found it inside the session's folders ([`SpillStatus::Present`]); a file outside them
//! ([`SpillStatus::NeedsConfirmation`]) is read only when the caller passes the user's explicit
//! confirmation of that exact full path. Any other path is refused, so a caller cannot name an
//! arbitrary file. Reading is read-only and capped; listing and confinement are `review`'s.

use std::path::PathBuf;

use super::confine::{Resolution, read_confined};
use super::review::{SpillEntry, SpillReview, SpillStatus};
use crate::error::{Error, Result};

/// The user's answer to "Open anyway: /full/path".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation<'a> {
    /// No confirmation: only files inside the session's folders are read.
    None,
    /// The user confirmed opening exactly this full path.
    Path(&'a str),
}

/// The entry of `review` whose resolved path is `file`, with up to `max` bytes of its text.
/// Refuses a file the review does not list, a file outside the session's folders without a
/// matching confirmation, and files that are missing or were never saved.
pub fn spill_text(
    review: &SpillReview,
    file: &str,
    confirmation: Confirmation,
    max: usize,
) -> Result<SpillEntry> {
    let entry = review
        .spills
        .iter()
        .find(|e| e.resolved.as_deref() == Some(file))
        .ok_or_else(|| {
            Error::Refused(format!(
                "{file}: not a spill file of session `{}`; only listed spill files are opened",
                review.session_id
            ))
        })?;
    let mut e = entry.clone();
    let canonical = match e.status {
        SpillStatus::Present | SpillStatus::Unreadable => PathBuf::from(file),
        SpillStatus::NeedsConfirmation => {
            if confirmation != Confirmation::Path(file) {
                return Err(Error::Refused(format!(
                    "{file} is outside the session's folders: it is opened only after the user \
                     confirms this exact path"
                )));
            }
            std::fs::canonicalize(file).map_err(|err| Error::io(file, err))?
        }
        SpillStatus::Missing => {
            return Err(Error::io(
                file,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        SpillStatus::NotSaved => {
            return Err(Error::Refused(format!(
                "{file}: the session says the full text was never saved"
            )));
        }
        SpillStatus::Stored => {
            return Err(Error::Refused(format!(
                "{file}: kept in the session itself, not in a file"
            )));
        }
    };
    if !canonical.is_file() {
        return Err(Error::Refused(format!("{file} is not a regular file")));
    }
    // The confirmation (or the review's confinement) is what allows the read.
    let (text, cut) = read_confined(&Resolution::Inside(canonical.clone()), max)
        .map_err(|err| Error::io(&canonical, err))?;
    e.size_bytes = std::fs::metadata(&canonical).ok().map(|m| m.len());
    if !cut && (!e.head.is_empty() || !e.tail.is_empty()) {
        e.head_tail_match = Some(text.starts_with(&e.head) && text.ends_with(&e.tail));
    }
    e.status = SpillStatus::Present;
    e.spill_text = Some(text);
    e.spill_text_truncated = cut;
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::SpillKind;

    fn entry(resolved: &str, status: SpillStatus) -> SpillEntry {
        SpillEntry {
            path: Some(resolved.to_owned()),
            resolved: Some(resolved.to_owned()),
            kind: SpillKind::CapMarker,
            status,
            size_bytes: None,
            message_index: Some(3),
            call_index: Some(2),
            tool: Some("shell".into()),
            total_bytes: Some(12),
            omitted_bytes: Some(4),
            head: "abcd".into(),
            tail: "ijkl".into(),
            spill_text: None,
            spill_text_truncated: false,
            head_tail_match: None,
            read_by: Vec::new(),
        }
    }

    fn review(spills: Vec<SpillEntry>) -> SpillReview {
        SpillReview {
            session_id: "s".into(),
            roots: Vec::new(),
            suggested_roots: Vec::new(),
            problems: Vec::new(),
            spills,
            present: 0,
            missing: 0,
            not_saved: 0,
            needs_confirmation: 0,
            stored: 0,
            total_bytes: 0,
        }
    }

    #[test]
    fn outside_file_is_read_only_with_the_exact_confirmation() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("spill.txt");
        std::fs::write(&f, "abcdefghijkl").unwrap();
        let p = f.canonicalize().unwrap().to_string_lossy().into_owned();
        let r = review(vec![entry(&p, SpillStatus::NeedsConfirmation)]);

        let refused = spill_text(&r, &p, Confirmation::None, 100).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("outside the session's folders"),
            "without confirmation the file is not read: {refused}"
        );
        let wrong = spill_text(&r, &p, Confirmation::Path("/etc/passwd"), 100);
        assert!(
            wrong.is_err(),
            "a confirmation of another path does not open this one"
        );
        let e = spill_text(&r, &p, Confirmation::Path(&p), 100).unwrap();
        assert_eq!(
            e.spill_text.as_deref(),
            Some("abcdefghijkl"),
            "the confirmed file is read whole"
        );
        assert_eq!(e.head_tail_match, Some(true), "head and tail are checked");
        assert_eq!(e.size_bytes, Some(12), "the size is reported");
    }

    #[test]
    fn unlisted_paths_and_missing_files_are_refused() {
        let r = review(vec![entry("/nowhere/x.txt", SpillStatus::Missing)]);
        let e =
            spill_text(&r, "/etc/hostname", Confirmation::Path("/etc/hostname"), 10).unwrap_err();
        assert!(
            e.to_string().contains("not a spill file"),
            "a path the session does not list is never opened, confirmed or not: {e}"
        );
        let e = spill_text(&r, "/nowhere/x.txt", Confirmation::None, 10).unwrap_err();
        assert_eq!(
            e.code(),
            crate::error::ErrorCode::NotFound,
            "a missing spill file is reported as missing"
        );
    }

    #[test]
    fn long_files_are_cut_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big.txt");
        std::fs::write(&f, "x".repeat(50)).unwrap();
        let p = f.canonicalize().unwrap().to_string_lossy().into_owned();
        let r = review(vec![entry(&p, SpillStatus::Present)]);
        let e = spill_text(&r, &p, Confirmation::None, 20).unwrap();
        assert_eq!(
            e.spill_text.as_deref().map(str::len),
            Some(20),
            "cut at 20 bytes"
        );
        assert!(e.spill_text_truncated, "the cut is flagged");
        assert_eq!(e.head_tail_match, None, "a cut text is not compared");
    }
}
