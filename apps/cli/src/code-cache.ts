// Loads the CLI core (dist/keel.cjs) and the official extensions' bundles through V8's code
// cache: a start deserialises the code the last one compiled instead of compiling ~2.5 MB of
// JavaScript again. Node's own compile cache (module.enableCompileCache, Node >= 22.1) is made
// right after a module compiles, so it holds only what V8 compiles eagerly and every function a
// start calls is compiled again: ~25% more instructions on a keel -p start on Node 22 and 24
// (measured). This one is made at exit, with every function the run compiled.
import { mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, statSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";
// Bundled alone into the bin (the package declares no side effects), not with the kernel.
import { resolveKeelHome } from "@keel/coding-agent";
import { writeFileAtomic } from "@keel/extension-sdk/node";

/**
 * CommonJS's function wrapper, which the build writes into every bundle the bin loads
 * (scripts/build.mjs has the same text; a test holds the built bundles to this one).
 */
export const CJS_WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";

export type CacheState = "off" | "miss" | "hit" | "rejected";

export interface LoadedModule {
  exports: unknown;
  cache: CacheState;
}

/**
 * The kernel's signal before it changes V8 flags (@keel/coding-agent's BEFORE_V8_FLAGS; the bin
 * carries none of the kernel, so the name is repeated here and a test holds the two equal).
 */
export const BEFORE_V8_FLAGS = "keel:before-v8-flags";

/** Where caches live: under KEEL_HOME like everything else keel keeps (tests get their own). */
export function codeCacheDir(): string {
  return join(resolveKeelHome(), "cache", "code");
}

/** Node's compile cache, beside it (enableModuleCache). */
export function moduleCacheDir(): string {
  return join(resolveKeelHome(), "cache", "modules");
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
 * A cache is only worth writing while the disk has room to spare: it must never be what fills
 * it. Below this much free space after the write, the start simply goes uncached.
 */
export const MIN_FREE_BYTES = 256 * 1024 * 1024;
/** A temporary file older than this was left by a process that died mid-write. */
const STALE_TEMP_MS = 10 * 60 * 1000;

export interface CacheWriteOptions {
  /** Free bytes on the file system holding `dir` (tests pretend a full disk). */
  freeBytes?: (dir: string) => number;
  now?: number;
}

/**
 * Turns on Node's own compile cache (module.enableCompileCache) in `dir` for what Node's loader
 * compiles: the TUI, user extensions, the shell parser's module, the MCP client. It keeps only what
 * V8 compiles eagerly (see above), still a sixth of the TUI's load. Not when the disk is nearly
 * full; in a read-only home Node's attempt fails quietly. Other Node versions' folders are
 * removed, so upgrades do not pile them up.
 */
export function enableModuleCache(dir: string, options: CacheWriteOptions = {}): boolean {
  const node = nodeModule as typeof nodeModule & {
    enableCompileCache?(dir: string): { status: number };
    constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number } };
  };
  const statuses = node.constants?.compileCacheStatus;
  if (!node.enableCompileCache || !statuses) return false;
  try {
    mkdirSync(dir, { recursive: true });
    if ((options.freeBytes ?? freeBytesOf)(dir) < MIN_FREE_BYTES) return false;
    const own = `${process.version}-${process.arch}-`;
    for (const name of readdirSync(dir))
      if (!name.startsWith(own)) rmSync(join(dir, name), { recursive: true, force: true });
  } catch {
    return false;
  }
  const { status } = node.enableCompileCache(dir);
  return status === statuses.ENABLED || status === statuses.ALREADY_ENABLED;
}

function freeBytesOf(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Written whole under a temporary name, then renamed (the SDK's atomic write): a reader never sees
 * half a cache. Bounded:
 * one cache per file (earlier builds' go, so upgrades do not pile them up), nothing written when
 * the disk is nearly full, and no temporary file left behind, neither by a failed write (a full
 * disk) nor, after a while, by a process that died while writing.
 */
export function writeCache(
  path: string,
  prefix: string,
  data: Buffer,
  options: CacheWriteOptions = {},
): void {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true });
    const now = options.now ?? Date.now();
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (name.startsWith(prefix) && name.endsWith(".v8") && file !== path) rmSync(file, { force: true });
      else if (name.endsWith(".tmp") && now - statSync(file).mtimeMs > STALE_TEMP_MS)
        rmSync(file, { force: true });
    }
    if ((options.freeBytes ?? freeBytesOf)(dir) < data.length + MIN_FREE_BYTES) return;
    // A cache: not synced (a crash costs a compile, and V8 rejects a damaged cache). A failed
    // write (a full disk) removes its temporary file and is dropped: it only costs the next start.
    writeFileAtomic(path, data, { durable: false });
  } catch {
    // A read-only home: the listing above failed, and the start simply goes uncached.
  }
}

/**
 * Runs a CommonJS bundle the build wrapped (CJS_WRAPPER_HEAD) like `require(file)` would,
 * compiling it from the code cache in `dir` when one matches. On a miss or a rejected cache, the cache is written at process exit, so it
 * also holds every function this run compiled lazily, not only the top level.
 * `dir === undefined` turns caching off (plain compile).
 *
 * The bundle must not contain `import()`: a script compiled from a cache made in another process
 * has lost the binding that sends import() to Node's loader (it fails with
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Its ES module imports go through esm-import files
 * that the build keeps outside the bundle, and the build refuses a bundle with an import().
 */
export function requireWithCodeCache(
  file: string,
  dir: string | undefined,
  /** Modules the bundle gets by name instead of from Node's resolution. */
  shared: Readonly<Record<string, unknown>> = {},
): LoadedModule {
  const cachePath = dir === undefined ? undefined : cacheFileFor(file, dir);
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath);
  // The build keeps the core pure ASCII, so latin1 reads it exactly, as a one-byte string, and
  // skips the UTF-8 validation of 2 MB (~2 ms a start).
  const source = readFileSync(file, "latin1");
  // The build wraps its bundles already: compiled as read, the core's 2 MB are not copied again.
  if (!source.startsWith(CJS_WRAPPER_HEAD))
    throw new Error(`${file} is not a bundle keel's build wrapped; reinstall keel or run pnpm build`);
  const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const nodeRequire = createRequire(file);
  const require = Object.assign(
    (id: string) => (Object.hasOwn(shared, id) ? shared[id] : nodeRequire(id)),
    nodeRequire,
  );
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file));

  const cache: CacheState =
    cachePath === undefined ? "off" : !cachedData ? "miss" : script.cachedDataRejected ? "rejected" : "hit";
  if (cachePath !== undefined && cache !== "hit") {
    // V8 rejects code cached under other flags than its own: when the kernel is about to switch
    // some (the shell parser's WASM tiering), the cache is taken then, as the next start needs it.
    let beforeFlags: Buffer | undefined;
    const take = () => {
      beforeFlags = script.createCachedData();
    };
    process.once(BEFORE_V8_FLAGS, take);
    process.once("exit", () => {
      process.off(BEFORE_V8_FLAGS, take);
      writeCache(cachePath, cachePrefix(file), beforeFlags ?? script.createCachedData());
    });
  }
  return { exports: module.exports, cache };
}
