// Scans one file for a regex, chunk by chunk (a huge file is never held in memory), with
// grep-style context lines; binary files are detected from the first chunk and skipped.
import { open } from "node:fs/promises";
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
  mtimeMs: number;
  /** Reading stopped at a limit before the end of the file. */
  cut: boolean;
}

const CHUNK = 64 * 1024;

export async function scanFile(path: string, options: ScanOptions): Promise<ScanResult> {
  const handle = await open(path, "r");
  try {
    const info = await handle.stat();
    const result: ScanResult = {
      binary: false,
      matches: 0,
      lines: [],
      bytesRead: 0,
      mtimeMs: info.mtimeMs,
      cut: false,
    };
    const decoder = new StringDecoder("utf8");
    const buffer = Buffer.allocUnsafe(CHUNK);
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
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
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
      if (!done && result.bytesRead >= options.maxBytes && result.bytesRead < info.size) {
        result.cut = true;
        done = true;
      }
    }
    if (!done) {
      const rest = carry + decoder.end();
      if (rest !== "") onLine(rest);
    }
    return result;
  } finally {
    await handle.close();
  }
}
