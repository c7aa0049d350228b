// LS: a compact, .gitignore-aware tree of a directory, breadth-first so that a capped
// listing still shows every top-level entry.
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
import { leftOutNote, newWalkStats, type WalkEntry, type WalkGuard, walk } from "./walk.js";

export interface LsToolOptions {
  cwd: string;
  maxEntries?: number;
  /** What the listing may show, made per call for its root (the kernel's permission rules). */
  guard?: (root: string) => WalkGuard;
}

export interface LsDetails {
  entries: number;
  capped: boolean;
}

const lsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory (default: workspace)" })),
  ignore: Type.Optional(Type.Array(Type.String(), { description: "Globs to leave out" })),
});

export type LsParams = Static<typeof lsParameters>;

export function createLsTool(options: LsToolOptions): BuiltinTool<typeof lsParameters, LsDetails> {
  const maxEntries = options.maxEntries ?? 500;
  return {
    name: "LS",
    label: "LS",
    description: "List a directory as a tree (directories end in /), skipping .gitignored entries.",
    parameters: lsParameters,
    executionMode: "parallel",
    access: "read",
    args: { paths: ["path"] },
    summary: (args) => args.path ?? ".",
    async execute(args, { signal }): Promise<AgentToolResult<LsDetails>> {
      const root = resolvePath(options.cwd, args.path ?? ".");
      const shownRoot = displayPath(options.cwd, root);
      const stated = await statNamed(root, shownRoot);
      if (stated.isErr()) return errorResult(stated.error.message);
      if (!stated.value.isDirectory())
        return errorResult(`${shownRoot} is a file, not a directory. Use Read.`);
      const leaveOut =
        args.ignore !== undefined && args.ignore.length > 0
          ? picomatch(args.ignore, { dot: true, basename: true })
          : undefined;
      const stats = newWalkStats();
      const children = new Map<string, WalkEntry[]>();
      const walkOptions = {
        signal,
        maxEntries,
        skip: leaveOut === undefined ? undefined : (rel: string) => leaveOut(rel),
        guard: options.guard?.(root),
        within: options.cwd,
      };
      for await (const entry of walk(root, walkOptions, stats)) {
        const parent = entry.rel.includes("/") ? entry.rel.slice(0, entry.rel.lastIndexOf("/")) : "";
        const list = children.get(parent) ?? [];
        list.push(entry);
        children.set(parent, list);
      }
      if (signal.aborted) return abortedResult("LS");

      const lines = [`${shownRoot === "." ? "." : shownRoot}/`];
      const render = (parent: string, depth: number) => {
        const list = (children.get(parent) ?? []).sort((a, b) => Number(b.dir) - Number(a.dir));
        for (const entry of list) {
          const name = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
          lines.push(`${"  ".repeat(depth)}${name}${entry.dir ? "/" : ""}`);
          if (entry.dir) render(entry.rel, depth + 1);
        }
      };
      render("", 1);
      if (stats.visited === 0) lines.push("  (empty)");
      if (stats.capped) {
        lines.push(`[Listing stopped at ${maxEntries} entries; LS a subdirectory or use Glob for more.]`);
      }
      return textResult(lines.join("\n") + leftOutNote(stats), {
        entries: stats.visited,
        capped: stats.capped,
      });
    },
  };
}
