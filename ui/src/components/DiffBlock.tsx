// An edit call as a diff: per file the path, lines added and removed, and each hunk's lines
// with their sign (shape, not colour alone, tells added from removed). Core parses every edit
// tool's arguments into hunks (`analysis::edits`); this only draws them. Long diffs show their
// first lines until asked for the rest.
import { useState } from "react";
import type { EditDiff } from "../bindings/EditDiff";

/** Lines drawn before "show all". */
export const DIFF_LINES_SHOWN = 300;

const OP_LABEL: Record<EditDiff["op"], string> = { edit: "edit", write: "writes the whole file", delete: "deletes the file" };

export function DiffBlock({ diff }: { diff: EditDiff }) {
  const [all, setAll] = useState(false);
  const total = diff.hunks.reduce((n, h) => n + h.lines.length + 1, 0);
  let budget = all ? Infinity : DIFF_LINES_SHOWN;
  return (
    <div className="diff" data-testid="diff" data-added={diff.added} data-removed={diff.removed}>
      <div className="diff-head">
        <code className="diff-path" title={diff.path}>
          {diff.path}
          {diff.moved_to ? ` → ${diff.moved_to}` : ""}
        </code>{" "}
        <span className="muted small">
          {OP_LABEL[diff.op]} · <span className="diff-add-n">+{diff.added}</span> <span className="diff-del-n">−{diff.removed}</span>
        </span>
      </div>
      {diff.hunks.map((h, i) => {
        if (budget <= 0) return null;
        budget -= 1;
        const lines = h.lines.slice(0, Math.max(0, budget));
        budget -= lines.length;
        return (
          <div className="diff-hunk" key={i}>
            <div className="diff-hunk-head">@@ {h.header ?? ""}</div>
            {lines.map((l, j) => (
              <div key={j} className={`diff-line ${l.op}`}>
                <span className="diff-sign" aria-hidden="true">
                  {l.op === "add" ? "+" : l.op === "remove" ? "−" : " "}
                </span>
                <span className="diff-text">{l.text}</span>
              </div>
            ))}
          </div>
        );
      })}
      {!all && total > DIFF_LINES_SHOWN && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          Show all {total.toLocaleString()} lines
        </button>
      )}
    </div>
  );
}
