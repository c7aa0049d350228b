// Images for the prompt: a file (a pasted path, a dragged file) or the clipboard's image (Ctrl+V,
// through wl-paste or xclip on Linux, pngpaste on macOS). Bounded like the Read tool's images.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { ImageContent } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";

/** Providers reject base64 images above ~5 MB; 3.75 MB raw encodes to 5 MB. */
const MAX_IMAGE_BYTES = 3.75 * 1024 * 1024;

/** The image type of some bytes (the kernel's sniffImageMimeType, handed to the TUI). */
export type Sniff = (bytes: Uint8Array) => string | undefined;

function asImage(bytes: Buffer, sniff: Sniff): ImageContent | undefined {
  const mimeType = sniff(bytes);
  if (!mimeType || bytes.length > MAX_IMAGE_BYTES) return undefined;
  return { type: "image", data: bytes.toString("base64"), mimeType };
}

/** The image at `path` (relative to `cwd`), or undefined when it is not a readable image. */
export function imageFile(path: string, cwd: string, sniff: Sniff): ImageContent | undefined {
  const file = resolve(cwd, path);
  try {
    if (statSync(file).size > MAX_IMAGE_BYTES) return undefined;
    return asImage(readFileSync(file), sniff);
  } catch {
    return undefined;
  }
}

const READERS: { file: string; args: string[] }[] = [
  { file: "wl-paste", args: ["--no-newline", "--type", "image/png"] },
  { file: "xclip", args: ["-selection", "clipboard", "-target", "image/png", "-out"] },
  { file: "pngpaste", args: ["-"] },
];

/** Why no image came: no reader installed, or none of them had an image (or only a too-large one). */
export type ClipboardError = { type: "no_clipboard_tool" | "no_image"; message: string };

export function clipboardImage(sniff: Sniff): Result<ImageContent, ClipboardError> {
  let found = false;
  for (const reader of READERS) {
    let bytes: Buffer;
    try {
      bytes = execFileSync(reader.file, reader.args, {
        timeout: 2000,
        maxBuffer: MAX_IMAGE_BYTES + 1,
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") found = true;
      continue;
    }
    found = true;
    const image = asImage(bytes, sniff);
    if (image) return ok(image);
  }
  return err(
    found
      ? { type: "no_image", message: "No image in the clipboard (or it is larger than 3.75 MB)." }
      : {
          type: "no_clipboard_tool",
          message: "No clipboard tool found: install wl-clipboard or xclip (pngpaste on macOS).",
        },
  );
}
