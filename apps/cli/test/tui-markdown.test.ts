// The markdown renderer and the streaming split point, as pure functions.
import { describe, expect, it } from "vitest";
import {
  type BlockScan,
  lineText,
  renderInline,
  renderMarkdown,
  scanBlocks,
  stableBlockEnd,
} from "../src/tui/markdown.js";

describe("renderInline", () => {
  it("styles bold, italic, inline code and links", () => {
    expect(renderInline("a **b** _c_ `d` [e](http://x)")).toEqual([
      { text: "a ", style: "plain" },
      { text: "b", style: "bold" },
      { text: " ", style: "plain" },
      { text: "c", style: "italic" },
      { text: " ", style: "plain" },
      { text: "d", style: "code" },
      { text: " ", style: "plain" },
      { text: "e", style: "link" },
      { text: " (http://x)", style: "dim" },
    ]);
  });

  it("leaves markup inside code alone and snake_case words as text", () => {
    expect(renderInline("`**x**` snake_case_name")).toEqual([
      { text: "**x**", style: "code" },
      { text: " snake_case_name", style: "plain" },
    ]);
  });

  it("keeps an unclosed marker (still streaming) as plain text", () => {
    expect(renderInline("half **bold")).toEqual([{ text: "half **bold", style: "plain" }]);
  });
});

describe("renderMarkdown", () => {
  it("renders headings, lists, quotes and rules", () => {
    const lines = renderMarkdown("# Title\n- one\n* [x] done\n2. two\n> said\n---");
    expect(lines.map(lineText)).toEqual(["Title", "• one", "• ☑ done", "2. two", "│ said", "─".repeat(40)]);
    expect(lines[0]![0]!.style).toBe("heading");
  });

  it("shows code fences as indented code with the language, markup untouched", () => {
    const lines = renderMarkdown("```ts\nconst a = **b**;\n```\nafter");
    expect(lines.map(lineText)).toEqual(["  ts", "  const a = **b**;", "after"]);
    expect(lines[1]![0]!.style).toBe("codeblock");
    expect(lines[2]![0]!.style).toBe("plain");
  });

  it("treats an unclosed fence as code to the end", () => {
    const lines = renderMarkdown("```\n# not a heading");
    expect(lines.map((l) => l[0]!.style)).toEqual(["codeblock"]);
  });
});

describe("stableBlockEnd", () => {
  it("ends after the last blank line once the next line has started", () => {
    const text = "para one\n\npara two is strea";
    expect(text.slice(0, stableBlockEnd(text))).toBe("para one\n\n");
  });

  it("never splits inside a code fence", () => {
    const text = "intro\n\n```\ncode\n\nmore code\n";
    expect(text.slice(0, stableBlockEnd(text))).toBe("intro\n\n");
    const closed = `${text}\`\`\`\n\nnext`;
    expect(closed.slice(0, stableBlockEnd(closed))).toBe(`${text}\`\`\`\n\n`);
  });

  it("is 0 while the first block is unfinished", () => {
    expect(stableBlockEnd("just one line")).toBe(0);
    expect(stableBlockEnd("line\nline two\n")).toBe(0);
  });

  it("scanned a delta at a time, finds the same end as a scan of the whole text at every step", () => {
    const text = "intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter the fence\n\n- item\n";
    let scan: BlockScan | undefined;
    for (let length = 0; length <= text.length; length += 3) {
      const prefix = text.slice(0, length);
      scan = scanBlocks(prefix, scan);
      expect(scan.end, `after ${length} chars`).toBe(stableBlockEnd(prefix));
    }
    expect(scanBlocks(text, scan).end).toBe(text.lastIndexOf("\n\n") + 2);
    // A text that is not a growth of the scanned one is scanned from its start.
    expect(scanBlocks("short\n\n", scan).end).toBe(7);
  });
});
