// Scans one file for a regex, chunk by chunk (a huge file is never held in memory), with
// grep-style context lines; binary files are detected from the first chunk and skipped.
import { close, open, read } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { looksBinary } from "./file-kind.js";

export type ScanMode = "files_with_matches" | "content" | "count";

export interface ScanOptions {
  regex: RegExp;
  mode: ScanMode;
  context: number;
  /** Stop collecting content lines from this file past this many. */
  maxLines: number;
  /** Stop reading the file past this many bytes. */
  maxBytes: number;
}

/** `separator` marks a gap between non-adjacent groups (grep's `--`). */
export type ScanLine = { line: number; text: string; match: boolean } | { separator: true };

export interface ScanResult {
  binary: boolean;
  matches: number;
  lines: ScanLine[];
  bytesRead: number;
  /** Reading stopped at a limit before the end of the file. */
  cut: boolean;
}

export const SCAN_CHUNK_BYTES = 64 * 1024;

// The callback API: thousands of small files make FileHandle's per-call overhead show.
const openFile = (path: string) =>
  new Promise<number>((resolve, reject) =>
    open(path, "r", (error, fd) => (error ? reject(error) : resolve(fd))),
  );
const readChunk = (fd: number, buffer: Buffer) =>
  new Promise<number>((resolve, reject) =>
    read(fd, buffer, 0, buffer.length, null, (error, bytes) => (error ? reject(error) : resolve(bytes))),
  );
const closeFile = (fd: number) => new Promise<void>((resolve) => close(fd, () => resolve()));

/** `buffer` is scratch space (SCAN_CHUNK_BYTES long), reused across files by the caller. */
export async function scanFile(path: string, options: ScanOptions, buffer: Buffer): Promise<ScanResult> {
  const fd = await openFile(path);
  try {
    const result: ScanResult = { binary: false, matches: 0, lines: [], bytesRead: 0, cut: false };
    const decoder = new StringDecoder("utf8");
    const before: { line: number; text: string }[] = [];
    let afterLeft = 0;
    let lastEmitted = 0;
    let lineNo = 0;
    let carry = "";
    let done = false;

    const emit = (line: number, text: string, match: boolean) => {
      if (lastEmitted > 0 && line > lastEmitted + 1) result.lines.push({ separator: true });
      result.lines.push({ line, text, match });
      lastEmitted = line;
    };
    const onLine = (raw: string) => {
      lineNo++;
      const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      const match = options.regex.test(text);
      if (!match) {
        if (options.mode !== "content") return;
        if (afterLeft > 0) {
          afterLeft--;
          emit(lineNo, text, false);
        } else if (options.context > 0) {
          before.push({ line: lineNo, text });
          if (before.length > options.context) before.shift();
        }
        return;
      }
      result.matches++;
      if (options.mode === "files_with_matches") {
        done = true;
        return;
      }
      if (options.mode === "content") {
        for (const b of before) if (b.line > lastEmitted) emit(b.line, b.text, false);
        before.length = 0;
        emit(lineNo, text, true);
        afterLeft = options.context;
        if (result.lines.length >= options.maxLines) {
          result.cut = true;
          done = true;
        }
      }
    };

    while (!done) {
      const bytesRead = await readChunk(fd, buffer);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (result.bytesRead === 0 && looksBinary(chunk)) {
        result.binary = true;
        return result;
      }
      result.bytesRead += bytesRead;
      const lines = (carry + decoder.write(chunk)).split("\n");
      carry = lines.pop()!;
      for (const line of lines) {
        onLine(line);
        if (done) break;
      }
      if (!done && result.bytesRead >= options.maxBytes) {
        // Only a cut if there was more to read.
        result.cut = (await readChunk(fd, buffer)) > 0;
        done = true;
      }
    }
    if (!done) {
      const rest = carry + decoder.end();
      if (rest !== "") onLine(rest);
    }
    return result;
  } finally {
    await closeFile(fd);
  }
}
