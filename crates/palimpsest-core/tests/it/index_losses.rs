//! An appended transcript's update does only the new messages' work: a generated transcript
//! of many cuts and distinct files (`palimpsest_fixtures::distinct`), appended to and indexed
//! from its last offset, has the summary losses of the compactions before the append and the
//! piece counts of the messages before it kept as the index holds them, the rest made again,
//! and the index then answers (diagnosis, Tokens view) as the file does; the diagnosis made
//! knowing the first messages is, for the compactions it makes, the whole diagnosis.

use std::path::Path;

use palimpsest_core::analysis::asked::diagnose_known;
use palimpsest_core::analysis::classified::Classified;
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;

use super::index_resume::update;

const ID: &str = "d1571c70-0000-4000-8000-000000000001";

/// A generated transcript of about 3 MB in a project folder: the folder and its lines.
fn generated(t: &Path) -> (std::path::PathBuf, Vec<String>) {
    let dir = t.join("-home-dev-app");
    std::fs::create_dir_all(&dir).unwrap();
    let whole = t.join("whole.jsonl");
    palimpsest_fixtures::distinct::generate(&whole, ID, 3 << 20, 7).unwrap();
    let text = std::fs::read_to_string(&whole).unwrap();
    (dir, text.split_inclusive('\n').map(str::to_owned).collect())
}

#[test]
fn a_diagnosis_knowing_the_first_messages_makes_only_the_last_compactions_losses() {
    let t = tempfile::tempdir().unwrap();
    let (dir, lines) = generated(t.path());
    let file = dir.join(format!("{ID}.jsonl"));
    std::fs::write(&file, lines.concat()).unwrap();
    let session = api::load_session(&file, Some(ID)).unwrap();
    let opts = DiagnoseOptions::default();
    let whole = api::diagnose(&session, &opts).unwrap();
    let summarised: Vec<(usize, usize)> = whole
        .compactions
        .iter()
        .filter(|c| !c.micro)
        .map(|c| (c.number, c.cut_index))
        .collect();
    assert!(
        summarised.len() >= 3,
        "the generated transcript has cuts with summaries: {summarised:?}"
    );
    assert!(
        whole.summary_losses.len() > 100,
        "and they lose much: {}",
        whole.summary_losses.len()
    );
    let last = whole.compactions.last().unwrap().number;
    let (none, from) =
        diagnose_known(&session, &opts, None, None, &Classified::of(&session)).unwrap();
    assert_eq!(
        (none.summary_losses.len(), from),
        (whole.summary_losses.len(), 1)
    );
    // Known to the end: only the last summarised cut's losses, whose kept tail runs to the
    // file's end (lines appended later may still belong to it); a transcript whose last cut
    // is behind it: none. Known up to the second summarised cut: from that one on (the first
    // one's kept tail ended before it). Known up to nothing: from the first summarised cut.
    let n = session.messages.len();
    let (&(final_number, final_cut), ended) = (summarised.last().unwrap(), n - 2);
    assert_eq!(
        (final_cut, last),
        (ended, final_number),
        "the file ends at its last cut's summary"
    );
    let head = t.path().join("head").join(format!("{ID}.jsonl"));
    std::fs::create_dir_all(head.parent().unwrap()).unwrap();
    std::fs::write(&head, lines[..lines.len() * 7 / 10].concat()).unwrap();
    let head = api::load_session(&head, Some(ID)).unwrap();
    let (d, from) = diagnose_known(
        &head,
        &opts,
        Some(head.messages.len()),
        None,
        &Classified::of(&head),
    )
    .unwrap();
    let head_last = api::diagnose(&head, &opts)
        .unwrap()
        .compactions
        .last()
        .unwrap()
        .number;
    assert_eq!(
        (from, d.summary_losses.len()),
        (head_last + 1, 0),
        "the first 70 % of the lines, known to their end: no compaction's losses to make"
    );
    for (known, expect) in [
        (n, final_number),
        (summarised[1].1, summarised[1].0),
        (0, summarised[0].0),
    ] {
        let (d, from) = diagnose_known(
            &session,
            &opts,
            Some(known),
            None,
            &Classified::of(&session),
        )
        .unwrap();
        assert_eq!(
            from, expect,
            "known before message {known}: losses made from compaction {expect}"
        );
        let mut rest = whole.clone();
        rest.summary_losses.retain(|l| l.compaction >= from);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            serde_json::to_value(&rest).unwrap(),
            "known before message {known}: the whole diagnosis, less the losses of the compactions before {from}"
        );
    }
    assert!(
        whole
            .summary_losses
            .iter()
            .any(|l| l.compaction < summarised[1].0),
        "the losses left out are some"
    );
}

