//! The providers' usage shapes, read into [`UsageSplit`] for the readers that record them: each
//! reader calls the shape its format writes and fills `Message::usage` itself, so cost and
//! the token report never see a format's keys.
//!
//! The shapes differ in what "input" means: Anthropic's and coworker's count fresh input apart
//! from the cache; OpenAI's `prompt_tokens` and Codex's `input_tokens` include the cached
//! tokens; goose's `inputTokens` is the whole prompt and its cache counts are shares of it.

use serde_json::Value;

use crate::model::{Held, UsageSplit};

fn num(u: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| u.get(*k).and_then(Value::as_u64))
}

/// Anthropic's (Claude Code, Anthropic logs): fresh `input_tokens` apart from
/// `cache_read_input_tokens` and `cache_creation_input_tokens`, of which
/// `cache_creation.ephemeral_1h_input_tokens` are kept an hour.
pub fn anthropic(u: &Value) -> Option<UsageSplit> {
    apart(
        u,
        &["input_tokens"],
        &["output_tokens"],
        &["cache_read_input_tokens"],
        &["cache_creation_input_tokens"],
    )
}

/// coworker's: `input`, `output`, `cache_read`, `cache_write` (fresh input apart from the
/// cache; the `_tokens` spellings of its database columns too).
pub fn coworker(u: &Value) -> Option<UsageSplit> {
    apart(
        u,
        &["input", "input_tokens"],
        &["output", "output_tokens"],
        &["cache_read", "cache_read_tokens"],
        &["cache_write", "cache_write_tokens"],
    )
}

/// Codex's `last_token_usage`: `input_tokens` includes `cached_input_tokens`.
pub fn codex(u: &Value) -> Option<UsageSplit> {
    let input = num(u, &["input_tokens"])?;
    let cached = num(u, &["cached_input_tokens"]).unwrap_or(0);
    Some(UsageSplit {
        input: input.saturating_sub(cached),
        output: num(u, &["output_tokens"]).unwrap_or(0),
        cache_read: cached,
        ..UsageSplit::default()
    })
}

/// OpenAI's chat `usage`: `prompt_tokens` includes `prompt_tokens_details.cached_tokens`.
pub fn openai(u: &Value) -> Option<UsageSplit> {
    let input = num(u, &["prompt_tokens"])?;
    let cached = u
        .pointer("/prompt_tokens_details/cached_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    Some(UsageSplit {
        input: input.saturating_sub(cached),
        output: num(u, &["completion_tokens"]).unwrap_or(0),
        cache_read: cached,
        ..UsageSplit::default()
    })
}

/// goose's: `inputTokens` is the whole prompt, `cacheReadTokens` and `cacheWriteTokens` (or
/// `cacheReadInputTokens`, `cacheCreationInputTokens`) are shares of it.
pub fn goose(u: &Value) -> Option<UsageSplit> {
    let input = num(u, &["inputTokens"])?;
    let read = num(u, &["cacheReadTokens", "cacheReadInputTokens"]).unwrap_or(0);
    let write = num(u, &["cacheWriteTokens", "cacheCreationInputTokens"]).unwrap_or(0);
    Some(UsageSplit {
        input: input.saturating_sub(read + write),
        output: num(u, &["outputTokens"]).unwrap_or(0),
        cache_read: read,
        cache_write: write,
        cache_write_1h: 0,
    })
}

/// A message log's `usage`, in whichever provider's shape it was logged: the interchange
/// format takes any of them, so this one reader tells them apart by their keys.
pub fn any(u: &Value) -> Option<UsageSplit> {
    if u.get("inputTokens").is_some() {
        return goose(u);
    }
    if u.get("prompt_tokens").is_some() {
        return openai(u);
    }
    if u.get("cached_input_tokens").is_some() {
        return codex(u);
    }
    if u.get("input_tokens").is_some() {
        return anthropic(u);
    }
    coworker(u)
}

