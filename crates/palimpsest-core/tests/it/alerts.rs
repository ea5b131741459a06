//! Live alerts: a fleet of workers written line by line raises each alert once, at the line
//! that tips it; a session stuck before the watch began raises only what its new lines make
//! it; sessions replayed message by message as if live raise exactly the alerts their whole
//! diagnosis holds (the stuck fixtures) and none it takes back (the real transcripts).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use palimpsest_core::analysis::alerts::{self, AlertKind, AlertRules};
use palimpsest_core::model::Session;
use palimpsest_core::watch::{Alert, AlertWatch, Alerter, Tracker};
use palimpsest_fixtures::alerting;

fn rules() -> AlertRules {
    AlertRules {
        budget_usd: Some(10.0),
        ..AlertRules::default()
    }
}

fn append(path: &Path, line: &serde_json::Value) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

/// `(session, kind, message, words)` of each alert, in the order raised.
fn told(alerts: &[Alert]) -> Vec<(String, &'static str, usize, String)> {
    alerts
        .iter()
        .map(|a| {
            (
                a.session_id.clone(),
                a.kind.as_str(),
                a.message_index,
                a.words.clone(),
            )
        })
        .collect()
}

fn row(
    id: &str,
    kind: &'static str,
    at: usize,
    words: &str,
) -> (String, &'static str, usize, String) {
    (id.to_owned(), kind, at, words.to_owned())
}

#[test]
fn a_fleet_written_line_by_line_raises_each_alert_once_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = alerting::transcripts();
    let mut watch = AlertWatch::new(
        Tracker::new(dir.path(), None).unwrap(),
        Alerter::new(rules(), None),
    );
    let mut raised = Vec::new();
    // The workers write side by side: a line of each in turn.
    let longest = fleet.iter().map(|(_, l)| l.len()).max().unwrap();
    for k in 0..longest {
        for (id, lines) in &fleet {
            if let Some(line) = lines.get(k) {
                append(&alerting::path(dir.path(), id), line);
                let (_, alerts) = watch.refresh(Instant::now());
                raised.extend(alerts);
            }
        }
    }
    // Nothing more is written: the worker left idle after its compaction is told once the
    // rules' ten minutes pass, and once only.
    let (_, none) = watch.refresh(Instant::now());
    assert_eq!(none, Vec::new());
    let later = Instant::now() + Duration::from_secs(601);
    let (_, idle) = watch.refresh(later);
    let (_, again) = watch.refresh(later + Duration::from_secs(600));
    assert_eq!(again, Vec::new());
    raised.extend(idle);
    assert_eq!(
        told(&raised),
        vec![
            row(
                alerting::FREED,
                "compaction_freed_little",
                7,
                "compaction 1 freed 7 % (160 000 → 149 412)"
            ),
            row(
                alerting::TOO_LONG,
                "prompt_too_long",
                8,
                "Prompt is too long after compaction 1"
            ),
            row(
                alerting::STORM,
                "compaction_storm",
                9,
                "compactions 1 and 2 within 1 request"
            ),
            row(
                alerting::FAILING,
                "failing_loop",
                9,
                "3 failing calls in a row, all Bash"
            ),
            row(
                alerting::REPEATED,
                "repeated_call",
                9,
                "Bash called 3 times with the same result"
            ),
            row(
                alerting::COSTLY,
                "over_budget",
                10,
                "cost $10.89 passed the $10.00 budget"
            ),
            row(
                alerting::REREAD,
                "rereads_after_compaction",
                12,
                "re-reading /w/shop/app.py after compaction 1: 3 re-reads"
            ),
            row(
                alerting::IDLE,
                "idle_after_compaction",
                6,
                "no request for 10 min after compaction 1"
            ),
        ]
    );
    for a in &raised {
        assert_eq!(
            a.path,
            alerting::path(dir.path(), &a.session_id)
                .display()
                .to_string()
        );
        let stuck = !matches!(
            a.kind,
            AlertKind::IdleAfterCompaction | AlertKind::OverBudget
        );
        assert_eq!(
            a.severity.as_str(),
            if stuck { "stuck" } else { "watch" },
            "{a:?}"
        );
    }
}

