// Assistant text and summaries as Markdown (GFM tables, lists, task lists, code with syntax
// highlighting; a single line break stays a break, as agents' chat views show it), rendered to
// React elements, never to an HTML string: raw HTML in a transcript is shown as the text it is,
// links are not followed (the window must not navigate away; the address is in the tooltip) and
// images are not fetched. Text too long to lay out quickly is shown plain.
import type { ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import remarkBreaks from "remark-breaks";
import rehypeHighlight from "rehype-highlight";

/** Above this many characters the text is shown plain: Markdown layout would block the window. */
export const MARKDOWN_MAX_CHARS = 100_000;

interface Node {
  type: string;
  value?: string;
  children?: Node[];
}

/** A remark step: every raw HTML node becomes a text node with the same source. */
function htmlAsText() {
  const walk = (n: Node) => {
    if (n.type === "html") n.type = "text";
    n.children?.forEach(walk);
  };
  return (tree: Node) => walk(tree);
}

const components: Components = {
  a: ({ children, href }) => (
    <span className="md-link" title={href ?? undefined}>
      {children}
    </span>
  ),
  img: ({ alt, src }) => (
    <span className="md-img" title={typeof src === "string" ? src : undefined}>
      [image{alt ? `: ${alt}` : ""}]
    </span>
  ),
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
};

export function Markdown({ text }: { text: string }): ReactNode {
  if (text.length > MARKDOWN_MAX_CHARS) {
    return (
      <>
        <p className="muted small">Shown as plain text: {text.length.toLocaleString()} characters.</p>
        <pre>{text}</pre>
      </>
    );
  }
  return (
    <div className="md" data-testid="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkBreaks, htmlAsText]} rehypePlugins={[rehypeHighlight]} components={components} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
