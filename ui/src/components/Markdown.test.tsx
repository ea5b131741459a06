// Assistant text as Markdown: GFM structure and highlighted code come out as elements, while
// HTML, links and images from a transcript never become live elements.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { MARKDOWN_MAX_CHARS, Markdown } from "./Markdown";

afterEach(cleanup);

describe("Markdown", () => {
  it("renders tables, lists and highlighted code", () => {
    const text = "Done:\n\n| file | lines |\n|---|---|\n| store.py | 12 |\n\n- [x] retry\n- tests\n\n```python\ndef f():\n    return 1\n```\n";
    const { container } = render(<Markdown text={text} />);
    const cells = [...container.querySelectorAll("td")].map((c) => c.textContent);
    expect(cells, "the GFM table's cells, in order").toEqual(["store.py", "12"]);
    expect(container.querySelectorAll("li").length, "two list items").toBe(2);
    expect(container.querySelector("input[type=checkbox]")?.hasAttribute("checked"), "the task list item is ticked").toBe(true);
    const code = container.querySelector("pre code.language-python");
    expect(code?.textContent, "the code block's text unchanged").toBe("def f():\n    return 1\n");
    expect(code?.querySelector(".hljs-keyword")?.textContent, "`def` highlighted as a keyword").toBe("def");
  });

  it("shows HTML as text and never follows links or loads images", () => {
    const text = 'Try <script>alert(1)</script> and <img src="x" onerror="alert(2)"> or [docs](javascript:alert(3)) ![p](https://evil.test/p.png)';
    const { container } = render(<Markdown text={text} />);
    expect(container.querySelector("script, img, a, iframe"), "no live element from the transcript").toBeNull();
    expect(container.textContent, "the tags are shown as written").toContain("<script>alert(1)</script>");
    expect(container.textContent, "the img tag as text").toContain('<img src="x" onerror="alert(2)">');
    expect(container.querySelector(".md-link")?.textContent, "the link's text stays, not as a link").toBe("docs");
    expect(container.querySelector(".md-img")?.textContent, "an image is named, not fetched").toBe("[image: p]");
  });

  it("falls back to plain text for very long text", () => {
    const text = "# big\n" + "x".repeat(MARKDOWN_MAX_CHARS);
    const { container } = render(<Markdown text={text} />);
    expect(container.querySelector("h1"), "no Markdown layout above the limit").toBeNull();
    expect(container.querySelector("pre")?.textContent, "the whole text, plain").toBe(text);
  });
});

describe("Markdown line breaks", () => {
  it("keeps a single newline as a break, as chat transcripts are written", () => {
    const { container } = render(<Markdown text={"**Task 1**: schema\n**Task 2**: renderer"} />);
    expect(container.querySelectorAll("p").length, "one paragraph").toBe(1);
    expect(container.querySelectorAll("p br").length, "the newline is a line break, not a space").toBe(1);
  });
});
