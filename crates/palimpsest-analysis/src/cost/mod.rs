//! What a session cost, in dollars, from the usage its source recorded and a price table: per
//! request (with cache reads, 5-minute and 1-hour cache writes and long-context tiers priced
//! apart), per model and in all.
//!
//! The table (`table`) ships as a dated snapshot of LiteLLM's public price list (`data/prices.json`,
//! made by `scripts/prices-snapshot.py`, licence in `data/PRICES-LICENSE`); a user file
//! (`--prices FILE`, or `prices.json` in the config dir) overrides it model by model, in the
//! same shape or in LiteLLM's own. A model is priced only under its exact name (or that name
//! behind its provider's prefix): a model the table does not know gets no price, never a guess.
//! The usage it prices is what each reader recorded on the messages ([`crate::model::Message::usage`]);
//! the context total is `tokens::report`'s.

pub mod setting;
mod table;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::model::UsageSplit;
use crate::model::{Role, Session};
pub use table::{Price, PriceTable};

/// The long-context tier a prompt of this size is priced at: 0 (base), 1 (over 200k tokens),
/// 2 (over 272k).
pub fn tier_of(prompt: u64) -> u8 {
    match prompt {
        p if p > 272_000 => 2,
        p if p > 200_000 => 1,
        _ => 0,
    }
}

/// Dollars per token at `tier`: input, output, cache read, cache write, 1-hour cache write.
fn rates(p: &Price, tier: u8) -> [f64; 5] {
    let (mut input, mut output, mut read, mut write) = (
        p.input,
        p.output,
        p.cache_read.unwrap_or(p.input),
        p.cache_write.unwrap_or(p.input),
    );
    if tier >= 1 {
        input = p.input_above_200k.unwrap_or(input);
        output = p.output_above_200k.unwrap_or(output);
        read = p.cache_read_above_200k.unwrap_or(read);
        write = p.cache_write_above_200k.unwrap_or(write);
    }
    if tier >= 2 {
        input = p.input_above_272k.unwrap_or(input);
        output = p.output_above_272k.unwrap_or(output);
        read = p.cache_read_above_272k.unwrap_or(read);
    }
    [
        input,
        output,
        read,
        write,
        p.cache_write_1h.unwrap_or(write),
    ]
}

fn dollars(p: &Price, tier: u8, u: &UsageSplit) -> f64 {
    let [input, output, read, write, write_1h] = rates(p, tier);
    u.input as f64 * input
        + u.output as f64 * output
        + u.cache_read as f64 * read
        + u.cache_write as f64 * write
        + u.cache_write_1h as f64 * write_1h
}

/// Dollars for one request's tokens at `p`: the long-context tier when the prompt is past it.
pub fn price_request(p: &Price, u: &UsageSplit) -> f64 {
    dollars(p, tier_of(u.prompt()), u)
}

/// A session's usage summed by model and tier: all that pricing needs, so the index can keep
/// it and price it again under another table without reading the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// The model, when recorded.
    pub model: Option<String>,
    /// [`tier_of`] the requests' prompts.
    pub tier: u8,
    /// Requests in it.
    pub requests: usize,
    /// Their tokens.
    pub usage: UsageSplit,
}

/// The buckets of a session's priced requests ([`session_cost`]'s `per_request`).
pub fn buckets(requests: &[RequestCost]) -> Vec<Bucket> {
    let mut out: Vec<Bucket> = Vec::new();
    for r in requests {
        let tier = tier_of(r.usage.prompt());
        match out
            .iter_mut()
            .find(|b| b.model == r.model && b.tier == tier)
        {
            Some(b) => {
                b.requests += 1;
                b.usage.add(&r.usage);
            }
            None => out.push(Bucket {
                model: r.model.clone(),
                tier,
                requests: 1,
                usage: r.usage.clone(),
            }),
        }
    }
    out
}

/// Dollars to the billionth: sums of the same prices taken in another order
/// (per request, per bucket) agree to the last digit shown.
pub fn round_usd(x: f64) -> f64 {
    // `+ 0.0` turns the -0.0 an empty `f64` sum gives into 0.0, never printed "$-0.00".
    (x * 1e9).round() / 1e9 + 0.0
}

/// Dollars of the buckets at `table`; `None` when there are none or a model has no price.
pub fn price_buckets(buckets: &[Bucket], table: &PriceTable) -> Option<f64> {
    if buckets.is_empty() {
        return None;
    }
    buckets
        .iter()
        .try_fold(0.0, |sum, b| {
            let p = table.price(b.model.as_deref()?)?;
            Some(sum + dollars(p, b.tier, &b.usage))
        })
        .map(round_usd)
}

/// One request's cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestCost {
    /// The assistant message that recorded the usage.
    pub message_index: usize,
    /// The model that answered.
    pub model: Option<String>,
    /// Its tokens.
    pub usage: UsageSplit,
    /// Dollars; null when the model has no price.
    pub usd: Option<f64>,
    /// The provider's id of the request, when the source recorded one (Claude Code's
    /// `requestId`, else its response's `message.id`): a transcript resumed into a new file
    /// carries the requests it copied under the same ids, and a fleet counts each once.
    #[serde(default)]
    pub request_id: Option<String>,
}

