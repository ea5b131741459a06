//! Loading, diagnosing and preparing the sessions an update found changed, on every core,
//! and writing them from one thread in one transaction. What to load is `super`'s; what a
//! row holds is `rows`', how it is written `store`'s.

use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

use super::rows::{self, Prepared};
use super::{IndexReport, store};
use crate::analysis::asked::DiagnoseOptions;
use crate::analysis::classified::Classified;
use crate::error::Problem;
use crate::error::Result;
use crate::model::Session;

use super::fingerprint::Fingerprint;
use super::snapshots::Snapshots;

/// A session its caller read already (the app, for the window), with its file's fingerprint
/// taken before the read: an update indexes it from this copy when the file is still as it
/// was, instead of reading a 2 GB transcript a second time (and holding two copies of it).
pub struct Given {
    /// The session's file, as its source lists it.
    pub file: PathBuf,
    /// Its id.
    pub id: String,
    /// The file's fingerprint from before it was read.
    pub print: Fingerprint,
    /// The session read.
    pub session: Arc<Session>,
}

/// The copy in `given` of session `id` of `file`, when the file's fingerprint `now` is the one
/// it was read at. Only a session that is its file's alone: one listed with a stamp of its
/// source's (a database's rows, an orphaned run) can change while its file does not.
pub(super) fn given_for(
    given: &[Given],
    file: &Path,
    id: &str,
    now: Option<&Fingerprint>,
    stamp: &Option<String>,
) -> Option<Arc<Session>> {
    let now = now.filter(|_| stamp.is_none())?;
    given
        .iter()
        .find(|g| g.id == id && g.print == *now && super::canonical(&g.file) == file)
        .map(|g| Arc::clone(&g.session))
}

/// One session to (re)load.
pub(super) struct Job {
    /// The session read already, when the caller gave it ([`Given`]).
    pub given: Option<Arc<Session>>,
    pub source: usize,
    pub id: String,
    pub file: String,
    pub stamp: String,
    pub size: u64,
    pub from: usize,
    /// For an appended file, what the index stored of it: its stamp and message count (its
    /// reader's snapshot is tagged so, [`tag`]).
    pub was: Option<String>,
    pub existed: bool,
}

/// Load, diagnose and prepare the jobs on every core; write them here, in one transaction.
pub(super) fn run(
    index: &mut super::Index,
    catalog: &crate::sources::Catalog,
    jobs: Vec<Job>,
    opts: &DiagnoseOptions,
    report: &mut IndexReport,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<()> {
    let token_dir = super::token_dir(&index.path);
    let token_dir = token_dir.as_deref();
    let snapshots = super::snapshots::Snapshots::beside(&index.path);
    let snapshots = snapshots.as_ref();
    let (conn, path) = (&mut index.conn, index.path.as_path());
    let total = jobs.len();
    progress(0, total);
    if total == 0 {
        return Ok(());
    }
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(total);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = mpsc::sync_channel::<(usize, Result<(Prepared, bool)>)>(workers * 2);
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (jobs, next) = (&jobs, &next);
            scope.spawn(move || {
                loop {
                    if opts.cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let (prepared, keep) =
                        match prepare(catalog, job, opts, token_dir, snapshots, path) {
                            Ok((p, resumed, keep)) => (Ok((p, resumed)), keep),
                            Err(e) => (Err(e), None),
                        };
                    if tx.send((i, prepared)).is_err() {
                        break;
                    }
                    // Kept while the rows are written: each took its turn before. Not kept
                    // only costs the next update a whole read.
                    if let (Some((read, tag)), Some(s)) = (keep, snapshots) {
                        let _ = s.save(&read.reader, &job.file, &job.id, &tag);
                    }
                }
            });
        }
        drop(tx);
        let sql = |e: rusqlite::Error| super::index_error(path, e);
        let db = conn.transaction().map_err(sql)?;
        for (done, (i, prepared)) in rx.into_iter().enumerate() {
            let job = &jobs[i];
            match prepared {
                Ok((p, resumed)) => {
                    // A kept reader says which messages its read changed (`rows_from`): a
                    // later block of an earlier response may reach back past the last one.
                    let from = if resumed { p.rows_from } else { job.from };
                    store::write(&db, &job.file, &job.stamp, job.size, &p, from).map_err(sql)?;
                    if !job.existed {
                        report.added += 1;
                    } else {
                        report.updated += 1;
                        report.appended += usize::from(job.from > 0);
                        report.resumed += usize::from(resumed);
                    }
                }
                Err(e) => {
                    let problem = Problem::from(&e);
                    store::write_failure(&db, &job.file, &job.id, &job.stamp, &problem.message)
                        .map_err(sql)?;
                    report.problems.push(problem);
                }
            }
            progress(done + 1, total);
        }
        // Cancelled: what was indexed is kept, and the next update goes on from there.
        db.commit().map_err(sql)?;
        if opts.cancelled() {
            return Err(crate::error::Error::Cancelled);
        }
        if let Some(s) = snapshots {
            s.prune(super::snapshots::KEEP_BYTES);
        }
        Ok(())
    })
}

