// What Write's and Edit's approval previews start from: the file as it is now, or why it cannot
// be shown (a directory, too large, binary, unreadable).
import { readFileSync, statSync } from "node:fs";
import { looksBinary } from "./file-kind.js";

/** Past this a file is not read for a preview (the dialog says so instead). */
const MAX_PREVIEW_FILE_BYTES = 2 * 1024 * 1024;

/** The file as text with LF line ends, "" when it does not exist, or why it cannot be shown. */
export function currentText(path: string): { text: string; exists: boolean } | { problem: string } {
  try {
    const info = statSync(path);
    if (info.isDirectory()) return { problem: "it is a directory" };
    if (info.size > MAX_PREVIEW_FILE_BYTES)
      return { problem: `the file is ${(info.size / 1024 / 1024).toFixed(1)} MB, too large to preview` };
    const bytes = readFileSync(path);
    if (looksBinary(bytes)) return { problem: "it is a binary file" };
    return { text: new TextDecoder().decode(bytes).replace(/\r\n/g, "\n"), exists: true };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return { text: "", exists: false };
    return { problem: `it cannot be read (${(e as Error).message})` };
  }
}