#[test]
fn a_session_stuck_before_the_watch_raises_only_what_its_new_lines_make_it() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = alerting::transcripts();
    let lines = |id: &str| fleet.iter().find(|(i, _)| *i == id).unwrap().1.clone();
    // Already stuck re-reading when the watch begins; then it goes on.
    let reread = lines(alerting::REREAD);
    let (before, after) = reread.split_at(reread.len() - 1);
    for l in before {
        append(&alerting::path(dir.path(), alerting::REREAD), l);
    }
    // Two failing calls written; the third comes during the watch.
    let failing = lines(alerting::FAILING);
    let (before, after_failing) = failing.split_at(failing.len() - 3);
    for l in before {
        append(&alerting::path(dir.path(), alerting::FAILING), l);
    }
    let mut watch = AlertWatch::new(
        Tracker::new(dir.path(), None).unwrap(),
        Alerter::new(rules(), None),
    );
    let mut raised = Vec::new();
    for l in after {
        append(&alerting::path(dir.path(), alerting::REREAD), l);
        raised.extend(watch.refresh(Instant::now()).1);
    }
    for l in after_failing {
        append(&alerting::path(dir.path(), alerting::FAILING), l);
        raised.extend(watch.refresh(Instant::now()).1);
    }
    assert_eq!(
        told(&raised),
        vec![row(
            alerting::FAILING,
            "failing_loop",
            9,
            "3 failing calls in a row, all Bash"
        )]
    );
}

/// Every alert raised when `session` is replayed message by message, as a watcher that sees
/// each message land would raise it (the idle kind left out: it needs a clock).
fn replayed(session: &Session, rules: &AlertRules) -> Vec<Alert> {
    let mut alerter = Alerter::new(rules.clone(), None);
    let mut out = Vec::new();
    for n in 1..=session.messages.len() {
        out.extend(alerter.observe(&session.prefix(n), None, Instant::now()));
    }
    out
}

fn load(path: &Path, id: Option<&str>) -> Session {
    palimpsest_core::api::load_session(path, id).unwrap()
}

/// The kinds holding on the whole session: an alert raised on the way and not among them was
/// taken back by a later line.
fn holding(session: &Session, rules: &AlertRules) -> Vec<AlertKind> {
    let d = palimpsest_core::analysis::asked::diagnose(session, &Default::default()).unwrap();
    let cost =
        palimpsest_core::cost::session_cost(session, palimpsest_core::cost::PriceTable::bundled());
    alerts::conditions(session, &d, cost.as_ref(), rules)
        .into_iter()
        .map(|c| c.kind)
        .collect()
}

#[test]
fn stuck_fixtures_replayed_as_if_live_are_alerted_once_per_reason() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let goose = load(&fx.join("goose-stuck/sessions.db"), Some("20260301_1"));
    assert_eq!(
        told(&replayed(&goose, &rules()))
            .into_iter()
            .map(|(_, k, at, w)| (k, at, w))
            .collect::<Vec<_>>(),
        vec![
            (
                "rereads_after_compaction",
                18,
                "re-reading store.py after compaction 1: 3 re-reads".to_owned()
            ),
            (
                "spill_loop",
                24,
                "spill loop on test_store.py: 2 spill files re-read and capped again".to_owned()
            ),
        ]
    );
    for (dir, id, at) in [
        // At the second compaction, one request after the first.
        ("copilot", "3f1b0c9e-5a2d-4c71-9e11-7c0de0000001", 19),
        ("coworker", "a1b2c3d4e5f6", 11),
    ] {
        let s = load(&fx.join(dir), Some(id));
        let got: Vec<_> = replayed(&s, &rules())
            .iter()
            .map(|a| (a.kind.as_str(), a.message_index))
            .collect();
        assert_eq!(got, vec![("compaction_storm", at)], "{dir}");
    }
}

#[test]
fn real_sessions_replayed_as_if_live_raise_no_alert_they_take_back() {
    let rules = rules();
    let mut all = Vec::new();
    let mut sessions = 0;
    // Every session of the real transcripts, their subagents' runs included.
    for dir in ["claude-code", "codex"] {
        let dir = palimpsest_fixtures::real_data(dir);
        let list = palimpsest_core::api::list_sessions(&dir).unwrap();
        assert_eq!(list.problems, Vec::new());
        for meta in &list.sessions {
            let s = load(&dir, Some(&meta.id));
            let raised = replayed(&s, &rules);
            let holds = holding(&s, &rules);
            for a in &raised {
                assert!(
                    holds.contains(&a.kind),
                    "{}: {a:?} no longer holds at the end",
                    meta.id
                );
            }
            all.extend(told(&raised));
            sessions += 1;
        }
    }
    assert_eq!(sessions, 10);
    // None is stuck (the post-mortem says `watch` at most); one passes the $10 budget, and
    // that is raised once, at the request that passed it.
    assert_eq!(
        all,
        vec![row(
            "258c7280-ae70-4798-800f-63464d01a85d",
            "over_budget",
            286,
            "cost $10.01 passed the $10.00 budget"
        )]
    );
}

