// Where Read, Edit and Write get and put a text file's content: the disk, or the host's own view
// of files when it has one (an editor's buffers over ACP). Stat, images and binaries stay on disk.
import { readFile, stat } from "node:fs/promises";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";

/** Why the host could not read or write a text file; the tool's result says so to the model. */
export interface TextFileError {
  type: "text_file";
  message: string;
}

/** A host's view of text files (`CodingAgentOptions.textFiles`); each side optional. */
export interface TextFileAccess {
  /** The file's text as the host sees it (unsaved changes included). Paths are absolute. */
  read?(path: string): Promise<Result<string, TextFileError>>;
  /** Writes the whole text (the host creates the file and its folders if needed). Paths are absolute. */
  write?(path: string, text: string): Promise<Result<void, TextFileError>>;
}

/** The bytes the model's view of a text file is made of: the host's text, else the disk's bytes. */
export async function readTextBytes(
  path: string,
  access: TextFileAccess | undefined,
): Promise<Result<Buffer, TextFileError>> {
  if (access?.read) return (await access.read(path)).map((text) => Buffer.from(text, "utf8"));
  return ok(await readFile(path));
}

/**
 * Writes through the host when it writes, else atomically to disk. Says what a later read will
 * give (`bytes`, for the freshness stamp) and the mtime then on disk.
 */
export async function writeTextBytes(
  path: string,
  bytes: Buffer,
  access: TextFileAccess | undefined,
): Promise<Result<{ created: boolean; mtimeMs: number; bytes: Buffer }, TextFileError>> {
  if (access?.write) {
    const existed = await stat(path).then(
      () => true,
      () => false,
    );
    // The host takes text: a BOM is its to keep (editors keep a file's encoding).
    const text = new TextDecoder().decode(bytes);
    const written = await access.write(path, text);
    if (written.isErr()) return err(written.error);
    const mtimeMs = await stat(path).then(
      (info) => info.mtimeMs,
      () => Date.now(),
    );
    return ok({ created: !existed, mtimeMs, bytes: Buffer.from(text, "utf8") });
  }
  const written = writeFileAtomic(path, bytes);
  if (written.isErr()) return err({ type: "text_file", message: written.error.message });
  return ok({ created: written.value.created, mtimeMs: written.value.mtimeMs, bytes });
}
