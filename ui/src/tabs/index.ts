// The bottom tabs. Each tab is one component in this folder taking a TabContext; add a tab by
// writing its component and appending it here (Tokens, Replay, Post-mortem, Spills...).
import type { ComponentType } from "react";
import type { TabContext } from "./context";
import { TimelineTab } from "./TimelineTab";
import { RequestsTab } from "./RequestsTab";
import { PostmortemTab } from "./PostmortemTab";
import { SpillsTab } from "./SpillsTab";
import { TokensTab } from "./TokensTab";
import { ReplayTab } from "./ReplayTab";
import { CompareTab } from "./CompareTab";

export type { TabContext } from "./context";

export interface TabDef {
  id: string;
  label: string;
  component: ComponentType<TabContext>;
}

export const TABS: TabDef[] = [
  { id: "timeline", label: "Timeline", component: TimelineTab },
  { id: "requests", label: "Requests", component: RequestsTab },
  { id: "tokens", label: "Tokens", component: TokensTab },
  { id: "replay", label: "Replay", component: ReplayTab },
  { id: "postmortem", label: "Post-mortem", component: PostmortemTab },
  { id: "spills", label: "Spills", component: SpillsTab },
  { id: "compare", label: "Compare", component: CompareTab },
];
