// HTML to Markdown on its own: large pages are converted in runs of blocks, so the result must be
// the whole content, in order, with no block split or repeated.
import { describe, expect, it } from "vitest";
import { MAX_HTML_DEPTH, parseHtml } from "../src/fetch/html.js";

const url = new URL("https://docs.example.com/guide/page");

describe("parseHtml", () => {
  it("keeps every block of a large page, in order, across conversion runs", () => {
    const paragraphs = Array.from(
      { length: 3000 },
      (_, i) => `<p>Paragraph ${i} has <a href="#p${i}">a link</a> and <em>words</em>.</p>`,
    );
    const html = `<html><body><main><div class="wrap"><section>${paragraphs.join("")}</section></div></main></body></html>`;
    expect(html.length).toBeGreaterThan(150_000);
    const md = parseHtml(html, url).markdown();
    const found = [
      ...md.matchAll(
        /Paragraph (\d+) has \[a link\]\(https:\/\/docs\.example\.com\/guide\/page#p\1\) and _words_\./g,
      ),
    ].map((m) => Number(m[1]));
    expect(found).toEqual(paragraphs.map((_, i) => i));
    expect(md).not.toMatch(/\n{3,}/);
  });

  it("bounds how deep it walks: 10,000 nested elements keep their text, with no stack overflow", () => {
    const depth = 10_000;
    const html = `<html><body><p>Intro.</p>${"<div><span>".repeat(depth / 2)}deep &amp; text${"</span></div>".repeat(depth / 2)}<p>After.</p></body></html>`;
    const page = parseHtml(html, url);
    expect(page.flattened).toBeGreaterThan(0);
    const md = page.markdown();
    expect(md).toContain("Intro.");
    expect(md).toContain("deep & text");
    expect(md).toContain("After.");
    expect(page.text()).toContain("deep & text");
  });

  it("leaves pages within the bound as they are", () => {
    const nested = `${"<div>".repeat(MAX_HTML_DEPTH - 10)}<p>Inner <b>bold</b>.</p>${"</div>".repeat(MAX_HTML_DEPTH - 10)}`;
    const page = parseHtml(`<body>${nested}</body>`, url);
    expect(page.flattened).toBe(0);
    expect(page.markdown()).toContain("Inner **bold**.");
  });

  it("does not split a list or a table that is larger than a run", () => {
    const items = Array.from({ length: 2000 }, (_, i) => `<li>item ${i}</li>`).join("");
    const md = parseHtml(`<body><p>Before.</p><ol>${items}</ol><p>After.</p></body>`, url).markdown();
    expect(md.startsWith("Before.\n\n1. item 0\n2. item 1\n")).toBe(true);
    expect(md).toContain("2000. item 1999\n\nAfter.");
  });

  it("keeps inline content around blocks in one paragraph", () => {
    const filler = "<p>x</p>".repeat(4000);
    const md = parseHtml(`<body>${filler}Loose <b>inline</b> text<p>next</p></body>`, url).markdown();
    expect(md).toContain("Loose **inline** text");
  });

  it("keeps the body when the main element is only a teaser, and drops hidden parts", () => {
    const page = parseHtml(
      '<body><main><p>Short.</p></main><div><p>The real text lives here.</p><p hidden>secret</p><p aria-hidden="true">also</p></div></body>',
      url,
    );
    expect(page.extracted).toBe("body");
    expect(page.markdown()).toBe("Short.\n\nThe real text lives here.");
  });
});
