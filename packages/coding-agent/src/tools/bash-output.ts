// Collects a command's interleaved output: keeps the tail the model will see, and once the
// output outgrows that tail, spills everything to a log file (bounded: bash-logs.ts) so
// nothing is lost short of a runaway command or a full disk, and then the note says so.
import { randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { errnoMessage } from "../fs/errno.js";
import { LOG_LIMITS, type LogLimits, prepareLogDir } from "./bash-logs.js";

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
  /** Bytes the log does not hold because it reached its size cap (the tail above still shows the end). */
  logDroppedBytes?: number;
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
  readonly #logLimits: LogLimits;
  #log: WriteStream | undefined;
  #logPath: string | undefined;
  #logError: string | undefined;
  /** Set once a log was tried: later chunks go to it (or nowhere), never pile up in memory. */
  #spilled = false;
  #logBytes = 0;
  #logDropped = 0;

  constructor(limits: OutputLimits, logDir: string, logLimits: LogLimits = LOG_LIMITS) {
    this.#limits = limits;
    this.#logDir = logDir;
    this.#logLimits = logLimits;
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

    if (this.#spilled) {
      this.#writeLog(chunk);
      return;
    }
    this.#pending.push(chunk);
    if (this.#totalBytes > this.#limits.maxBytes || this.#totalLines() > this.#limits.maxLines) this.#spill();
  }

  #writeLog(chunk: Buffer): void {
    const log = this.#log;
    if (log === undefined) return;
    const room = this.#logLimits.maxLogBytes - this.#logBytes;
    if (room <= 0) {
      this.#logDropped += chunk.length;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    log.write(part);
    this.#logBytes += part.length;
    this.#logDropped += chunk.length - part.length;
  }

  #totalLines(): number {
    return this.#totalBytes === 0 ? 0 : this.#newlines + (this.#endsWithNewline ? 0 : 1);
  }

  #spill(): void {
    this.#spilled = true;
    const pending = this.#pending;
    this.#pending = [];
    let refused: string | undefined;
    try {
      refused = prepareLogDir(this.#logDir, this.#logLimits);
    } catch (error) {
      refused = errnoMessage(error);
    }
    if (refused !== undefined) {
      this.#logError = refused;
      return;
    }
    const path = join(this.#logDir, `bash-${Date.now()}-${randomBytes(4).toString("hex")}.log`);
    const log = createWriteStream(path, { mode: 0o600 });
    log.on("error", (error) => {
      this.#logError = errnoMessage(error);
    });
    this.#log = log;
    this.#logPath = path;
    for (const chunk of pending) this.#writeLog(chunk);
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
    if (this.#logDropped > 0) result.logDroppedBytes = this.#logDropped;
    return result;
  }
}