/// One model's share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ModelCost {
    /// The model (`(unknown)` when the source did not say).
    pub model: String,
    /// Requests it answered.
    pub requests: usize,
    /// Its tokens.
    pub usage: UsageSplit,
    /// Dollars; null when the table has no price for it.
    pub usd: Option<f64>,
}

/// What a session cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionCost {
    /// Dollars in all; null when any request's model has no price.
    pub total_usd: Option<f64>,
    /// Dollars of the requests that have a price.
    pub priced_usd: f64,
    /// Models without a price, said so.
    pub unpriced_models: Vec<String>,
    /// Per model, most expensive first.
    pub per_model: Vec<ModelCost>,
    /// Per request, in order.
    pub per_request: Vec<RequestCost>,
    /// The price table's date.
    pub table_date: String,
    /// Where its prices come from.
    pub table_source: String,
}

/// The session's cost from its recorded usage; `None` when it recorded none.
pub fn session_cost(session: &Session, table: &PriceTable) -> Option<SessionCost> {
    let mut per_request = Vec::new();
    for m in &session.messages {
        if m.role != Role::Assistant {
            continue;
        }
        let all: Vec<UsageSplit> = m
            .usage
            .iter()
            // A request that recorded no tokens (Claude's `<synthetic>` error turns) cost nothing.
            .filter(|u| u.prompt() + u.output > 0)
            .cloned()
            .collect();
        let request_id = ["requestId", "message_id"]
            .iter()
            .find_map(|k| m.detail(k).and_then(|v| v.as_str().map(str::to_owned)));
        for (k, u) in all.into_iter().enumerate() {
            let model = m
                .detail("model")
                .and_then(|v| v.as_str().map(str::to_owned))
                .or_else(|| session.meta.model.clone());
            per_request.push(RequestCost {
                message_index: m.index,
                model,
                usage: u,
                usd: None,
                // Only the message's own request has its id (the counts billed beside it do not).
                request_id: request_id.clone().filter(|_| k == 0),
            });
        }
    }
    priced(per_request, table)
}

/// Requests a fleet holds more than once: a transcript resumed into a new file copies the
/// conversation it goes on from, requests and their usage included, so both files bill them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Shared {
    /// Copies of requests already counted in another session.
    pub requests: usize,
    /// What those copies cost at the table's rates.
    pub usd: f64,
}

/// The copies among `requests` (each `(request id, model, usage)` in fleet order): every
/// request after the first with its id, priced at `table`.
pub fn shared<'a>(
    requests: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a UsageSplit)>,
    table: &PriceTable,
) -> Shared {
    let mut seen = std::collections::HashSet::new();
    let mut out = Shared::default();
    for (id, model, usage) in requests {
        if !seen.insert(id) {
            out.requests += 1;
            out.usd += model
                .and_then(|m| table.price(m))
                .map_or(0.0, |p| price_request(p, usage));
        }
    }
    out.usd = round_usd(out.usd);
    out
}

/// `cost` priced again at `table` (a user's table laid over the one it was priced at): each
/// request's recorded usage and model are kept, so no session is read.
pub fn reprice(cost: &SessionCost, table: &PriceTable) -> Option<SessionCost> {
    priced(cost.per_request.clone(), table)
}

/// Each request priced at `table`, and the totals per model and session.
fn priced(mut per_request: Vec<RequestCost>, table: &PriceTable) -> Option<SessionCost> {
    for r in &mut per_request {
        r.usd = r
            .model
            .as_deref()
            .and_then(|name| table.price(name))
            .map(|p| price_request(p, &r.usage));
    }
    if per_request.is_empty() {
        return None;
    }
    let mut models: BTreeMap<String, ModelCost> = BTreeMap::new();
    for r in &per_request {
        let name = r.model.clone().unwrap_or_else(|| "(unknown)".into());
        let e = models.entry(name.clone()).or_insert(ModelCost {
            model: name,
            requests: 0,
            usage: UsageSplit::default(),
            usd: Some(0.0),
        });
        e.requests += 1;
        e.usage.add(&r.usage);
        e.usd = match (e.usd, r.usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    let mut per_model: Vec<ModelCost> = models.into_values().collect();
    per_model.sort_by(|a, b| {
        b.usd
            .unwrap_or(-1.0)
            .total_cmp(&a.usd.unwrap_or(-1.0))
            .then(a.model.cmp(&b.model))
    });
    let unpriced_models: Vec<String> = per_model
        .iter()
        .filter(|m| m.usd.is_none())
        .map(|m| m.model.clone())
        .collect();
    let priced_usd = round_usd(per_request.iter().filter_map(|r| r.usd).sum());
    for m in &mut per_model {
        m.usd = m.usd.map(round_usd);
    }
    Some(SessionCost {
        total_usd: unpriced_models.is_empty().then_some(priced_usd),
        priced_usd,
        unpriced_models,
        per_model,
        per_request,
        table_date: table.date.clone(),
        table_source: table.source.clone(),
    })
}