#[test]
fn an_appended_transcript_keeps_the_earlier_compactions_losses_and_answers_as_a_fresh_index() {
    let t = tempfile::tempdir().unwrap();
    let (dir, lines) = generated(t.path());
    let (root, path) = (dir.clone(), dir.join(format!("{ID}.jsonl")));
    let cut = lines.len() * 7 / 10;
    std::fs::write(&path, lines[..cut].concat()).unwrap();
    let (root, file) = (root.canonicalize().unwrap(), path.canonicalize().unwrap());
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    assert_eq!(update(&mut ix, &root).added, 1);
    let append = |from: usize, to: usize| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(lines[from..to].concat().as_bytes()).unwrap();
    };
    // Written just now, the file's first index kept its reader: the appends read on from it;
    // the rest of the file, with its compactions, is read whole again (a compaction changes
    // earlier messages).
    let steps = [
        (cut, cut + 1, Some(1)),
        (cut + 1, cut + 20, Some(1)),
        (cut + 20, cut + 40, Some(1)),
        (cut + 40, lines.len(), None),
    ];
    for (from, to, resumed) in steps {
        let from_message = api::load_session(&file, Some(ID)).unwrap().messages.len() - 1;
        append(from, to);
        let r = update(&mut ix, &root);
        assert_eq!((r.appended, r.problems.len()), (1, 0), "lines {from}..{to}");
        if let Some(resumed) = resumed {
            assert_eq!(
                r.resumed, resumed,
                "lines {from}..{to}: read on from the last offset"
            );
        }
        // The Tokens view: a fresh count's; read on, only the appended messages' pieces were
        // split and counted, the others' taken as the index kept them with their rows.
        let session = api::load_session(&file, Some(ID)).unwrap();
        let mut tokens = ix.token_report(&file, Some(ID)).unwrap().expect("kept");
        let enc = palimpsest_core::tokens::Encoding::for_model(session.meta.model.as_deref());
        let never = std::sync::atomic::AtomicBool::new(false);
        let counts =
            palimpsest_core::tokens::count_session(&session, enc, None, &mut |_| {}, &never)
                .unwrap();
        let mut whole =
            palimpsest_core::views::tokens::build(&session, &counts, Default::default());
        let stats = std::mem::take(&mut tokens.stats);
        (whole.stats, whole.cost) = (Default::default(), tokens.cost.clone());
        assert_eq!(
            serde_json::to_value(&tokens).unwrap(),
            serde_json::to_value(&whole).unwrap(),
            "after lines {from}..{to} the Tokens view is a fresh count's"
        );
        assert_eq!(
            stats.cache_hits + stats.counted,
            counts.pieces.len(),
            "every piece once"
        );
        if resumed == Some(1) {
            let new = palimpsest_core::tokens::category::pieces_from(&session, from_message).len();
            assert!(
                stats.counted <= new && stats.cache_hits >= counts.pieces.len() - new,
                "lines {from}..{to}: {} pieces counted of the {new} from message {from_message}",
                stats.counted
            );
        }
        let kept = ix
            .diagnosis(&file, Some(ID))
            .unwrap()
            .expect("answered from the index");
        let fresh = api::diagnose(
            &api::load_session(&file, Some(ID)).unwrap(),
            &DiagnoseOptions::default(),
        )
        .unwrap();
        assert!(
            fresh.summary_losses.len() > 100,
            "many losses: {}",
            fresh.summary_losses.len()
        );
        assert_eq!(
            serde_json::to_value(&kept).unwrap(),
            serde_json::to_value(&fresh).unwrap(),
            "after lines {from}..{to} the index's diagnosis is the file's"
        );
    }
}
