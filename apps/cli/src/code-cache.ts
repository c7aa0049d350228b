// Loads the CLI core (dist/keel.cjs) through V8's code cache. Node 20 has no compile cache of
// its own, and compiling the ~1.6 MB core on every start is a third of the time to the first
// model request; with the cache V8 deserialises the code it compiled last time instead.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";
// Bundled alone into the bin (the package declares no side effects), not with the kernel.
import { resolveKeelHome } from "@keel/coding-agent";

export type CacheState = "off" | "miss" | "hit" | "rejected";

export interface LoadedModule {
  exports: unknown;
  cache: CacheState;
}

/** Where caches live: under KEEL_HOME like everything else keel keeps (tests get their own). */
export function codeCacheDir(): string {
  return join(resolveKeelHome(), "cache", "code");
}

const cachePrefix = (file: string) => `${basename(file)}-`;

/**
 * The cache file for one build of `file` on this Node. V8 checks only the source's length
 * before trusting a cache, so the name carries size and mtime: a rebuilt or reinstalled core
 * never meets the code of another build.
 */
function cacheFileFor(file: string, dir: string): string {
  const { size, mtimeMs } = statSync(file);
  const tag = `${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}`;
  return join(dir, `${cachePrefix(file)}${tag}.v8`);
}

function readCache(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined; // first start of this build: nothing cached yet
  }
}

/**
 * Written whole under a temporary name, then renamed: a reader never sees half a cache. The
 * caches of earlier builds of the same file go, so upgrades do not pile them up.
 */
function writeCache(path: string, prefix: string, data: Buffer): void {
  try {
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, data);
    renameSync(temp, path);
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && name.endsWith(".v8") && join(dir, name) !== path)
        rmSync(join(dir, name), { force: true });
  } catch {
    // A read-only or full home only costs the next start its compile time; never an error.
  }
}

/**
 * Runs a CommonJS bundle like `require(file)` would, compiling it from the code cache in `dir`
 * when one matches. On a miss or a rejected cache, the cache is written at process exit, so it
 * also holds every function this run compiled lazily, not only the top level.
 * `dir === undefined` turns caching off (plain compile).
 *
 * The bundle must not contain `import()`: a script compiled from a cache made in another process
 * has lost the binding that sends import() to Node's loader (it fails with
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Its ES module imports go through esm-import files
 * that the build keeps outside the bundle, and the build refuses a bundle with an import().
 */
export function requireWithCodeCache(file: string, dir: string | undefined): LoadedModule {
  const cachePath = dir === undefined ? undefined : cacheFileFor(file, dir);
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath);
  const source = readFileSync(file, "utf8");
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));

  const cache: CacheState =
    cachePath === undefined ? "off" : !cachedData ? "miss" : script.cachedDataRejected ? "rejected" : "hit";
  if (cachePath !== undefined && cache !== "hit")
    process.once("exit", () => writeCache(cachePath, cachePrefix(file), script.createCachedData()));
  return { exports: module.exports, cache };
}
