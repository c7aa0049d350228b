// The built-in tool set, wired to one workspace and one shared FileReadTracker.
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool } from "./edit.js";
import { FileReadTracker } from "./file-tracker.js";
import { createGlobTool, type GlobToolOptions } from "./glob.js";
import { createGrepTool, type GrepToolOptions } from "./grep.js";
import { createLsTool, type LsToolOptions } from "./ls.js";
import { createReadTool } from "./read.js";
import type { BuiltinTool } from "./shared.js";
import type { TextFileAccess } from "./text-files.js";
import { createWriteTool } from "./write.js";

export interface BuiltinToolsOptions {
  cwd: string;
  /** Shared by Read, Write and Edit; pass one to inspect or reuse it, else a fresh one is made. */
  tracker?: FileReadTracker;
  supportsImages?: () => boolean;
  /** The host's view of text files for Read, Write and Edit (else the disk). */
  textFiles?: TextFileAccess;
  bash?: Omit<BashToolOptions, "cwd">;
  glob?: Omit<GlobToolOptions, "cwd">;
  grep?: Omit<GrepToolOptions, "cwd">;
  ls?: Omit<LsToolOptions, "cwd">;
}

export const BUILTIN_TOOL_NAMES = ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "LS"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export function createBuiltinTools(options: BuiltinToolsOptions): BuiltinTool[] {
  const { cwd } = options;
  const tracker = options.tracker ?? new FileReadTracker();
  const textFiles = options.textFiles ? { textFiles: options.textFiles } : {};
  return [
    createReadTool({ cwd, tracker, supportsImages: options.supportsImages, ...textFiles }),
    createWriteTool({ cwd, tracker, ...textFiles }),
    createEditTool({ cwd, tracker, ...textFiles }),
    createBashTool({ ...options.bash, cwd }),
    createGlobTool({ ...options.glob, cwd }),
    createGrepTool({ ...options.grep, cwd }),
    createLsTool({ ...options.ls, cwd }),
  ];
}
