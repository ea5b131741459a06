//! The counters behind `tokens::Counter` agree with counting. The replay's cache-backed counter:
//! on a real transcript whose texts a token count put in the cache, every message's tokens
//! equal a fresh BPE count's (`tokens::counter::Bpe`), and the cache answered the long texts.
//! The views' counter (`tokens::counter::counted`): none before the session is counted, then
//! each message's tokens exactly as the Tokens tab and the index have them.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use palimpsest_core::tokens::counter::{CharEstimate, counted};
use palimpsest_core::tokens::known::Known;
use palimpsest_core::tokens::{Counter, Encoding, TokenCache, count_session};

#[test]
fn cached_counts_are_the_counts() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
    let session = palimpsest_core::api::load_session(&real, None).unwrap();
    let enc = Encoding::for_model(session.meta.model.as_deref());
    let dir = tempfile::tempdir().unwrap();
    let cache = TokenCache::open(dir.path()).unwrap();
    let cold = Known::of(&session, enc, Some(&cache));
    assert!(cold.is_empty(), "an empty cache knows nothing");
    count_session(
        &session,
        enc,
        Some(&cache),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let warm = Known::of(&session, enc, Some(&cache));
    assert!(
        warm.len() > 100,
        "after a count the cache answers the long texts; it answered {}",
        warm.len()
    );
    for m in &session.messages {
        assert_eq!(
            warm.message(m),
            palimpsest_core::tokens::Counter::count(
                &palimpsest_core::tokens::counter::Bpe::new(enc),
                m
            ),
            "message {}: the cached count is the count",
            m.index
        );
    }
}

#[test]
fn views_count_as_the_tokens_tab_once_counted() {
    let six = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl",
    );
    let session = palimpsest_core::api::load_session(&six, None).unwrap();
    let enc = Encoding::for_model(session.meta.model.as_deref());
    let dir = tempfile::tempdir().unwrap();
    let cache = TokenCache::open(dir.path()).unwrap();
    assert!(
        counted(&session, enc, &cache).is_none(),
        "a session never counted has no BPE counts to show: the views estimate"
    );
    let tab = count_session(
        &session,
        enc,
        Some(&cache),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap()
    .per_message(&session);
    let views = counted(&session, enc, &cache).expect("counted once the cache holds it");
    assert_eq!(
        views.method(),
        "BPE o200k_base",
        "the views say how they count"
    );
    let per_message: Vec<u64> = session.messages.iter().map(|m| views.count(m)).collect();
    assert_eq!(
        per_message, tab,
        "every message has the Tokens tab's number in the views"
    );
    // A message made from a stored one is not given the stored one's number: the result a
    // microcompact cleared is counted with its text restored, in BPE.
    let cuts = palimpsest_core::api::session_cuts(&session, Some(&views));
    let cleared = &cuts.cuts[1].cleared[0];
    assert!(
        cleared.index == 16 && cleared.tokens_counted > 500,
        "the cleared Read of cart.py held the 60-function file, not the placeholder's {} tokens: \
         {} tokens",
        tab[16],
        cleared.tokens_counted
    );
    assert_eq!(
        cuts.cuts[1].anatomy.token_method, "BPE o200k_base",
        "and the cut says how it counted"
    );
    assert_ne!(
        per_message,
        session
            .messages
            .iter()
            .map(|m| CharEstimate.count(m))
            .collect::<Vec<_>>(),
        "and it is not the estimate"
    );
}
