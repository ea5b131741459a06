//! One module per subcommand; each has `Args` (clap) and `run`.
//! Registering them is `main.rs`'s `Command` enum; the work is `palimpsest_core::api`'s.

pub mod compactions;
pub mod context;
pub mod diagnose;
pub mod lint;
pub mod replay;
pub mod sessions;
pub mod show;
pub mod sources;
pub mod spills;
pub mod sweep;
pub mod tokens;
pub mod watch;
