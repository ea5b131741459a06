//! Build script: names the commit `palimpsest --version` prints (`build/commit.rs`).

include!("../../build/commit.rs");

fn main() {
    emit_commit();
}
