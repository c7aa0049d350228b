// The trust store (~/.keel/trust.json): project realpath → the content hash the user approved
// and the context files below the root as they were approved.
import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { configPaths, displayPath, resolveKeelHome } from "../config/paths.js";
import { parseJsonText } from "../config/read.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { errnoCode } from "../fs/errno.js";
import { realpathOrResolved } from "../fs/paths.js";
import { DEFAULT_HASH_LIMITS, type HashLimits, hashProject, type TrustError } from "./hash.js";
import { contextFilesOnPath, scanContextFiles, unapprovedContextFile } from "./nested.js";

const TrustEntrySchema = Type.Object({
  hash: Type.String(),
  trustedAt: Type.String(),
  contextFiles: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const TrustFileSchema = Type.Object({
  version: Type.Literal(1),
  projects: Type.Record(Type.String(), TrustEntrySchema),
});

export interface TrustEntry {
  hash: string;
  trustedAt: string;
  /**
   * Context files besides the root's own, as they were approved: below the root (root-relative
   * path → digest) and above it in no project (absolute path → digest).
   */
  contextFiles?: Record<string, string>;
}
export type TrustFile = { version: 1; projects: Record<string, TrustEntry> };

/** `changed`: trusted once, but the content differs now; it counts as untrusted until re-approved. */
export type TrustStatus = "trusted" | "untrusted" | "changed";

export interface TrustOptions {
  /** The Keel home directory; default `$KEEL_HOME` or `~/.keel`. */
  home?: string;
  limits?: HashLimits;
  /** Clock for `trustedAt` (tests). */
  now?: () => Date;
  /**
   * Where keel starts: the context files between the root and it are read, so they must match
   * their approval too. Default: the root itself (no nested files).
   */
  cwd?: string;
}

export interface TrustCheck {
  status: TrustStatus;
  /** For "changed": what differs (a root-relative context file, or the project's trusted files). */
  changed?: string;
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

/** The trust status, and for a changed project what changed. */
export function checkTrust(root: string, options: TrustOptions = {}): Result<TrustCheck, TrustError> {
  const key = realpathOrResolved(root);
  const store = readTrustFile(storePath(options));
  if (store.isErr()) return err(store.error);
  const entry = store.value.projects[key];
  if (!entry) return ok({ status: "untrusted" });
  const hash = hashProject(key, options.limits ?? DEFAULT_HASH_LIMITS);
  if (hash.isErr()) return err(hash.error);
  if (hash.value !== entry.hash)
    return ok({ status: "changed", changed: "its config, extensions, hooks or context" });
  const cwd = options.cwd === undefined ? key : realpathOrResolved(options.cwd);
  const home = realpathOrResolved(options.home ?? resolveKeelHome());
  const nested = unapprovedContextFile(key, cwd, home, entry.contextFiles ?? {});
  if (nested !== undefined) return ok({ status: "changed", changed: nested });
  return ok({ status: "trusted" });
}

/**
 * Records the project as it is now as approved: the hash of its trusted files, every context
 * file below the root (those between the root and `cwd` included, wherever they are), and those
 * of the folders above it that belong to no project.
 */
export function trustProject(root: string, options: TrustOptions = {}): Result<TrustEntry, TrustError> {
  const key = realpathOrResolved(root);
  const hash = hashProject(key, options.limits ?? DEFAULT_HASH_LIMITS);
  if (hash.isErr()) return err(hash.error);
  const cwd = options.cwd === undefined ? key : realpathOrResolved(options.cwd);
  const entry: TrustEntry = {
    hash: hash.value,
    trustedAt: (options.now?.() ?? new Date()).toISOString(),
    contextFiles: {
      ...scanContextFiles(key),
      ...contextFilesOnPath(key, cwd, realpathOrResolved(options.home ?? resolveKeelHome())),
    },
  };
  return updateStore(options, (file) => {
    file.projects[key] = entry;
  }).map(() => entry);
}

/**
 * After Keel itself wrote to a trusted project's config (an "always allow" rule): the new hash
 * is recorded, the approvals of context files stay as the user gave them. Does nothing for a
 * project that is not in the store.
 */
export function renewProjectHash(root: string, options: TrustOptions = {}): Result<void, TrustError> {
  const key = realpathOrResolved(root);
  const hash = hashProject(key, options.limits ?? DEFAULT_HASH_LIMITS);
  if (hash.isErr()) return err(hash.error);
  return updateStore(options, (file) => {
    const entry = file.projects[key];
    if (entry) entry.hash = hash.value;
  });
}

/**
 * Keel's own write to a project's files (a permission rule, a package record, a setting) without
 * making a trusted project untrusted: the hash is renewed only when the project was trusted as it
 * stood just before the write (a change made meanwhile by anything else is not approved with it).
 * `trustLost` says why the project will be asked about again when the renewal itself failed.
 */
export function writeKeepingTrust<T, E>(
  root: string,
  options: TrustOptions,
  write: () => Result<T, E>,
): { written: Result<T, E>; trustLost?: string } {
  const wasTrusted = trustStatus(root, options).unwrapOr("untrusted") === "trusted";
  const written = write();
  if (written.isErr() || !wasTrusted) return { written };
  const renewed = renewProjectHash(root, options);
  return renewed.isOk()
    ? { written }
    : {
        written,
        trustLost: `the project's trust could not be kept after the write: ${renewed.error.message}`,
      };
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
