//! `palimpsest export --parquet DIR`: the fixtures and the real transcripts of `fixtures/real`
//! exported, the five files read back with the `parquet` crate and checked against what the
//! other commands say of the same sessions (fleet rows, `show`, `compactions`, `tokens`,
//! `diagnose`), the `--bodies` text, and the schema: the same whatever the rows, so the
//! exports of many machines concatenate.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
use arrow_array::{Array, RecordBatch};
use common::{json_of, run_env};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

const SIX_CUTS: &str = "6c075000-0000-4000-8000-00000000c006";
const REAL: &str = "258c7280-ae70-4798-800f-63464d01a85d";
const SHORT: &str = "55604662-cf2a-4331-851a-ec234028f8ca";

/// One file read back whole, as one batch (it is small).
pub(crate) fn read(dir: &Path, table: &str) -> RecordBatch {
    let f = std::fs::File::open(dir.join(format!("{table}.parquet"))).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let mut batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1, "{table} reads back as one batch");
    batches.remove(0)
}

fn strs(b: &RecordBatch, col: &str) -> Vec<Option<String>> {
    let a = b.column_by_name(col).unwrap().as_string::<i32>();
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i).to_owned()))
        .collect()
}

fn ints(b: &RecordBatch, col: &str) -> Vec<Option<i64>> {
    let a = b.column_by_name(col).unwrap().as_primitive::<Int64Type>();
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i)))
        .collect()
}

fn floats(b: &RecordBatch, col: &str) -> Vec<Option<f64>> {
    let a = b.column_by_name(col).unwrap().as_primitive::<Float64Type>();
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i)))
        .collect()
}

fn bools(b: &RecordBatch, col: &str) -> Vec<bool> {
    let a = b.column_by_name(col).unwrap().as_boolean();
    (0..a.len()).map(|i| a.value(i)).collect()
}

/// Row numbers of session `id`.
fn of(b: &RecordBatch, id: &str) -> Vec<usize> {
    strs(b, "session_id")
        .iter()
        .enumerate()
        .filter(|(_, s)| s.as_deref() == Some(id))
        .map(|(i, _)| i)
        .collect()
}

fn export(dirs: &[&Path], out: &Path, cache: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["export", "--parquet", out.to_str().unwrap()];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--machine", "box-1", "--json"]);
    args.extend(extra);
    json_of(
        run_env(&args, &[("XDG_CACHE_HOME", cache.to_str().unwrap())]),
        &args,
    )
}

