//! A [`Catalog`]: the sources found under a path (what [`super::open`] returns), listing their
//! sessions and loading one by id. Finding the sources is `super`'s walk; reading a format is
//! each reader's.

use std::path::Path;

use super::{Known, SessionSource};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta};

/// Everything found under one or more paths: the sources that opened and the ones that failed.
#[derive(Default)]
pub struct Catalog {
    /// Sources that opened.
    pub sources: Vec<Box<dyn SessionSource>>,
    /// Files that looked like sessions but failed to open, each naming its file.
    pub problems: Vec<Error>,
}

impl Catalog {
    /// Every session of every source; sources whose listing fails are reported in `problems`.
    pub fn list(&self) -> (Vec<SessionMeta>, Vec<Error>) {
        let (listed, problems) = self.list_each();
        (listed.into_iter().flatten().flatten().collect(), problems)
    }

    /// [`Catalog::list`], taking what `known` has instead of reading those files
    /// ([`SessionSource::list_known`]).
    pub fn list_known(&self, known: &Known<'_>) -> (Vec<SessionMeta>, Vec<Error>) {
        let (listed, problems) = self.list_each_with(Some(known));
        (listed.into_iter().flatten().flatten().collect(), problems)
    }

    /// Each source's listing, in source order (`None` where it failed), and the failures.
    fn list_each(&self) -> (Vec<Option<Vec<SessionMeta>>>, Vec<Error>) {
        self.list_each_with(None)
    }

    fn list_each_with(
        &self,
        known: Option<&Known<'_>>,
    ) -> (Vec<Option<Vec<SessionMeta>>>, Vec<Error>) {
        let mut listed = Vec::new();
        let mut problems = Vec::new();
        for s in &self.sources {
            let list = match known {
                Some(k) => s.list_known(k),
                None => s.list(),
            };
            match list {
                Ok(m) => listed.push(Some(m)),
                Err(e) => {
                    listed.push(None);
                    problems.push(e);
                }
            }
        }
        (listed, problems)
    }

    /// Load a session by id; with no id, the only session there is. Each source is asked
    /// once (a locked or slow database is waited for once, not once per question).
    pub fn load(&self, root: &Path, id: Option<&str>) -> Result<Session> {
        match id {
            Some(want) => self.load_id(root, want),
            None => self.load_only(root),
        }
    }

    /// Load session `want`: its source is found by where sessions live (heads only for
    /// transcripts), not by listing — a 200 MB transcript's listing reads it whole before the
    /// load reads it again.
    fn load_id(&self, root: &Path, want: &str) -> Result<Session> {
        // A database given alone holds the session or says it does not: its rows are asked
        // for directly (a listing of a 1 GB goose database costs more than the load).
        if let [only] = self.sources.as_slice()
            && super::sqlite::is_sqlite(root)
        {
            return only.load(want);
        }
        let mut failed = Vec::new();
        for s in &self.sources {
            match s.session_files() {
                Ok(files) if files.iter().any(|f| f.id == want) => return s.load(want),
                Ok(_) => {}
                // A locked or broken database is waited for once, and its error is the
                // answer when no other source holds the session.
                Err(e) => failed.push(e),
            }
        }
        if let Some(first) = failed.into_iter().next() {
            return Err(first);
        }
        // A file that could not be read may be where the session was: say why it failed
        // rather than that the session does not exist.
        if let Some(first) = self.problems.first() {
            return Err(Error::format(
                root,
                format!("no readable session `{want}`; a file here failed: {first}"),
            ));
        }
        Err(Error::NoSuchSession {
            path: root.to_owned(),
            id: want.to_owned(),
        })
    }

