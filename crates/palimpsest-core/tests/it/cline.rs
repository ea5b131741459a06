//! Cline and Roo Code (fixtures/README.md, `cline/`): a task folder is one session, read from
//! what the model was sent; each request's usage lands on its answer; a truncation range drops
//! its messages from the model with no summary and a cut of its own; Roo Code's condense hides
//! the messages its summary replaced. The folder's JSON files are never read as message logs.

use std::path::PathBuf;

use palimpsest_core::model::{MessageKind, SourceFormat};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::cline::{ROO, TASK, XML};

fn tasks() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline/tasks")
}

#[test]
fn each_task_folder_is_one_session_and_nothing_else() {
    let catalog = sources::open(&tasks()).unwrap();
    let formats: Vec<SourceFormat> = catalog.sources.iter().map(|s| s.format()).collect();
    assert_eq!(
        formats,
        [
            SourceFormat::Cline,
            SourceFormat::Cline,
            SourceFormat::Cline
        ],
        "three task folders, claimed whole: no message-log source for their JSON files"
    );
    let (metas, problems) = catalog.list();
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<String> = metas
        .iter()
        .map(|m| {
            format!(
                "{} {:?} {} {} {:?}",
                m.id, m.name, m.message_count, m.compaction_count, m.model
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            format!(
                "{TASK} \"add a retry to fetch_rows in store.py\" 12 1 Some(\"claude-sonnet-4-5\")"
            ),
            format!("{ROO} {ROO:?} 9 1 Some(\"claude-sonnet-4-5\")"),
            format!("{XML} {XML:?} 10 0 Some(\"claude-sonnet-4-5\")"),
        ],
        "named by the panel's task text (the Roo task has no panel file: its id)"
    );
}

#[test]
fn a_truncation_range_is_a_cut_without_a_summary() {
    let s = api::load_session(&tasks().join(TASK), Some(TASK)).unwrap();
    let seen: Vec<usize> = s
        .iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect();
    assert_eq!(
        seen,
        [0, 1, 6, 7, 8, 9, 10, 11],
        "messages 2-5 (the range) left the model's view"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (
            c.cut_index,
            c.applied_index,
            c.summary_index,
            c.kept.clone()
        ),
        (6, Some(8), None, vec![0, 1]),
        "cut after the range, in force from the request sent at history index 8"
    );
    assert_eq!(
        c.raw.as_ref().map(|r| r["trimmed"].clone()),
        Some(serde_json::json!(true)),
        "no summary was made"
    );
    let u = &s.messages[9].usage;
    assert_eq!(
        (u.len(), u[0].input, u[0].output),
        (1, 5_200, 60),
        "the request sent at index 8 is answered by message 9"
    );
}

#[test]
fn roo_codes_condense_hides_what_its_summary_replaced() {
    let s = api::load_session(&tasks().join(ROO), Some(ROO)).unwrap();
    let seen: Vec<usize> = s
        .iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect();
    assert_eq!(
        seen,
        [0, 5, 6, 7, 8],
        "the task, the summary and what follows"
    );
    assert_eq!(s.messages[5].kind, MessageKind::Summary);
    let c = &s.compactions[0];
    assert_eq!(
        (c.cut_index, c.summary_index, c.kept.clone()),
        (5, Some(5), vec![0])
    );
}

#[test]
fn calls_written_as_xml_are_calls_and_their_result_headers_results() {
    use palimpsest_core::model::Part;
    let s = api::load_session(&tasks().join(XML), Some(XML)).unwrap();
    let rows: Vec<String> = s
        .iter()
        .map(|m| {
            let parts: Vec<String> = m
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => {
                        format!("text({})", text.chars().take(12).collect::<String>())
                    }
                    Part::ToolCall { id, name, .. } => format!("call {name} {id}"),
                    Part::ToolResult {
                        call_id, is_error, ..
                    } => {
                        format!("result {call_id}{}", if *is_error { " error" } else { "" })
                    }
                    other => other.type_name().to_owned(),
                })
                .collect();
            format!("{} {}", m.index, parts.join(", "))
        })
        .collect();
    assert_eq!(
        rows,
        [
            "0 text(<task>\nadd a)",
            "1 text(<thinking>I ), call read_file xml-1-1",
            "2 result xml-1-1, text(<environment)",
            "3 text(Let me check), call read_file xml-3-1",
            "4 result xml-3-1, text(<environment)",
            "5 call replace_in_file xml-5-1",
            "6 result xml-5-1, text(<environment)",
            "7 call execute_command xml-7-1",
            "8 result xml-7-1 error, text(<environment)",
            "9 call attempt_completion xml-9-1",
        ],
        "each XML block a call with the text around it kept, each header and its output the \
         call's result (the harness's failure an error), the environment details the user's turn"
    );
    let Part::ToolCall { arguments, .. } = &s.messages[5].parts[0] else {
        panic!("the edit is a call")
    };
    assert!(
        arguments
            .str_of("diff")
            .is_some_and(|d| d.starts_with("<<<<<<< SEARCH\n") && d.ends_with(">>>>>>> REPLACE")),
        "a diff keeps its own markers: {arguments:?}"
    );
    let d = palimpsest_core::analysis::diagnose(&s, &Default::default());
    assert_eq!(
        (
            d.exploration.write_calls,
            d.reread_events
                .iter()
                .map(|r| (r.call_index, r.previous_index))
                .collect::<Vec<_>>(),
            d.ended_while_running.len()
        ),
        (1, vec![(3, 1)], 0),
        "the second read of store.py is a re-read of the first; the edit is a write; a task \
         ending on attempt_completion was handing back, not running a tool"
    );
}