/// Fresh input apart from cache reads and writes, with Anthropic's one-hour share.
fn apart(
    u: &Value,
    input: &[&str],
    output: &[&str],
    read: &[&str],
    write: &[&str],
) -> Option<UsageSplit> {
    let write_all = num(u, write).unwrap_or(0);
    let write_1h = u
        .pointer("/cache_creation/ephemeral_1h_input_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(write_all);
    Some(UsageSplit {
        input: num(u, input)?,
        output: num(u, output).unwrap_or(0),
        cache_read: num(u, read).unwrap_or(0),
        cache_write: write_all - write_1h,
        cache_write_1h: write_1h,
    })
}

/// Fill each message's usage from its details' `key`, read in `shape`.
pub fn fill(messages: &mut [impl Held], key: &str, shape: fn(&Value) -> Option<UsageSplit>) {
    for m in messages {
        if let Some(u) = m.get().details.as_ref().and_then(|d| d.get(key)) {
            let usage: Vec<UsageSplit> = shape(&u).into_iter().collect();
            // A shared message is copied only when this changes it.
            if m.get().usage != usage {
                m.edit().usage = usage;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn split(input: u64, output: u64, read: u64, write: u64, write_1h: u64) -> UsageSplit {
        UsageSplit {
            input,
            output,
            cache_read: read,
            cache_write: write,
            cache_write_1h: write_1h,
        }
    }

    #[test]
    fn each_provider_means_its_own_input() {
        let claude = json!({"input_tokens": 12, "output_tokens": 60, "cache_read_input_tokens": 20000,
            "cache_creation_input_tokens": 300, "cache_creation": {"ephemeral_1h_input_tokens": 100}});
        assert_eq!(
            anthropic(&claude),
            Some(split(12, 60, 20000, 200, 100)),
            "Anthropic: fresh input apart from the cache, the one-hour share apart from the rest"
        );
        let rollout =
            json!({"input_tokens": 9000, "cached_input_tokens": 8000, "output_tokens": 70});
        assert_eq!(
            codex(&rollout),
            Some(split(1000, 70, 8000, 0, 0)),
            "Codex: input_tokens holds the cached tokens, which are taken out"
        );
        let chat = json!({"prompt_tokens": 500, "completion_tokens": 20,
            "prompt_tokens_details": {"cached_tokens": 300}});
        assert_eq!(
            openai(&chat),
            Some(split(200, 20, 300, 0, 0)),
            "OpenAI: prompt_tokens holds the cached tokens"
        );
        let g = json!({"inputTokens": 1000, "outputTokens": 40, "cacheReadTokens": 600, "cacheWriteTokens": 100});
        assert_eq!(
            goose(&g),
            Some(split(300, 40, 600, 100, 0)),
            "goose: inputTokens is the whole prompt, its cache counts are shares of it"
        );
        assert_eq!(
            goose(&g).map(|u| u.prompt()),
            Some(1000),
            "so the prompt stays inputTokens"
        );
        let cw = json!({"input": 5, "output": 2, "cache_read": 30, "cache_write": 4});
        assert_eq!(
            coworker(&cw),
            Some(split(5, 2, 30, 4, 0)),
            "coworker: fresh input apart from the cache"
        );
        assert_eq!(
            anthropic(&json!({"output_tokens": 3})),
            None,
            "no input: nothing recorded"
        );
    }

    #[test]
    fn a_message_log_is_read_in_the_shape_it_was_logged_in() {
        for (u, want, why) in [
            (
                json!({"prompt_tokens": 500, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 300}}),
                split(200, 20, 300, 0, 0),
                "an OpenAI chat log",
            ),
            (
                json!({"input_tokens": 12, "output_tokens": 1, "cache_read_input_tokens": 7}),
                split(12, 1, 7, 0, 0),
                "an Anthropic log",
            ),
            (
                json!({"inputTokens": 10, "cacheReadTokens": 4}),
                split(6, 0, 4, 0, 0),
                "a goose log",
            ),
            (
                json!({"input_tokens": 10, "cached_input_tokens": 4}),
                split(6, 0, 4, 0, 0),
                "a Codex log",
            ),
            (json!({"input": 5}), split(5, 0, 0, 0, 0), "coworker's keys"),
        ] {
            assert_eq!(any(&u), Some(want), "{why}");
        }
    }
}