#[test]
fn export_holds_what_the_other_commands_say() {
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let out = tempfile::tempdir().unwrap();
    let (fx, data) = (fixtures(), shared());
    let said = export(&[&fx, &data], out.path(), cache.path(), &[]);
    let files: Vec<(&str, u64)> = said["export"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["table"].as_str().unwrap(), f["rows"].as_u64().unwrap()))
        .collect();
    let names: Vec<&str> = files.iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        [
            "sessions",
            "messages",
            "compactions",
            "requests",
            "findings",
            "tune"
        ],
        "six tables, in this order: {said}"
    );

    // Sessions: one row per fleet row of both folders, with the fleet's verdict and cost.
    let sessions = read(out.path(), "sessions");
    // Keyed by file and id: the goose fixtures hold each session in three files.
    let key = |file: &str, id: &str| {
        let file = Path::new(file)
            .canonicalize()
            .unwrap_or_else(|_| file.into());
        format!("{}#{id}", file.display())
    };
    let mut fleet: HashMap<String, Value> = HashMap::new();
    for d in [&fx, &data] {
        let f = json_of(
            run_env(&["diagnose", d.to_str().unwrap(), "--json"], &env),
            &["diagnose"],
        );
        for r in f["sessions"].as_array().unwrap() {
            fleet.insert(
                key(
                    r["path"].as_str().unwrap(),
                    r["session_id"].as_str().unwrap(),
                ),
                r.clone(),
            );
        }
    }
    assert_eq!(
        (sessions.num_rows(), files[0].1 as usize),
        (fleet.len(), fleet.len()),
        "one session row per fleet row, and the report says how many"
    );
    let (ids, files, sev, verdict, cost) = (
        strs(&sessions, "session_id"),
        strs(&sessions, "file"),
        strs(&sessions, "severity"),
        strs(&sessions, "verdict"),
        floats(&sessions, "cost_usd"),
    );
    for i in 0..sessions.num_rows() {
        let r = &fleet[&key(files[i].as_deref().unwrap(), ids[i].as_deref().unwrap())];
        assert_eq!(
            (sev[i].as_deref(), verdict[i].as_deref(), cost[i]),
            (
                r["severity"].as_str(),
                r["verdict"].as_str(),
                r["cost_usd"].as_f64()
            ),
            "session {:?} exported as the fleet table has it",
            ids[i]
        );
    }
    assert!(
        strs(&sessions, "machine")
            .iter()
            .all(|m| m.as_deref() == Some("box-1")),
        "every row names the machine it was exported on"
    );
    let updated = sessions
        .column_by_name("updated")
        .unwrap()
        .as_primitive::<TimestampMillisecondType>();
    let short = of(&sessions, SHORT)[0];
    assert_eq!(
        updated.value(short),
        fleet
            .iter()
            .find(|(k, _)| k.ends_with(&format!("#{SHORT}")))
            .map(|(_, r)| r["updated"].as_i64().unwrap())
            .unwrap(),
        "times are the fleet row's Unix milliseconds, as UTC timestamps"
    );

    // Messages of the real transcript: as `show` lists them.
    let messages = read(out.path(), "messages");
    let shown = json_of(
        run_env(
            &[
                "show",
                data.join(format!("claude-code/{REAL}.jsonl"))
                    .to_str()
                    .unwrap(),
                "--json",
            ],
            &env,
        ),
        &["show"],
    );
    let shown = shown["messages"].as_array().unwrap();
    let rows = of(&messages, REAL);
    let (agent, index) = (
        bools(&messages, "agent_visible"),
        ints(&messages, "message_index"),
    );
    assert_eq!(
        rows.len(),
        shown.len(),
        "one row per message of the real transcript (349)"
    );
    assert_eq!(
        rows.iter().filter(|&&i| agent[i]).count(),
        shown.iter().filter(|m| m["agent_visible"] == true).count(),
        "the same messages seen by the model (115 after its compaction)"
    );
    assert_eq!(
        rows.iter().map(|&i| index[i].unwrap()).collect::<Vec<_>>(),
        (0..shown.len() as i64).collect::<Vec<_>>(),
        "in stored order"
    );
    assert!(
        strs(&messages, "text").iter().all(Option::is_none),
        "no bodies unless asked"
    );

    // Compactions of the six-cut fixture: the six cuts `compactions` lists, in order.
    let cuts = read(out.path(), "compactions");
    let listed = json_of(
        run_env(
            &[
                "compactions",
                fx.join(format!("claude/projects/-home-dev-shop/{SIX_CUTS}.jsonl"))
                    .to_str()
                    .unwrap(),
                "--json",
            ],
            &env,
        ),
        &["compactions"],
    );
    let want: Vec<(Option<String>, i64)> = listed["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["trigger"].as_str().map(str::to_owned),
                c["cut_index"].as_i64().unwrap(),
            )
        })
        .collect();
    let rows = of(&cuts, SIX_CUTS);
    let (trigger, at) = (strs(&cuts, "trigger"), ints(&cuts, "cut_index"));
    let got: Vec<(Option<String>, i64)> = rows
        .iter()
        .map(|&i| (trigger[i].clone(), at[i].unwrap()))
        .collect();
    assert_eq!(
        got, want,
        "manual, micro, auto, micro, manual, auto at 12…80"
    );
    let micro = bools(&cuts, "micro");
    assert_eq!(
        rows.iter().filter(|&&i| micro[i]).count(),
        2,
        "two of them are microcompacts"
    );

    // Requests of the short transcript: priced as `tokens` prices them.
    let requests = read(out.path(), "requests");
    let tokens = json_of(
        run_env(
            &[
                "tokens",
                data.join("claude-code/short.jsonl").to_str().unwrap(),
                "--json",
            ],
            &env,
        ),
        &["tokens"],
    );
    let per_request = tokens["cost"]["per_request"].as_array().unwrap();
    let rows = of(&requests, SHORT);
    let usd = floats(&requests, "cost_usd");
    assert_eq!(rows.len(), per_request.len(), "one row per priced request");
    let total: f64 = rows.iter().map(|&i| usd[i].unwrap()).sum();
    assert!(
        (total - 0.1444475).abs() < 1e-9,
        "the requests add up to the session's cost, {total}"
    );
    let input = ints(&requests, "input_tokens");
    assert_eq!(
        rows.iter().map(|&i| input[i].unwrap()).collect::<Vec<_>>(),
        per_request
            .iter()
            .map(|r| r["usage"]["input"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        "each request's recorded input tokens"
    );

    // Findings of the real transcript: every piece of the diagnosis's evidence.
    let findings = read(out.path(), "findings");
    let d = json_of(
        run_env(
            &[
                "diagnose",
                data.join(format!("claude-code/{REAL}.jsonl"))
                    .to_str()
                    .unwrap(),
                "--session",
                REAL,
                "--json",
            ],
            &env,
        ),
        &["diagnose"],
    );
    let n = |k: &str| d[k].as_array().map_or(0, Vec::len);
    let rereads = d["rereads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rereads"].as_u64() > Some(0))
        .count();
    let want = rereads
        + n("loops")
        + n("spill_loops")
        + n("thrash")
        + n("summary_losses")
        + n("ended_while_running");
    let rows = of(&findings, REAL);
    assert_eq!(rows.len(), want, "one row per finding of `diagnose`");
    let first = ints(&findings, "first_message");
    let lists = findings
        .column_by_name("messages")
        .unwrap()
        .as_list::<i32>();
    for &i in &rows {
        let l = lists.value(i);
        let l = l.as_primitive::<Int64Type>();
        assert_eq!(
            first[i],
            l.values().iter().min().copied(),
            "first_message is the least of the finding's messages"
        );
    }
}

