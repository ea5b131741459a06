//! `fixtures/claude/projects/-home-dev-docs/`: `views`, a docs-migration worker whose model view
//! Claude Code edited without a compact boundary, beside one ordinary auto compaction:
//! - two content replacements: a 89 KB build log swapped for a `<persisted-output>` stub named by
//!   `toolUseId` (kind `tool-result`, the shape of Claude Code's `ContentReplacementRecord`), and
//!   a grep result named by `messageUuid` + `blockIndex` (kind `persisted`: the shape, not
//!   yet seen in a real file); each stub's file sits in `<id>/tool-results/`;
//! - three context-collapse commits (`marble-origami-commit`): two before the compaction, one
//!   after it, each archiving a run of tool calls; a `marble-origami-snapshot` of a staged span;
//!   and the `marble-origami-reset` Claude Code writes after compacting.
//!
//! State records carry no `uuid`/`parentUuid`, as Claude Code writes them; the chain runs
//! through the messages only.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::claude::{Transcript, write_lines};

/// The session's id (its file is `<id>.jsonl`).
pub const VIEWS_ID: &str = "c0117a95-0000-4000-8000-00000000c011";
/// The project folder under `fixtures/claude/projects/`.
pub const VIEWS_PROJECT: &str = "-home-dev-docs";

fn build_log() -> String {
    (1..=1500)
        .map(|i| {
            format!(
                "[{:3}%] writing output... docs/_build/html/api/page_{i:04}.html\n",
                i * 100 / 1500
            )
        })
        .collect()
}

fn automodule_hits() -> String {
    (1..=400)
        .map(|i| {
            format!(
                "docs/api/module_{:02}/part_{i:03}.rst:3:.. automodule:: shop.module_{:02}.part_{i:03}\n",
                i % 40,
                i % 40
            )
        })
        .collect()
}

/// Claude Code's stub for a result saved to `tool-results/<call>.txt`.
fn stub(call: &str, full: &str) -> String {
    let preview: String = full.chars().take(2000).collect();
    format!(
        "<persisted-output>\nOutput too large ({:.1}KB). Full output saved to: \
         /home/dev/.claude/projects/{VIEWS_PROJECT}/{VIEWS_ID}/tool-results/{call}.txt\n\n\
         Preview (first 2KB):\n{preview}\n...\n</persisted-output>",
        full.len() as f64 / 1024.0
    )
}

fn commit(id: u32, first: &str, last: &str, summary: &str) -> Value {
    json!({"type": "marble-origami-commit", "sessionId": VIEWS_ID, "collapseId": format!("{id}"),
        "summaryUuid": format!("5a000000-0000-4000-8000-{id:012}"),
        "summaryContent": format!("<collapsed id=\"{id}\">{summary}</collapsed>"),
        "summary": summary, "firstArchivedUuid": first, "lastArchivedUuid": last})
}

