//! Errors of the core library. Every variant names the file, and the line or row when there is
//! one, so a user can find the bad input; callers decide whether an error is fatal (a missing
//! file) or one bad row among many (readers turn those into error messages and carry on).

use std::path::PathBuf;

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
    /// A caller asked for something that does not make sense (bad parameter).
    #[error("{0}")]
    Invalid(String),
    /// The work was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// A short machine code for the UI and CLI (`{code, message}`); never parse the message.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                "not_found"
            }
            Error::Io { .. } => "io",
            Error::Sqlite { .. } => "sqlite",
            Error::Format { .. } | Error::Line { .. } | Error::Row { .. } => "bad_input",
            Error::Unrecognised { .. } => "unrecognised",
            Error::NoSuchSession { .. } => "no_such_session",
            Error::AmbiguousSession { .. } => "ambiguous_session",
            Error::Invalid(_) => "invalid",
            Error::Cancelled => "cancelled",
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
