// The ribbon: the whole session as a thin strip above the timeline. Bar height and shading give
// the token density along the session (BPE counts when the rows carry them, from the index; else
// bytes / 4 per message, an estimate), each compaction cut
// is a labelled mark, and a tick shows the selected message. Clicking the strip scrolls the
// timeline there; clicking a cut mark opens that cut. Plain elements only (no SVG markup).
import { useEffect, useMemo, useRef, useState, type MouseEvent } from "react";
import type { TimelineRow } from "../bindings/TimelineRow";
import type { CutBrief } from "../bindings/CutBrief";
import { allCounted, cutRuleLabel, cutTokens, fractionOf, ribbonBins, ribbonLabels } from "../cuts/model";

const BINS = 160;

export interface RibbonProps {
  /** Every stored message (the All view), in order. */
  all: TimelineRow[];
  cuts: CutBrief[];
  /** Stored index of the selected message, if any. */
  selectedIndex: number | undefined;
  /** A click on the strip: fraction (0..1) of the session. */
  onSeek: (fraction: number) => void;
  /** A click on cut mark `ordinal` (0-based, in cut order). */
  onOpenCut: (ordinal: number) => void;
  /** Ordinal of the cut open in the inspector, if any. */
  openCut: number | null;
}

export function Ribbon({ all, cuts, selectedIndex, onSeek, onOpenCut, openCut }: RibbonProps) {
  const bins = useMemo(() => ribbonBins(all, BINS), [all]);
  const marks = useMemo(() => cuts.map((c) => fractionOf(c.anatomy.cut_index, all)), [cuts, all]);
  const counted = useMemo(() => allCounted(all), [all]);
  // The strip's width, so labels that would collide shorten or give way (1280 × 800 with a cut
  // open leaves the timeline narrow).
  const marksRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = marksRef.current;
    if (!el) return;
    // Whole pixels, and only a change of more than 8 px: a label that appears or goes must not
    // be able to nudge the width back and forth (a scrollbar coming and going) for ever.
    const measure = () => {
      const w = Math.round(el.getBoundingClientRect().width);
      setWidth((cur) => (Math.abs(cur - w) > 8 ? w : cur));
    };
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    measure();
    return () => ro.disconnect();
  }, [all.length > 0]); // eslint-disable-line react-hooks/exhaustive-deps
  const labels = useMemo(
    () =>
      ribbonLabels(
        marks,
        width,
        cuts.map((c, i) => `✂ ${i + 1} · ${c.anatomy.trigger ?? "?"} · ${cutTokens(c).replace(" tokens (estimate)", " est.").replace(/ tokens \(BPE [^)]*\)/, " BPE").replace(" tokens", "")}`),
        cuts.map((_, i) => `✂ ${i + 1}`),
      ),
    [marks, width, cuts],
  );
  if (all.length === 0) return null;
  const seek = (e: MouseEvent<HTMLDivElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    onSeek(Math.min(1, Math.max(0, (e.clientX - r.left) / Math.max(1, r.width))));
  };
  const sel = selectedIndex === undefined ? null : fractionOf(selectedIndex, all);
  const total = bins.reduce((s, b) => s + b.tokens, 0);
  return (
    <div className="ribbon" data-testid="ribbon" aria-label="The whole session: token density and compaction cuts">
      <div
        className="ribbon-strip"
        onClick={seek}
        title={`${all.length} messages, ${counted ? `${total.toLocaleString()} tokens (BPE)` : `≈${total.toLocaleString()} tokens (estimate: bytes / 4)`}. Click to scroll there.`}
      >
        {bins.map((b, i) => (
          <span
            key={i}
            className={`ribbon-bin${b.visible === 0 && b.count > 0 ? " gone" : ""}`}
            style={{ left: `${(i / bins.length) * 100}%`, width: `${100 / bins.length}%`, height: `${Math.max(8, b.density * 100)}%`, opacity: 0.25 + 0.75 * b.density }}
          />
        ))}
        {sel !== null && <span className="ribbon-cursor" style={{ left: `${sel * 100}%` }} aria-hidden="true" />}
      </div>
      <div className="ribbon-marks" ref={marksRef}>
      {cuts.map((c, i) => (
        <button
          key={c.anatomy.cut_index}
          type="button"
          className={`ribbon-cut${openCut === i ? " open" : ""}`}
          style={{ left: `${(marks[i] ?? 0) * 100}%` }}
          onClick={() => onOpenCut(i)}
          title={`${cutRuleLabel(c, i + 1)}: open it`}
          data-testid="ribbon-cut"
          data-cut-index={c.anatomy.cut_index}
        >
          <span className="ribbon-cut-line" aria-hidden="true" />
          {labels[i] && <span className="ribbon-cut-label">{labels[i]}</span>}
        </button>
      ))}
      </div>
    </div>
  );
}
