// The `?` overlay: every keyboard shortcut.
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
  ["?", "this list"],
  ["Esc", "close (this list, the opened cut)"],
];

export function KeyHelp({ onClose }: { onClose: () => void }) {
  return (
    <div className="overlay" role="dialog" aria-label="Keyboard shortcuts" onClick={onClose} data-testid="key-help">
      <div className="dialog" onClick={(e) => e.stopPropagation()}>
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
