// Message references in the analysis views: each is a button that selects that message in the
// timeline and shows it whole in the inspector (TabContext.selectMessage). Long lists are cut
// with a count, so a 10k-call loop does not draw 10k buttons. A message named twice (six
// parallel calls in one message) is one link.
export function MessageLinks({ indices, onSelect, max = 12 }: { indices: number[]; onSelect: (index: number) => void; max?: number }) {
  const unique = [...new Set(indices)];
  const shown = unique.slice(0, max);
  return (
    <span className="msg-links">
      {shown.map((i) => (
        <button key={i} type="button" className="msg-link" data-testid="msg-link" data-index={i} onClick={() => onSelect(i)} title={`Show message ${i} in the timeline and inspector`}>
          #{i}
        </button>
      ))}
      {unique.length > max && <span className="muted small"> +{unique.length - max} more</span>}
    </span>
  );
}

/** 0.875 -> "88%". */
export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}
