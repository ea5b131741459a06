// Opening files: the native picker (tauri-plugin-dialog) and drag and drop onto the window.
import { useEffect, useState } from "react";
import { open } from "@tauri-apps/plugin-dialog";
import { getCurrentWebview } from "@tauri-apps/api/webview";

/** Ask for one file (or folder); null when cancelled. */
export async function openDialog(directory: boolean): Promise<string | null> {
  const picked = await open({ multiple: false, directory, title: directory ? "Open a folder of sessions" : "Open a session file or database" });
  return typeof picked === "string" ? picked : null;
}

/** Calls `onDrop` with the paths dropped on the window; true while something is dragged over. */
export function useFileDrop(onDrop: (paths: string[]) => void): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let gone = false;
    getCurrentWebview()
      .onDragDropEvent((e) => {
        const p = e.payload;
        if (p.type === "enter" || p.type === "over") setOver(true);
        else if (p.type === "leave") setOver(false);
        else if (p.type === "drop") {
          setOver(false);
          if (p.paths.length) onDrop(p.paths);
        }
      })
      .then((u) => (gone ? u() : (unlisten = u)))
      .catch(() => {
        // Outside the app (tests, a plain browser) there is no webview to listen on.
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, [onDrop]);
  return over;
}
