// A chart core drew, shown as a picture: <img src="data:image/svg+xml;base64,…">. The SVG embeds
// transcript strings (tool names), and scripts inside an <img> SVG never run, so its markup
// never reaches the DOM. It scales to the pane's width; `hover` maps the pointer (in the SVG's
// own pixels) to a tooltip, since an <img> shows no <title> of its own.
import { useMemo, useState } from "react";

export function svgDataUri(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/svg+xml;base64,${btoa(bin)}`;
}

/** The width and height the SVG declares (plotters writes both). */
export function svgSize(svg: string): { width: number; height: number } {
  const w = /<svg[^>]*\swidth="(\d+)/.exec(svg);
  const h = /<svg[^>]*\sheight="(\d+)/.exec(svg);
  return { width: Number(w?.[1] ?? 960), height: Number(h?.[1] ?? 400) };
}

export interface SvgImageProps {
  svg: string;
  /** Alt text: what the chart shows. */
  alt: string;
  testId?: string;
  /** Tooltip text for a point in SVG pixels, or null for none. */
  hover?: (x: number, y: number) => string | null;
  onClick?: (x: number, y: number) => void;
}

export function SvgImage({ svg, alt, testId, hover, onClick }: SvgImageProps) {
  const src = useMemo(() => svgDataUri(svg), [svg]);
  const size = useMemo(() => svgSize(svg), [svg]);
  const [tip, setTip] = useState<{ text: string; left: number; top: number } | null>(null);
  const at = (e: React.MouseEvent<HTMLImageElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const k = size.width / r.width;
    return { x: (e.clientX - r.left) * k, y: (e.clientY - r.top) * k, left: e.clientX - r.left, top: e.clientY - r.top };
  };
  return (
    <div className="chart" style={{ maxWidth: size.width }}>
      <img
        src={src}
        alt={alt}
        title={hover ? undefined : alt}
        data-testid={testId}
        style={{ aspectRatio: `${size.width} / ${size.height}` }}
        onMouseMove={
          hover
            ? (e) => {
                const p = at(e);
                const text = hover(p.x, p.y);
                setTip(text ? { text, left: p.left, top: p.top } : null);
              }
            : undefined
        }
        onMouseLeave={() => setTip(null)}
        onClick={
          onClick
            ? (e) => {
                const p = at(e);
                onClick(p.x, p.y);
              }
            : undefined
        }
      />
      {tip && (
        <div className="chart-tip" role="tooltip" style={{ left: tip.left + 12, top: tip.top + 12 }}>
          {tip.text}
        </div>
      )}
    </div>
  );
}
