// File › Export report…: the save dialog picks an .html file, core writes the open session's
// post-mortem there (`export_report`, the same page `palimpsest report` writes), and the status
// bar says where it went. The window writes nothing else.
import { useCallback, useEffect, useState } from "react";
import { save } from "@tauri-apps/plugin-dialog";
import { call, toIpcError } from "./ipc";

/** A file name for a report on `name`: safe characters only, `.html` at the end. */
export function reportFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `${safe || "session"}-report.html`;
}

/** `exportReport()` for the selected session, and the note the status bar shows. */
export function useExportReport(session: { path: string; id: string; name: string } | null) {
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(null), 8000);
    return () => clearTimeout(t);
  }, [note]);
  const exportReport = useCallback(async () => {
    if (!session) return;
    try {
      const to = await save({ title: "Export the post-mortem report", defaultPath: reportFileName(session.name), filters: [{ name: "HTML", extensions: ["html"] }] });
      if (!to) return;
      const written = await call("export_report", { path: session.path, id: session.id, to, bodies: false });
      setNote(`Report written to ${written}`);
    } catch (e) {
      setNote(`Could not export the report: ${toIpcError(e).message}`);
    }
  }, [session]);
  return { exportReport, note };
}
