//! Edit diffs of each tool's arguments, in the shapes the agents write them.

use serde_json::json;

use super::*;

/// The lines of every hunk as `+x`, `-x`, ` x`, for exact comparison.
fn signed(d: &EditDiff) -> Vec<String> {
    d.hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| {
            let sign = match l.op {
                LineOp::Add => '+',
                LineOp::Remove => '-',
                LineOp::Context => ' ',
            };
            format!("{sign}{}", l.text)
        })
        .collect()
}

#[test]
fn claude_edit_is_a_line_diff_of_old_and_new_string() {
    let d = of_call(
        "Edit",
        &json!({"file_path": "/p/a.rs", "old_string": "fn a() {\n    1\n}\n", "new_string": "fn a() {\n    2\n}\n"}),
    );
    assert_eq!(d.len(), 1, "one file edited");
    assert_eq!(d[0].path, "/p/a.rs", "the path the call names");
    assert_eq!(d[0].op, EditOp::Edit);
    assert_eq!(
        signed(&d[0]),
        [" fn a() {", "-    1", "+    2", " }"],
        "only the changed line is removed and added; the rest is context"
    );
    assert_eq!((d[0].added, d[0].removed), (1, 1), "counts over the hunks");
}

#[test]
fn opencode_edit_names_its_keys_in_camel_case() {
    let d = of_call(
        "edit",
        &json!({"filePath": "/work/shop/store.py", "oldString": "a = 1\n", "newString": "a = 2\n"}),
    );
    assert_eq!(
        (d.len(), d[0].path.as_str(), signed(&d[0])),
        (
            1,
            "/work/shop/store.py",
            vec!["-a = 1".to_owned(), "+a = 2".to_owned()]
        ),
        "OpenCode's `filePath`, `oldString` and `newString` make the same diff as Claude's keys"
    );
}

#[test]
fn multiedit_has_one_headed_hunk_per_edit() {
    let d = of_call(
        "MultiEdit",
        &json!({"file_path": "x.py", "edits": [
            {"old_string": "a = 1", "new_string": "a = 2"},
            {"old_string": "b", "new_string": ""}
        ]}),
    );
    let heads: Vec<_> = d[0].hunks.iter().map(|h| h.header.clone()).collect();
    assert_eq!(
        heads,
        [
            Some("edit 1 of 2".to_owned()),
            Some("edit 2 of 2".to_owned())
        ],
        "each edit is its own hunk, numbered"
    );
    assert_eq!(
        signed(&d[0]),
        ["-a = 1", "+a = 2", "-b"],
        "an empty new_string removes"
    );
}

#[test]
fn long_edits_keep_three_lines_of_context_per_hunk() {
    let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    let new = old.replace("l2\n", "L2\n").replace("l18\n", "L18\n");
    let d = of_call(
        "Edit",
        &json!({"file_path": "f", "old_string": old, "new_string": new}),
    );
    assert_eq!(d[0].hunks.len(), 2, "changes 16 lines apart make two hunks");
    assert_eq!(
        signed(&d[0])[..6],
        [" l1", "-l2", "+L2", " l3", " l4", " l5"],
        "three lines after the change, as diff -U3"
    );
}

#[test]
fn goose_text_editor_commands() {
    let replace = of_call(
        "developer__text_editor",
        &json!({"command": "str_replace", "path": "/w/s.py", "old_str": "x", "new_str": "y"}),
    );
    assert_eq!(
        signed(&replace[0]),
        ["-x", "+y"],
        "str_replace diffs old_str → new_str"
    );
    let write = of_call(
        "developer__text_editor",
        &json!({"command": "write", "path": "/w/n.py", "file_text": "a\nb\n"}),
    );
    assert_eq!(write[0].op, EditOp::Write, "write is a whole-file write");
    assert_eq!(signed(&write[0]), ["+a", "+b"], "every line is added");
    let insert = of_call(
        "str_replace_based_edit_tool",
        &json!({"command": "insert", "path": "f", "insert_line": 4, "insert_text": "z"}),
    );
    assert_eq!(
        insert[0].hunks[0].header.as_deref(),
        Some("after line 4"),
        "an insert says where"
    );
    let view = of_call(
        "developer__text_editor",
        &json!({"command": "view", "path": "f"}),
    );
    assert!(view.is_empty(), "a view changes nothing");
}

#[test]
fn cline_replace_in_file_blocks_both_marker_styles() {
    let new_style = "------- SEARCH\nold 1\n=======\nnew 1\n+++++++ REPLACE\n\n------- SEARCH\nold 2\n=======\nnew 2\n+++++++ REPLACE\n";
    let d = of_call(
        "replace_in_file",
        &json!({"path": "a.ts", "diff": new_style}),
    );
    assert_eq!(
        signed(&d[0]),
        ["-old 1", "+new 1", "-old 2", "+new 2"],
        "each block is old → new"
    );
    assert_eq!(
        d[0].hunks[1].header.as_deref(),
        Some("block 2"),
        "blocks numbered"
    );
    let old_style = "<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE";
    let d = of_call(
        "replace_in_file",
        &json!({"path": "a.ts", "diff": old_style}),
    );
    assert_eq!(signed(&d[0]), ["-q", "+r"], "the older <<<<<<< markers too");
}

#[test]
fn codex_patch_through_shell_names_every_file() {
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main()\n fn main() {\n-    old();\n+    new();\n }\n*** Add File: NOTES.md\n+hello\n*** Delete File: gone.txt\n*** End Patch\n";
    let d = of_call(
        "shell",
        &json!({"command": ["apply_patch", patch], "workdir": "/w"}),
    );
    let files: Vec<_> = d.iter().map(|f| (f.path.as_str(), f.op)).collect();
    assert_eq!(
        files,
        [
            ("src/a.rs", EditOp::Edit),
            ("NOTES.md", EditOp::Write),
            ("gone.txt", EditOp::Delete)
        ],
        "update, add and delete, in patch order"
    );
    assert_eq!(
        d[0].moved_to.as_deref(),
        Some("src/b.rs"),
        "the move is kept"
    );
    assert_eq!(
        d[0].hunks[0].header.as_deref(),
        Some("fn main()"),
        "the @@ context"
    );
    assert_eq!(
        signed(&d[0]),
        [" fn main() {", "-    old();", "+    new();", " }"],
        "lines with their signs stripped"
    );
    let custom = of_call("apply_patch", &json!(patch));
    assert_eq!(custom.len(), 3, "a patch given as the bare input string");
}

#[test]
fn unified_diff_in_a_heredoc() {
    let script = "git apply <<'EOF'\ndiff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@ int main\n-a\n+b\n c\nEOF";
    let d = of_call("Bash", &json!({"command": script}));
    assert_eq!(d.len(), 1, "one file");
    assert_eq!(d[0].path, "x.c", "b/ prefix stripped");
    assert_eq!(
        d[0].hunks[0].header.as_deref(),
        Some("-1,2 +1,2 · int main"),
        "ranges and section"
    );
    assert_eq!(signed(&d[0]), ["-a", "+b", " c"], "hunk lines");
    assert!(
        of_call("Bash", &json!({"command": "ls -la"})).is_empty(),
        "a plain command edits nothing"
    );
}