/// Load one session and make its rows, and whether it was read from a kept reader's offset
/// (`snapshots`; its rows then start at the first message that read changed). Its messages
/// are counted with the BPE vocabulary of its model through the token cache in `token_dir`
/// (so the Tokens view reuses the counts); a cache that cannot be opened only costs speed. An
/// appended file's reader comes back with its tag, for the caller to keep in `snapshots` for
/// the next update.
fn prepare(
    catalog: &crate::sources::Catalog,
    job: &Job,
    opts: &DiagnoseOptions,
    token_dir: Option<&Path>,
    snapshots: Option<&Snapshots>,
    index: &Path,
) -> Result<(Prepared, bool, Option<ToKeep>)> {
    let source = &*catalog.sources[job.source];
    let (kept, stored) = std::thread::scope(|scope| {
        // The piece counts the index kept of the messages it has, read on another core while
        // the kept reader reads on (one core, the other idle); cut below to the messages the
        // reader left unchanged.
        let stored = (job.given.is_none() && job.was.is_some() && job.from > 0)
            .then(|| scope.spawn(|| super::pieces::earlier(index, &job.file, &job.id, job.from)));
        let kept = match (&job.given, &job.was, snapshots) {
            (None, Some(was), Some(s)) => s.read(source, &job.file, &job.id, was).transpose(),
            // Written lately, it is likely being written: read whole by a reader that goes on,
            // kept, so even the first line appended is read on from here.
            (None, None, Some(s)) if written_lately(&job.file) => {
                s.open(source, &job.id).transpose()
            }
            _ => Ok(None),
        };
        let stored = stored.and_then(|h| h.join().ok().flatten());
        (kept, stored)
    });
    let kept = kept?;
    let read = match (&job.given, &kept) {
        (Some(s), _) => Arc::clone(s),
        (None, Some(k)) => k.reader.session(),
        (None, None) => Arc::new(source.load(&job.id)?),
    };
    // Rows of messages the kept reader did not change are as the index has them; the last
    // stored one is made again all the same: another update of the same file at the same
    // stamp may have stored it before a later block of its response.
    let rows_from = kept
        .as_ref()
        .and_then(|k| k.changed_from)
        .map_or(0, |k| k.min(job.from));
    let prepared = make(job, read, rows_from, stored, opts, token_dir)?;
    let resumed = kept.as_ref().is_some_and(|k| k.changed_from.is_some());
    let tag = tag(&job.stamp, prepared.session.messages.len());
    Ok((prepared, resumed, kept.map(|k| (k, tag))))
}

/// How lately a file was written for its session to be taken for one an agent is writing.
pub const WRITTEN_LATELY: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// True when `file` was last written less than [`WRITTEN_LATELY`] ago.
fn written_lately(file: &str) -> bool {
    std::fs::metadata(file)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < WRITTEN_LATELY)
}

/// A kept reader read on from, with its tag, to keep again for the next update.
type ToKeep = (super::snapshots::Read, String);

/// What a kept reader is tagged with: the stamp and message count the index stores with the
/// rows it read. Two updates of one growing file at one stamp (the app's and a command's) may
/// read to different ends; a reader whose count is not the stored one is not taken.
pub(super) fn tag(stamp: &str, messages: usize) -> String {
    format!("{stamp}|{messages}")
}

/// The rows of session `read`, its message rows from `rows_from` on (those before it are as
/// the index has them, and so are their piece counts, in `stored` with the vocabulary they
/// were counted in).
fn make(
    job: &Job,
    read: Arc<Session>,
    rows_from: usize,
    stored: Option<(crate::tokens::Encoding, crate::tokens::Earlier)>,
    opts: &DiagnoseOptions,
    token_dir: Option<&Path>,
) -> Result<Prepared> {
    let session: &Session = &read;
    // Two halves of about equal work, each on a core of its own (for one session, a transcript
    // appended to or the app's background update, they are the whole wait): the diagnosis and
    // what follows from it (facts, cost, spill files); the BPE count and what is counted with
    // it (the cut view, the Tokens view, the message rows). Read on from a kept reader, the
    // messages before `rows_from` are as the index has them, and so are the summary losses of
    // the compactions that read only those.
    let known = (rows_from > 0).then_some(rows_from);
    // The calls classified once, by the first of the three that asks (the others wait for it):
    // each classified every call again, a long result unpacked each time.
    let classified = std::sync::OnceLock::new();
    let classified = || classified.get_or_init(|| Classified::of(session));
    let (diagnosed, counted, spill_refs) = std::thread::scope(|scope| {
        let d = scope.spawn(|| diagnosed(session, opts, known, token_dir, classified()));
        // The spill files on a third thread: which half it would lengthen depends on the
        // session's shape, so the cores share it out.
        let spills = scope.spawn(|| {
            crate::analysis::spill_refs::spill_refs_classified(session, None, classified())
        });
        let earlier = |encoding| match rows_from {
            0 => None,
            n => stored
                .filter(|(counted_in, _)| *counted_in == encoding)
                .and_then(|(_, earlier)| super::pieces::first(earlier, n)),
        };
        let counted =
            count(session, token_dir, earlier, classified).map(|(counts, tokens, cut_view)| {
                // The Tokens view as the window asks for it first (the model's vocabulary), from
                // the counts just made.
                let report = crate::views::tokens::build(session, &counts, Default::default());
                let pieces = super::pieces::encode(session, &counts, rows_from);
                let rows = rows::message_rows(session, &tokens, pieces, rows_from, classified());
                (report, rows, cut_view)
            });
        let d = d.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        let spills = spills
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (d, counted, spills)
    });
    let (d, (mut token_report, messages, cut_view)) = (diagnosed?, counted?);
    // Costed with the shipped price table, as the window asks for it first.
    token_report.cost = d.shipped_cost;
    Ok(Prepared {
        cuts: d.cuts,
        findings: d.findings,
        requests: d.requests,
        row: d.row,
        buckets: d.buckets,
        messages,
        rows_from,
        compactions: session.compactions.clone(),
        meta: crate::model::SessionMeta {
            // As the index's own read names it, whatever path the caller's read came by.
            path: job.file.clone(),
            ..session.meta.clone()
        },
        diagnosis: d.diagnosis,
        losses: d.losses,
        losses_from: d.losses_from,
        token_report,
        cut_view,
        spill_refs,
        session: read,
    })
}

