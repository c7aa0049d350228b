// What trusting a project would let it do, read (never run) before the user decides: its
// config's permissions, mode, env and hooks, its extensions, its MCP servers (headers and env as
// written), its skills and agents, and its context files; for a project trusted before, what
// changed since in what it runs or widens automatically.
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { readFileBounded } from "@keel/extension-sdk/node";
import { commandRoots, discoverCommandFiles } from "../commands/files/discover.js";
import { translateClaudeSettings } from "../config/claude-settings.js";
import { configPaths, displayPath } from "../config/paths.js";
import { parseJsonText } from "../config/read.js";
import { isInside } from "../permissions/paths.js";
import { CONTEXT_FILE_NAMES, RULES_DIR } from "../prompt/context-files.js";
import { ruleFiles } from "../prompt/rules.js";
import { checkTrust, type TrustStatus } from "../trust/store.js";
import { changeLines } from "../trust/surface.js";

/** Files are read only if they are regular files, and no more than this of each. */
const MAX_READ = 256 * 1024;
const MODULES = new Set([".js", ".mjs", ".cjs", ".ts", ".mts"]);
const SKILL_AND_AGENT_DIRS = [
  ".keel/skills",
  ".keel/agents",
  ".agents/skills",
  ".claude/skills",
  ".claude/agents",
];

export interface TrustPreview {
  projectRoot: string;
  status: TrustStatus | "unknown";
  /** Permission settings, per config file that has any. */
  permissions: {
    file: string;
    mode?: string;
    allow: string[];
    ask: string[];
    deny: string[];
    /** Folders outside the project it may read and edit. */
    additionalDirectories?: string[];
  }[];
  /** Shell commands config runs on events. */
  hooks: { file: string; event: string; command: string; matcher?: string }[];
  /** Environment variables config sets for commands. */
  env: { file: string; name: string; value: string }[];
  /** Extension modules in .keel/extensions/, and extensions config enables, requires or configures. */
  extensions: { path: string }[];
  extensionSettings: { file: string; id: string; setting: string }[];
  /** Servers .mcp.json declares: what each one runs or connects to. */
  mcpServers: { name: string; runs: string }[];
  /** Skills and agent definitions (instructions the model may load), one entry each. */
  skillsAndAgents: string[];
  /** Command files (`/name` prompts), each with the rules its allowed-tools let run without asking. */
  commands: string[];
  /** AGENTS.md, CLAUDE.md (and Claude Code's other memory files and rules) the system prompt would include, from the root down to the cwd. */
  contextFiles: string[];
  /** What each loaded extension says it would read or run from the project (its trustPreview). */
  fromExtensions?: { extensionId: string; lines: string[] }[];
  /** What could not be read or looked odd (a symlink out of the project, invalid JSON, too large). */
  problems: string[];
  /**
   * For a project trusted before: each item that runs or widens automatically and differs from
   * what was approved (`+ added`, `- removed`, `~ changed: what`).
   */
  changes?: string[];
  /** The project was trusted before Keel recorded what trust covers; what changed cannot be told. */
  legacy?: boolean;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);

