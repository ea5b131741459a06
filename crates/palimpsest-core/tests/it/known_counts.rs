//! The replay's cache-backed counter gives exactly what counting gives: on a real transcript
//! whose texts a token count put in the cache, every message's tokens equal `bpe_count`'s, and
//! the cache answered the long texts.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use palimpsest_core::tokens::known::Known;
use palimpsest_core::tokens::{Encoding, TokenCache, count_session};

#[test]
fn cached_counts_are_the_counts() {
    require_shared!();
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
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
            palimpsest_core::replay::bpe_count(enc, m),
            "message {}: the cached count is the count",
            m.index
        );
    }
}