#[test]
fn goose_and_codex_workers_written_live_raise_their_alert_at_the_write_that_tips_it() {
    use palimpsest_fixtures::alerting::{codex, goose};
    let dir = tempfile::tempdir().unwrap();
    let db = goose::db(dir.path());
    palimpsest_fixtures::live::create_db(&db).unwrap();
    let mut watch = AlertWatch::new(
        Tracker::new(dir.path(), None).unwrap(),
        Alerter::new(rules(), None),
    );
    // Two goose processes sharing the database, two Codex rollouts, a write of each in turn;
    // each raised alert with the write (of its own worker) after which it came.
    let mut geese: Vec<_> = [goose::REREAD, goose::HEALTHY]
        .into_iter()
        .map(|id| {
            (
                id,
                goose::Worker::open(&db, id).unwrap(),
                goose::writes(id == goose::REREAD),
            )
        })
        .collect();
    let rollouts: Vec<_> = [codex::REREAD, codex::HEALTHY]
        .into_iter()
        .map(|id| (id, codex::lines(id, id == codex::REREAD)))
        .collect();
    let mut raised = Vec::new();
    for k in 0..40 {
        for (id, worker, writes) in &mut geese {
            if let Some(w) = writes.get(k) {
                worker.write(k, w).unwrap();
                for a in watch.refresh(Instant::now()).1 {
                    raised.push((id.to_string(), k, a));
                }
            }
        }
        for (id, lines) in &rollouts {
            if let Some(l) = lines.get(k) {
                let p = codex::path(dir.path(), id);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                append(&p, l);
                for a in watch.refresh(Instant::now()).1 {
                    raised.push((id.to_string(), k, a));
                }
            }
        }
    }
    let got: Vec<_> = raised
        .iter()
        .map(|(w, k, a)| (w.as_str(), *k, told(std::slice::from_ref(a)).remove(0)))
        .collect();
    let reread = |id: &'static str, at: usize| {
        (
            id,
            at,
            row(
                id,
                "rereads_after_compaction",
                12,
                "re-reading app.py after compaction 1: 3 re-reads",
            ),
        )
    };
    assert_eq!(
        got,
        vec![
            reread(goose::REREAD, goose::REREAD_TIP),
            reread(codex::REREAD, codex::REREAD_TIP),
        ]
    );
    for (_, _, a) in &raised {
        let want = if a.session_id == goose::REREAD {
            db.clone()
        } else {
            codex::path(dir.path(), codex::REREAD)
        };
        assert_eq!(a.path, want.display().to_string());
    }
}

#[test]
fn a_paced_big_session_is_alerted_when_its_turn_comes_and_a_small_one_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = alerting::transcripts();
    let lines = |id: &str| fleet.iter().find(|(i, _)| *i == id).unwrap().1.clone();
    // Above 10 messages a session is paced: the re-reading worker (tipped at its 13th message)
    // is, the failing one (tipped at its 10th) is not.
    let mut watch = AlertWatch::new(
        Tracker::new(dir.path(), None).unwrap(),
        Alerter::new(rules(), None).with_pacing(10),
    );
    let t0 = Instant::now();
    let (reread, failing) = (lines(alerting::REREAD), lines(alerting::FAILING));
    let mut raised = Vec::new();
    for k in 0..reread.len().max(failing.len()) {
        for (id, l) in [(alerting::REREAD, &reread), (alerting::FAILING, &failing)] {
            if let Some(line) = l.get(k) {
                append(&alerting::path(dir.path(), id), line);
                // No time passes on the alerter's clock: the big one's turn never comes.
                raised.extend(watch.refresh(t0).1);
            }
        }
    }
    assert_eq!(
        told(&raised),
        vec![row(
            alerting::FAILING,
            "failing_loop",
            9,
            "3 failing calls in a row, all Bash"
        )]
    );
    // Its turn: judged as it is now, the re-reads alerted at the message that tipped them.
    assert_eq!(
        told(&watch.tick(t0 + Duration::from_secs(2))),
        vec![row(
            alerting::REREAD,
            "rereads_after_compaction",
            12,
            "re-reading /w/shop/app.py after compaction 1: 3 re-reads"
        )]
    );
    assert_eq!(watch.tick(t0 + Duration::from_secs(60)), Vec::new());
}
