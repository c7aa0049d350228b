// Classifies file bytes: image (by magic number), binary (NUL bytes or mostly invalid
// UTF-8), or text. Shared by Read and Grep so both skip the same files.
import { isUtf8 } from "node:buffer";
import { extname } from "node:path";

export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

const IMAGE_EXTENSIONS: Readonly<Record<string, ImageMimeType>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/**
 * The image type Read would return for this path, judged by extension alone, so a host can
 * tell before calling whether the result will be an image (and whether the model can see it).
 */
export function imageMimeTypeForPath(path: string): ImageMimeType | undefined {
  return IMAGE_EXTENSIONS[extname(path).toLowerCase()];
}

/** The actual image type of these bytes, from their magic number. */
export function sniffImageMimeType(bytes: Uint8Array): ImageMimeType | undefined {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

const SAMPLE_BYTES = 8192;
const MAX_INVALID_RATIO = 0.1;

/** Looks at the first 8 KB only: enough to tell, cheap on huge files. */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  if (isUtf8(sample)) return false; // the common case, checked natively
  // A cut multi-byte character at the sample's end is not evidence of binary content.
  const text = new TextDecoder("utf-8", { fatal: false }).decode(sample, { stream: true });
  let invalid = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) invalid++;
  return invalid / Math.max(1, text.length) > MAX_INVALID_RATIO;
}
