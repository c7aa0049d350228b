// Glob: files matching a glob pattern, .gitignore-aware, newest first, capped.
import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { AgentToolResult } from "@keel/agent";
import { type Static, Type } from "@sinclair/typebox";
import picomatch from "picomatch";
import {
  abortedResult,
  type BuiltinTool,
  displayPath,
  errorResult,
  resolvePath,
  statNamed,
  textResult,
} from "./shared.js";
import { leftOutNote, newWalkStats, type WalkGuard, walk } from "./walk.js";

export interface GlobToolOptions {
  cwd: string;
  maxResults?: number;
  /** Bound on directory entries visited. */
  maxEntries?: number;
  /** What the walk may list, made per call for its root (the kernel's permission rules). */
  guard?: (root: string) => WalkGuard;
}

export interface GlobDetails {
  matches: number;
  shown: number;
  /** The walk stopped early; there may be more matches. */
  walkCapped: boolean;
}

const globParameters = Type.Object({
  pattern: Type.String({ description: "Glob, e.g. **/*.ts or src/**/*.{js,jsx}" }),
  path: Type.Optional(Type.String({ description: "Directory to search (default: workspace)" })),
});

export type GlobParams = Static<typeof globParameters>;

/** A pattern that names these directories opts into searching them. */
export const targetsNodeModules = (pattern: string) => /(^|\/)node_modules(\/|$)/.test(pattern);
export const targetsGit = (pattern: string) => /(^|\/)\.git(\/|$)/.test(pattern);

const STAT_BATCH = 64;

export function createGlobTool(options: GlobToolOptions): BuiltinTool<typeof globParameters, GlobDetails> {
  const maxResults = options.maxResults ?? 1000;
  const maxEntries = options.maxEntries ?? 200_000;
  return {
    name: "Glob",
    label: "Glob",
    description:
      "Find files by glob pattern (e.g. **/*.ts), skipping .gitignored files. Returns paths, newest first.",
    parameters: globParameters,
    executionMode: "parallel",
    // Glob("../../etc/*") reaches outside through its pattern, not its path: both are judged.
    access: "read",
    args: { paths: ["path"], patterns: ["pattern"] },
    summary: (args) => (args.path === undefined ? args.pattern : `${args.pattern} in ${args.path}`),
    async execute(args, { signal }): Promise<AgentToolResult<GlobDetails>> {
      // Walk only from the pattern's literal prefix: `src/**/*.ts` need not visit `docs/`.
      const scan = picomatch.scan(args.pattern);
      const searchDir = isAbsolute(args.pattern)
        ? scan.base
        : join(resolvePath(options.cwd, args.path ?? "."), scan.base);
      const shownDir = displayPath(options.cwd, searchDir);
      const stated = await statNamed(searchDir, shownDir);
      if (stated.isErr()) return errorResult(stated.error.message);
      const info = stated.value;
      if (!scan.isGlob) {
        // A literal path: it is its own only match.
        return info.isDirectory()
          ? errorResult(
              `${shownDir} is a directory; give a glob such as ${scan.base}/**/* to list files in it.`,
            )
          : textResult(shownDir, { matches: 1, shown: 1, walkCapped: false });
      }
      if (!info.isDirectory()) return errorResult(`${shownDir} is not a directory.`);

      const matcher = picomatch(scan.glob, { dot: true });
      const stats = newWalkStats();
      const found: string[] = [];
      const walkOptions = {
        signal,
        maxEntries,
        includeNodeModules: targetsNodeModules(args.pattern),
        includeGit: targetsGit(args.pattern),
        guard: options.guard?.(searchDir),
        within: options.cwd,
      };
      for await (const entry of walk(searchDir, walkOptions, stats)) {
        if (!entry.dir && matcher(entry.rel)) found.push(entry.path);
      }
      if (signal.aborted) return abortedResult("Glob");

      const dated: { path: string; mtimeMs: number }[] = [];
      for (let i = 0; i < found.length; i += STAT_BATCH) {
        const batch = found.slice(i, i + STAT_BATCH);
        const times = await Promise.all(
          batch.map((p) =>
            stat(p).then(
              (s) => s.mtimeMs,
              () => 0,
            ),
          ),
        );
        for (const [j, path] of batch.entries()) dated.push({ path, mtimeMs: times[j]! });
      }
      dated.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const shown = dated.slice(0, maxResults).map((d) => displayPath(options.cwd, d.path));

      const details = { matches: dated.length, shown: shown.length, walkCapped: stats.capped };
      if (dated.length === 0) {
        const capNote = stats.capped ? ` (stopped after ${maxEntries} entries; narrow the path)` : "";
        return textResult(
          `No files match ${args.pattern} in ${shownDir}${capNote}.${leftOutNote(stats)}`,
          details,
        );
      }
      const notes: string[] = [];
      if (dated.length > shown.length) {
        notes.push(
          `[Showing ${shown.length} of ${dated.length} matches, newest first. Narrow the pattern or path.]`,
        );
      }
      if (stats.capped)
        notes.push(`[Search stopped after ${maxEntries} entries; there may be more matches.]`);
      return textResult([shown.join("\n"), ...notes].join("\n\n") + leftOutNote(stats), details);
    },
  };
}
