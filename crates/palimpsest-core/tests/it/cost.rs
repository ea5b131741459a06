//! Dollars from recorded usage, checked against prices worked out by hand from the shipped
//! table's rates for two real transcripts (`fixtures/real`), and the rules around the table:
//! a user file overrides it, an unknown model gets no price.

use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::cost::{PriceTable, session_cost};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real")
        .join(rel)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_claude_request_with_a_one_hour_cache_write() {
    let s = api::load_session(&shared("claude-code/short.jsonl"), None).unwrap();
    let c = session_cost(&s, PriceTable::bundled()).expect("usage was recorded");
    // claude-opus-4-6: $5 / M input, $25 / M output, $0.50 / M cache reads, $10 / M 1-hour
    // cache writes. The one request: 3 input, 13 output, 11 515 cache reads, 13 835 cache
    // writes, all of them 1-hour (`ephemeral_1h_input_tokens`).
    let by_hand = 3.0 * 5e-6 + 13.0 * 25e-6 + 11_515.0 * 0.5e-6 + 13_835.0 * 10e-6;
    assert_eq!(c.per_request.len(), 1, "one API response");
    assert!(
        close(c.total_usd.unwrap(), by_hand),
        "{:?} is {by_hand} ($0.1444475)",
        c.total_usd
    );
    assert_eq!(
        c.table_date, "2026-12-01",
        "the snapshot's date is reported"
    );
}

#[test]
fn a_codex_rollout_bills_each_distinct_count_once() {
    let s = api::load_session(
        &shared("codex/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl"),
        None,
    )
    .unwrap();
    let c = session_cost(&s, PriceTable::bundled()).expect("usage was recorded");
    // The rollout's last `total_token_usage`: 1 253 671 input of which 1 131 392 cached,
    // 20 659 output. gpt-5: $1.25 / M input, $0.125 / M cached input, $10 / M output.
    let by_hand = (1_253_671.0 - 1_131_392.0) * 1.25e-6 + 1_131_392.0 * 0.125e-6 + 20_659.0 * 10e-6;
    assert_eq!(
        c.per_request.len(),
        37,
        "73 token_count events, each request counted twice (before and after its answer) but \
         one: 37 distinct counts"
    );
    assert!(
        close(c.total_usd.unwrap(), by_hand),
        "{:?} is {by_hand} ($0.50086275), what Codex's own running total prices to",
        c.total_usd
    );
    let m = &c.per_model[0];
    assert_eq!(
        (
            m.model.as_str(),
            m.usage.input,
            m.usage.cache_read,
            m.usage.output
        ),
        ("gpt-5", 122_279, 1_131_392, 20_659),
        "the per-model sum is the rollout's running total"
    );
}

#[test]
fn a_user_table_overrides_and_an_unknown_model_has_no_price() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("prices.json");
    // LiteLLM's own shape: one model repriced at $1 / M for everything.
    std::fs::write(
        &f,
        r#"{"claude-opus-4-6": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6,
            "cache_read_input_token_cost": 1e-6, "cache_creation_input_token_cost": 1e-6,
            "cache_creation_input_token_cost_above_1hr": 1e-6}}"#,
    )
    .unwrap();
    let table = PriceTable::load(Some(&f)).unwrap();
    let s = api::load_session(&shared("claude-code/short.jsonl"), None).unwrap();
    let c = session_cost(&s, &table).unwrap();
    assert!(
        close(
            c.total_usd.unwrap(),
            (3 + 13 + 11_515 + 13_835) as f64 * 1e-6
        ),
        "the user's price replaces the snapshot's: {:?}",
        c.total_usd
    );
    assert!(
        table.price("gpt-5").is_some(),
        "models the file does not name keep the snapshot's price"
    );

    let mut renamed = s;
    for m in renamed.messages.iter_mut().map(std::sync::Arc::make_mut) {
        if m.details.as_ref().is_some_and(|d| d.value().is_object()) {
            m.set_detail("model", "claude-opus-9-preview".into());
        }
    }
    let c = session_cost(&renamed, PriceTable::bundled()).unwrap();
    assert_eq!(
        (c.total_usd, c.unpriced_models),
        (None, vec!["claude-opus-9-preview".to_owned()]),
        "a model the table does not know is said to have no price, never guessed from a neighbour"
    );
    assert!(
        PriceTable::read(&dir.path().join("missing.json"))
            .unwrap_err()
            .to_string()
            .contains("missing.json"),
        "a missing table is an error naming it"
    );
}

#[test]
fn a_replay_setting_is_priced_at_the_sessions_own_rate() {
    use palimpsest_core::cost::setting::estimate;
    use palimpsest_core::replay::options::ReplayOptions;
    let s = api::load_session(
        &shared("claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"),
        Some("258c7280-ae70-4798-800f-63464d01a85d"),
    )
    .unwrap();
    let sim = api::replay_simulate(&s, &ReplayOptions::default(), None);
    let c = sim
        .cost
        .expect("the session recorded usage of a priced model");
    // Each API response priced at its final usage (the largest figures its lines carry:
    // Claude Code 2.1 writes `output_tokens` 10, 10, 10, then 441 over one response's lines),
    // as a script over the raw lines prices it.
    assert!(
        close(c.recorded_usd, 11.8539235),
        "beside it, what the session did cost: {}",
        c.recorded_usd
    );
    assert!(
        close(
            c.setting_usd,
            c.output_usd + c.usd_per_prompt_token * c.setting_prompt_tokens as f64
        ),
        "the setting's cost is its answers as recorded plus its prompts at the session's rate"
    );
    assert_eq!(
        c.setting_prompt_tokens,
        sim.totals.tokens_processed + c.overhead_per_request * sim.totals.requests as u64,
        "each simulated prompt carries the recorded overhead the transcript does not hold"
    );
    // The model's fixed point: the session's own contexts, priced so, cost what it recorded.
    let count = |m: &palimpsest_core::model::Message| (m.text().len() as u64).div_ceil(4);
    let own = estimate(&s, &count, 0, 0, PriceTable::bundled()).unwrap();
    let answered = palimpsest_core::compaction::Eras::new(&s).answers().len();
    let same = estimate(
        &s,
        &count,
        own.counted_prompt_tokens,
        answered,
        PriceTable::bundled(),
    )
    .unwrap();
    assert!(
        (same.setting_usd - same.recorded_usd).abs() < 0.01,
        "replaying exactly what happened costs what it cost: {} vs {}",
        same.setting_usd,
        same.recorded_usd
    );
}
