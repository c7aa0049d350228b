// The package boundaries of DESIGN §1 (docs/architecture.md draws them), held by the code: every
// import in a package's source goes down the arrows, is declared in its manifest, and stays out
// of other packages' insides. A new arrow is a decision: change ARROWS and the docs together.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workspacePackages } from "../workspace.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Boundary {
  /** Workspace packages its source may import (any `@keel/ext-*` is "ext"). */
  runtime: string[];
  /** Those it may take types from only (erased at build). */
  typeOnly?: string[];
  /** Third-party packages it ships inside its own dist, so they are devDependencies: true for a bundle. */
  ships?: true | string[];
  /** Files that hold other packages' source as text (templates), not imports. */
  textOnly?: string[];
  /** A test-support entry (`<pkg>/testing`) that may also import these (an optional peer). */
  testingEntry?: { file: string; imports: string[] };
}

/** What each package's source may import of the workspace (any `@keel/ext-*` is "ext"). */
const ARROWS: Record<string, Boundary> = {
  "@keel/protocol": { runtime: [] },
  "@keel/ai": { runtime: ["@keel/protocol"] },
  "@keel/agent": { runtime: ["@keel/ai"] },
  "@keel/session": { runtime: ["@keel/protocol"] },
  // The SDK stays free of Keel at run time: the vocabulary reaches extensions as types only.
  "@keel/extension-sdk": { runtime: [], typeOnly: ["@keel/protocol"] },
  "@keel/coding-agent": {
    runtime: ["@keel/agent", "@keel/ai", "@keel/extension-sdk", "@keel/session"],
    ships: ["web-tree-sitter"], // copied into dist/node_modules by scripts/copy-grammar.mjs
    testingEntry: { file: "src/testing.ts", imports: ["@keel/testing"] },
  },
  // The mock speaks wire formats; it names Keel's vocabulary in its types only.
  "@keel/testing": { runtime: [], typeOnly: ["@keel/protocol"] },
  ext: { runtime: ["@keel/extension-sdk"] },
  "@keel/create-extension": { runtime: ["@keel/extension-sdk"], textOnly: ["src/templates.ts"] },
  "@keel/cli": {
    runtime: [
      "@keel/ai",
      "@keel/coding-agent",
      "@keel/extension-sdk",
      "@keel/protocol",
      "@keel/session",
      "ext",
    ],
    ships: true, // esbuild bundles the bin (apps/cli/scripts)
  },
};

interface Import {
  file: string;
  line: number;
  specifier: string;
  typeOnly: boolean;
}

const IMPORT =
  /(?:^|\n)[ \t]*(import|export)(\s+type)?\s[^;]*?\sfrom\s+["']([^"']+)["']|(?:^|[^.\w])(?<!typeof )(?:import|require)\(\s*["']([^"']+)["']\s*\)|(?:^|\n)[ \t]*import\s+["']([^"']+)["']/g;

/** Every import, re-export, dynamic import and require of a source file. */
export function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[3] ?? m[4] ?? m[5];
    if (specifier === undefined) continue;
    const typeOnly = m[2] !== undefined || allNamesAreTypes(m[0]);
    found.push({ file, line: text.slice(0, m.index).split("\n").length, specifier, typeOnly });
  }
  return found;
}

/** The text with comments blanked (lines kept, so line numbers stay true); strings are left alone. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/[^\n]*/g, (_match, before: string) => before);
}

/** `import { type A, type B } from "x"`: erased at build like `import type`. */
function allNamesAreTypes(statement: string): boolean {
  const names = /\{([^}]*)\}/.exec(statement)?.[1];
  if (names === undefined || /^\s*(import|export)\s+\w+\s*,/.test(statement.trim())) return false;
  const parts = names
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  return parts.length > 0 && parts.every((n) => n.startsWith("type "));
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(m|c)?[jt]sx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const packageName = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

