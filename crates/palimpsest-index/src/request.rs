//! What the model saw at one request, answered from the index: the Requests tab of a 200 MB
//! transcript without reading it whole (a read of seconds, and the session's size in memory
//! again). The requests and both rule sets' lint come from the cut view the index keeps; the
//! context's messages from their rows, each of which says for which requests it was in the
//! model's context (`rows::MessageRow::seen`); their tokens from the BPE counts kept beside
//! them. The same view made from a loaded session is [`crate::views::cuts::request_view`].

use std::path::Path;

use rusqlite::params;

use super::Index;
use crate::error::Result;
use crate::views::cuts::RequestView;
use crate::views::timeline::TimelineRow;

impl Index {
    /// The view of request `number` (1-based; one past the last answered request is the next
    /// request; `None` asks for the next one) of session `id` under `path`, when the index
    /// holds its file as it is and the request exists; `None` otherwise (the caller reads the
    /// session, which also says why a request does not exist).
    pub fn request_view(
        &self,
        path: &Path,
        id: Option<&str>,
        number: Option<usize>,
    ) -> Result<Option<RequestView>> {
        let Some(s) = self.indexed_session(path, id, super::AsOf::Same)? else {
            return Ok(None);
        };
        let Ok(meta) = serde_json::from_str::<crate::model::SessionMeta>(&s.meta) else {
            return Ok(None);
        };
        let Some(cuts) = self.row_json::<crate::views::cuts::SessionCuts>(s.rowid, "cut_views")?
        else {
            return Ok(None);
        };
        // The cut view lists the answered requests, then the next one.
        let number = number.unwrap_or(cuts.requests.len());
        let Some(info) = number
            .checked_sub(1)
            .and_then(|i| cuts.requests.get(i))
            .filter(|r| r.number == number)
        else {
            return Ok(None);
        };
        let count: i64 = self
            .conn
            .query_row(
                "SELECT messages FROM sessions WHERE id = ?1",
                params![s.rowid],
                |r| r.get(0),
            )
            .map_err(|e| self.sql(e))?;
        // The answer's position (a message's index is its position); the next request's is
        // one past the last message.
        let t = info.answer_index.map_or(count, |a| a as i64);
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT row_json, tokens FROM messages
                 WHERE session = ?1 AND idx < ?2 AND seen_from < ?2
                     AND (seen_until IS NULL OR ?2 <= seen_until)
                 ORDER BY idx",
            )
            .map_err(|e| self.sql(e))?;
        let mut rows: Vec<TimelineRow> = Vec::new();
        let mut tokens = 0u64;
        let mut found = q.query(params![s.rowid, t]).map_err(|e| self.sql(e))?;
        while let Some(r) = found.next().map_err(|e| self.sql(e))? {
            let json: String = r.get(0).map_err(|e| self.sql(e))?;
            let Ok(row) = serde_json::from_str(&json) else {
                return Ok(None);
            };
            rows.push(row);
            // Every message of an indexed session is counted; one that is not leaves the
            // session's path to count it.
            let Some(n) = r.get::<_, Option<i64>>(1).map_err(|e| self.sql(e))? else {
                return Ok(None);
            };
            tokens += n as u64;
        }
        let encoding = crate::tokens::Encoding::for_model(meta.model.as_deref());
        let findings = cuts
            .lint
            .into_iter()
            .flat_map(|l| l.findings)
            .filter(|f| {
                f.first_request.is_some_and(|a| a <= number)
                    && f.last_request.is_some_and(|b| number <= b)
            })
            .collect();
        Ok(Some(RequestView {
            request: number,
            requests: cuts.requests.len(),
            answer_index: info.answer_index,
            after_cut: info.after_cut,
            rows,
            tokens_counted: tokens,
            token_method: crate::tokens::counter::Counter::method(
                &crate::tokens::counter::Bpe::new(encoding),
            )
            .to_owned(),
            findings,
        }))
    }
}
