// Front matter: YAML only (a `---js` block or a js-yaml function tag is never run: a sentinel file
// proves it), the strict and lenient modes skills and agent definitions use, and the errors as values.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "../src/node/index.js";

const sentinel = () => join(mkdtempSync(join(tmpdir(), "keel-fm-")), "ran");
const write = (path: string) => `require("node:fs").writeFileSync(${JSON.stringify(path)}, "x")`;

describe("parseFrontMatter", () => {
  it("never runs ---js, ---javascript or ---coffee front matter", () => {
    for (const tag of ["js", "javascript", "JS", "coffee", "json", "toml"]) {
      const file = sentinel();
      const parsed = parseFrontMatter(`---${tag}\n(${write(file)}, { name: "x" })\n---\nbody`);
      expect(parsed._unsafeUnwrapErr()).toMatchObject({
        type: "unsupported_language",
        language: tag.toLowerCase(),
      });
      expect(existsSync(file)).toBe(false);
    }
  });

  it("never runs a !!js/function tag inside YAML, lenient or not", () => {
    const file = sentinel();
    const text = `---\nname: !!js/function "function () { ${write(file).replaceAll('"', '\\"')} }"\n---\n`;
    for (const lenient of [false, true]) {
      expect(parseFrontMatter(text, { lenient })._unsafeUnwrapErr().type).toBe("invalid_yaml");
    }
    expect(existsSync(file)).toBe(false);
  });

  it("splits fields and body; CRLF and a BOM are read as plain newlines", () => {
    const parsed = parseFrontMatter(
      "\uFEFF---\r\nname: a\r\ntools: [Read, Grep]\r\n---\r\n\r\nDo it.\r\n",
    )._unsafeUnwrap();
    expect(parsed).toEqual({ data: { name: "a", tools: ["Read", "Grep"] }, body: "Do it.", present: true });
  });

  it("reads a file without front matter as all body, unless it is required", () => {
    expect(parseFrontMatter("Just text.\n")._unsafeUnwrap()).toEqual({
      data: {},
      body: "Just text.",
      present: false,
    });
    expect(parseFrontMatter("----\nx\n")._unsafeUnwrap().present).toBe(false);
    expect(parseFrontMatter("Just text.", { required: true })._unsafeUnwrapErr().type).toBe(
      "no_front_matter",
    );
  });

  it("quotes unquoted `: ` values only in lenient mode, and says so", () => {
    const text = "---\nname: review\ndescription: Use when: the user asks for a review\n---\nBody";
    expect(parseFrontMatter(text)._unsafeUnwrapErr().type).toBe("invalid_yaml");
    const lenient = parseFrontMatter(text, { lenient: true })._unsafeUnwrap();
    expect(lenient.data.description).toBe("Use when: the user asks for a review");
    expect(lenient.repaired).toContain("read after quoting description");
  });

  it("refuses front matter that is not a mapping", () => {
    expect(parseFrontMatter("---\n- a\n- b\n---\n")._unsafeUnwrapErr().type).toBe("not_a_mapping");
    expect(parseFrontMatter("---\n---\nbody")._unsafeUnwrap()).toEqual({
      data: {},
      body: "body",
      present: true,
    });
  });
});
