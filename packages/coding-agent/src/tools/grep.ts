// Grep: a JS regex over the workspace's files, .gitignore-aware, binary files skipped,
// bounded in files, bytes and output so one call stays fast and small.
import { stat } from "node:fs/promises";
import type { AgentToolResult } from "@keel/agent";
import { type Static, Type } from "@sinclair/typebox";
import picomatch from "picomatch";
import { errnoMessage } from "../fs/errno.js";
import { targetsGit, targetsNodeModules } from "./glob.js";
import { SCAN_CHUNK_BYTES, type ScanMode, type ScanResult, scanFile } from "./grep-scan.js";
import {
  abortedResult,
  type BuiltinTool,
  displayPath,
  errorResult,
  formatBytes,
  resolvePath,
  statNamed,
  textResult,
} from "./shared.js";
import { leftOutNote, newWalkStats, type WalkGuard, walk } from "./walk.js";

export interface GrepToolOptions {
  cwd: string;
  maxFiles?: number;
  maxTotalBytes?: number;
  maxFileBytes?: number;
  maxOutputLines?: number;
  maxOutputChars?: number;
  concurrency?: number;
  /** What the search may read, made per call for its root (the kernel's permission rules). */
  guard?: (root: string) => WalkGuard;
}

export interface GrepDetails {
  mode: ScanMode;
  files: number;
  matches: number;
  filesSearched: number;
  binarySkipped: number;
  /** Which bound stopped the search early, if any. */
  limitHit?: "files" | "bytes" | "output";
  /** Entries left out because they may not be read (denied, or links that leave). */
  leftOut?: number;
}

const grepParameters = Type.Object({
  pattern: Type.String({ description: "JavaScript regular expression" }),
  path: Type.Optional(Type.String({ description: "File or directory (default: workspace)" })),
  glob: Type.Optional(Type.String({ description: "Only files matching this glob, e.g. *.ts" })),
  output_mode: Type.Optional(
    Type.Union([Type.Literal("files_with_matches"), Type.Literal("content"), Type.Literal("count")], {
      description: "Default files_with_matches",
    }),
  ),
  "-i": Type.Optional(Type.Boolean({ description: "Ignore case" })),
  "-n": Type.Optional(Type.Boolean({ description: "Line numbers (content mode, default true)" })),
  "-C": Type.Optional(Type.Integer({ minimum: 0, description: "Context lines (content mode)" })),
  head_limit: Type.Optional(Type.Integer({ minimum: 1, description: "Only the first N results" })),
});

export type GrepParams = Static<typeof grepParameters>;

const DEFAULTS = {
  maxFiles: 20_000,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFileBytes: 20 * 1024 * 1024,
  maxOutputLines: 1000,
  maxOutputChars: 30_000,
  concurrency: 8,
};
const MAX_LINE_CHARS = 300;

/** Without the `u` flag first: models escape freely (`\"`, `\-`), which `u` rejects. */
export function compilePattern(pattern: string, ignoreCase: boolean): RegExp | string {
  const flags = ignoreCase ? "i" : "";
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    try {
      return new RegExp(pattern, `${flags}u`); // \p{…} needs it
    } catch {
      return errnoMessage(error);
    }
  }
}