export function previewTrust(options: { projectRoot: string; cwd: string; home: string }): TrustPreview {
  const root = options.projectRoot;
  const check = checkTrust(root, { home: options.home });
  const changes = check.isOk() ? changeLines(check.value.changes ?? []) : [];
  const preview: TrustPreview = {
    projectRoot: root,
    status: check.isOk() ? check.value.status : "unknown",
    ...(changes.length > 0 ? { changes } : {}),
    ...(check.isOk() && check.value.legacy ? { legacy: true } : {}),
    permissions: [],
    hooks: [],
    env: [],
    extensions: [],
    extensionSettings: [],
    mcpServers: [],
    skillsAndAgents: [],
    commands: [],
    contextFiles: [],
    problems: [],
  };
  const shown = (path: string) => relative(root, path) || ".";
  const read = (path: string): string | undefined => readBounded(path, root, shown, preview.problems);
  for (const dir of [".keel", ".keel/extensions"]) noteLink(join(root, dir), root, shown, preview.problems);

  const paths = configPaths(options.home, root);
  for (const file of [paths.project, paths.projectLocal]) {
    const text = read(file);
    if (text === undefined) continue;
    const config = parseConfigObject(text, file, shown(file), preview.problems);
    if (config) describeConfig(config, shown(file), preview);
  }
  // Claude Code's settings, as Keel reads them (config/claude-settings.ts).
  for (const file of [".claude/settings.json", ".claude/settings.local.json"]) {
    const path = join(root, file);
    const text = read(path);
    if (text === undefined) continue;
    const config = parseConfigObject(text, path, file, preview.problems);
    if (config) describeConfig(translateClaudeSettings(config, root, file).config, file, preview);
  }

  const extDir = join(root, ".keel", "extensions");
  for (const name of listDir(extDir, shown, preview.problems)) {
    const path = join(extDir, name);
    if (name.startsWith(".")) continue;
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      preview.problems.push(`${shown(path)} cannot be read`);
      continue;
    }
    if (isDir || MODULES.has(extname(name))) preview.extensions.push({ path: shown(path) });
  }

  const mcp = read(join(root, ".mcp.json"));
  if (mcp !== undefined) {
    const parsed = parseObject(mcp, ".mcp.json", preview.problems);
    const servers = parsed && isObject(parsed.mcpServers) ? parsed.mcpServers : {};
    for (const [name, server] of Object.entries(servers)) {
      preview.mcpServers.push({ name, runs: describeServer(server) });
    }
  }

  for (const dir of SKILL_AND_AGENT_DIRS) {
    const full = join(root, dir);
    noteLink(full, root, shown, preview.problems);
    for (const name of listDir(full, shown, preview.problems)) {
      if (!name.startsWith(".")) preview.skillsAndAgents.push(`${dir}/${name}`);
    }
  }
  // Command files, with the rules their allowed-tools would let run without asking.
  const commands = discoverCommandFiles(
    commandRoots({
      projectRoot: root,
      trusted: true,
      keelHome: options.home,
      userHome: "",
      claudeUserFiles: false,
    }).filter((r) => r.scope === "project"),
    root,
  );
  for (const file of commands.files)
    preview.commands.push(
      `${file.shown}${file.allowedTools.length > 0 ? ` (allowed-tools, run without asking when used: ${file.allowedTools.join(", ")})` : ""}`,
    );
  preview.problems.push(...commands.problems);

  // Every one the loader reads (prompt/context-files.ts), rules included; imports are read only
  // from inside the project, which the preview does not follow.
  for (const dir of dirsFromRoot(root, options.cwd)) {
    for (const path of [...CONTEXT_FILE_NAMES.map((n) => join(dir, n)), ...ruleFiles(join(dir, RULES_DIR))]) {
      if (!exists(path)) continue;
      preview.contextFiles.push(shown(path));
      noteLink(path, root, shown, preview.problems);
    }
  }
  return preview;
}

