// Windows over long documents: UTF-8 safe, line-friendly, and a notice that reads on exactly.
import { describe, expect, it } from "vitest";
import { cutNotice, windowOf } from "../src/fetch/window.js";

describe("windowOf", () => {
  it("reads a document in windows that join back to the whole, never splitting a character", () => {
    const text = Array.from({ length: 400 }, (_, i) => `línea ${i} — ✓ ünïcödé 🚀`).join("\n");
    const doc = Buffer.from(text);
    const parts: string[] = [];
    for (let offset = 0, guard = 0; offset < doc.length && guard < 1000; guard++) {
      const w = windowOf(doc, offset, 997);
      expect(Buffer.byteLength(w.text)).toBeLessThanOrEqual(997);
      expect(w.text).not.toContain("\uFFFD");
      parts.push(w.text);
      offset = w.end;
    }
    expect(parts.join("")).toBe(text);
    // Cuts land on line breaks when one is near the end of the window.
    expect(parts.slice(0, -1).every((p) => p.endsWith("\n"))).toBe(true);
  });

  it("moves an offset that falls inside a character to the next boundary", () => {
    const doc = Buffer.from("a🚀b");
    const w = windowOf(doc, 2, 100);
    expect(w.offset).toBe(5);
    expect(w.text).toBe("b");
  });

  it("says where it cut, how much remains and the offset that reads on", () => {
    const doc = Buffer.from("x".repeat(5000));
    const first = windowOf(doc, 0, 2000);
    expect(cutNotice(first, "https://example.com/a")).toBe(
      '[Cut: showing bytes 0–2000 of 5000; 2.9 KB remain. To read on, call WebFetch with url "https://example.com/a" and offset 2000.]',
    );
    const last = windowOf(doc, 4000, 2000);
    expect(cutNotice(last, "https://example.com/a")).toBe(
      "[Showing bytes 4000–5000 of 5000: the end of the document.]",
    );
    expect(cutNotice(windowOf(doc, 0, 10_000), "https://example.com/a")).toBeUndefined();
  });
});
