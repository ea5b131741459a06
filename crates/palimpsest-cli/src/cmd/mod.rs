//! One module per subcommand; each has `Args` (clap) and `run`.

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
