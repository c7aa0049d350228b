// What the legacy trust hash covered besides .keel/ and the root files (entries written before
// Keel recorded a project's surface are carried over only while it still matches): where links
// lead (never into /dev or /proc), the skill and agent folders, the modules extensions import and
// the files hooks run.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashProject } from "../../src/trust/hash.js";
import { findEnclosingRoot } from "../../src/trust/root.js";

let root: string;
let project: string;
let keelHome: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-trust-cover-")));
  project = join(root, "project");
  keelHome = join(root, "keel-home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".keel", "extensions"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string, base = project): string {
  const path = join(base, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const hash = () => hashProject(project)._unsafeUnwrap();

/** The hash changes when `rel` changes (and not when an unrelated file does). */
function expectCovered(rel: string, base = project) {
  write("src/unrelated.ts", "export const a = 1;\n");
  const before = hash();
  write("src/unrelated.ts", "export const a = 2;\n");
  expect(hash()).toBe(before);
  // Appended, so the imports it holds (and what they reach) stay as they were.
  appendFileSync(join(base, rel), "\n// edited after trust\n");
  expect(hash()).not.toBe(before);
}

describe("the trust hash", () => {
  it("records a link to a device or /proc without reading it", () => {
    symlinkSync("/dev/zero", join(project, ".keel", "zero"));
    symlinkSync("/proc/self/environ", join(project, ".keel", "environ"));
    expect(hash()).toMatch(/^sha256:/);
  });

  it("ends on a link loop", () => {
    mkdirSync(join(project, ".keel", "a"));
    symlinkSync(join(project, ".keel"), join(project, ".keel", "a", "up"));
    expect(hash()).toMatch(/^sha256:/);
  });

  it.each([".agents/skills/x/SKILL.md", ".claude/skills/x/SKILL.md", ".claude/agents/reviewer.md"])(
    "covers %s",
    (rel) => {
      write(rel, "v1");
      expectCovered(rel);
    },
  );

  it("covers the modules an extension imports, relative, TypeScript-style and from the project's packages", () => {
    write(
      ".keel/extensions/a.mjs",
      'import { helper } from "../../lib/helper.mjs";\nimport "pkg";\nexport default () => helper();\n',
    );
    write("lib/helper.mjs", 'export { deep as helper } from "./deep.mjs";\n');
    write("lib/deep.mjs", "export const deep = () => 1;\n");
    write(".keel/extensions/b/index.ts", 'import { t } from "../../../lib/t.js";\nexport default t;\n');
    write("lib/t.ts", "export const t = 1;\n");
    write("node_modules/pkg/package.json", '{"name":"pkg","exports":{".":{"import":"./esm.js"}}}');
    write("node_modules/pkg/esm.js", 'export * from "./more.js";\n');
    write("node_modules/pkg/more.js", "export const more = 1;\n");
    for (const rel of [
      "lib/helper.mjs",
      "lib/deep.mjs",
      "lib/t.ts",
      "node_modules/pkg/esm.js",
      "node_modules/pkg/more.js",
    ])
      expectCovered(rel);
  });

  it("does not hash packages outside the project (the user's installation)", () => {
    write(".keel/extensions/a.mjs", 'import "outerpkg";\n');
    write("node_modules/outerpkg/package.json", '{"name":"outerpkg","main":"index.js"}', root);
    write("node_modules/outerpkg/index.js", "one", root);
    const before = hash();
    write("node_modules/outerpkg/index.js", "two", root);
    expect(hash()).toBe(before);
  });

  it("covers the project files hook commands run, and what those import", () => {
    write(
      ".keel/config.json",
      JSON.stringify({
        hooks: {
          runEnd: [{ command: "node scripts/hook.mjs --flag" }],
          sessionStart: [{ command: 'sh "$KEEL_PROJECT_DIR/scripts/start.sh" && /bin/true' }],
        },
      }),
    );
    write("scripts/hook.mjs", 'import "./lib.mjs";\n');
    write("scripts/lib.mjs", "export {};\n");
    write("scripts/start.sh", "echo hi\n");
    for (const rel of ["scripts/hook.mjs", "scripts/lib.mjs", "scripts/start.sh"]) expectCovered(rel);
  });

  it("covers them in a commented config (JSONC) and in Claude Code's grouped form", () => {
    write(
      ".keel/config.json",
      `{
  // Claude Code's hook names and groups, as the loader runs them
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "node scripts/guard.mjs" }] }],
  },
}
`,
    );
    write("scripts/guard.mjs", "process.exit(0);\n");
    expectCovered("scripts/guard.mjs");
  });
});

describe("findEnclosingRoot", () => {
  it("finds the project a folder above a nested root belongs to, or none", () => {
    const inner = join(project, "vendor", "inner");
    mkdirSync(join(inner, ".git"), { recursive: true });
    expect(findEnclosingRoot(join(project, "vendor"), keelHome)).toBe(project);
    expect(findEnclosingRoot(inner, keelHome)).toBe(inner);
    expect(findEnclosingRoot(root, keelHome)).toBeUndefined();
  });
});
