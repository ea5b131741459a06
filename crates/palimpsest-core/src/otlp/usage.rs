//! A request's recorded usage and price as `gen_ai.usage.*` and `palimpsest.cost.usd`, added up
//! over the requests a span stands for (a session's, or one request that recorded several).

use opentelemetry_proto::tonic::common::v1::KeyValue;

use super::wire::kv;
use crate::cost::RequestCost;
use crate::model::UsageSplit;

/// What one request's recorded usage adds up to (a request may record several).
#[derive(Default)]
pub(super) struct Usage {
    any: bool,
    tokens: UsageSplit,
    usd: Option<f64>,
    pub model: Option<String>,
}

impl Usage {
    /// The usage of `costs` together, and the first model they name.
    pub fn of<'a>(costs: impl Iterator<Item = &'a RequestCost>) -> Self {
        let mut u = Usage::default();
        for c in costs {
            u.any = true;
            u.tokens.add(&c.usage);
            u.usd = sum(u.usd, c.usd);
            u.model = u.model.take().or_else(|| c.model.clone());
        }
        u
    }

    /// Add `o`'s tokens and price (a session's total).
    pub fn add(&mut self, o: &Usage) {
        self.any |= o.any;
        self.tokens.add(&o.tokens);
        self.usd = sum(self.usd, o.usd);
    }

    /// `gen_ai.usage.*` (input counts the cache, as the convention says) and the price.
    pub fn attrs(&self, a: &mut Vec<KeyValue>) {
        if !self.any {
            return;
        }
        let t = &self.tokens;
        a.push(kv("gen_ai.usage.input_tokens", t.prompt() as i64));
        a.push(kv("gen_ai.usage.output_tokens", t.output as i64));
        a.push(kv(
            "gen_ai.usage.cache_read.input_tokens",
            t.cache_read as i64,
        ));
        let written = t.cache_write + t.cache_write_1h;
        a.push(kv(
            "gen_ai.usage.cache_creation.input_tokens",
            written as i64,
        ));
        if let Some(usd) = self.usd {
            a.push(kv("palimpsest.cost.usd", crate::cost::round_usd(usd)));
        }
    }
}

/// Dollars of two parts, either of which may have no price.
fn sum(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}
