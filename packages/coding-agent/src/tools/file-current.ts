// The file a change tool is about to replace, as it is now, checked against what the model last
// read of it. Edit and Write ask it twice: as their precondition (before any approval is asked,
// so a call bound to fail asks nobody) and again in execute, which stays the authority.
import { stat } from "node:fs/promises";
import { errnoCode } from "../fs/errno.js";
import { type FileReadTracker, freshnessMessage, stampOf } from "./file-tracker.js";
import { fsErrorMessage } from "./shared.js";
import { readTextBytes, type TextFileAccess } from "./text-files.js";

/** What Edit and Write are made with: the workspace, what the model has read, the host's files. */
export interface ChangeToolOptions {
  cwd: string;
  tracker: FileReadTracker;
  /** The host's view of files, when it has one (else the disk). */
  textFiles?: TextFileAccess;
}

export type CurrentFile =
  | { kind: "current"; bytes: Buffer; mtimeMs: number }
  | { kind: "missing" }
  /** Why the change must not go ahead, as the model is told. */
  | { kind: "refused"; message: string };

export async function currentFile(
  path: string,
  shown: string,
  action: "edit" | "overwrite",
  tracker: FileReadTracker,
  textFiles: TextFileAccess | undefined,
): Promise<CurrentFile> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) return { kind: "refused", message: `${shown} is a directory; give a file path.` };
    const read = await readTextBytes(path, textFiles);
    if (read.isErr()) return { kind: "refused", message: `Could not read ${shown}: ${read.error.message}` };
    const fresh = tracker.check(path, stampOf(read.value, info.mtimeMs));
    if (fresh.isErr()) return { kind: "refused", message: freshnessMessage(fresh.error, shown, action) };
    return { kind: "current", bytes: read.value, mtimeMs: info.mtimeMs };
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return { kind: "missing" };
    return { kind: "refused", message: fsErrorMessage(error, shown) };
  }
}
