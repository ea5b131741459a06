//! The big transcript generator (`palimpsest-big`): copies of a real transcript stay one session whose messages
//! and cuts are the copies' sum (no two copies merge), so the big-session figures are of a
//! session shaped like the real one, only longer.

use std::path::Path;

#[test]
fn two_copies_are_one_session_with_twice_the_messages_and_cuts() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let one = std::fs::metadata(&real).unwrap().len();
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let copies = palimpsest_fixtures::big::grow(&real, &out, one + 1).unwrap();
    assert_eq!(
        copies, 2,
        "one copy falls a byte short of the size asked: a second is written"
    );
    let base = palimpsest_core::api::load_session(&real, None).unwrap();
    let big = palimpsest_core::api::load_session(&out, None).unwrap();
    assert_eq!(
        (
            big.meta.id.as_str(),
            big.messages.len(),
            big.compactions.len()
        ),
        (
            base.meta.id.as_str(),
            2 * base.messages.len(),
            2 * base.compactions.len()
        ),
        "one session id; every copy's messages and cuts kept apart (349 and 1 each)"
    );
    assert_eq!(
        big.messages.iter().map(|m| m.parts.len()).max(),
        base.messages.iter().map(|m| m.parts.len()).max(),
        "no message merges with its twin of another copy"
    );
}