#[test]
fn bodies_and_schemas_concatenate() {
    let cache = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let data = shared().join("claude-code");
    export(&[&data], a.path(), cache.path(), &["--bodies"]);
    let nothing = tempfile::tempdir().unwrap();
    let said = export(&[nothing.path()], b.path(), cache.path(), &[]);
    assert!(
        said["export"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rows"] == 0),
        "a folder without sessions exports empty tables: {said}"
    );
    for t in [
        "sessions",
        "messages",
        "compactions",
        "requests",
        "findings",
        "tune",
    ] {
        let open = |d: &Path| {
            ParquetRecordBatchReaderBuilder::try_new(
                std::fs::File::open(d.join(format!("{t}.parquet"))).unwrap(),
            )
            .unwrap()
            .schema()
            .clone()
        };
        assert_eq!(
            open(a.path()),
            open(b.path()),
            "{t}: the same columns and types with rows and without"
        );
    }
    let messages = read(a.path(), "messages");
    let (ids, index, text) = (
        strs(&messages, "session_id"),
        ints(&messages, "message_index"),
        strs(&messages, "text"),
    );
    let first_prompt = (0..messages.num_rows())
        .find(|&i| ids[i].as_deref() == Some(SHORT) && index[i] == Some(0))
        .unwrap();
    assert_eq!(
        text[first_prompt].as_deref(),
        Some("mix phx.server doesnt seem to start"),
        "--bodies puts the message's text in the row"
    );
}
