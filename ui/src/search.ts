// Where a search hit opens: the source group showing its session (by id, preferring the one
// whose session lives in the hit's file), as the sidebar keys sessions.
import type { Hit } from "./bindings/Hit";
import type { SourceGroup } from "./bindings/SourceGroup";
import type { SessionKey } from "./components/Sidebar";

export function hitTarget(sources: SourceGroup[], hit: Pick<Hit, "session_id" | "path">): SessionKey | null {
  const holding = sources.filter((g) => g.sessions.some((s) => s.id === hit.session_id));
  const exact = holding.find((g) => g.sessions.some((s) => s.id === hit.session_id && s.path === hit.path));
  const g = exact ?? holding[0];
  return g ? { path: g.path, id: hit.session_id } : null;
}