/// What [`diagnosed`] makes: the diagnosis and what follows from it and the session alone.
struct Diagnosed {
    diagnosis: crate::analysis::Diagnosis,
    losses: Vec<crate::analysis::losses::SummaryLoss>,
    losses_from: usize,
    cuts: Vec<super::facts::CutRow>,
    findings: Vec<super::facts::FindingRow>,
    requests: Vec<super::facts::RequestRow>,
    row: crate::analysis::fleet::FleetRow,
    buckets: Vec<crate::cost::Bucket>,
    shipped_cost: Option<crate::cost::SessionCost>,
}

/// Session's diagnosis (its summary losses apart, from compaction `losses_from` on), its facts,
/// and its cost under the caller's price table and the shipped one. Long texts' counts come
/// from the token cache in `token_dir` when it has them (a connection of this thread's own: the
/// count beside it writes through another).
fn diagnosed(
    session: &Session,
    opts: &DiagnoseOptions,
    known: Option<usize>,
    token_dir: Option<&Path>,
    classified: &Classified<'_>,
) -> Result<Diagnosed> {
    let cache = token_dir.and_then(crate::tokens::TokenCache::existing);
    let (mut d, losses_from) =
        crate::analysis::asked::diagnose_known(session, opts, known, cache.as_ref(), classified)?;
    let losses = std::mem::take(&mut d.summary_losses);
    let cost = crate::cost::session_cost(session, opts.price_table());
    let shipped_cost = match opts.prices {
        None => cost.clone(),
        Some(_) => crate::cost::session_cost(session, crate::cost::PriceTable::bundled()),
    };
    Ok(Diagnosed {
        cuts: super::facts::cuts(session, &d),
        findings: super::facts::findings(&d),
        requests: super::facts::requests(session, cost.as_ref()),
        row: crate::analysis::fleet::row(
            &session.meta,
            &d,
            cost.as_ref().and_then(|c| c.total_usd),
        ),
        buckets: cost
            .map(|c| crate::cost::buckets(&c.per_request))
            .unwrap_or_default(),
        shipped_cost,
        diagnosis: d,
        losses,
        losses_from,
    })
}

/// Session's BPE counts in its model's vocabulary through the token cache in `token_dir`, per
/// message, and its cut view counted with them; the counts `earlier` gives for that vocabulary
/// (of the first messages) are taken as they are; the cut view asks for the calls `classified`.
fn count<'a>(
    session: &'a Session,
    token_dir: Option<&Path>,
    earlier: impl FnOnce(crate::tokens::Encoding) -> Option<crate::tokens::Earlier>,
    classified: impl FnOnce() -> &'a Classified<'a>,
) -> Result<(
    crate::tokens::SessionCounts,
    Vec<u64>,
    crate::views::cuts::SessionCuts,
)> {
    let cache = token_dir.and_then(|d| crate::tokens::TokenCache::open(d).ok());
    let encoding = crate::tokens::Encoding::for_model(session.meta.model.as_deref());
    let never = std::sync::atomic::AtomicBool::new(false);
    let counts = crate::tokens::count_session_after(
        session,
        encoding,
        cache.as_ref(),
        &mut |_| {},
        &never,
        earlier(encoding),
    )?;
    let tokens = counts.per_message(session);
    // The app's cut view reads the counts back from the cache this count filled; they are
    // the same numbers.
    let counted = crate::tokens::counter::Counted::from_tokens(session, &tokens, encoding);
    // What the session does not hold as it is (the stored text of the results a microcompact
    // cleared) is counted through the cache too, so the next update counts none of it again.
    let counter = crate::tokens::remember::Remembering::new(counted, cache);
    let cut_view = crate::views::cuts::session_cuts_classified(session, &counter, classified());
    counter.keep();
    Ok((counts, tokens, cut_view))
}