export function createGrepTool(options: GrepToolOptions): BuiltinTool<typeof grepParameters, GrepDetails> {
  const limits = {
    maxFiles: options.maxFiles ?? DEFAULTS.maxFiles,
    maxTotalBytes: options.maxTotalBytes ?? DEFAULTS.maxTotalBytes,
    maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
    maxOutputLines: options.maxOutputLines ?? DEFAULTS.maxOutputLines,
    maxOutputChars: options.maxOutputChars ?? DEFAULTS.maxOutputChars,
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
  };
  return {
    name: "Grep",
    label: "Grep",
    description:
      "Search file contents with a JavaScript regex, skipping .gitignored and binary files. " +
      "output_mode: files_with_matches (default, newest first), content (file:line:text), or count.",
    parameters: grepParameters,
    executionMode: "parallel",
    // The pattern is a regular expression over file contents, not a path: only `path` is judged.
    access: "read",
    args: { paths: ["path"] },
    summary: (args) => (args.path === undefined ? args.pattern : `${args.pattern} in ${args.path}`),
    async execute(args, { signal }): Promise<AgentToolResult<GrepDetails>> {
      const mode: ScanMode = args.output_mode ?? "files_with_matches";
      const regex = compilePattern(args.pattern, args["-i"] === true);
      if (typeof regex === "string") return errorResult(`Invalid regex ${args.pattern}: ${regex}`);
      const root = resolvePath(options.cwd, args.path ?? ".");
      const shownRoot = displayPath(options.cwd, root);
      const stated = await statNamed(root, shownRoot);
      if (stated.isErr()) return errorResult(stated.error.message);
      const isDir = stated.value.isDirectory();

      const details: GrepDetails = { mode, files: 0, matches: 0, filesSearched: 0, binarySkipped: 0 };
      const files: string[] = [];
      const stats = newWalkStats();
      if (isDir) {
        const globMatch =
          args.glob === undefined ? undefined : picomatch(args.glob, { dot: true, basename: true });
        const hint = `${args.glob ?? ""} ${args.path ?? ""}`;
        const walkOptions = {
          signal,
          includeNodeModules: targetsNodeModules(hint),
          includeGit: targetsGit(hint),
          guard: options.guard?.(root),
          within: options.cwd,
        };
        for await (const entry of walk(root, walkOptions, stats)) {
          if (entry.dir || (globMatch !== undefined && !globMatch(entry.rel))) continue;
          if (files.length === limits.maxFiles) {
            details.limitHit = "files";
            break;
          }
          files.push(entry.path);
        }
      } else {
        files.push(root);
      }
      if (signal.aborted) return abortedResult("Grep");

      const context = mode === "content" ? (args["-C"] ?? 0) : 0;
      const wantedEntries = args.head_limit ?? Number.POSITIVE_INFINITY;
      const scanOptions = {
        regex,
        mode,
        context,
        maxLines: limits.maxOutputLines,
        maxBytes: limits.maxFileBytes,
      };
      const results: (ScanResult | undefined)[] = new Array(files.length);
      let next = 0;
      let bytes = 0;
      let entries = 0;
      // Workers take files in walk order; stopping early keeps the finished prefix complete.
      const worker = async () => {
        const buffer = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
        while (next < files.length && !signal.aborted) {
          if (bytes >= limits.maxTotalBytes) {
            details.limitHit ??= "bytes";
            return;
          }
          if (mode === "content" ? entries >= Math.min(wantedEntries, limits.maxOutputLines) : false) return;
          const index = next++;
          const result = await scanFile(files[index]!, scanOptions, buffer).catch(() => undefined);
          results[index] = result;
          if (result === undefined) continue;
          bytes += result.bytesRead;
          if (result.matches > 0) entries += result.lines.length;
        }
      };
      await Promise.all(Array.from({ length: limits.concurrency }, worker));
      if (signal.aborted) return abortedResult("Grep");

      const hits: { path: string; result: ScanResult; mtimeMs: number }[] = [];
      for (const [i, result] of results.entries()) {
        if (result === undefined) continue;
        details.filesSearched++;
        if (result.binary) details.binarySkipped++;
        else if (result.matches > 0) hits.push({ path: files[i]!, result, mtimeMs: 0 });
      }
      if (stats.leftOutCount > 0) details.leftOut = stats.leftOutCount;
      details.files = hits.length;
      details.matches = hits.reduce((n, h) => n + h.result.matches, 0);
      if (hits.length === 0) {
        return textResult(
          `No matches for /${args.pattern}/ in ${shownRoot}.${limitNote(details, limits)}${leftOutNote(stats)}`,
          details,
        );
      }

      let lines: string[];
      if (mode === "files_with_matches") {
        // Only matching files are stat'ed: on a large tree that is far fewer than were read.
        await Promise.all(
          hits.map(async (h) => {
            h.mtimeMs = await stat(h.path).then(
              (s) => s.mtimeMs,
              () => 0,
            );
          }),
        );
        hits.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
        lines = hits.map((h) => displayPath(options.cwd, h.path));
      } else if (mode === "count") {
        lines = hits.map((h) => `${displayPath(options.cwd, h.path)}:${h.result.matches}`);
      } else {
        lines = contentLines(
          hits.map((h) => ({ path: displayPath(options.cwd, h.path), result: h.result })),
          args["-n"] !== false,
        );
      }
      const out: string[] = [];
      let chars = 0;
      const cap = Math.min(wantedEntries, limits.maxOutputLines);
      for (const line of lines) {
        if (out.length >= cap || chars + line.length + 1 > limits.maxOutputChars) break;
        out.push(line);
        chars += line.length + 1;
      }
      // Content mode stops scanning once it has enough lines, so totals are then lower bounds.
      const partial = next < files.length || hits.some((h) => h.result.cut);
      const notes: string[] = [];
      if (out.length < lines.length || partial) {
        const more = `${partial ? "at least " : ""}${lines.length}`;
        if (args.head_limit !== undefined && out.length === args.head_limit) {
          notes.push(`[First ${out.length} of ${more} results (head_limit).]`);
        } else {
          details.limitHit ??= "output";
          notes.push(`[Showing ${out.length} of ${more} results.]`);
        }
      }
      const unit = mode === "files_with_matches" ? "file" : "matching line";
      const count = mode === "files_with_matches" ? hits.length : details.matches;
      const header =
        `${partial ? "At least " : "Found "}${count} ${unit}${count === 1 ? "" : "s"}` +
        (mode === "files_with_matches" ? "" : ` in ${hits.length} file${hits.length === 1 ? "" : "s"}`);
      return textResult(
        [`${header}\n${out.join("\n")}`, ...notes].join("\n\n") +
          limitNote(details, limits) +
          leftOutNote(stats),
        details,
      );
    },
  };
}

function contentLines(hits: { path: string; result: ScanResult }[], numbered: boolean): string[] {
  const lines: string[] = [];
  for (const [i, { path, result }] of hits.entries()) {
    if (i > 0) lines.push("--");
    for (const line of result.lines) {
      if ("separator" in line) {
        lines.push("--");
        continue;
      }
      const text =
        line.text.length > MAX_LINE_CHARS
          ? `${line.text.slice(0, MAX_LINE_CHARS)}… [+${line.text.length - MAX_LINE_CHARS} chars]`
          : line.text;
      const mark = line.match ? ":" : "-";
      lines.push(numbered ? `${path}${mark}${line.line}${mark}${text}` : `${path}${mark}${text}`);
    }
  }
  return lines;
}

function limitNote(details: GrepDetails, limits: { maxFiles: number; maxTotalBytes: number }): string {
  switch (details.limitHit) {
    case "files":
      return `\n\n[Stopped after ${limits.maxFiles} files; narrow path or glob for complete results.]`;
    case "bytes":
      return `\n\n[Stopped after reading ${formatBytes(limits.maxTotalBytes)}; narrow path or glob for complete results.]`;
    case "output":
      return "\n\n[Output limit reached; narrow the pattern, path or glob, or use head_limit.]";
    default:
      return "";
  }
}