function describeConfig(config: Json, file: string, preview: TrustPreview): void {
  const p = isObject(config.permissions) ? config.permissions : undefined;
  if (p) {
    const entry = {
      file,
      ...(typeof p.mode === "string" ? { mode: p.mode } : {}),
      allow: strings(p.allow),
      ask: strings(p.ask),
      deny: strings(p.deny),
      ...(strings(config.additionalDirectories).length > 0
        ? { additionalDirectories: strings(config.additionalDirectories) }
        : {}),
    };
    if (
      entry.mode ||
      entry.additionalDirectories ||
      entry.allow.length + entry.ask.length + entry.deny.length > 0
    )
      preview.permissions.push(entry);
  } else if (strings(config.additionalDirectories).length > 0)
    preview.permissions.push({
      file,
      allow: [],
      ask: [],
      deny: [],
      additionalDirectories: strings(config.additionalDirectories),
    });
  if (isObject(config.hooks)) {
    for (const [event, list] of Object.entries(config.hooks)) {
      for (const hook of Array.isArray(list) ? list : []) {
        if (!isObject(hook)) continue;
        const matcher =
          typeof hook.matcher === "string" && hook.matcher !== "" ? { matcher: hook.matcher } : {};
        // Keel's `{command}` and Claude Code's `{matcher, hooks: [{type: "command", command}]}`.
        const commands = [
          ...(typeof hook.command === "string" ? [hook.command] : []),
          ...(Array.isArray(hook.hooks)
            ? hook.hooks.flatMap((h) =>
                isObject(h) && h.type === "command" && typeof h.command === "string" ? [h.command] : [],
              )
            : []),
        ];
        for (const command of commands) preview.hooks.push({ file, event, command, ...matcher });
      }
    }
  }
  if (isObject(config.env)) {
    for (const [name, value] of Object.entries(config.env)) {
      preview.env.push({ file, name, value: String(value) });
    }
  }
  if (isObject(config.extensions)) {
    for (const [id, setting] of Object.entries(config.extensions)) {
      if (!isObject(setting)) continue;
      const parts = [
        setting.enabled === false ? "disabled" : setting.enabled === true ? "enabled" : undefined,
        setting.required === true ? "required" : undefined,
        setting.config !== undefined ? "configured" : undefined,
      ].filter((x): x is string => x !== undefined);
      if (parts.length > 0) preview.extensionSettings.push({ file, id, setting: parts.join(", ") });
    }
  }
}

/**
 * What a server runs or where it connects, with the environment and headers it is given as
 * written: `${GITHUB_TOKEN}` in a header means the user's token goes to that URL.
 */
function describeServer(server: unknown): string {
  if (!isObject(server)) return "(not an object)";
  const pairs = (v: unknown, sep: string) =>
    isObject(v)
      ? Object.entries(v).map(([k, x]) => `${k}${sep}${typeof x === "string" ? x : JSON.stringify(x)}`)
      : [];
  const env = pairs(server.env, "=");
  const headers = pairs(server.headers, ": ");
  const what =
    typeof server.command === "string"
      ? ["runs", server.command, ...strings(server.args)].join(" ")
      : typeof server.url === "string"
        ? `connects to ${server.url}`
        : "(neither a command nor a url)";
  return [
    what,
    ...(env.length > 0 ? [`with env ${env.join(", ")}`] : []),
    ...(headers.length > 0 ? [`sending headers ${headers.join(", ")}`] : []),
  ].join(" ");
}

