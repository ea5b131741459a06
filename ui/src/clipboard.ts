// "Copy as Markdown": core writes the Markdown of a message, a summary or a whole cut
// (`get_markdown`, the same text `palimpsest show --message N` and `compactions --cut N` print)
// and the clipboard plugin puts it on the clipboard; the window may write the clipboard, never
// read it. The hook keeps a one-line note of the last copy for the status bar.
import { useCallback, useEffect, useState } from "react";
import { writeText } from "@tauri-apps/plugin-clipboard-manager";
import { call, toIpcError } from "./ipc";
import type { MarkdownOf } from "./bindings/MarkdownOf";

/** What a copy was of, in words: "message #23", "the summary of cut 2", "cut 2". */
export function copiedWhat(of: MarkdownOf): string {
  if ("message" in of) return `message #${of.message}`;
  if ("summary" in of) return `the summary of cut ${of.summary + 1}`;
  return `cut ${of.cut + 1}`;
}

/** `copy(of)` for the selected session, and the note the status bar shows for a few seconds. */
export function useCopy(session: { path: string; id: string } | null) {
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(null), 6000);
    return () => clearTimeout(t);
  }, [note]);
  const copy = useCallback(
    async (of: MarkdownOf) => {
      if (!session) return;
      try {
        const md = await call("get_markdown", { path: session.path, id: session.id, of });
        await writeText(md);
        setNote(`Copied ${copiedWhat(of)} as Markdown (${md.length.toLocaleString()} characters)`);
      } catch (e) {
        setNote(`Could not copy ${copiedWhat(of)}: ${toIpcError(e).message}`);
      }
    },
    [session],
  );
  return { copy, note };
}
