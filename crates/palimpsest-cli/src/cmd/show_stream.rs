//! `show` of a session the index holds as it is: the same text or JSON as `show` prints from
//! the loaded session, written one message at a time as the index reads each by its offsets
//! (`palimpsest_core::index::StoredMessages`), so the session is never held whole.

use std::cell::RefCell;
use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::index::StoredMessages;
use palimpsest_core::model::{SessionMeta, View};
use serde::ser::{Error as _, Serialize, SerializeSeq, SerializeStruct, Serializer};

/// `{"session": meta, "messages": [...]}`, the messages streamed in.
struct Shown {
    meta: SessionMeta,
    messages: RefCell<Option<StoredMessages>>,
    view: View,
}

/// The messages of [`Shown`], each serialised as it is read.
struct Each<'a>(&'a Shown);

impl Serialize for Shown {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Shown", 2)?;
        st.serialize_field("session", &self.meta)?;
        st.serialize_field("messages", &Each(self))?;
        st.end()
    }
}

impl Serialize for Each<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for m in self.0.messages.borrow_mut().take().into_iter().flatten() {
            let m = m.map_err(S::Error::custom)?;
            if self.0.view.includes(&m) {
                seq.serialize_element(&m)?;
            }
        }
        seq.end()
    }
}

/// Print `stored` in `view`, as text or JSON.
pub fn run(stored: StoredMessages, view: View, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        crate::output::json(&Shown {
            meta: stored.meta.clone(),
            messages: RefCell::new(Some(stored)),
            view,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    super::show::heading(&mut out, &stored.meta)?;
    for m in stored {
        let m = m?;
        if view.includes(&m) {
            super::show::line(&mut out, &m)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