/** The project root, then each directory down to the cwd (the ones whose context files load). */
function dirsFromRoot(root: string, cwd: string): string[] {
  const dirs: string[] = [];
  const start = isInside(resolve(cwd), root) ? resolve(cwd) : root;
  for (let dir = start; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return dirs;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function noteLink(path: string, root: string, shown: (p: string) => string, problems: string[]): void {
  try {
    if (!lstatSync(path).isSymbolicLink()) return;
    const target = resolve(dirname(path), readlinkSync(path));
    if (!isInside(target, root))
      problems.push(`${shown(path)} is a symlink to ${displayPath(target)}, outside the project`);
  } catch {
    // Gone between the calls: nothing to say.
  }
}

/** A regular file's first MAX_READ bytes; anything else (missing, a FIFO, a device) is not read. */
function readBounded(
  path: string,
  root: string,
  shown: (p: string) => string,
  problems: string[],
): string | undefined {
  if (!exists(path)) return undefined;
  noteLink(path, root, shown, problems);
  const outcome = readFileBounded(path, MAX_READ);
  if (outcome.isErr()) {
    problems.push(
      outcome.error.type === "not_a_file"
        ? `${shown(path)} is not a regular file; not read`
        : `${shown(path)} cannot be read (${outcome.error.message})`,
    );
    return undefined;
  }
  const read = outcome.value;
  if (read.truncated) {
    problems.push(`${shown(path)} is ${read.size} bytes, more than the ${MAX_READ} read for this preview`);
    return undefined;
  }
  return read.bytes.toString("utf8");
}

/** Keel's own config files are JSONC, read as loading reads them (the error names line and column). */
function parseConfigObject(text: string, path: string, file: string, problems: string[]): Json | undefined {
  const parsed = parseJsonText(text, path);
  if (parsed.isErr()) {
    problems.push(`${file} is not valid JSON (${parsed.error.message.replace(/^.*?: invalid JSON /, "")})`);
    return undefined;
  }
  if (isObject(parsed.value)) return parsed.value;
  problems.push(`${file} is not a JSON object`);
  return undefined;
}

function parseObject(text: string, file: string, problems: string[]): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
    problems.push(`${file} is not a JSON object`);
  } catch (e) {
    problems.push(`${file} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  return undefined;
}

function listDir(dir: string, shown: (p: string) => string, problems: string[]): string[] {
  if (!exists(dir)) return [];
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    problems.push(`${shown(dir)} cannot be listed (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    return [];
  }
}

/** The preview as the lines /trust shows, each category named even when empty. */
export function formatTrustPreview(preview: TrustPreview): string {
  const lines: string[] = [];
  const section = (title: string, items: string[]) => {
    lines.push(`${title}:${items.length === 0 ? " none" : ""}`);
    for (const item of items) lines.push(`  - ${item}`);
  };
  if (preview.changes && preview.changes.length > 0) {
    lines.push(
      preview.legacy
        ? `${preview.projectRoot} was trusted before Keel recorded what trust covers, and changed since; all it runs is new to that record:`
        : preview.status === "trusted"
          ? `${preview.projectRoot} is trusted, but extensions would now honour items you did not approve (they are left out until you trust it again):`
          : `${preview.projectRoot} changed since you trusted it, in what it runs or widens automatically:`,
    );
    for (const change of preview.changes) lines.push(`  ${change}`);
    lines.push("");
  }
  const verb =
    preview.status === "trusted"
      ? "is trusted; it can"
      : preview.status === "changed"
        ? "changed since you trusted it; trusting it again lets it"
        : "is not trusted; trusting it lets it";
  lines.push(`${preview.projectRoot} ${verb}:`);
  section(
    "Permissions",
    preview.permissions.flatMap((p) => [
      ...(p.mode
        ? [
            `mode ${p.mode}${p.mode === "bypassPermissions" ? " (runs every tool call unasked)" : ""} (${p.file})`,
          ]
        : []),
      ...p.allow.map((r) => `allow ${r} (${p.file})`),
      ...p.ask.map((r) => `ask ${r} (${p.file})`),
      ...p.deny.map((r) => `deny ${r} (${p.file})`),
      ...(p.additionalDirectories ?? []).map((d) => `read and edit ${d} (${p.file})`),
    ]),
  );
  section(
    "Hooks (shell commands run on events)",
    preview.hooks.map((h) => `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${h.command} (${h.file})`),
  );
  section(
    "Environment for commands",
    preview.env.map((e) => `${e.name}=${e.value} (${e.file})`),
  );
  section("Extensions (code that runs in Keel)", [
    ...preview.extensions.map((e) => e.path),
    ...preview.extensionSettings.map((e) => `${e.id}: ${e.setting} (${e.file})`),
  ]);
  section(
    "MCP servers (.mcp.json)",
    preview.mcpServers.map((s) => `${s.name}: ${s.runs}`),
  );
  section("Skills and agents (instructions the model may load)", preview.skillsAndAgents);
  section(
    "Command files (prompts for /name; their allowed-tools run without asking when used)",
    preview.commands,
  );
  section("Context files (instructions for the model)", preview.contextFiles);
  for (const e of preview.fromExtensions ?? []) section(`${e.extensionId} (extension)`, e.lines);
  if (preview.problems.length > 0) section("Could not be checked", preview.problems);
  return lines.join("\n");
}
