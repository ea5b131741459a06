// The Compare tab: the open session (run A) beside another recorded run of the same task (run B,
// picked in "Compare with…"), both in the timeline's own rows. Core aligns them turn by turn and,
// inside a turn, message by message (`compare_runs`): a call only one run made faces a gap, a
// line where the runs did otherwise is marked ≠, and the first place they part is marked and
// scrolled to. The Replay tab's A | B compares settings of one session; this compares runs.
import { useEffect, useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TabContext } from "./context";
import type { CompareView } from "../bindings/CompareView";
import type { CompareLine } from "../bindings/CompareLine";
import type { RunTotals } from "../bindings/RunTotals";
import type { TurnSide } from "../bindings/TurnSide";
import { useCommand } from "../useCommand";
import { Row, ROW_HEIGHT } from "../components/TimelineList";

const HEAD_HEIGHT = 24;

/** A run another session could be compared with: where it is, its name (the first ask, for
 * most agents) and what the picker says. */
export interface RunChoice {
  path: string;
  id: string;
  name: string;
  label: string;
}

/** The runs the open one (`path`, `id`, named `name`) can be compared with: itself left out,
 * runs of the same name (most often the same task) first, each group in the sidebar's order. */
export function compareChoices(runs: RunChoice[], path: string | null, id: string | null, name: string | null): RunChoice[] {
  const others = runs.filter((r) => !(r.path === path && r.id === id));
  const same = others.filter((r) => name !== null && r.name === name);
  return [...same, ...others.filter((r) => !same.includes(r))];
}

const usd = (c: number | null) => (c === null ? "unpriced" : `$${c.toFixed(2)}`);

export function CompareTab({ path, timeline, runs, setWide, selectMessage }: TabContext) {
  const id = timeline?.meta.id ?? null;
  const [other, setOther] = useState("");
  const name = timeline?.meta.name ?? null;
  const choices = useMemo(() => compareChoices(runs ?? [], path, id, name), [runs, path, id, name]);
  const picked = choices.find((r) => `${r.path}\n${r.id}` === other) ?? null;

  // Another open session is compared afresh.
  useEffect(() => setOther(""), [path, id]);
  const { data: view, error: err, loading: busy } = useCommand(
    "compare_runs",
    path && id && picked ? { path, id, other_path: picked.path, other_id: picked.id } : null,
    [path, id, picked],
  );
  // Two columns of rows need the inspector's width.
  useEffect(() => {
    setWide?.(view !== null);
    return () => setWide?.(false);
  }, [view, setWide]);

  if (!timeline) return <div className="tab-empty">Open a session to compare it with another run.</div>;
  const div = view?.diff.first_divergence ?? null;
  return (
    <div className="compare-tab" data-testid="compare-tab">
      <div className="compare-pick">
        <label>
          Compare with…{" "}
          <select data-testid="compare-with" value={other} onChange={(e) => setOther(e.target.value)}>
            <option value="">another run of the same task</option>
            {choices.map((r) => (
              <option key={`${r.path}\n${r.id}`} value={`${r.path}\n${r.id}`}>
                {r.name === name ? `same task: ${r.label}` : r.label}
              </option>
            ))}
          </select>
        </label>
        {busy && <span className="muted"> aligning the runs…</span>}
        {err && (
          <span className="problem" data-testid="compare-error">
            {" "}
            ⚠ {err.message}
          </span>
        )}
      </div>
      {view && (
        <>
          <table className="compare-totals" data-testid="compare-totals">
            <thead>
              <tr>
                <th />
                <th>turns</th>
                <th>calls</th>
                <th>compactions</th>
                <th>re-reads</th>
                <th>tokens sent</th>
                <th>cost</th>
                <th>verdict</th>
              </tr>
            </thead>
            <tbody>
              <Totals name="A" t={view.diff.a} />
              <Totals name="B" t={view.diff.b} />
            </tbody>
          </table>
          <p className="compare-divergence" data-testid="compare-divergence">
            {div ? `First divergence: turn ${div.turn + 1}, ${div.what}` : "The runs did the same throughout."}
          </p>
          <CompareList view={view} onPick={selectMessage} />
        </>
      )}
    </div>
  );
}

function Totals({ name, t }: { name: string; t: RunTotals }) {
  return (
    <tr data-testid={`compare-run-${name}`}>
      <th title={`${t.session_id} (${t.path})`}>{name}</th>
      <td>{t.turns}</td>
      <td>{t.calls}</td>
      <td>{t.compactions}</td>
      <td>{t.rereads}</td>
      <td>{t.tokens_sent.toLocaleString()}</td>
      <td>{usd(t.cost_usd)}</td>
      <td className="compare-verdict">{t.verdict}</td>
    </tr>
  );
}

/** The aligned lines, virtualised (two runs of 100k messages make as many lines). */
function CompareList({ view, onPick }: { view: CompareView; onPick: (index: number) => void }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const lines = view.lines;
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => ROW_HEIGHT + (lines[i]?.head ? HEAD_HEIGHT : 0),
    overscan: 10,
  });
  useEffect(() => {
    if (view.first_line !== null) virtualizer.scrollToIndex(view.first_line, { align: "center" });
  }, [view, virtualizer]);
  return (
    <div className="compare-lines" ref={scrollRef} data-testid="compare-lines">
      <div className="timeline-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const l = lines[item.index];
          if (!l) return null;
          const first = item.index === view.first_line;
          return (
            <div
              key={item.key}
              className={`compare-line${l.same ? "" : " differs"}${first ? " first" : ""}`}
              style={{ transform: `translateY(${item.start}px)`, height: item.size }}
              data-testid="compare-line"
              data-turn={l.turn}
              data-same={String(l.same)}
              data-first={String(first)}
            >
              {l.head && <TurnHead view={view} line={l} />}
              <div className="compare-pair">
                <span className="compare-mark" title={l.same ? "Both runs did this" : "The runs did otherwise here"}>
                  {first ? "»" : l.same ? "" : "≠"}
                </span>
                <Side line={l} side="a" onPick={onPick} />
                <Side line={l} side="b" />
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function TurnHead({ view, line }: { view: CompareView; line: CompareLine }) {
  const t = view.diff.turns[line.turn];
  const ask = t?.a?.ask ?? t?.b?.ask ?? "";
  const cuts = (s: TurnSide | null | undefined) => (s && s.compactions.length ? `, compacted (${s.compactions.map((c) => `#${c[0]} kept ${c[2]}`).join(", ")})` : "");
  return (
    <div className={`compare-head${t?.same ? "" : " differs"}`} data-testid="compare-turn">
      <strong>
        {t?.same ? "" : "≠ "}turn {line.turn + 1}
      </strong>{" "}
      «{ask.slice(0, 80)}» — A: {t?.a ? `${t.a.calls.length} calls${cuts(t.a)}` : "not run"} · B: {t?.b ? `${t.b.calls.length} calls${cuts(t.b)}` : "not run"}
    </div>
  );
}

function Side({ line, side, onPick }: { line: CompareLine; side: "a" | "b"; onPick?: (index: number) => void }) {
  const r = line[side];
  if (!r) return <div className="compare-side gap" data-side={side} data-index="" title="This run has no message here" />;
  return (
    <div
      className={`compare-side${r.agent_visible ? "" : " invisible"}`}
      data-side={side}
      data-index={r.index}
      onClick={onPick ? () => onPick(r.index) : undefined}
      title={onPick ? "Select this message in the timeline" : undefined}
    >
      <Row row={r} />
    </div>
  );
}
