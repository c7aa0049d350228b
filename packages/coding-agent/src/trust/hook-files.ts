// The project files a project's hook commands run (`node scripts/check.mjs`, `./hooks/lint.sh`),
// for the trust hash: the command text is in .keel/config.json, but what it runs lives beside
// it and could change after the project was trusted. Hooks run in the project root.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseJsonText } from "../config/read.js";

/** The project config files that may declare hooks (the trust hash covers their text). */
const HOOK_CONFIGS = [".keel/config.json", ".keel/config.local.json"];

/** The command of each hook entry: Keel's `{ command }` and Claude Code's `{ matcher, hooks: [{ command }] }`. */
function entryCommands(entry: unknown): string[] {
  if (typeof entry !== "object" || entry === null) return [];
  const { command, hooks } = entry as { command?: unknown; hooks?: unknown };
  return [
    ...(typeof command === "string" ? [command] : []),
    ...(Array.isArray(hooks) ? hooks.flatMap(entryCommands) : []),
  ];
}

function hookCommands(root: string): string[] {
  const commands: string[] = [];
  for (const rel of HOOK_CONFIGS) {
    const path = join(root, rel);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue; // missing: no hook runs from it
    }
    // JSONC, as the loader reads it; one that does not parse is refused by the loader (no hook runs).
    const parsed = parseJsonText(text, path);
    if (parsed.isErr()) continue;
    const hooks = (parsed.value as { hooks?: unknown } | null)?.hooks;
    if (typeof hooks !== "object" || hooks === null) continue;
    for (const list of Object.values(hooks))
      if (Array.isArray(list)) commands.push(...list.flatMap(entryCommands));
  }
  return commands;
}

/**
 * Words of a command line that could name a file: split at blanks and shell operators, quotes
 * removed, `$KEEL_PROJECT_DIR` (the variable hooks get) expanded. Reading too many words only
 * hashes files that would not run, which is harmless.
 */
function words(command: string, root: string): string[] {
  return command
    .replace(/\$\{?KEEL_PROJECT_DIR\}?/g, root)
    .split(/[\s;&|()<>`]+/)
    .map((w) => w.replace(/^['"]+|['"]+$/g, "").replace(/^[A-Za-z_][A-Za-z0-9_]*=/, ""))
    .filter((w) => w !== "" && !w.startsWith("-"));
}

function insideRoot(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Regular files inside `root` (a realpath) that the project's hook commands name, as realpaths. */
export function hookFiles(root: string): string[] {
  const found = new Set<string>();
  for (const command of hookCommands(root)) {
    for (const word of words(command, root)) {
      const path = resolve(root, word);
      let real: string;
      try {
        if (!statSync(path).isFile()) continue;
        real = realpathSync(path);
      } catch {
        continue; // not a file: a program on PATH, an option value, a word
      }
      // Programs outside the project (node, sh, the user's own scripts) are not the project's;
      // a project path that links elsewhere is, and is hashed where it leads.
      if (insideRoot(root, path) || insideRoot(root, real)) found.add(real);
    }
  }
  return [...found];
}
