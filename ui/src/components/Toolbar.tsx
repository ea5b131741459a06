// The toolbar: where we are (source ▸ session), the view switch, File › Open and Export report…,
// and the key list.
import type { View } from "../bindings/View";
import { VIEWS } from "../timeline/rows";
import { EncodingSelect } from "./EncodingSelect";

export interface ToolbarProps {
  sourceLabel: string | null;
  sessionName: string | null;
  view: View;
  onView: (v: View) => void;
  onOpenFile: () => void;
  onOpenFolder: () => void;
  /** File › Export report… for the open session; absent when none is open. */
  onExport?: () => void;
  /** Compare with…: the open session beside another run (the Compare tab). */
  onCompare?: () => void;
  onHelp: () => void;
  /** Follow mode: keep the newest message in view. */
  follow?: boolean;
  onFollow?: () => void;
}

export function Toolbar({ sourceLabel, sessionName, view, onView, onOpenFile, onOpenFolder, onExport, onCompare, onHelp, follow, onFollow }: ToolbarProps) {
  return (
    <header className="toolbar">
      <div className="menu" role="menubar" aria-label="File">
        <button type="button" onClick={onOpenFile} title="Open a session file or database (Ctrl+O)" data-testid="open-file">
          Open file…
        </button>
        <button type="button" onClick={onOpenFolder} title="Open a folder of sessions" data-testid="open-folder">
          Open folder…
        </button>
        <button type="button" onClick={onExport} disabled={!onExport} title="Export the open session's post-mortem as one HTML file" data-testid="export-report">
          Export report…
        </button>
        <button type="button" onClick={onCompare} disabled={!onCompare} title="Set the open session beside another recorded run of the same task" data-testid="compare-open">
          Compare with…
        </button>
      </div>
      <div className="crumbs" data-testid="crumbs">
        {sourceLabel ?? "No source"} ▸ <strong>{sessionName ?? "no session selected"}</strong>
      </div>
      <div className="segmented" role="radiogroup" aria-label="View">
        {VIEWS.map((v) => (
          <button
            key={v.view}
            type="button"
            role="radio"
            aria-checked={view === v.view}
            className={view === v.view ? "active" : ""}
            onClick={() => onView(v.view)}
            title={`${v.hint} (${v.key})`}
            data-view={v.view}
          >
            {v.label}
          </button>
        ))}
      </div>
      <EncodingSelect />
      {onFollow && (
        <button type="button" className={`toggle follow${follow ? " active" : ""}`} aria-pressed={!!follow} onClick={onFollow} title="Follow: keep the newest message in view (f)" data-testid="follow">
          ⟳ Follow{follow ? " on" : ""}
        </button>
      )}
      <button type="button" className="help-button" onClick={onHelp} title="About Palimpsest and keyboard shortcuts (?)">
        ?
      </button>
    </header>
  );
}
