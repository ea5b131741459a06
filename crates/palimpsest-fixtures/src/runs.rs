//! Two recorded runs of one task, for comparing runs (`palimpsest diff`, the window's Compare
//! tab): the same worker asked to fix a double discount, once compacting after its first turn
//! and reading `cart.py` again, once not. Made on demand (`palimpsest-fixtures --runs DIR`, and
//! the tests), not committed: the bundled fixtures' counts stay as they are.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;

use crate::claude::Transcript;

/// The task's first ask.
pub const ASK: &str = "Fix the double discount in shop/cart.py.";
/// Run A's session id: it compacts and reads its file again.
pub const RUN_A: &str = "aaaa0000-0000-4000-8000-00000000000a";
/// Run B's: it does not.
pub const RUN_B: &str = "bbbb0000-0000-4000-8000-00000000000b";

fn first_turn(t: &mut Transcript) {
    t.user(ASK);
    t.tool(
        "Read",
        json!({"file_path": "/w/shop/cart.py"}),
        "def total(cart):\n    return sum(cart)\n",
        20_000,
    );
    t.tool(
        "Bash",
        json!({"command": "pytest -q"}),
        "1 failed: test_coupon",
        22_000,
    );
    t.say("The coupon is applied twice; fixing.", 23_000);
}

fn second_turn_tail(t: &mut Transcript) {
    t.tool(
        "Edit",
        json!({"file_path": "/w/shop/cart.py", "old_string": "sum(cart)", "new_string": "sum(cart) - coupon"}),
        "The file has been updated.",
        15_000,
    );
    t.tool("Bash", json!({"command": "pytest -q"}), "3 passed", 16_000);
    t.say("Fixed.", 16_500);
}

/// Write both runs as `<id>.jsonl` in `dir`; returns their paths (A, B).
pub fn write(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let mut a = Transcript::new(RUN_A);
    first_turn(&mut a);
    a.compact(
        "auto",
        160_000,
        "1. Primary Request and Intent: fix the double discount.",
    );
    a.user("Continue with the fix.");
    a.tool(
        "Read",
        json!({"file_path": "/w/shop/cart.py"}),
        "def total(cart):\n    return sum(cart)\n",
        14_000,
    );
    second_turn_tail(&mut a);
    let mut b = Transcript::new(RUN_B);
    first_turn(&mut b);
    b.user("Continue with the fix.");
    second_turn_tail(&mut b);
    let (pa, pb) = (
        dir.join(format!("{RUN_A}.jsonl")),
        dir.join(format!("{RUN_B}.jsonl")),
    );
    a.write(&pa)?;
    b.write(&pb)?;
    Ok((pa, pb))
}
