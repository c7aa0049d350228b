// AGENTS.md / CLAUDE.md discovery: the user's global file, then each directory from the
// filesystem root down to cwd. Files inside an untrusted project are not read.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errnoMessage } from "../fs/errno.js";
import { isInside } from "../permissions/paths.js";

export interface ContextFile {
  path: string;
  content: string;
}

const NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_BYTES = 64 * 1024;

function readFirst(dir: string, report: (message: string) => void): ContextFile | undefined {
  for (const name of NAMES) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    try {
      return { path, content: readFileSync(path, "utf8").slice(0, MAX_BYTES) };
    } catch (error) {
      // The user wrote it for the model: leaving it out must not go unnoticed.
      report(`${path} could not be read (${errnoMessage(error)}); it is not in the system prompt.`);
      return undefined;
    }
  }
  return undefined;
}

export function loadContextFiles(options: {
  cwd: string;
  /** The Keel home: its AGENTS.md (or CLAUDE.md) applies to every project. */
  home: string;
  projectRoot: string;
  trusted: boolean;
  /** Told about a context file that exists but cannot be read. */
  report?: (message: string) => void;
}): ContextFile[] {
  const report = options.report ?? (() => {});
  const files: ContextFile[] = [];
  const global = readFirst(options.home, report);
  if (global) files.push(global);
  const dirs: string[] = [];
  for (let dir = resolve(options.cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of dirs) {
    if (dir === resolve(options.home)) continue;
    if (!options.trusted && isInside(dir, options.projectRoot)) continue;
    const file = readFirst(dir, report);
    if (file) files.push(file);
  }
  return files;
}
