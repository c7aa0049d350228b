// The files a JavaScript or TypeScript module pulls in by static imports, for the trust hash:
// what an extension or hook script imports runs with it, so trust must cover it too. Reads
// text only; resolution follows Node's rules for the common layouts.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const MODULE_EXTENSIONS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"];

/**
 * Specifiers of `import … from "x"`, `export … from "x"`, `import "x"`, `import("x")` and
 * `require("x")` with a literal string. A match inside a comment or a string only adds a file
 * to the hash, which is harmless; an import computed at run time cannot be seen, and is what
 * the approved code itself chose to do.
 */
const SPECIFIER =
  /(?:\bimport|\bexport)\s[^'"`;]*?\bfrom\s*['"]([^'"\n]+)['"]|\bimport\s*['"]([^'"\n]+)['"]|\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)|\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (specifier) found.add(specifier);
  }
  return [...found];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** TypeScript lets `./x.js` name `./x.ts`; Keel's TypeScript loader resolves it so too. */
const TS_SOURCES: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
  ".jsx": [".tsx"],
};

/**
 * A file path as Node, with Keel's TypeScript loader (loader/typescript.ts, which asks this), would
 * find it: exact, with an extension added, or a folder's index.
 */
export function resolveFile(path: string): string | undefined {
  if (isFile(path)) return path;
  for (const ext of TS_SOURCES[extname(path)] ?? []) {
    const swapped = path.slice(0, -extname(path).length) + ext;
    if (isFile(swapped)) return swapped;
  }
  for (const ext of [...MODULE_EXTENSIONS, ".json"]) if (isFile(path + ext)) return path + ext;
  if (existsSync(join(path, "package.json"))) {
    const entry = packageEntry(path, ".");
    if (entry) return entry;
  }
  for (const ext of MODULE_EXTENSIONS)
    if (isFile(join(path, `index${ext}`))) return join(path, `index${ext}`);
  return undefined;
}

type ExportsValue = string | null | { [key: string]: ExportsValue } | ExportsValue[];

/** The first target of an `exports` entry, preferring import, then default, node, require. */
function exportTarget(value: ExportsValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const target = exportTarget(item);
      if (target) return target;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const key of ["import", "default", "node", "require"])
      if (key in value) {
        const target = exportTarget(value[key]);
        if (target) return target;
      }
  }
  return undefined;
}

/** The file a package folder exposes at `subpath` ("." for the main entry). */
function packageEntry(dir: string, subpath: string): string | undefined {
  let manifest: { exports?: ExportsValue; module?: string; main?: string };
  try {
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as typeof manifest;
  } catch {
    return undefined;
  }
  const exports = manifest.exports;
  let target: string | undefined;
  if (exports !== undefined && exports !== null) {
    const map =
      typeof exports === "object" &&
      !Array.isArray(exports) &&
      Object.keys(exports).some((k) => k.startsWith("."))
        ? exports
        : { ".": exports };
    target = exportTarget((map as Record<string, ExportsValue>)[subpath]);
  }
  if (!target && subpath === ".") target = manifest.module ?? manifest.main ?? "index.js";
  if (!target && subpath !== ".") target = subpath;
  return target ? resolveFile(join(dir, target)) : undefined;
}

/** `@scope/name/sub` → ["@scope/name", "./sub"]; `name` → ["name", "."]. */
function splitPackage(specifier: string): [string, string] {
  const parts = specifier.split("/");
  const length = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length).join("/");
  return [parts.slice(0, length).join("/"), rest ? `./${rest}` : "."];
}

/**
 * The file `specifier` names when imported from `importer`, or undefined for a built-in
 * module, a URL, or anything that does not resolve (the import then fails at load anyway).
 */
export function resolveImport(specifier: string, importer: string): string | undefined {
  if (specifier.startsWith("node:") || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
    if (!specifier.startsWith("file:")) return undefined;
    try {
      return resolveFile(fileURLToPath(specifier));
    } catch {
      return undefined;
    }
  }
  const from = dirname(importer);
  if (specifier.startsWith(".") || isAbsolute(specifier)) return resolveFile(resolve(from, specifier));
  const [name, subpath] = splitPackage(specifier);
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return packageEntry(candidate, subpath);
    if (dirname(dir) === dir) return undefined;
  }
}
