// Command files: Claude Code's custom slash commands (`.claude/commands/**/*.md`,
// `~/.claude/commands/**/*.md`) and Keel's own (`.keel/commands`, `~/.keel/commands`), found and
// read — never run. A project's folders only when the project is trusted; the user's Claude Code
// folder unless `claude.userFiles` is false. A bad file is one problem line, never a failed start.
import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { splitToolRules } from "@keel/extension-sdk";
import { parseFrontMatter, readFileBounded } from "@keel/extension-sdk/node";
import { translateRule } from "../../config/claude-settings.js";
import { isInside } from "../../permissions/paths.js";
import { checkRule } from "../../permissions/rules.js";

export type CommandScope = "project" | "user";

export interface CommandRoot {
  dir: string;
  scope: CommandScope;
  /** How the folder is named to the user: `.claude/commands`, `~/.keel/commands`. */
  label: string;
}

export interface CommandFile {
  path: string;
  /** The root's label and the path below it: `.claude/commands/frontend/component.md`. */
  shown: string;
  scope: CommandScope;
  /** The file's name without `.md`: the command's name. */
  name: string;
  /** Subfolders between the root and the file (they name the command's origin, not the command). */
  dirs: string[];
  description: string;
  argumentHint?: string;
  /** Permission rules in Keel's terms (Claude Code's `/path` made absolute to the project). */
  allowedTools: string[];
  model?: string;
  /** Accepted from Claude Code; Keel's model never invokes commands, so it changes nothing. */
  disableModelInvocation: boolean;
  body: string;
}

/** Bytes of one command file read at most; a larger one is refused (said once). */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;
const MAX_FILES_PER_ROOT = 1000;
const MAX_DEPTH = 8;
/** A name part: what the registry accepts, without `:` (it separates scope and subfolders). */
const PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export interface CommandRootsOptions {
  projectRoot: string;
  trusted: boolean;
  keelHome: string;
  userHome: string;
  /** Claude Code's `~/.claude` (config `claude.userFiles`, default on). */
  claudeUserFiles: boolean;
}

/**
 * The folders, highest precedence first: the user's before the project's (Claude Code: personal
 * over project), and within each scope Keel's own before Claude Code's (Keel's config wins).
 */
export function commandRoots(o: CommandRootsOptions): CommandRoot[] {
  return [
    { dir: join(o.keelHome, "commands"), scope: "user" as const, label: "~/.keel/commands" },
    ...(o.claudeUserFiles
      ? [
          {
            dir: join(o.userHome, ".claude", "commands"),
            scope: "user" as const,
            label: "~/.claude/commands",
          },
        ]
      : []),
    ...(o.trusted
      ? [
          {
            dir: join(o.projectRoot, ".keel", "commands"),
            scope: "project" as const,
            label: ".keel/commands",
          },
          {
            dir: join(o.projectRoot, ".claude", "commands"),
            scope: "project" as const,
            label: ".claude/commands",
          },
        ]
      : []),
  ];
}

/** The `.md` files below `dir`, sorted (files of a folder before its subfolders'), bounded. */
function markdownFiles(dir: string, problems: string[], label: string): string[] {
  const out: string[] = [];
  const walk = (at: string, depth: number) => {
    let entries: string[];
    try {
      entries = readdirSync(at).sort();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        problems.push(`${label}: cannot list ${at}: ${(error as Error).message}`);
      return;
    }
    const folders: string[] = [];
    for (const name of entries) {
      if (name.startsWith(".")) continue;
      const path = join(at, name);
      let info: ReturnType<typeof statSync>;
      try {
        info = statSync(path);
      } catch {
        continue;
      }
      if (info.isDirectory()) folders.push(path);
      else if (info.isFile() && name.endsWith(".md")) out.push(path);
    }
    if (depth >= MAX_DEPTH) return;
    for (const folder of folders) if (out.length < MAX_FILES_PER_ROOT) walk(folder, depth + 1);
  };
  walk(dir, 0);
  if (out.length > MAX_FILES_PER_ROOT)
    problems.push(`${label}: more than ${MAX_FILES_PER_ROOT} files; the rest are ignored`);
  return out.slice(0, MAX_FILES_PER_ROOT);
}