    /// Load the only session there is (a transcript with its subagents' runs counts as one).
    fn load_only(&self, root: &Path) -> Result<Session> {
        if let Some((source, id)) = self.sole_file() {
            return source.load(&id);
        }
        if let ([only], true) = (self.sources.as_slice(), self.problems.is_empty())
            && let Some(top) = only.load_top()
        {
            return top;
        }
        let (listed, mut problems) = self.list_each();
        let metas: Vec<&SessionMeta> = listed.iter().flatten().flatten().collect();
        let wanted = match metas.len() {
            // A transcript with its subagents' runs beside it holds one top-level session:
            // that is the one meant.
            n if n > 1 && metas.iter().filter(|m| m.parent_id.is_none()).count() == 1 => metas
                .iter()
                .find(|m| m.parent_id.is_none())
                .map(|m| m.id.clone())
                .unwrap_or_default(),
            1 => metas[0].id.clone(),
            0 => {
                return Err(if !problems.is_empty() {
                    problems.remove(0)
                } else if let Some(first) = self.problems.first() {
                    Error::format(root, format!("holds no readable session: {first}"))
                } else {
                    Error::format(root, "holds no sessions")
                });
            }
            n => {
                let ids: Vec<&str> = metas.iter().take(5).map(|m| m.id.as_str()).collect();
                return Err(Error::AmbiguousSession {
                    path: root.to_owned(),
                    count: n,
                    ids: ids.join(", "),
                });
            }
        };
        for (s, list) in self.sources.iter().zip(&listed) {
            if let Some(list) = list
                && list.iter().any(|m| m.id == wanted)
            {
                return s.load(&wanted);
            }
        }
        // A file that could not be read may be where the session was: say why it failed
        // rather than that the session does not exist.
        if let Some(first) = self.problems.iter().chain(&problems).next() {
            return Err(Error::format(
                root,
                format!("no readable session `{wanted}`; a file here failed: {first}"),
            ));
        }
        Err(Error::NoSuchSession {
            path: root.to_owned(),
            id: wanted,
        })
    }

    /// The one session file there is, found from heads alone, when every source can name its
    /// files that cheaply, none failed, and they name exactly one (a transcript given alone).
    /// `None` sends the caller to the listing, which also picks a transcript among its
    /// subagents' runs.
    fn sole_file(&self) -> Option<(&dyn SessionSource, String)> {
        if !self.problems.is_empty() || !self.sources.iter().all(|s| s.names_files_cheaply()) {
            return None;
        }
        let mut found = None;
        for s in &self.sources {
            for f in s.session_files().ok()? {
                if found.is_some() {
                    return None;
                }
                found = Some((s.as_ref(), f.id));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SourceFormat;
    use crate::sources::SessionFile;
    use std::path::PathBuf;

    /// A source naming `files` from heads; its listing fails loudly, so a load that lists is seen.
    struct Heads {
        files: Vec<&'static str>,
    }

    impl SessionSource for Heads {
        fn format(&self) -> SourceFormat {
            SourceFormat::ClaudeCode
        }
        fn path(&self) -> &Path {
            Path::new("/heads")
        }
        fn list(&self) -> Result<Vec<SessionMeta>> {
            Err(Error::format(Path::new("/heads"), "listed"))
        }
        fn load(&self, id: &str) -> Result<Session> {
            Ok(Session::in_memory(
                id,
                SourceFormat::ClaudeCode,
                Vec::new(),
                Vec::new(),
            ))
        }
        fn names_files_cheaply(&self) -> bool {
            true
        }
        fn session_files(&self) -> Result<Vec<SessionFile>> {
            Ok(self
                .files
                .iter()
                .map(|id| SessionFile {
                    id: (*id).to_owned(),
                    file: PathBuf::from(format!("/heads/{id}.jsonl")),
                    stamp: None,
                })
                .collect())
        }
    }

    fn catalog(files: Vec<&'static str>) -> Catalog {
        Catalog {
            sources: vec![Box::new(Heads { files })],
            problems: Vec::new(),
        }
    }

    #[test]
    fn one_file_loads_without_listing() {
        let s = catalog(vec!["only"]).load(Path::new("/heads"), None);
        assert_eq!(
            s.map(|s| s.meta.id).ok().as_deref(),
            Some("only"),
            "the one file's session loads from its head, and the listing (which fails here) is never asked"
        );
    }

    #[test]
    fn two_files_are_listed() {
        let e = catalog(vec!["a", "b"]).load(Path::new("/heads"), None);
        assert!(
            matches!(&e, Err(e) if e.to_string().contains("listed")),
            "two files need the listing to pick the top-level one: {:?}",
            e.map(|s| s.meta.id)
        );
    }
}
