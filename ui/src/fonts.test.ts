// warmFonts: once the window is idle, every face the views use and a number table as they draw
// one are laid out off-screen, out of the accessibility tree and the pointer's way.
import { afterEach, describe, expect, it, vi } from "vitest";
import { GLYPHS, warmFonts } from "./fonts";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

describe("warmFonts", () => {
  it("lays out every glyph in every face and in a number table, off-screen, when idle", () => {
    vi.useFakeTimers();
    warmFonts();
    expect(document.querySelector("[data-testid=font-warmup]"), "nothing before the window is idle").toBeNull();
    vi.runAllTimers();
    const box = document.querySelector<HTMLElement>("[data-testid=font-warmup]");
    expect(box, "laid out once idle").not.toBeNull();
    expect(box!.getAttribute("aria-hidden"), "out of the accessibility tree").toBe("true");
    expect(box!.style.left, "off-screen, not hidden (hidden text is never shaped)").toBe("-10000px");
    const faces = [...box!.querySelectorAll<HTMLElement>(":scope > span")];
    expect(faces.every((f) => f.textContent === GLYPHS), "each face draws every glyph").toBe(true);
    expect(
      faces.map((f) => f.style.fontVariantNumeric),
      "the tables' tabular digits are among the faces, plain and bold",
    ).toContain("tabular-nums");
    const table = box!.querySelector("table.num-table");
    expect(table?.querySelector("caption")?.textContent, "a number table as the views draw one, with its caption").toBe(GLYPHS);
    expect(table?.querySelectorAll("th, td").length, "a head cell and two data cells").toBe(3);
  });
});
