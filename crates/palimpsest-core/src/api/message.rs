//! One whole message for the inspector (with its stored text and edit diffs), and a message
//! or cut as Markdown for the clipboard. Re-exported from [`crate::api`]; the Markdown itself is
//! [`crate::markdown`]'s, the diffs [`crate::analysis::edits`]'.

use std::path::Path;

use super::{load_session, session_cuts};
use crate::error::{Error, Result};
use crate::model::Session;
use crate::sources;

/// The stored text of message `index` of session `id` under `path` (`SessionSource::raw`).
pub fn raw_message(path: &Path, id: &str, index: usize) -> Result<Option<String>> {
    let catalog = sources::open(path)?;
    // A single file or database is one source: ask it directly instead of listing it first
    // (listing a big single-file log means reading it whole).
    if let [only] = catalog.sources.as_slice() {
        return only.raw(id, index);
    }
    for s in &catalog.sources {
        if let Ok(list) = s.list()
            && list.iter().any(|m| m.id == id)
        {
            return s.raw(id, index);
        }
    }
    Err(Error::NoSuchSession {
        path: path.to_owned(),
        id: id.to_owned(),
    })
}

/// Message `index` of an already loaded session, whole, with its stored text from `path` when
/// `with_raw` is set.
pub fn message_detail(
    path: &Path,
    session: &Session,
    index: usize,
    with_raw: bool,
) -> Result<crate::views::MessageDetail> {
    let message = session
        .iter()
        .find(|m| m.index == index)
        .cloned()
        .ok_or_else(|| {
            Error::OutOfRange(format!(
                "{}: session `{}` has no message {index} (it holds {})",
                path.display(),
                session.meta.id,
                session.messages.len()
            ))
        })?;
    let raw = if with_raw {
        raw_message(path, &session.meta.id, index)?
    } else {
        None
    };
    let edits = crate::analysis::edits::of_message(&message);
    Ok(crate::views::MessageDetail {
        message,
        raw,
        edits,
        from_index: false,
    })
}

/// Message `index` of session `id` under `path`, whole, with its stored text.
pub fn get_message(path: &Path, id: &str, index: usize) -> Result<crate::views::MessageDetail> {
    let session = load_session(path, Some(id))?;
    message_detail(path, &session, index, true)
}

/// A message, a cut's summary or a whole cut of a loaded session as Markdown
/// ([`crate::markdown`]); an error names what the session holds instead.
/// `counts`: the session's counts once it is counted ([`super::session_counts`]).
pub fn markdown(
    session: &Session,
    of: crate::rpc::MarkdownOf,
    counts: Option<&crate::tokens::counter::Counted>,
) -> Result<String> {
    use crate::rpc::MarkdownOf;
    let no = |what: &str, n: usize, holds: usize| {
        Error::OutOfRange(format!(
            "session `{}` has no {what} {n} (it holds {holds})",
            session.meta.id
        ))
    };
    match of {
        MarkdownOf::Message(i) => session
            .messages
            .iter()
            .find(|m| m.index == i)
            .map(|m| crate::markdown::message(m))
            .ok_or_else(|| no("message", i, session.messages.len())),
        MarkdownOf::Summary(c) | MarkdownOf::Cut(c) => {
            let cuts = session_cuts(session, counts);
            let cut = cuts
                .cuts
                .get(c)
                .ok_or_else(|| no("cut", c + 1, cuts.cuts.len()))?;
            Ok(match of {
                MarkdownOf::Summary(_) => crate::markdown::summary(cut),
                _ => crate::markdown::cut(session, cut),
            })
        }
    }
}
