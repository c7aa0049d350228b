// Read: a file as numbered text lines (paged), or as an image; records what was seen in the
// FileReadTracker so Edit and Write can detect stale views.
import { readFile } from "node:fs/promises";
import type { AgentToolResult } from "@keel/agent";
import { type Static, Type } from "@sinclair/typebox";
import { looksBinary, sniffImageMimeType } from "./file-kind.js";
import { type FileReadTracker, stampOf } from "./file-tracker.js";
import {
  type BuiltinTool,
  displayPath,
  errorResult,
  formatBytes,
  fsErrorMessage,
  resolvePath,
  statNamed,
  textResult,
} from "./shared.js";
import type { TextFileAccess } from "./text-files.js";

export const READ_LIMITS = {
  defaultLineLimit: 2000,
  maxLineChars: 2000,
  /** Bound on one call's output, whatever the line limit. */
  maxOutputChars: 100_000,
  maxFileBytes: 64 * 1024 * 1024,
  /** Providers reject base64 images above ~5 MB; 3.75 MB raw encodes to 5 MB. */
  maxImageBytes: 3.75 * 1024 * 1024,
} as const;

export interface ReadToolOptions {
  cwd: string;
  tracker: FileReadTracker;
  /** Asked on every call, since the model can change mid-session. Default: images supported. */
  supportsImages?: () => boolean;
  /** The host's view of files, when it has one: a text file's content comes from it. */
  textFiles?: TextFileAccess;
}

export type ReadDetails =
  | { kind: "text"; path: string; startLine: number; endLine: number; totalLines: number; cutLines: number }
  | { kind: "image"; path: string; mimeType: string; bytes: number; sent: boolean }
  | { kind: "binary"; path: string; bytes: number };

const readParameters = Type.Object({
  path: Type.String({ description: "File path, absolute or relative to the workspace" }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line to start at" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Max lines (default 2000)" })),
});

export type ReadParams = Static<typeof readParameters>;

export function createReadTool(options: ReadToolOptions): BuiltinTool<typeof readParameters, ReadDetails> {
  return {
    name: "Read",
    label: "Read",
    description:
      "Read a file. Text comes back with line numbers (cat -n style); page long files with offset/limit. " +
      "Images (png, jpg, gif, webp) come back as images. Read a file before you Edit or overwrite it.",
    parameters: readParameters,
    executionMode: "parallel",
    access: "read",
    args: { paths: ["path"] },
    async execute(args): Promise<AgentToolResult<ReadDetails>> {
      const path = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, path);
      const stated = await statNamed(path, shown);
      if (stated.isErr()) return errorResult(stated.error.message);
      const info = stated.value;
      if (info.isDirectory()) return errorResult(`${shown} is a directory, not a file. Use LS to list it.`);
      if (info.size > READ_LIMITS.maxFileBytes) {
        return errorResult(
          `${shown} is ${formatBytes(info.size)}, too large to Read. Use Grep to find the lines you need, or Bash (e.g. sed -n '100,200p').`,
        );
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (error) {
        return errorResult(fsErrorMessage(error, shown));
      }
      const mimeType = sniffImageMimeType(bytes);
      // A text file as the host sees it (its unsaved changes); images and binaries as on disk.
      if (mimeType === undefined && !looksBinary(bytes) && options.textFiles?.read) {
        const text = await options.textFiles.read(path);
        if (text.isErr()) return errorResult(`Could not read ${shown}: ${text.error.message}`);
        bytes = Buffer.from(text.value, "utf8");
      }
      options.tracker.record(path, stampOf(bytes, info.mtimeMs));

      if (mimeType !== undefined)
        return imageResult(bytes, mimeType, shown, options.supportsImages?.() ?? true);
      if (looksBinary(bytes)) {
        return errorResult(
          `${shown} is a binary file (${formatBytes(bytes.length)}) and cannot be shown as text. Inspect it with Bash (e.g. file, xxd | head).`,
          { kind: "binary", path: shown, bytes: bytes.length },
        );
      }
      return textPage(new TextDecoder().decode(bytes), shown, args.offset ?? 1, args.limit);
    },
  };
}

function imageResult(
  bytes: Buffer,
  mimeType: string,
  shown: string,
  supported: boolean,
): AgentToolResult<ReadDetails> {
  const summary = `${shown}: ${mimeType.slice("image/".length)} image, ${formatBytes(bytes.length)}`;
  const details = { kind: "image" as const, path: shown, mimeType, bytes: bytes.length };
  if (!supported) {
    return textResult(`${summary}. The current model cannot view images.`, { ...details, sent: false });
  }
  if (bytes.length > READ_LIMITS.maxImageBytes) {
    return errorResult(
      `${summary}, over the ${formatBytes(READ_LIMITS.maxImageBytes)} image limit. Make a smaller copy (e.g. with Bash) and Read that.`,
      { ...details, sent: false },
    );
  }
  return {
    content: [
      { type: "text" as const, text: summary },
      { type: "image" as const, data: bytes.toString("base64"), mimeType },
    ],
    details: { ...details, sent: true },
  };
}

function textPage(
  text: string,
  shown: string,
  offset: number,
  limit: number | undefined,
): AgentToolResult<ReadDetails> {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const total = lines.length;
  if (total === 0) {
    return textResult(`${shown} is empty.`, {
      kind: "text" as const,
      path: shown,
      startLine: 0,
      endLine: 0,
      totalLines: 0,
      cutLines: 0,
    });
  }
  if (offset > total) {
    return errorResult(`offset ${offset} is past the end of ${shown}, which has ${total} lines.`);
  }
  const wanted = Math.min(total, offset - 1 + (limit ?? READ_LIMITS.defaultLineLimit));
  const out: string[] = [];
  let chars = 0;
  let cutLines = 0;
  let end = offset - 1;
  while (end < wanted) {
    let line = lines[end]!;
    if (line.length > READ_LIMITS.maxLineChars) {
      line = `${line.slice(0, READ_LIMITS.maxLineChars)}… [${line.length - READ_LIMITS.maxLineChars} more chars]`;
      cutLines++;
    }
    const numbered = `${String(end + 1).padStart(6)}\t${line}`;
    // Always show at least one line, so paging can never stall.
    if (out.length > 0 && chars + numbered.length + 1 > READ_LIMITS.maxOutputChars) break;
    out.push(numbered);
    chars += numbered.length + 1;
    end++;
  }
  const notes: string[] = [];
  if (end < total) notes.push(`[Lines ${offset}-${end} of ${total}. Use offset=${end + 1} to read more.]`);
  if (cutLines > 0) {
    notes.push(
      `[${cutLines} line(s) longer than ${READ_LIMITS.maxLineChars} chars were cut; see them whole with Bash (e.g. sed -n 'Np' | cut -c2001-4000).]`,
    );
  }
  const body = notes.length > 0 ? `${out.join("\n")}\n\n${notes.join("\n")}` : out.join("\n");
  return textResult(body, {
    kind: "text" as const,
    path: shown,
    startLine: offset,
    endLine: end,
    totalLines: total,
    cutLines,
  });
}
