// Opening a message of any session from outside its timeline (a search hit, an alert): the
// session is selected, and the message once its timeline has it. The open session's message is
// selected at once: selecting the session again would reload it and lose the cursor.
import { useCallback, useEffect, useState } from "react";
import type { Timeline } from "./bindings/Timeline";
import type { SessionKey } from "./components/Sidebar";
import { standIn } from "./useSession";

export function useOpenAt(
  selected: SessionKey | null,
  setSelected: (k: SessionKey) => void,
  showTimeline: () => void,
  selectMessage: (index: number) => void,
  timeline: Timeline | null,
  rowsIn: unknown,
): (key: SessionKey, index: number) => void {
  // The message to select once its session's timeline is in.
  const [pending, setPending] = useState<{ id: string; index: number } | null>(null);
  const openAt = useCallback(
    (key: SessionKey, index: number) => {
      showTimeline();
      if (selected && selected.path === key.path && selected.id === key.id) return selectMessage(index);
      setPending({ id: key.id, index });
      setSelected(key);
    },
    [selected, selectMessage, setSelected, showTimeline],
  );
  useEffect(() => {
    if (!pending || timeline?.meta.id !== pending.id) return;
    // A message past the first page waits for its row to come in, and so does one past the
    // rows the index kept of a file that grew since (a live session's, read whole behind them).
    if ((rowsIn || standIn(timeline)) && !timeline.rows.some((r) => r.index === pending.index)) return;
    selectMessage(pending.index);
    setPending(null);
  }, [pending, timeline, selectMessage, rowsIn]);
  return openAt;
}
