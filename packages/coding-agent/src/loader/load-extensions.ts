// Loads user extensions: `-e` paths, ~/.keel/extensions and (trusted projects only)
// <project>/.keel/extensions. Each module exports a definition or a factory as default; each
// failure is one diagnostic and the others still load.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type Diagnostic,
  definitionFromFactory,
  type ExtensionFactory,
  isExtensionDefinition,
} from "@keel/extension-sdk";
import { importEsm } from "../esm-import.js";
import type { ExtensionSource } from "../host/extension-host.js";

const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".ts", ".mts"]);

export interface LoadOptions {
  /** Explicit paths (files or folders), e.g. from `-e`. */
  paths: string[];
  /** Directories to scan, in order (user dir first, then the trusted project's). */
  directories: string[];
  cwd: string;
}

export interface LoadResult {
  extensions: ExtensionSource[];
  diagnostics: Diagnostic[];
}

/** The entry module of a folder extension: package.json exports/main, else index.*. */
function folderEntry(dir: string): string | undefined {
  const manifestPath = join(dir, "package.json");
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      main?: string;
      exports?: string | { "."?: string | { import?: string; default?: string } };
    };
    const dot = typeof manifest.exports === "string" ? manifest.exports : manifest.exports?.["."];
    const entry = typeof dot === "string" ? dot : (dot?.import ?? dot?.default ?? manifest.main);
    if (entry) return join(dir, entry);
  }
  for (const name of ["index.ts", "index.mts", "index.js", "index.mjs"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function idFor(path: string): string {
  const manifest = join(path, "package.json");
  let raw = basename(path, extname(path));
  if (existsSync(manifest)) {
    const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
    if (name) raw = name.replace(/^@[^/]+\//, "");
  }
  return (
    raw
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "extension"
  );
}

function candidates(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .filter((name) => !name.startsWith("."))
    .map((name) => join(dir, name))
    .filter((path) => {
      const stat = statSync(path);
      return stat.isDirectory() ? folderEntry(path) !== undefined : MODULE_EXTENSIONS.has(extname(path));
    });
}

async function importModule(file: string): Promise<unknown> {
  const ext = extname(file);
  if (ext === ".ts" || ext === ".mts") {
    // TypeScript extensions go through tsx, loaded only when one is present.
    const { tsImport } = (await importEsm("tsx/esm/api")) as typeof import("tsx/esm/api");
    return tsImport(pathToFileURL(file).href, import.meta.url);
  }
  return importEsm(pathToFileURL(file).href);
}

async function loadOne(
  path: string,
): Promise<{ ok: true; source: ExtensionSource } | { ok: false; diagnostic: Diagnostic }> {
  const id = idFor(path);
  const fail = (message: string) => ({
    ok: false as const,
    diagnostic: { extensionId: id, level: "error" as const, message: `${path}: ${message}` },
  });
  if (!existsSync(path)) return fail("no such file or folder");
  const entry = statSync(path).isDirectory() ? folderEntry(path) : path;
  if (!entry) return fail("folder has no package.json entry or index file");
  let mod: { default?: unknown };
  try {
    mod = (await importModule(entry)) as { default?: unknown };
  } catch (e) {
    return fail(`import failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const exported = defaultExport(mod);
  if (typeof exported === "function") {
    const result = await definitionFromFactory(id, exported as ExtensionFactory);
    if (!result.ok) return fail(`factory threw: ${result.error.message}`);
    return { ok: true, source: { definition: result.definition, source: path } };
  }
  if (isExtensionDefinition(exported)) return { ok: true, source: { definition: exported, source: path } };
  return fail("default export is neither defineExtension(...) nor a factory function");
}

/**
 * The module's default export. A file compiled as CommonJS (a `.ts` or `.js` file with no
 * `"type": "module"` above it, which is how tsx loads ~/.keel/extensions/foo.ts) arrives as
 * `{ default: { default: … } }`, so one more level is unwrapped.
 */
function defaultExport(mod: { default?: unknown }): unknown {
  const exported = mod.default ?? mod;
  if (
    typeof exported === "object" &&
    exported !== null &&
    !isExtensionDefinition(exported) &&
    "default" in exported
  )
    return (exported as { default: unknown }).default;
  return exported;
}

export async function loadExtensions(options: LoadOptions): Promise<LoadResult> {
  const paths = [
    ...options.paths.map((p) => resolve(options.cwd, p)),
    ...options.directories.flatMap((dir) => candidates(dir)),
  ];
  const seen = new Set<string>();
  const result: LoadResult = { extensions: [], diagnostics: [] };
  for (const path of paths) {
    if (seen.has(path)) continue;
    seen.add(path);
    const loaded = await loadOne(path);
    if (loaded.ok) result.extensions.push(loaded.source);
    else result.diagnostics.push(loaded.diagnostic);
  }
  return result;
}