/** The boundary violations of one package's `src/`, as lines a person can act on. */
export function violations(pkg: { name: string; dir: string; manifest: Record<string, unknown> }): string[] {
  const key = pkg.name.startsWith("@keel/ext-") ? "ext" : pkg.name;
  const arrows = ARROWS[key];
  if (arrows === undefined)
    return [`${pkg.name}: not in the boundary table (add it to ARROWS and docs/architecture.md)`];
  const manifest = pkg.manifest as Record<string, Record<string, string> | undefined>;
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}));
  for (const name of devOnly) if (arrows.ships === true || arrows.ships?.includes(name)) declared.add(name);
  const allowed = (target: string, typeOnly: boolean) => {
    const t = target.startsWith("@keel/ext-") ? "ext" : target;
    return arrows.runtime.includes(t) || (typeOnly && (arrows.typeOnly ?? []).includes(t));
  };
  const src = join(pkg.dir, "src");
  const out: string[] = [];
  let files: string[];
  try {
    files = sources(src);
  } catch {
    return out; // no source folder (a scripts-only package)
  }
  for (const file of files) {
    if (arrows.textOnly?.includes(relative(pkg.dir, file))) continue;
    const where = (i: Import) => `${relative(root, i.file)}:${i.line}`;
    for (const i of importsOf(file, withoutComments(readFileSync(file, "utf8")))) {
      if (i.specifier.startsWith(".")) {
        const target = resolve(dirname(file), i.specifier);
        if (!target.startsWith(pkg.dir + sep))
          out.push(`${where(i)}: reaches outside its package with a relative import (${i.specifier})`);
        continue;
      }
      if (i.specifier.startsWith("node:")) continue;
      const target = packageName(i.specifier);
      if (target.startsWith("@keel/")) {
        if (target === pkg.name) continue;
        const entry = arrows.testingEntry;
        if (entry && relative(pkg.dir, file) === entry.file && entry.imports.includes(target)) continue;
        if (!allowed(target, i.typeOnly))
          out.push(
            `${where(i)}: ${pkg.name} may not import ${target}${i.typeOnly ? " (even its types)" : ""}`,
          );
        else if (/^@keel\/[^/]+\/(src|dist)(\/|$)/.test(i.specifier))
          out.push(`${where(i)}: imports another package's insides (${i.specifier}); use its exports`);
        else if (!declared.has(target) && !(i.typeOnly && devOnly.has(target)))
          out.push(`${where(i)}: ${target} is imported but not a dependency of ${pkg.name}`);
      } else if (!declared.has(target) && !(i.typeOnly && devOnly.has(target)) && !isBuiltin(target)) {
        out.push(`${where(i)}: ${target} is imported but not a dependency of ${pkg.name}`);
      }
    }
  }
  return out;
}

const BUILTINS = new Set(
  // Node's modules without the node: prefix, as older code may still name them.
  [
    "fs",
    "path",
    "os",
    "url",
    "util",
    "crypto",
    "child_process",
    "events",
    "stream",
    "net",
    "tls",
    "http",
    "https",
    "zlib",
    "module",
    "readline",
    "assert",
    "buffer",
    "process",
    "worker_threads",
    "perf_hooks",
    "v8",
    "vm",
    "dns",
    "timers",
    "tty",
    "string_decoder",
    "querystring",
  ],
);
const isBuiltin = (name: string) => BUILTINS.has(name.split("/")[0]!);

describe("package boundaries (DESIGN §1)", () => {
  const packages = (workspacePackages(root) as { dir: string; manifest: Record<string, unknown> }[])
    .map((p) => ({ ...p, name: String(p.manifest.name) }))
    .filter((p) => p.name !== "@keel/scripts");

  it("knows every workspace package", () => {
    expect(packages.length).toBeGreaterThanOrEqual(14);
  });

  for (const pkg of packages) {
    it(`${pkg.name} imports only down the arrows, what it declares, through exports`, () => {
      expect(violations(pkg)).toEqual([]);
    });
  }

  it("finds a violation when there is one", () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-boundary-"));
    mkdirSync(join(dir, "src"));
    writeFileSync(
      join(dir, "src", "index.ts"),
      [
        'import { createCodingAgent } from "@keel/coding-agent";',
        'import type { Message } from "@keel/ai";',
        'export { x } from "../../other/src/x.js";',
        'const later = await import("@keel/session");',
        'import "left-pad";',
      ].join("\n"),
    );
    const found = violations({
      name: "@keel/ext-fixture",
      dir,
      manifest: { dependencies: { "@keel/extension-sdk": "1" } },
    });
    expect(found).toEqual([
      expect.stringContaining("may not import @keel/coding-agent"),
      expect.stringContaining("may not import @keel/ai (even its types)"),
      expect.stringContaining("reaches outside its package"),
      expect.stringContaining("may not import @keel/session"),
      expect.stringContaining("left-pad is imported but not a dependency"),
    ]);
    // The vocabulary is @keel/protocol's: the session may not take it from @keel/ai, even as types.
    const session = violations({
      name: "@keel/session",
      dir,
      manifest: { devDependencies: { "@keel/ai": "1" } },
    });
    expect(session).toContainEqual(expect.stringContaining("may not import @keel/ai (even its types)"));
    // The SDK takes protocol's types and nothing else of it.
    const sdkDir = mkdtempSync(join(tmpdir(), "keel-boundary-"));
    mkdirSync(join(sdkDir, "src"));
    writeFileSync(
      join(sdkDir, "src", "index.ts"),
      [
        'import type { Message } from "@keel/protocol";',
        'import { type Usage, UsageSchema } from "@keel/protocol";',
      ].join("\n"),
    );
    const sdk = violations({
      name: "@keel/extension-sdk",
      dir: sdkDir,
      manifest: { dependencies: { "@keel/protocol": "1" } },
    });
    expect(sdk).toEqual([
      expect.stringMatching(/index\.ts:\d+: @keel\/extension-sdk may not import @keel\/protocol$/),
    ]);
  });
});