/** `argument-hint: [file] [focus]` is YAML's flow list followed by text; quote it as the author meant it. */
function quoteArgumentHint(raw: string): string {
  return raw.replace(/^(argument-hint:[ \t]*)([^'"\s].*)$/m, (_, key: string, value: string) =>
    value.trimEnd() === "" ? `${key}${value}` : `${key}${JSON.stringify(value.trimEnd())}`,
  );
}

const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;

/** The first line of the body that says something, without Markdown's heading marks. */
function firstLine(body: string): string {
  const line = body.split("\n").find((l) => l.trim() !== "") ?? "";
  const plain = line.replace(/^#+\s*/, "").trim();
  return plain.length > 100 ? `${plain.slice(0, 99)}…` : plain;
}

/** One file read as a command, and/or the one line saying what in it could not be used. */
export function readCommandFile(
  path: string,
  root: CommandRoot,
  projectRoot: string,
): { file?: CommandFile; problem?: string } {
  const rel = relative(root.dir, path).split(sep);
  const shown = `${root.label}/${rel.join("/")}`;
  const name = rel.at(-1)!.slice(0, -".md".length);
  const dirs = rel.slice(0, -1);
  const bad = [...dirs, name].find((part) => !PART.test(part));
  if (bad !== undefined)
    return {
      problem: `${shown}: "${bad}" cannot be part of a command name (letters, digits, _ . -, starting with a letter or digit); rename it to use it`,
    };
  if (root.scope === "project") {
    // A link out of the project would put a file trust never covered into a prompt.
    let real: string;
    try {
      real = realpathSync(path);
    } catch (error) {
      return { problem: `${shown}: not readable (${(error as Error).message})` };
    }
    if (!isInside(real, realpathSync(projectRoot)))
      return { problem: `${shown}: links outside the project (${real}); not read` };
  }
  const read = readFileBounded(path, MAX_COMMAND_FILE_BYTES);
  if (read.isErr()) return { problem: `${shown}: not readable (${read.error.message})` };
  if (read.value.truncated)
    return {
      problem: `${shown}: ${read.value.size} bytes, over the ${MAX_COMMAND_FILE_BYTES}-byte limit; not read`,
    };
  const raw = quoteArgumentHint(read.value.bytes.toString("utf8"));
  const parsed = parseFrontMatter(raw, { lenient: true, required: false });
  if (parsed.isErr()) return { problem: `${shown}: ${parsed.error.message}; fix its front matter to use it` };
  const { data, body } = parsed.value;
  const tools = data["allowed-tools"];
  const listed =
    typeof tools === "string"
      ? splitToolRules(tools)
      : Array.isArray(tools)
        ? tools.flatMap((t) => (typeof t === "string" ? splitToolRules(t) : []))
        : [];
  const allowedTools: string[] = [];
  const notes: string[] = parsed.value.repaired ? [parsed.value.repaired] : [];
  if (tools !== undefined && typeof tools !== "string" && !Array.isArray(tools))
    notes.push("allowed-tools is not a list or a string of rules; ignored");
  for (const rule of listed) {
    const problem = checkRule(rule);
    if (problem) notes.push(`allowed-tools: ${problem}; ignored`);
    else allowedTools.push(translateRule(rule, projectRoot));
  }
  const invocation = data["disable-model-invocation"];
  const file: CommandFile = {
    path,
    shown,
    scope: root.scope,
    name,
    dirs,
    description: text(data.description) ?? (firstLine(body) || `${name} (no description)`),
    ...(text(data["argument-hint"]) ? { argumentHint: text(data["argument-hint"])! } : {}),
    allowedTools,
    ...(text(data.model) ? { model: text(data.model)! } : {}),
    disableModelInvocation: invocation === true || invocation === "true",
    body,
  };
  // A file that reads, with something in it set aside: used, and the problem said once.
  return notes.length > 0 ? { file, problem: `${shown}: ${notes.join("; ")}` } : { file };
}

export interface DiscoveredCommands {
  /** In precedence order (see commandRoots). */
  files: CommandFile[];
  /** One line per file that could not be used, or that was used with something ignored. */
  problems: string[];
}

export function discoverCommandFiles(roots: readonly CommandRoot[], projectRoot: string): DiscoveredCommands {
  const files: CommandFile[] = [];
  const problems: string[] = [];
  for (const root of roots) {
    for (const path of markdownFiles(root.dir, problems, root.label)) {
      const read = readCommandFile(path, root, projectRoot);
      if (read.problem) problems.push(read.problem);
      if (read.file) files.push(read.file);
    }
  }
  return { files, problems };
}
