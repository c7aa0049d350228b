// What Write's and Edit's approval previews start from: the file as the user sees it now (the
// editor's buffer when the host reads files through the editor, else the disk), or why it cannot
// be shown (a directory, too large, binary, unreadable). The reader previews are given.
import { readFileSync, statSync } from "node:fs";
import type { PreviewText } from "@keel/extension-sdk";
import { looksBinary } from "./file-kind.js";
import type { TextFileAccess } from "./text-files.js";

/** Past this a file is not read for a preview (the dialog says so instead). */
const MAX_PREVIEW_FILE_BYTES = 2 * 1024 * 1024;

// PreviewText is the SDK's ToolPreviewContext.readText answer, so its `{ ok }` shape stays.
const unreadable = (message: string): PreviewText => ({ ok: false, error: { type: "unreadable", message } });
const lf = (text: string) => text.replace(/\r\n/g, "\n");

/** The file on disk as text with LF line ends, "" when it does not exist, or why it cannot be shown. */
export function currentText(path: string): PreviewText {
  try {
    const info = statSync(path);
    if (info.isDirectory()) return unreadable("it is a directory");
    if (info.size > MAX_PREVIEW_FILE_BYTES)
      return unreadable(`the file is ${(info.size / 1024 / 1024).toFixed(1)} MB, too large to preview`);
    const bytes = readFileSync(path);
    if (looksBinary(bytes)) return unreadable("it is a binary file");
    return { ok: true, text: lf(new TextDecoder().decode(bytes)), exists: true };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return { ok: true, text: "", exists: false };
    return unreadable(`it cannot be read (${(e as Error).message})`);
  }
}

/**
 * `readText` for previews: the disk's checks (a folder, size, binary, no file) and then, when the
 * host reads text files (an editor's buffers), the host's text rather than the disk's.
 */
export function previewReader(textFiles: TextFileAccess | undefined): (path: string) => Promise<PreviewText> {
  const read = textFiles?.read;
  return async (path) => {
    const onDisk = currentText(path);
    if (!read || !onDisk.ok || !onDisk.exists) return onDisk;
    const text = await read(path);
    return text.isOk()
      ? { ok: true, text: lf(text.value), exists: true }
      : unreadable(`it cannot be read (${text.error.message})`);
  };
}
