// TypeScript extensions' stripped output, kept by content: one strip per content, read back as it
// was kept, bounded in number, and never written when the disk is nearly full. What Node's loader
// does with it (the hooks) is tested through the built bin (apps/cli/test/extensions.test.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CACHED_FILES, MIN_FREE_BYTES, typeScriptToJavaScript } from "../../src/loader/typescript.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => (dir = mkdtempSync(join(tmpdir(), "keel-ts-cache-")));
const roomy = { freeBytes: () => Number.MAX_SAFE_INTEGER };
// biome-ignore lint/suspicious/noTemplateCurlyInString: the extension's own template literal
const SOURCE = "const greet = (name: string): string => `hi ${name}`;\nexport default greet;\n";

describe("the TypeScript cache", () => {
  it("strips the types once, keeping line and column numbers, and keeps the output under a content hash", () => {
    fresh();
    const js = typeScriptToJavaScript(SOURCE, "/x/ext.ts", dir, roomy);
    expect(js).not.toContain(": string");
    expect(js.split("\n").map((l) => l.length)).toEqual(SOURCE.split("\n").map((l) => l.length));
    const files = readdirSync(dir);
    expect(files).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.js$/)]);
    expect(readFileSync(join(dir, files[0]!), "utf8")).toBe(js);
  });

  it("reads a kept output back instead of stripping again; another content is another entry", () => {
    fresh();
    typeScriptToJavaScript(SOURCE, "/x/ext.ts", dir, roomy);
    const [name] = readdirSync(dir);
    writeFileSync(join(dir, name!), "export default 'from the cache';\n");
    expect(typeScriptToJavaScript(SOURCE, "/x/ext.ts", dir, roomy)).toBe(
      "export default 'from the cache';\n",
    );
    typeScriptToJavaScript(`${SOURCE}// edited\n`, "/x/ext.ts", dir, roomy);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("turns an enum into code (syntax stripping alone cannot)", () => {
    fresh();
    const js = typeScriptToJavaScript("enum Mode { A, B }\nexport default Mode.B;\n", "/x/e.ts", dir, roomy);
    expect(js).not.toMatch(/\benum\b/);
    expect(js).toContain("Mode");
  });

  it("writes nothing when the disk would be left with less than its margin", () => {
    fresh();
    const js = typeScriptToJavaScript(SOURCE, "/x/ext.ts", dir, { freeBytes: () => MIN_FREE_BYTES });
    expect(js).toContain("export default greet");
    expect(readdirSync(dir)).toEqual([]);
  });

  it(`keeps at most ${MAX_CACHED_FILES} entries, the oldest going first`, () => {
    fresh();
    for (let i = 0; i < MAX_CACHED_FILES; i++)
      writeFileSync(join(dir, `${String(i).padStart(64, "0")}.js`), "x");
    const oldest = `${"0".repeat(64)}.js`;
    utimesSync(join(dir, oldest), 1, 1);
    typeScriptToJavaScript(SOURCE, "/x/ext.ts", dir, roomy);
    const files = readdirSync(dir);
    expect(files).toHaveLength(MAX_CACHED_FILES);
    expect(files).not.toContain(oldest);
  });
});
