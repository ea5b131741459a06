//! The numbers users triage by (issue 45): dollars of Claude Code responses streamed over
//! several lines, of Codex rollouts that switch model, and the sizes Codex records around a cut.
//! Every price is worked out by hand from the shipped table's rates, which
//! `scripts/price-check.py` also reads straight from the transcripts.

use palimpsest_core::api;
use palimpsest_core::cost::{PriceTable, session_cost};
use palimpsest_fixtures::claude::Transcript;
use serde_json::json;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_streamed_claude_response_is_priced_at_the_usage_of_its_last_line() {
    // See: issue 45. Claude Code 2.1 writes each block of one response on its own line; only
    // the last carries the final output_tokens.
    let mut t = Transcript::new("5c0e0000-0000-4000-8000-000000000045");
    t.user("Explain the retry loop.");
    t.streamed(
        "claude-opus-4-6",
        &[
            json!({"type": "thinking", "thinking": "Look at fetch_rows.", "signature": "sig"}),
            json!({"type": "text", "text": "It retries three times."}),
            json!({"type": "text", "text": "Each wait doubles."}),
            json!({"type": "text", "text": "The last error is raised."}),
            json!({"type": "text", "text": "Nothing is logged."}),
        ],
        [3, 17_842, 8_037],
        &[4, 4, 4, 4, 613],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir
        .path()
        .join("5c0e0000-0000-4000-8000-000000000045.jsonl");
    t.write(&f).unwrap();
    let s = api::load_session(&f, None).unwrap();
    assert_eq!(
        s.messages.len(),
        2,
        "one user message and one assistant message: the five lines are one response"
    );
    let c = session_cost(&s, PriceTable::bundled()).expect("usage was recorded");
    assert_eq!(c.per_request.len(), 1, "one response, priced once");
    assert_eq!(
        c.per_request[0].usage.output, 613,
        "the output of the response is its last line's, not its first line's 4"
    );
    // claude-opus-4-6: $5 / M input, $25 / M output, $0.50 / M cache reads, $10 / M 1-hour
    // cache writes (all 8 037 written tokens are 1-hour).
    let by_hand = 3.0 * 5e-6 + 613.0 * 25e-6 + 17_842.0 * 0.5e-6 + 8_037.0 * 10e-6;
    assert!(
        close(c.total_usd.unwrap(), by_hand),
        "{:?} is {by_hand}",
        c.total_usd
    );
}

#[test]
fn the_real_claude_transcripts_cost_what_their_responses_recorded() {
    // See: issue 45. Both real transcripts stream responses over lines (82 of 152 and 100 of
    // 217 responses carry a larger output on a later line); `scripts/price-check.py` prices
    // every response at its final figures straight from the JSONL.
    for (file, id, responses, usd) in [
        (
            "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
            "258c7280-ae70-4798-800f-63464d01a85d",
            152,
            11.8539235,
        ),
        (
            "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
            217,
            5.31621585,
        ),
    ] {
        let s = api::load_session(&palimpsest_fixtures::real_data(file), Some(id)).unwrap();
        let c = session_cost(&s, PriceTable::bundled()).unwrap();
        assert_eq!(
            c.per_request.len(),
            responses,
            "{file}: one request per API response"
        );
        assert!(
            close(c.total_usd.unwrap(), usd),
            "{file}: {:?}, by the script {usd}",
            c.total_usd
        );
    }
}

fn switching() -> palimpsest_core::model::Session {
    let dir = tempfile::tempdir().unwrap();
    let f = dir
        .path()
        .join("rollout-2026-02-24T14-00-00-019c8f0a-0000-7000-8000-00000000a005.jsonl");
    palimpsest_fixtures::claude::write_lines(&f, &palimpsest_fixtures::codex::switching_models())
        .unwrap();
    api::load_session(&f, None).unwrap()
}

#[test]
fn a_codex_rollout_that_switches_model_is_priced_request_by_request() {
    // See: issue 45. Each request at the model of its turn (`turn_context.model`).
    let s = switching();
    let c = session_cost(&s, PriceTable::bundled()).unwrap();
    let per_model: Vec<(&str, usize, u64, u64, u64)> = c
        .per_model
        .iter()
        .map(|m| {
            (
                m.model.as_str(),
                m.requests,
                m.usage.input,
                m.usage.cache_read,
                m.usage.output,
            )
        })
        .collect();
    assert_eq!(
        per_model,
        [
            (
                "gpt-5",
                3,
                40_000 + 40_000 + 11_000,
                60_000 + 200_000 + 20_000,
                7_000
            ),
            ("gpt-5-mini", 2, 10_000 + 2_000, 40_000 + 50_000, 800),
        ],
        "three gpt-5 requests and two gpt-5-mini ones (the count reported before its answer is \
         billed at its turn's model); the count with no input bills nothing"
    );
    // gpt-5: $1.25 / M input, $0.125 / M cached, $10 / M output; gpt-5-mini: $0.25, $0.025, $2.
    let gpt5 = 91_000.0 * 1.25e-6 + 280_000.0 * 0.125e-6 + 7_000.0 * 10e-6;
    let mini = 12_000.0 * 0.25e-6 + 90_000.0 * 0.025e-6 + 800.0 * 2e-6;
    assert!(
        close(c.total_usd.unwrap(), gpt5 + mini),
        "{:?} is {} ($0.2256); priced all as gpt-5 it read $0.25525",
        c.total_usd,
        gpt5 + mini
    );
}

#[test]
fn a_codex_cut_has_its_size_after_from_the_next_request_and_never_a_size_from_no_input() {
    // See: issue 45. The size before is the last request with an input (244 000: 240 000 in,
    // 4 000 out), not the 940 499 of the count with none; the size after is what the first
    // request answered after the cut carried (31 000), marked as taken from usage.
    let s = switching();
    let c: Vec<(Option<u64>, Option<u64>, bool)> = s
        .compactions
        .iter()
        .map(|c| (c.pre_tokens, c.post_tokens, c.post_tokens_from_usage))
        .collect();
    assert_eq!(c, [(Some(244_000), Some(31_000), true)]);
    let window = s.meta.context_limit.unwrap();
    assert!(
        c[0].0.unwrap() <= window,
        "a size before is never past the window ({window})"
    );
}
