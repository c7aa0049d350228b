// TypeScript extensions without a compiler of Keel's own: Node strips the types
// (module.stripTypeScriptTypes), once per file content — the output kept by content hash in the
// Keel home — and serves the result to its loader under the file's own URL (module.registerHooks),
// so the file's imports resolve from where it lies. tsx, which did this before, compiled every file
// on every start (~1 s and ~40 MB for a one-file extension).
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import nodeModule from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolveFile } from "../trust/imports.js";

interface ResolveContext {
  parentURL?: string;
}
interface Resolved {
  url: string;
  shortCircuit?: boolean;
}
interface Loaded {
  format: string;
  source?: string;
  shortCircuit?: boolean;
}
/** Node >= 22.15's module hooks and type stripper (@types/node 20, this repository's, predates them). */
const module = nodeModule as typeof nodeModule & {
  registerHooks?(hooks: {
    resolve(
      specifier: string,
      context: ResolveContext,
      next: (specifier: string, context: ResolveContext) => Resolved,
    ): Resolved;
    load(url: string, context: object, next: (url: string, context: object) => Loaded): Loaded;
  }): unknown;
  stripTypeScriptTypes?(code: string, options: { mode: "strip" | "transform"; sourceUrl?: string }): string;
};

const TYPESCRIPT = new Set([".ts", ".mts"]);
/** Part of every cache key: output from another Node (another type stripper) or another rule is not reused. */
const OUTPUT_TAG = `1-${process.version}`;
/** A cache file is written only with this much free space left: the cache must never fill a disk. */
export const MIN_FREE_BYTES = 256 * 1024 * 1024;
/** Past this many files (each edit of an extension adds one) the oldest go. */
export const MAX_CACHED_FILES = 256;

export const isTypeScript = (path: string) => TYPESCRIPT.has(extname(path));

/** Why this Node cannot load TypeScript extensions, or undefined when it can. */
export function typeScriptUnsupported(): string | undefined {
  if (typeof module.registerHooks === "function" && typeof module.stripTypeScriptTypes === "function")
    return undefined;
  return `TypeScript extensions need Node 22.15 or later (this is ${process.version}); upgrade Node, or compile the extension to .js`;
}

export interface CacheOptions {
  /** Free bytes on the file system holding the cache (tests pretend a full disk). */
  freeBytes?: (dir: string) => number;
}

let cacheDir: string | undefined;
let cacheOptions: CacheOptions = {};
let installed = false;

/**
 * Makes Node's loader read `.ts` and `.mts` files through the cache in `dir` (undefined: strip
 * them every time). Idempotent: the hooks go in once per process; the last directory given wins.
 */
export function serveTypeScript(dir: string | undefined, options: CacheOptions = {}): void {
  cacheDir = dir;
  cacheOptions = options;
  if (installed) return;
  installed = true;
  module.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      // A relative import in a .ts file as TypeScript writes them (`./x.js` for ./x.ts, no
      // extension, a folder): found by the rule trust hashes an extension's imports with.
      const parent = context.parentURL;
      if (parent?.startsWith("file:") && isTypeScript(parent) && /^\.\.?(\/|$)/.test(specifier)) {
        const found = resolveFile(fileURLToPath(new URL(specifier, parent)));
        if (found) return { url: pathToFileURL(found).href, shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (!url.startsWith("file:") || !isTypeScript(url)) return nextLoad(url, context);
      const file = fileURLToPath(url);
      const source = readFileSync(file, "utf8");
      const javascript = typeScriptToJavaScript(source, file, cacheDir, cacheOptions);
      return { format: formatOf(file), source: javascript, shortCircuit: true };
    },
  });
}

/** `.mts` is ESM; a `.ts` file is ESM unless its package says `"type": "commonjs"`. */
function formatOf(file: string): "module" | "commonjs" {
  if (extname(file) === ".mts") return "module";
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type === "commonjs"
          ? "commonjs"
          : "module";
      } catch {
        return "module";
      }
    }
    if (dirname(dir) === dir) return "module";
  }
}

/** The JavaScript of `source` (the text of `file`): from the cache in `dir` by content, else stripped and kept there. */
export function typeScriptToJavaScript(
  source: string,
  file: string,
  dir: string | undefined,
  options: CacheOptions = {},
): string {
  const key = createHash("sha256").update(`${OUTPUT_TAG}\0${source}`).digest("hex");
  const cached = dir === undefined ? undefined : readCached(join(dir, `${key}.js`));
  if (cached !== undefined) return cached;
  const output = strip(source, file);
  if (dir !== undefined) writeCached(dir, `${key}.js`, output, options);
  return output;
}

function readCached(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Erasable syntax only (types, interfaces, `import type`): replaced by blanks, so line and column
 * numbers stay the file's. Syntax that must become code (enums, namespaces, parameter
 * properties) goes through Node's transform instead, where this Node still has one.
 */
function strip(source: string, file: string): string {
  const restore = withoutStripWarning();
  try {
    try {
      return module.stripTypeScriptTypes!(source, { mode: "strip" });
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") throw e;
      return module.stripTypeScriptTypes!(source, { mode: "transform", sourceUrl: file });
    }
  } finally {
    restore();
  }
}

/**
 * Node calls the type stripper experimental once per process, on stderr; for Keel it is how an
 * extension loads, not something the user chose, so that one warning is left out.
 */
function withoutStripWarning(): () => void {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/stripTypeScriptTypes/.test(text)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  return () => {
    process.emitWarning = emitWarning;
  };
}

function freeBytesOf(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** Whole or not at all (a temporary name, then a rename), bounded, and never an error: a cache is only a faster start. */
function writeCached(dir: string, name: string, text: string, options: CacheOptions): void {
  const path = join(dir, name);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    if ((options.freeBytes ?? freeBytesOf)(dir) < Buffer.byteLength(text) + MIN_FREE_BYTES) return;
    const files = readdirSync(dir).filter((f) => f.endsWith(".js"));
    if (files.length >= MAX_CACHED_FILES) {
      const byAge = files.map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs })).sort((a, b) => a.at - b.at);
      for (const { f } of byAge.slice(0, files.length - MAX_CACHED_FILES + 1))
        rmSync(join(dir, f), { force: true });
    }
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
