//! What a replay setting would have cost, beside what the session did cost. A simulation knows
//! the contexts it would have sent (messages only, counted like the session's own), not what the
//! provider would have billed: this prices them at the session's own rate. The output is kept as
//! recorded (the same answers); each prompt is the simulated context plus the session's recorded
//! overhead per request (system prompt and tool definitions, which transcripts do not store:
//! recorded prompt tokens minus the same requests counted from the transcript), at the dollars
//! per prompt token the session paid, its cache reads and writes included. An estimate, and
//! said to be one; a session without recorded usage or priced models gets none.
//! Running the simulation is `replay`'s; pricing a request is `super`'s.

use serde::{Deserialize, Serialize};

use super::{PriceTable, session_cost};
use crate::compaction::Eras;
use crate::model::Session;

/// A setting's estimated cost beside the recorded one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SettingCost {
    /// What the session did cost, from its recorded usage.
    pub recorded_usd: f64,
    /// Of which its answers (output), kept as recorded.
    pub output_usd: f64,
    /// Prompt tokens the provider recorded over the session.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub recorded_prompt_tokens: u64,
    /// The same requests' contexts counted from the transcript, as the simulation counts.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub counted_prompt_tokens: u64,
    /// Recorded minus counted, per request: what the transcript does not hold.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub overhead_per_request: u64,
    /// Dollars per prompt token the session paid (its cache reads and writes in it).
    pub usd_per_prompt_token: f64,
    /// Prompt tokens under the setting: its contexts plus the overhead, per request.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub setting_prompt_tokens: u64,
    /// ≈ what the setting would have cost.
    pub setting_usd: f64,
    /// The price table's date.
    pub table_date: String,
}

/// The session's own requests counted from the transcript: every message times the number of
/// requests whose context held it.
fn counted(session: &Session, count: &dyn crate::tokens::Counter) -> (u64, usize) {
    let eras = Eras::new(session);
    let answers = eras.answers();
    let mut total = 0u64;
    for (pos, m) in session.messages.iter().enumerate() {
        let Some((from, until)) = eras.visible_span(pos) else {
            continue;
        };
        // Requests answered at t with from < t <= until.
        let lo = answers.partition_point(|&t| t <= from);
        let hi = answers.partition_point(|&t| t <= until);
        if hi > lo {
            total += count.count(m) * (hi - lo) as u64;
        }
    }
    (total, answers.len())
}

/// What a session's settings are priced from, computed once for all of them (its recorded cost
/// and its own requests counted): a sweep or a fleet tune prices many settings of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct Basis {
    recorded_usd: f64,
    output_usd: f64,
    recorded_prompt_tokens: u64,
    counted_prompt_tokens: u64,
    overhead_per_request: u64,
    usd_per_prompt_token: f64,
    table_date: String,
}

/// The pricing basis of `session`; `None` without recorded usage or priced models.
pub fn basis(
    session: &Session,
    count: &dyn crate::tokens::Counter,
    table: &PriceTable,
) -> Option<Basis> {
    let cost = session_cost(session, table)?;
    let recorded_usd = cost.total_usd?;
    let mut output_usd = 0.0;
    let mut recorded_prompt_tokens = 0u64;
    for r in &cost.per_request {
        let p = table.price(r.model.as_deref()?)?;
        let tier_out = super::price_request(
            p,
            &super::UsageSplit {
                output: r.usage.output,
                ..Default::default()
            },
        );
        output_usd += tier_out;
        recorded_prompt_tokens += r.usage.prompt();
    }
    if recorded_prompt_tokens == 0 {
        return None;
    }
    let (counted_prompt_tokens, answered) = counted(session, count);
    let overhead_per_request = recorded_prompt_tokens
        .saturating_sub(counted_prompt_tokens)
        .checked_div(answered.max(1) as u64)
        .unwrap_or(0);
    Some(Basis {
        recorded_usd,
        output_usd,
        recorded_prompt_tokens,
        counted_prompt_tokens,
        overhead_per_request,
        usd_per_prompt_token: (recorded_usd - output_usd).max(0.0) / recorded_prompt_tokens as f64,
        table_date: table.date.clone(),
    })
}

impl Basis {
    /// The estimate for a setting whose simulation processed `tokens_processed` over
    /// `requests`.
    pub fn at(&self, tokens_processed: u64, requests: usize) -> SettingCost {
        let setting_prompt_tokens = tokens_processed + self.overhead_per_request * requests as u64;
        SettingCost {
            recorded_usd: self.recorded_usd,
            output_usd: super::round_usd(self.output_usd),
            recorded_prompt_tokens: self.recorded_prompt_tokens,
            counted_prompt_tokens: self.counted_prompt_tokens,
            overhead_per_request: self.overhead_per_request,
            usd_per_prompt_token: self.usd_per_prompt_token,
            setting_prompt_tokens,
            setting_usd: super::round_usd(
                self.output_usd + self.usd_per_prompt_token * setting_prompt_tokens as f64,
            ),
            table_date: self.table_date.clone(),
        }
    }
}

/// The estimate for a setting whose simulation processed `tokens_processed` over `requests`.
pub fn estimate(
    session: &Session,
    count: &dyn crate::tokens::Counter,
    tokens_processed: u64,
    requests: usize,
    table: &PriceTable,
) -> Option<SettingCost> {
    basis(session, count, table).map(|b| b.at(tokens_processed, requests))
}
