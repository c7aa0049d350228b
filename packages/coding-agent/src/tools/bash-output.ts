// Collects a command's interleaved output: keeps the tail the model will see, and once the
// output outgrows that tail, spills everything to a log file so nothing is lost.
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { errnoMessage } from "../fs/errno.js";

export interface OutputLimits {
  maxBytes: number;
  maxLines: number;
}

export interface OutputTail {
  text: string;
  truncated: boolean;
  shownLines: number;
}

export interface CollectedOutput extends OutputTail {
  totalBytes: number;
  totalLines: number;
  /** Set once the output was truncated: the complete log. */
  logPath?: string;
  logError?: string;
}

export class OutputCollector {
  readonly #limits: OutputLimits;
  readonly #logDir: string;
  /** Everything, until the log file takes over. */
  #pending: Buffer[] = [];
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = true;
  #log: WriteStream | undefined;
  #logPath: string | undefined;
  #logError: string | undefined;

  constructor(limits: OutputLimits, logDir: string) {
    this.#limits = limits;
    this.#logDir = logDir;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#totalBytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.#newlines++;
    this.#endsWithNewline = chunk[chunk.length - 1] === 10;

    this.#tail.push(chunk);
    this.#tailBytes += chunk.length;
    // Keep a little more than maxBytes so the byte cut can land on a line start.
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#limits.maxBytes * 2) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }

    if (this.#log !== undefined) {
      this.#log.write(chunk);
      return;
    }
    this.#pending.push(chunk);
    if (this.#totalBytes > this.#limits.maxBytes || this.#totalLines() > this.#limits.maxLines) this.#spill();
  }

  #totalLines(): number {
    return this.#totalBytes === 0 ? 0 : this.#newlines + (this.#endsWithNewline ? 0 : 1);
  }

  #spill(): void {
    const path = join(this.#logDir, `bash-${Date.now()}-${randomBytes(4).toString("hex")}.log`);
    try {
      mkdirSync(this.#logDir, { recursive: true });
    } catch (error) {
      this.#logError = errnoMessage(error);
    }
    const log = createWriteStream(path, { mode: 0o600 });
    log.on("error", (error) => {
      this.#logError = errnoMessage(error);
    });
    for (const chunk of this.#pending) log.write(chunk);
    this.#pending = [];
    this.#log = log;
    this.#logPath = path;
  }

  /** What the model is shown: the last maxLines lines within maxBytes, cut at a line start. */
  tail(): OutputTail {
    const buffer = Buffer.concat(this.#tail);
    let start = Math.max(0, buffer.length - this.#limits.maxBytes);
    let truncated = start > 0 || this.#tailBytes < this.#totalBytes;
    if (start > 0 && buffer[start - 1] !== 10) {
      const nextLine = buffer.indexOf(10, start);
      // Start at the next full line, unless that would leave nothing of a single huge line.
      start = nextLine !== -1 && nextLine + 1 < buffer.length ? nextLine + 1 : start;
      while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++; // no split UTF-8 char
    }
    let text = buffer.subarray(start).toString("utf8");
    if (text.endsWith("\n")) text = text.slice(0, -1);
    let lines = text === "" ? [] : text.split("\n");
    if (lines.length > this.#limits.maxLines) {
      lines = lines.slice(-this.#limits.maxLines);
      truncated = true;
    }
    return { text: lines.join("\n"), truncated, shownLines: lines.length };
  }

  /** Flushes the log file (when there is one) and returns the final view. */
  async finish(): Promise<CollectedOutput> {
    const log = this.#log;
    if (log !== undefined && !log.destroyed) {
      await new Promise<void>((resolve) => {
        log.once("close", resolve);
        log.end();
      });
    }
    const result: CollectedOutput = {
      ...this.tail(),
      totalBytes: this.#totalBytes,
      totalLines: this.#totalLines(),
    };
    if (this.#logError !== undefined) result.logError = this.#logError;
    else if (this.#logPath !== undefined) result.logPath = this.#logPath;
    return result;
  }
}