/// The `views` transcript's lines, and the files its stubs name (name, content).
pub fn views() -> (Vec<Value>, Vec<(String, String)>) {
    let mut t = Transcript::new(VIEWS_ID);
    let prompt = "Migrate the docs build from Sphinx to mkdocs-material. Keep every page's URL, \
                  generate the API pages from docstrings, and make `mkdocs build --strict` pass.";
    t.record(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-03-01T09:00:00.000Z",
        "sessionId": VIEWS_ID, "content": prompt}));
    t.user(prompt);
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/docs/docs/conf.py"}),
        "project = 'shop'\nextensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon']\nhtml_theme = 'furo'\n",
        18_000,
    );
    let log = build_log();
    let build = t.tool(
        "Bash",
        json!({"command": "make -C docs html"}),
        &log,
        19_000,
    );
    t.record(json!({"type": "content-replacement", "sessionId": VIEWS_ID,
        "replacements": [{"kind": "tool-result", "toolUseId": build, "replacement": stub(&build, &log)}]}));
    t.say(
        "The Sphinx build passes with 1 500 pages. Mapping the toctree next.",
        22_000,
    );

    // Span 1: the survey of the toctree.
    let first = t.next_uuid();
    t.tool(
        "Glob",
        json!({"pattern": "docs/**/*.rst"}),
        "docs/index.rst\ndocs/install.rst\ndocs/api/index.rst",
        23_000,
    );
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/docs/docs/index.rst"}),
        ".. toctree::\n   install\n   api/index\n",
        24_000,
    );
    t.say(
        "The toctree has two levels: install, then api/ with 40 modules.",
        25_000,
    );
    let last = t.last_uuid();
    let summary1 =
        "Surveyed the Sphinx toctree: docs/index.rst -> install, api/index (40 automodule pages).";
    t.record(
        json!({"type": "marble-origami-snapshot", "sessionId": VIEWS_ID,
        "staged": [{"startUuid": first, "endUuid": last, "summary": summary1, "risk": 0.1}],
        "armed": true, "lastSpawnTokens": 140_000}),
    );
    t.record(commit(1, &first, &last, summary1));

    t.tool("Write", json!({"file_path": "/home/dev/docs/mkdocs.yml", "content": "site_name: shop\ntheme:\n  name: material\nnav:\n  - install.md\n  - API: api/\n"}), "File created successfully at: /home/dev/docs/mkdocs.yml", 26_000);
    let hits = automodule_hits();
    t.tool(
        "Grep",
        json!({"pattern": "automodule", "path": "docs/api"}),
        &hits,
        27_000,
    );
    let grep_line = t.last_uuid();
    t.record(json!({"type": "content-replacement", "sessionId": VIEWS_ID,
        "replacements": [{"kind": "persisted", "messageUuid": grep_line, "blockIndex": 0,
                          "replacement": stub("grep-automodule", &hits)}]}));
    t.tool(
        "mcp__github__search_code",
        json!({"q": "mkdocstrings handler python repo:shop/shop"}),
        "[{\"path\":\"docs/requirements.txt\",\"line\":3}]",
        28_000,
    );

    // Span 2: the first mkdocs build.
    let first = t.next_uuid();
    t.tool_error(
        "Bash",
        json!({"command": "mkdocs build --strict"}),
        "ERROR - Doc file 'api/index.md' contains a link to 'module_07.md' which is not found",
        29_000,
    );
    t.tool("Edit", json!({"file_path": "/home/dev/docs/docs/api/index.md", "old_string": "module_07.md", "new_string": "module_07/index.md"}), "The file has been updated.", 30_000);
    t.tool(
        "Bash",
        json!({"command": "mkdocs build --strict"}),
        "INFO - Documentation built in 3.12 seconds",
        31_000,
    );
    let last = t.last_uuid();
    t.record(commit(2, &first, &last, "First strict build failed on a link to module_07.md; fixed in api/index.md; the build passes."));
    t.say(
        "mkdocs builds strictly; checking URLs against the Sphinx output.",
        33_000,
    );

    t.compact("auto", 168_000, "1. Primary Request and Intent: migrate docs from Sphinx to mkdocs-material, same URLs, \
        API pages from docstrings, `mkdocs build --strict` passing.\n2. Files: mkdocs.yml, docs/api/index.md.\n\
        3. Errors and fixes: broken link to module_07.md fixed.\n4. Pending: compare URLs.");
    t.record(json!({"type": "marble-origami-reset", "sessionId": VIEWS_ID, "reason": "compact"}));
    t.user("Continue with the migration.");

    // Span 3, after the compaction: the URL comparison.
    let first = t.next_uuid();
    t.tool("Bash", json!({"command": "diff <(cd _build/html && find . -name '*.html' | sort) <(cd site && find . -name '*.html' | sort)"}), "", 20_000);
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/docs/site/sitemap.xml"}),
        "<urlset><url><loc>https://shop.dev/install/</loc></url></urlset>",
        21_000,
    );
    let last = t.last_uuid();
    t.record(commit(
        3,
        &first,
        &last,
        "Compared the page URLs of both builds: identical (1 500 pages).",
    ));
    t.say(
        "All pages build under mkdocs --strict and every URL is unchanged.",
        23_000,
    );
    let spills = vec![
        (format!("{build}.txt"), log),
        ("grep-automodule.txt".to_owned(), hits),
    ];
    (t.lines, spills)
}

/// Write `<root>/projects/-home-dev-docs/…` (`root` is the `claude` fixture folder).
pub fn generate(root: &Path) -> Result<()> {
    let project = root.join("projects").join(VIEWS_PROJECT);
    let (lines, spills) = views();
    write_lines(&project.join(format!("{VIEWS_ID}.jsonl")), &lines)?;
    let dir = project.join(VIEWS_ID).join("tool-results");
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    for (name, text) in spills {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("write {}", p.display()))?;
    }
    Ok(())
}
