//! Errors of the core library. Every variant names the file, and the line or row when there is
//! one, so a user can find the bad input; callers decide whether an error is fatal (a missing
//! file) or one bad row among many (readers turn those into error messages and carry on).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Result alias for the core library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading or analysing sessions.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file or folder could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// SQLite refused the file or a query failed.
    #[error("{}: {source}", path.display())]
    Sqlite {
        /// The database.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file is readable but is not what it should be (not SQLite, not goose, empty...).
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, in words a user can act on.
        message: String,
    },
    /// One line of a line-oriented file is bad.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// One row of a database is bad.
    #[error("{}: row {row}: {message}", path.display())]
    Row {
        /// The database.
        path: PathBuf,
        /// The row id.
        row: i64,
        /// What is wrong.
        message: String,
    },
    /// No source format recognised the file.
    #[error("{}: not a session file or folder Palimpsest can read ({reason})", path.display())]
    Unrecognised {
        /// The file or folder.
        path: PathBuf,
        /// Why each reader declined, shortest first.
        reason: String,
    },
    /// The session id is not in the file.
    #[error("{}: no session with id `{id}`", path.display())]
    NoSuchSession {
        /// The file or folder.
        path: PathBuf,
        /// The id asked for.
        id: String,
    },
    /// The path holds several sessions and none was chosen.
    #[error("{}: holds {count} sessions ({ids}); choose one with --session", path.display())]
    AmbiguousSession {
        /// The file or folder.
        path: PathBuf,
        /// How many.
        count: usize,
        /// The first few ids.
        ids: String,
    },
    /// A message, request or cut past the end of the session (the text says which, and how
    /// many there are).
    #[error("{0}")]
    OutOfRange(String),
    /// A file the session does not list, or outside the folders it may be read from without
    /// the user's confirmation: never opened.
    #[error("{0}")]
    Refused(String),
    /// A pattern the user gave that does not compile or lacks what it needs.
    #[error("{0}")]
    BadPattern(String),
    /// The system would not watch a file or folder.
    #[error("{0}")]
    Watch(String),
    /// A chart could not be drawn.
    #[error("chart drawing failed: {0}")]
    Chart(String),
    /// An export's receiver (an OpenTelemetry collector) could not be reached or refused it;
    /// the text names the address and what it answered.
    #[error("{0}")]
    Send(String),
    /// The work was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
    /// One of Palimpsest's own caches (the index) is damaged: it was set aside and is built
    /// again by the next opener, which a caller may be right away.
    #[error("{}: {message}", path.display())]
    CacheDamaged {
        /// The cache file.
        path: PathBuf,
        /// What SQLite said, and where the damaged file now is.
        message: String,
    },
}

/// Machine codes of an [`Error`] (and of the app's `IpcError`): the UI and scripts branch on
/// these, never on message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The file or folder does not exist.
    NotFound,
    /// It could not be read.
    Io,
    /// SQLite refused it.
    Sqlite,
    /// It is readable but malformed.
    BadInput,
    /// No reader recognised it.
    Unrecognised,
    /// The session id is not there.
    NoSuchSession,
    /// Several sessions and none chosen.
    AmbiguousSession,
    /// A bad parameter (e.g. a message index past the end).
    Invalid,
    /// The work was cancelled.
    Cancelled,
    /// Anything else.
    Internal,
}

impl ErrorCode {
    /// The code as the CLI's JSON and the index's problems spell it (`not_found`, `io`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::Io => "io",
            Self::Sqlite => "sqlite",
            Self::BadInput => "bad_input",
            Self::Unrecognised => "unrecognised",
            Self::NoSuchSession => "no_such_session",
            Self::AmbiguousSession => "ambiguous_session",
            Self::Invalid => "invalid",
            Self::Cancelled => "cancelled",
            Self::Internal => "internal",
        }
    }
}

/// A failure as front ends show it: a stable code and a message naming the file (and line or
/// row). What every app command rejects with, and what a listing or an index update reports of
/// each file that failed while the rest loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Problem {
    /// What kind of failure ([`Error::code`]).
    pub code: ErrorCode,
    /// What failed, naming the file (and line or row).
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl From<&Error> for Problem {
    fn from(e: &Error) -> Self {
        Problem {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl From<Error> for Problem {
    fn from(e: Error) -> Self {
        Problem::from(&e)
    }
}

impl Error {
    /// The machine code for the UI and CLI (`{code, message}`); never parse the message. A
    /// match without a wildcard: a new variant does not compile until it has its code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorCode::NotFound
            }
            Error::Io { .. } => ErrorCode::Io,
            Error::Sqlite { .. } => ErrorCode::Sqlite,
            Error::Format { .. } | Error::Line { .. } | Error::Row { .. } => ErrorCode::BadInput,
            Error::Unrecognised { .. } => ErrorCode::Unrecognised,
            Error::NoSuchSession { .. } => ErrorCode::NoSuchSession,
            Error::AmbiguousSession { .. } => ErrorCode::AmbiguousSession,
            Error::OutOfRange(_) | Error::Refused(_) | Error::BadPattern(_) => ErrorCode::Invalid,
            Error::Watch(_) => ErrorCode::Io,
            Error::Chart(_) => ErrorCode::Internal,
            Error::Send(_) => ErrorCode::Io,
            Error::Cancelled => ErrorCode::Cancelled,
            Error::CacheDamaged { .. } => ErrorCode::Io,
        }
    }

    /// Shorthand for [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Shorthand for [`Error::Format`].
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_failure_has_the_code_the_window_branches_on() {
        let cases = [
            (Error::OutOfRange("no request 9".into()), ErrorCode::Invalid),
            (
                Error::Refused("/etc/passwd: not a spill file".into()),
                ErrorCode::Invalid,
            ),
            (
                Error::BadPattern("spill pattern `(`".into()),
                ErrorCode::Invalid,
            ),
            (Error::Watch("cannot watch /x".into()), ErrorCode::Io),
            (Error::Chart("no room".into()), ErrorCode::Internal),
            (Error::Cancelled, ErrorCode::Cancelled),
        ];
        for (e, code) in cases {
            assert_eq!(e.code(), code, "{e}: a {} failure", code.as_str());
        }
        assert_eq!(
            Error::Chart("no room".into()).to_string(),
            "chart drawing failed: no room",
            "a chart failure says what failed"
        );
    }
}
