//! What a provider billed for one request, as a session recorded it, split the way it is priced:
//! fresh input, output, cache reads and cache writes (5-minute and 1-hour). Each reader fills
//! [`super::Message::usage`] from its own keys (`sources::usage` holds the providers' shapes);
//! cost prices it and the token report reads the prompt's size from it.

use serde::{Deserialize, Serialize};

/// Tokens of one request, split the way they are priced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct UsageSplit {
    /// Fresh input (not read from or written to the cache).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input: u64,
    /// Output, reasoning included.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output: u64,
    /// Cache reads.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cache_read: u64,
    /// Cache writes kept 5 minutes (or of unstated lifetime).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cache_write: u64,
    /// Cache writes kept 1 hour.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cache_write_1h: u64,
}

impl UsageSplit {
    /// The whole prompt: input and cache.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write + self.cache_write_1h
    }

    /// Add `o` to this one (totals per model and session).
    pub fn add(&mut self, o: &UsageSplit) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.cache_write_1h += o.cache_write_1h;
    }
}
