// Loads user extensions: `-e` paths, ~/.keel/extensions and (trusted projects only)
// <project>/.keel/extensions; TypeScript ones through Node's type stripping (typescript.ts). Each
// module exports a definition or a factory as default; each failure (a broken package.json, a
// dangling link, a module that throws) is one diagnostic and the others still load. Nothing here
// throws.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type Diagnostic,
  definitionFromFactory,
  type ExtensionFactory,
  isExtensionDefinition,
} from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { importEsm } from "../esm-import.js";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionSource } from "../host/extension-host.js";
import { isTypeScript, serveTypeScript, typeScriptUnsupported } from "./typescript.js";

const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".ts", ".mts"]);

export interface LoadOptions {
  /** Explicit paths (files or folders), e.g. from `-e`: failing to load one fails the start. */
  paths: string[];
  /** Directories to scan, in order (user dir first, then the trusted project's). */
  directories: string[];
  /** Extension folders loaded like scanned ones (installed packages). */
  folders?: string[];
  cwd: string;
  /** Where TypeScript extensions' stripped output is kept by content (none: stripped every start). */
  typescriptCache?: string;
}

export interface LoadFailureInfo {
  extensionId: string;
  path: string;
  message: string;
  /** Named with `-e`. */
  explicit: boolean;
}

/** loadOne's error: the failure as reported, tagged. */
type LoadError = LoadFailureInfo & { type: "extension_load" };

export interface LoadResult {
  extensions: ExtensionSource[];
  diagnostics: Diagnostic[];
  failures: LoadFailureInfo[];
}

type Manifest = {
  name?: string;
  main?: string;
  exports?: string | { "."?: string | { import?: string; default?: string } };
};

/** A folder's package.json, or why it cannot be read; undefined when there is none. */
function readManifest(dir: string): Result<Manifest | undefined, { type: "manifest"; message: string }> {
  const path = join(dir, "package.json");
  if (!existsSync(path)) return ok(undefined);
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return err({ type: "manifest", message: "package.json is not a JSON object" });
    return ok(parsed as Manifest);
  } catch (e) {
    return err({ type: "manifest", message: `package.json cannot be read: ${errnoMessage(e)}` });
  }
}

/** The entry module of a folder extension: package.json exports/main, else index.*. */
function folderEntry(dir: string, manifest: Manifest | undefined): string | undefined {
  if (manifest) {
    const dot = typeof manifest.exports === "string" ? manifest.exports : manifest.exports?.["."];
    const entry = typeof dot === "string" ? dot : (dot?.import ?? dot?.default ?? manifest.main);
    if (typeof entry === "string") return join(dir, entry);
  }
  for (const name of ["index.ts", "index.mts", "index.js", "index.mjs"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function idFor(path: string, manifest: Manifest | undefined): string {
  let raw = basename(path, extname(path));
  if (typeof manifest?.name === "string" && manifest.name) raw = manifest.name.replace(/^@[^/]+\//, "");
  return (
    raw
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "extension"
  );
}

/** The entries of a scanned directory that look like extensions; unreadable ones are reported. */
function candidates(dir: string, report: (path: string, message: string) => void): string[] {
  let names: string[];
  try {
    if (!existsSync(dir)) return [];
    names = readdirSync(dir).sort();
  } catch (e) {
    report(dir, `cannot be listed: ${errnoMessage(e)}`);
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      // A dangling link, or an entry that vanished: say so, and go on with the others.
      report(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); skipped`);
      continue;
    }
    if (isDir || MODULE_EXTENSIONS.has(extname(path))) out.push(path);
  }
  return out;
}

async function importModule(file: string, typescriptCache: string | undefined): Promise<unknown> {
  if (isTypeScript(file)) {
    const unsupported = typeScriptUnsupported();
    if (unsupported) throw new Error(unsupported);
    // Its own imports of .ts files go through the same hooks.
    serveTypeScript(typescriptCache);
  }
  return importEsm(pathToFileURL(file).href);
}

async function loadOne(
  path: string,
  explicit: boolean,
  typescriptCache: string | undefined,
): Promise<Result<ExtensionSource, LoadError>> {
  let isDir = false;
  try {
    isDir = existsSync(path) && statSync(path).isDirectory();
  } catch {
    // Reported below as missing.
  }
  const manifest = isDir ? readManifest(path) : ok(undefined);
  const id = idFor(path, manifest.unwrapOr(undefined));
  const fail = (message: string) =>
    err<never, LoadError>({
      type: "extension_load",
      extensionId: id,
      path,
      message: `${path}: ${message}`,
      explicit,
    });
  if (!existsSync(path)) return fail("no such file or folder");
  if (manifest.isErr()) return fail(manifest.error.message);
  const entry = isDir ? folderEntry(path, manifest.value) : path;
  if (!entry) return fail("folder has no package.json entry or index file");
  if (!existsSync(entry)) return fail(`its entry ${entry} does not exist`);
  const root = isDir ? path : dirname(path);
  let mod: { default?: unknown };
  try {
    mod = (await importModule(entry, typescriptCache)) as { default?: unknown };
  } catch (e) {
    return fail(`import failed: ${errnoMessage(e)}`);
  }
  const exported = defaultExport(mod);
  if (typeof exported === "function") {
    const result = await definitionFromFactory(id, exported as ExtensionFactory);
    // definitionFromFactory answers the SDK's `{ ok }` factory outcome.
    if (!result.ok) return fail(`factory threw: ${result.error.message}`);
    return ok({ definition: result.definition, source: path, root, explicit });
  }
  if (isExtensionDefinition(exported)) return ok({ definition: exported, source: path, root, explicit });
  return fail("default export is neither defineExtension(...) nor a factory function");
}

/**
 * The module's default export. A CommonJS file whose exports carry a `default` (what compilers
 * emit for `export default`, e.g. a `.js` file built from TypeScript) arrives as
 * `{ default: { default: … } }`, so one more level is unwrapped.
 */
function defaultExport(mod: { default?: unknown }): unknown {
  const exported = mod?.default ?? mod;
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
  const result: LoadResult = { extensions: [], diagnostics: [], failures: [] };
  const report = (path: string, message: string) =>
    result.diagnostics.push({ extensionId: "loader", level: "warning", message: `${path}: ${message}` });
  const paths = [
    ...options.paths.map((p) => ({ path: resolve(options.cwd, p), explicit: true })),
    ...options.directories.flatMap((dir) =>
      candidates(dir, report).map((path) => ({ path, explicit: false })),
    ),
    ...(options.folders ?? []).map((path) => ({ path, explicit: false })),
  ];
  const seen = new Set<string>();
  for (const { path, explicit } of paths) {
    if (seen.has(path)) continue;
    seen.add(path);
    let loaded: Result<ExtensionSource, LoadError>;
    try {
      loaded = await loadOne(path, explicit, options.typescriptCache);
    } catch (e) {
      // Belt and braces: whatever an odd file system does, the start goes on.
      loaded = err({
        type: "extension_load",
        extensionId: "extension",
        path,
        message: `${path}: ${errnoMessage(e)}`,
        explicit,
      });
    }
    if (loaded.isOk()) result.extensions.push(loaded.value);
    else {
      const { type: _, ...failure } = loaded.error;
      result.failures.push(failure);
      result.diagnostics.push({ extensionId: failure.extensionId, level: "error", message: failure.message });
    }
  }
  return result;
}
