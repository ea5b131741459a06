//! A request's recorded usage and price as `gen_ai.usage.*` and `palimpsest.cost.usd`, added up
//! over the requests a span stands for (a session's, or one request that recorded several).

use opentelemetry_proto::tonic::common::v1::KeyValue;

use super::wire::kv;
use crate::cost::RequestCost;

/// What one request's recorded usage adds up to (a request may record several).
#[derive(Default)]
pub(super) struct Usage {
    any: bool,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    usd: Option<f64>,
    pub model: Option<String>,
}

impl Usage {
    pub fn of<'a>(costs: impl Iterator<Item = &'a RequestCost>) -> Self {
        let mut u = Usage::default();
        for c in costs {
            u.any = true;
            u.input += c.usage.prompt();
            u.output += c.usage.output;
            u.cache_read += c.usage.cache_read;
            u.cache_write += c.usage.cache_write + c.usage.cache_write_1h;
            u.usd = match (u.usd, c.usd) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            u.model = u.model.take().or_else(|| c.model.clone());
        }
        u
    }

    pub fn add(&mut self, o: &Usage) {
        self.any |= o.any;
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.usd = match (self.usd, o.usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }

    /// `gen_ai.usage.*` (input counts the cache, as the convention says) and the price.
    pub fn attrs(&self, a: &mut Vec<KeyValue>) {
        if !self.any {
            return;
        }
        a.push(kv("gen_ai.usage.input_tokens", self.input as i64));
        a.push(kv("gen_ai.usage.output_tokens", self.output as i64));
        a.push(kv(
            "gen_ai.usage.cache_read.input_tokens",
            self.cache_read as i64,
        ));
        a.push(kv(
            "gen_ai.usage.cache_creation.input_tokens",
            self.cache_write as i64,
        ));
        if let Some(usd) = self.usd {
            a.push(kv("palimpsest.cost.usd", crate::cost::round_usd(usd)));
        }
    }
}
