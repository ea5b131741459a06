// The `?` overlay: About (the version and commit this build is from) and every keyboard shortcut.
import { useEffect, useState } from "react";
import type { About } from "../bindings/About";
import { call } from "../ipc";

export const KEYS: [string, string][] = [
  ["j / ↓", "next message"],
  ["k / ↑", "previous message"],
  ["Enter", "open the message in the inspector"],
  ["g / G", "first / last message"],
  ["[ / ]", "previous / next compaction cut, opened: dropped | summary | kept"],
  [", / .", "previous / next request (Requests tab)"],
  ["1 / 2 / 3", "All / Agent / User view"],
  ["r", "raw JSON on / off"],
  ["f", "follow: keep the newest message in view (live sessions)"],
  ["/", "filter sessions"],
  ["Ctrl+O", "open a file"],
  ["Ctrl+K", "search every session (text, tool calls and results, summaries)"],
  ["?", "About (version and commit) and this list"],
  ["Esc", "close (this list, the opened cut)"],
];

export function KeyHelp({ onClose }: { onClose: () => void }) {
  // null while the app answers; "failed" when it could not say.
  const [about, setAbout] = useState<About | "failed" | null>(null);
  useEffect(() => {
    call("about", {}).then(setAbout, () => setAbout("failed"));
  }, []);
  return (
    <div className="overlay" role="dialog" aria-label="About Palimpsest and keyboard shortcuts" onClick={onClose} data-testid="key-help">
      <div className="dialog" onClick={(e) => e.stopPropagation()}>
        <h2>About Palimpsest</h2>
        <p data-testid="about">
          {about === null ? (
            "Version …"
          ) : about === "failed" ? (
            "Version unknown"
          ) : (
            <>
              Version <strong>{about.version}</strong>, commit <code>{about.commit}</code>
            </>
          )}
          <br />
          An inspector for the sessions of LLM coding agents: what the model saw, where each compaction cut, what it dropped.
        </p>
        <h2>Keyboard</h2>
        <table>
          <tbody>
            {KEYS.map(([k, what]) => (
              <tr key={k}>
                <td>
                  <kbd>{k}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
