// The trust store (~/.keel/trust.json): project realpath → when the user trusted the folder and
// what it could then run or widen automatically (its surface, surface.ts), plus what each
// extension recorded as approved (a skill's allowed-tools). Trust holds until that surface
// changes; content (context files, skill text, hook scripts) never untrusts a project.
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { configPaths, displayPath, resolveKeelHome } from "../config/paths.js";
import { parseJsonText } from "../config/read.js";
import { errnoCode } from "../fs/errno.js";
import { realpathOrResolved } from "../fs/paths.js";
import { DEFAULT_HASH_LIMITS, type HashLimits, hashProject, type TrustError } from "./hash.js";
import { projectSurface, type Surface, surfaceChanges, type TrustChange } from "./surface.js";

const Approvals = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()));
const TrustEntrySchema = Type.Object({
  hash: Type.String(),
  trustedAt: Type.String(),
  contextFiles: Type.Optional(Type.Record(Type.String(), Type.String())),
  surface: Type.Optional(Type.Record(Type.String(), Type.String())),
  approvals: Type.Optional(Approvals),
});
const TrustFileSchema = Type.Object({
  version: Type.Literal(1),
  projects: Type.Record(Type.String(), TrustEntrySchema),
});

/** What each extension recorded as approved when the project was trusted, by extension id. */
export type TrustApprovals = Record<string, Record<string, string>>;

export interface TrustEntry {
  /**
   * Entries written before Keel recorded the surface hold the hash of everything trust then
   * covered (hash.ts), checked once to carry them over; new entries leave it empty (an older
   * Keel reading one sees a mismatch and asks again, which is safe).
   */
  hash: string;
  trustedAt: string;
  /** Legacy: context files approved one by one; no longer consulted. */
  contextFiles?: Record<string, string>;
  surface?: Surface;
  approvals?: TrustApprovals;
}
export type TrustFile = { version: 1; projects: Record<string, TrustEntry> };

/** `changed`: trusted once, but what it runs or widens automatically differs now; untrusted until re-approved. */
export type TrustStatus = "trusted" | "untrusted" | "changed";

export interface TrustOptions {
  /** The Keel home directory; default `$KEEL_HOME` or `~/.keel`. */
  home?: string;
  /** Bounds of the legacy hash (entries written before the surface was recorded). */
  limits?: HashLimits;
  /** Clock for `trustedAt` (tests). */
  now?: () => Date;
  /** Kept for callers that pass where keel starts; trust belongs to the folder, wherever that is. */
  cwd?: string;
}

export interface TrustCheck {
  status: TrustStatus;
  /** For "changed": each item that runs or widens automatically and differs from what was approved. */
  changes?: TrustChange[];
  /**
   * For "changed": the entry was written before Keel recorded what trust covers, and the project
   * changed since, so nothing can be compared; every item counts as new.
   */
  legacy?: boolean;
  /** For "trusted": what extensions recorded as approved. */
  approvals?: TrustApprovals;
}

function storePath(options: TrustOptions): string {
  return configPaths(options.home ?? resolveKeelHome(), "").trust;
}

export function readTrustFile(path: string): Result<TrustFile, TrustError> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return ok({ version: 1, projects: {} });
    return err({ type: "trust_store_invalid", file: displayPath(path), message: String(e) });
  }
  const parsed = parseJsonText(text, path);
  if (parsed.isErr())
    return err({ type: "trust_store_invalid", file: displayPath(path), message: parsed.error.message });
  if (!Value.Check(TrustFileSchema, parsed.value)) {
    const file = displayPath(path);
    // Fail closed: a damaged store trusts nothing, and says so instead of being overwritten.
    return err({
      type: "trust_store_invalid",
      file,
      message: `${file}: not a Keel trust file; fix or delete it`,
    });
  }
  return ok(parsed.value);
}

export function trustStatus(root: string, options: TrustOptions = {}): Result<TrustStatus, TrustError> {
  return checkTrust(root, options).map((check) => check.status);
}

/** The trust status; for a changed project, what changed. */
export function checkTrust(root: string, options: TrustOptions = {}): Result<TrustCheck, TrustError> {
  const key = realpathOrResolved(root);
  const path = storePath(options);
  const store = readTrustFile(path);
  if (store.isErr()) return err(store.error);
  const entry = store.value.projects[key];
  if (!entry) return ok({ status: "untrusted" });
  const now = projectSurface(key, keelHomeOf(options));
  if (entry.surface === undefined) return carryOver(key, entry, now, options);
  const changes = surfaceChanges(entry.surface, now);
  if (changes.length > 0) return ok({ status: "changed", changes });
  return ok({ status: "trusted", approvals: entry.approvals ?? {} });
}

