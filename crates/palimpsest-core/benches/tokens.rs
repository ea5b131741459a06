//! Token counting benchmark (filled in below).
fn main() {}
