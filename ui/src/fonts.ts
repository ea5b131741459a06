// Warming the fonts the views draw with, once, while the window is idle after it opens. The
// first text in a new face or with a new font feature (the number tables' tabular digits), and
// the first symbol no font in use has (●, ✂, ⚠, → …), make the engine look a face up and load
// its shaping tables inside the frame that draws it: the Tokens tab's first visit blocked the
// window 56–119 ms under Xvfb, 37–46 ms with a number table laid out beforehand (the e2e
// long-task probe, on a 200 MB session). Laid out here, off-screen, that cost is paid before
// anyone clicks.

/** Every non-ASCII character the UI's sources and core's verdicts write, and some ASCII. */
export const GLYPHS = "·…→⚠—≈✖✓●–−×✂↓○◀▸≠↑›▶⋯∅Δ»⟳✕◆▾▼▲▤⌫”“¼«≥éö Aa09#%";

/** The faces the stylesheet uses: text, its bold and italic, and the monospace of code. */
const FACES = [
  "",
  "font-weight:600",
  "font-weight:700",
  "font-style:italic",
  "font-family:var(--mono);font-size:12px",
  "font-family:var(--mono);font-size:11px",
  "font-size:11px",
  "font-variant-numeric:tabular-nums",
  "font-variant-numeric:tabular-nums;font-weight:600",
];

/** Lay `GLYPHS` out in every face, off-screen, when the window is next idle. */
export function warmFonts(doc: Document = document): void {
  const run = () => {
    const box = doc.createElement("div");
    box.setAttribute("aria-hidden", "true");
    box.dataset.testid = "font-warmup";
    // Off-screen, not hidden: the glyphs must be shaped (laid out) for the faces to be found.
    box.style.cssText = "position:absolute;left:-10000px;top:0;white-space:nowrap;pointer-events:none";
    for (const face of FACES) {
      const line = doc.createElement("span");
      line.style.cssText = face;
      line.textContent = GLYPHS;
      box.appendChild(line);
    }
    // A number table as the views draw one (its stylesheet class), caption and head included.
    const table = doc.createElement("table");
    table.className = "num-table";
    const caption = table.appendChild(doc.createElement("caption"));
    caption.textContent = GLYPHS;
    const row = table.appendChild(doc.createElement("tr"));
    for (const [tag, cls] of [["th", "left"], ["td", "mono"], ["td", ""]] as const) {
      const cell = row.appendChild(doc.createElement(tag));
      cell.className = cls;
      cell.textContent = "0123456789 " + GLYPHS;
    }
    box.appendChild(table);
    doc.body.appendChild(box);
    // Read back, so the layout happens now, in this idle slot.
    void box.offsetWidth;
  };
  // WebKitGTK may lack requestIdleCallback: a moment after the first paint then.
  if ("requestIdleCallback" in window) window.requestIdleCallback(run, { timeout: 2000 });
  else setTimeout(run, 300);
}