/**
 * An entry from before the surface was recorded: if the project is as it was then (its old hash
 * still matches), it stays trusted and its surface is recorded now; otherwise it is asked about
 * once more, with everything it runs listed (what changed cannot be told). A failed write only
 * means the same check runs next time.
 */
function carryOver(
  key: string,
  entry: TrustEntry,
  now: Surface,
  options: TrustOptions,
): Result<TrustCheck, TrustError> {
  const hash = hashProject(key, options.limits ?? DEFAULT_HASH_LIMITS);
  if (hash.isErr() || hash.value !== entry.hash)
    return ok({ status: "changed", legacy: true, changes: surfaceChanges({}, now) });
  void updateStore(options, (file) => {
    const current = file.projects[key];
    if (current && current.surface === undefined) file.projects[key] = { ...current, hash: "", surface: now };
  });
  return ok({ status: "trusted", approvals: entry.approvals ?? {} });
}

function keelHomeOf(options: TrustOptions): string {
  return realpathOrResolved(options.home ?? resolveKeelHome());
}

export interface TrustProjectOptions extends TrustOptions {
  /** What extensions say they would honour (their trustApprovals), recorded as approved. */
  approvals?: TrustApprovals;
}

/** Records the folder as trusted with what it runs or widens automatically now. */
export function trustProject(
  root: string,
  options: TrustProjectOptions = {},
): Result<TrustEntry, TrustError> {
  const key = realpathOrResolved(root);
  const entry: TrustEntry = {
    hash: "",
    trustedAt: (options.now?.() ?? new Date()).toISOString(),
    surface: projectSurface(key, keelHomeOf(options)),
    approvals: options.approvals ?? {},
  };
  return updateStore(options, (file) => {
    file.projects[key] = entry;
  }).map(() => entry);
}

/**
 * Keel's own write to a trusted project's config (an "always allow" rule, a package record, a
 * setting) must not make it untrusted: the surface is recorded again after the write, but only
 * when the project was trusted as it stood just before it (a change made meanwhile by anything
 * else is not approved with it). `trustLost` says why the project will be asked about again when
 * recording failed.
 */
export function writeKeepingTrust<T, E>(
  root: string,
  options: TrustOptions,
  write: () => Result<T, E>,
): { written: Result<T, E>; trustLost?: string } {
  const wasTrusted = trustStatus(root, options).unwrapOr("untrusted") === "trusted";
  const written = write();
  if (written.isErr() || !wasTrusted) return { written };
  const key = realpathOrResolved(root);
  const surface = projectSurface(key, keelHomeOf(options));
  const renewed = updateStore(options, (file) => {
    const entry = file.projects[key];
    if (entry) file.projects[key] = { ...entry, hash: "", surface };
  });
  return renewed.isOk()
    ? { written }
    : {
        written,
        trustLost: `the project's trust could not be kept after the write: ${renewed.error.message}`,
      };
}

/** What extensions recorded as approved for the project, whatever its status now (none: {}). */
export function trustedApprovals(root: string, home?: string): TrustApprovals {
  const store = readTrustFile(storePath({ ...(home ? { home } : {}) }));
  if (store.isErr()) return {};
  return store.value.projects[realpathOrResolved(root)]?.approvals ?? {};
}

/** What extensions would honour now against what was approved, each key led by the extension's id. */
export function approvalChanges(approved: TrustApprovals, now: TrustApprovals): TrustChange[] {
  const ids = [...new Set([...Object.keys(approved), ...Object.keys(now)])].sort();
  const led = (id: string, items: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(items ?? {}).map(([k, v]) => [`${id}: ${k}`, v]));
  return ids.flatMap((id) => surfaceChanges(led(id, approved[id]), led(id, now[id])));
}

export function untrustProject(root: string, options: TrustOptions = {}): Result<void, TrustError> {
  const key = realpathOrResolved(root);
  return updateStore(options, (file) => {
    delete file.projects[key];
  });
}

function updateStore(options: TrustOptions, mutate: (file: TrustFile) => void): Result<void, TrustError> {
  const path = storePath(options);
  const store = readTrustFile(path);
  if (store.isErr()) return err(store.error);
  mutate(store.value);
  const file = displayPath(path);
  return writeFileAtomic(path, JSON.stringify(store.value, null, 2) + "\n", { newFileMode: 0o600 })
    .map(() => undefined)
    .mapErr(
      (e): TrustError => ({
        type: "trust_store_write_failed",
        file,
        message: `${file}: could not be written (${e.message})`,
      }),
    );
}
