//! `export --otlp-file`: a real Claude Code transcript (one compaction, two subagent runs) as
//! OpenTelemetry traces in OTLP/JSON, checked span by span against what the CLI's other views
//! say of the same session; `--no-bodies`; an unreachable collector; no target at all. Sending
//! to a real receiver is `tests/otlp/phoenix.py`'s (`make otlp-check`).

use serde_json::Value;

use crate::common::{repo, run, run_json};

fn real() -> String {
    repo()
        .join("fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
        .display()
        .to_string()
}

/// Every span of an OTLP/JSON lines file.
fn spans(file: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .expect("the export wrote its file")
        .lines()
        .flat_map(|l| {
            let v: Value = serde_json::from_str(l).expect("each line is one JSON request");
            v["resourceSpans"]
                .as_array()
                .expect("resourceSpans")
                .iter()
                .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
                .flat_map(|s| s["spans"].as_array().cloned().unwrap_or_default())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// An attribute's value (strings, ints as OTLP/JSON writes them, bools).
fn attr<'a>(list: &'a Value, key: &str) -> Option<&'a Value> {
    list["attributes"]
        .as_array()?
        .iter()
        .find(|kv| kv["key"] == key)
        .map(|kv| {
            let v = &kv["value"];
            ["stringValue", "intValue", "boolValue", "doubleValue"]
                .iter()
                .find_map(|k| v.get(*k))
                .unwrap_or(v)
        })
}

#[test]
fn a_real_transcript_becomes_one_trace_per_session_with_its_requests_tools_and_cut() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("traces.jsonl");
    let said = run_json(&[
        "export",
        "--otlp-file",
        out.to_str().unwrap(),
        &real(),
        "--json",
    ]);
    let r = &said["otlp"];
    assert_eq!(
        (
            &r["sessions"],
            &r["spans"],
            &r["requests"],
            &r["tool_calls"],
            &r["compactions"]
        ),
        (
            &Value::from(3),
            &Value::from(347),
            &Value::from(156),
            &Value::from(188),
            &Value::from(1)
        ),
        "the session and its two subagent runs: {r}"
    );
    let all = spans(&out);
    assert_eq!(all.len(), 347);
    let main = "258c7280-ae70-4798-800f-63464d01a85d";
    let root = all
        .iter()
        .find(|s| {
            attr(s, "gen_ai.operation.name") == Some(&"invoke_agent".into())
                && attr(s, "gen_ai.conversation.id") == Some(&main.into())
        })
        .expect("the session's invoke_agent span");
    assert_eq!(root["name"], "invoke_agent claude-code");
    assert_eq!(root["parentSpanId"], "");
    let trace = root["traceId"].as_str().unwrap();
    let mine: Vec<&Value> = all.iter().filter(|s| s["traceId"] == trace).collect();
    let chats: Vec<&Value> = mine
        .iter()
        .copied()
        .filter(|s| attr(s, "palimpsest.request.number").is_some())
        .collect();
    let context = run_json(&["context", &real(), "--request", "1", "--json"]);
    assert_eq!(
        chats.len() as u64,
        context["requests"].as_u64().unwrap() - 1,
        "a chat span per answered request"
    );
    // The one compaction, as `compactions` takes it apart.
    let cut = &run_json(&["compactions", &real(), "--json"])["compactions"][0];
    let events = root["events"].as_array().expect("the compaction event");
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e["name"], "palimpsest.compaction");
    assert_eq!(
        attr(e, "palimpsest.compaction.cut_index"),
        Some(&"229".into())
    );
    assert_eq!(
        attr(e, "palimpsest.compaction.dropped_messages"),
        Some(&cut["dropped_count"].to_string().into())
    );
    assert_eq!(
        attr(e, "palimpsest.compaction.trigger"),
        Some(&"auto".into())
    );
    assert_eq!(
        attr(e, "palimpsest.compaction.pre_tokens"),
        Some(&"167094".into())
    );
    assert_eq!(
        attr(e, "palimpsest.compaction.post_tokens"),
        Some(&"33960".into())
    );
    assert_eq!(
        attr(e, "palimpsest.compaction.summary_chars"),
        Some(&cut["summary_chars"].to_string().into())
    );
    // Request 60 saw 140 messages, before the cut; the requests after the cut saw its summary.
    let sixty = chats
        .iter()
        .find(|s| attr(s, "palimpsest.request.number") == Some(&"60".into()))
        .unwrap();
    assert_eq!(
        attr(sixty, "palimpsest.request.context_messages"),
        Some(&"140".into())
    );
    assert_eq!(
        attr(sixty, "gen_ai.conversation.compacted"),
        Some(&false.into())
    );
    let view: Value = serde_json::from_str(
        attr(sixty, "gen_ai.input.messages")
            .unwrap()
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        view.as_array().unwrap().len(),
        140,
        "the model's view at request 60"
    );
    assert_eq!(view[0]["parts"][0]["content"], "Implement spotter-gqc");
    let compacted: Vec<bool> = chats
        .iter()
        .map(|s| attr(s, "gen_ai.conversation.compacted") == Some(&true.into()))
        .collect();
    let first = compacted
        .iter()
        .position(|&c| c)
        .expect("requests after the cut");
    assert!(
        compacted[first..].iter().all(|&c| c),
        "compacted from the cut on"
    );
    let after = run_json(&[
        "context",
        &real(),
        "--request",
        &(first + 1).to_string(),
        "--json",
    ]);
    assert_eq!(
        after["after_cut"], 229,
        "the first compacted request is the first after cut 229"
    );
    // Each tool call is a child of the request that made it, named by its tool.
    let tools: Vec<&Value> = mine
        .iter()
        .copied()
        .filter(|s| attr(s, "gen_ai.operation.name") == Some(&"execute_tool".into()))
        .collect();
    assert!(
        tools
            .iter()
            .all(|t| chats.iter().any(|c| c["spanId"] == t["parentSpanId"]))
    );
    assert!(tools.iter().all(|t| t["name"].as_str().unwrap()
        == format!(
            "execute_tool {}",
            attr(t, "gen_ai.tool.name").unwrap().as_str().unwrap()
        )));
}

#[test]
fn no_bodies_leaves_every_text_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quiet.jsonl");
    run_json(&[
        "export",
        "--otlp-file",
        out.to_str().unwrap(),
        "--no-bodies",
        &real(),
        "--json",
    ]);
    let all = spans(&out);
    assert_eq!(all.len(), 347, "the same spans");
    let text = std::fs::read_to_string(&out).unwrap();
    for key in [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "palimpsest.compaction.summary\"",
    ] {
        assert!(!text.contains(key), "{key} is left out");
    }
    assert!(!text.contains("Implement spotter-gqc\""), "no message text");
}

#[test]
fn an_unreachable_collector_is_one_error_naming_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1/traces");
    let out = run(&["export", "--otlp", &url, &real()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot send traces to {url}")),
        "names the collector: {err}"
    );
}

#[test]
fn export_needs_a_target() {
    let out = run(&["export", &real()]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--parquet") && err.contains("--otlp"), "{err}");
}

#[test]
fn no_bodies_is_for_traces_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "export",
        "--parquet",
        dir.path().to_str().unwrap(),
        "--no-bodies",
        &real(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a usage error, not a silent no-op"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--no-bodies") && err.contains("--otlp"),
        "{err}"
    );
}
