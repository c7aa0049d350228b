// What trusting a project lets run or widen automatically, as data the trust store records and
// /trust compares: hook commands, MCP server definitions (headers and env included), declared
// extensions and packages, env, the permission mode and allow rules, command files' allowed-tools, extra folders, providers, and
// any config key not known to be inert — from .keel/ and from Claude Code's .claude/settings*.json. Content — context files, skill text, the scripts hooks call, extension
// code — is not in it: editing content never asks for trust again. Reads bytes, runs nothing.
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readFileBounded } from "@keel/extension-sdk/node";
import { commandRoots, discoverCommandFiles } from "../commands/files/discover.js";
import { translateClaudeSettings } from "../config/claude-settings.js";
import { configPaths } from "../config/paths.js";
import { parseJsonText } from "../config/read.js";
import { pathExists } from "../fs/paths.js";

/** Item → its canonical JSON value. Keys say what and where (`.mcp.json server docs`). */
export type Surface = Record<string, string>;

/** Config files larger than this are recorded by digest only (the loader reads them whole). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Top-level config keys that run nothing and widen nothing (a project may choose its model). */
const INERT_CONFIG_KEYS = new Set(["$schema", "model", "compaction", "stream", "agents"]);
/** Permission settings that only tighten. */
const INERT_PERMISSION_KEYS = new Set(["ask", "deny"]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON with object keys sorted, so equal values always compare equal as text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

const digest = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/**
 * A JSON(C) file's object, or a surface entry that stands for it when it cannot be read as one
 * (its digest: Keel refuses such a file, and any change to it asks again).
 */
function readObject(path: string, jsonc: boolean): { value?: Json; problem?: string } {
  if (!pathExists(path)) return {};
  const outcome = readFileBounded(path, MAX_CONFIG_BYTES);
  if (outcome.isErr()) return { problem: `not readable (${outcome.error.message})` };
  const read = outcome.value;
  if (read.truncated) return { problem: `${read.size} bytes, too large to list` };
  const text = read.bytes.toString("utf8");
  let value: unknown;
  if (jsonc) {
    const parsed = parseJsonText(text, path);
    if (parsed.isErr()) return { problem: `not valid JSON (${digest(read.bytes)})` };
    value = parsed.value;
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      return { problem: `not valid JSON (${digest(read.bytes)})` };
    }
  }
  return isObject(value) ? { value } : { problem: `not a JSON object (${digest(read.bytes)})` };
}

/** The hook commands of a config's `hooks`: Keel's `{ command }` and Claude Code's groups. */
function hookEntries(hooks: unknown, file: string, out: Surface): void {
  if (!isObject(hooks)) return;
  for (const [event, list] of Object.entries(hooks)) {
    for (const entry of Array.isArray(list) ? list : []) {
      if (!isObject(entry)) continue;
      const matcher = typeof entry.matcher === "string" && entry.matcher !== "" ? ` [${entry.matcher}]` : "";
      const commands = [
        ...(typeof entry.command === "string" ? [entry.command] : []),
        ...(Array.isArray(entry.hooks)
          ? entry.hooks.flatMap((h) => (isObject(h) && typeof h.command === "string" ? [h.command] : []))
          : []),
      ];
      for (const command of commands) out[`hook ${event}${matcher} (${file}): ${command}`] = '"runs"';
    }
  }
}

function configEntries(config: Json, file: string, out: Surface): void {
  for (const [key, value] of Object.entries(config)) {
    if (INERT_CONFIG_KEYS.has(key)) continue;
    switch (key) {
      case "hooks":
        hookEntries(value, file, out);
        break;
      case "env":
        if (isObject(value))
          for (const [name, v] of Object.entries(value)) out[`env ${name} (${file})`] = canonicalJson(v);
        break;
      case "permissions":
        if (!isObject(value)) break;
        for (const [name, v] of Object.entries(value)) {
          if (INERT_PERMISSION_KEYS.has(name)) continue;
          if (name === "allow" && Array.isArray(v))
            for (const rule of v) out[`allow rule ${String(rule)} (${file})`] = '"allows"';
          else out[`permissions.${name} (${file})`] = canonicalJson(v);
        }
        break;
      case "extensions":
      case "providers":
        if (isObject(value))
          for (const [name, v] of Object.entries(value)) out[`${key}.${name} (${file})`] = canonicalJson(v);
        else out[`${key} (${file})`] = canonicalJson(value);
        break;
      case "packages":
        for (const p of Array.isArray(value) ? value : [])
          out[`package ${isObject(p) && typeof p.name === "string" ? p.name : canonicalJson(p)} (${file})`] =
            canonicalJson(p);
        break;
      default:
        out[`${key} (${file})`] = canonicalJson(value);
    }
  }
}

/** The project's automatic surface now (`root` a realpath). */
export function projectSurface(root: string, keelHome: string): Surface {
  const out: Surface = {};
  const paths = configPaths(keelHome, root);
  for (const [path, file] of [
    [paths.project, ".keel/config.json"],
    [paths.projectLocal, ".keel/config.local.json"],
  ] as const) {
    const read = readObject(path, true);
    if (read.problem) out[file] = JSON.stringify(read.problem);
    if (read.value) configEntries(read.value, file, out);
  }
  // Claude Code's settings, as Keel reads them: its hooks, env, mode, allow rules and extra folders.
  for (const file of [".claude/settings.json", ".claude/settings.local.json"]) {
    const read = readObject(join(root, file), true);
    if (read.problem) out[file] = JSON.stringify(read.problem);
    if (read.value) configEntries(translateClaudeSettings(read.value, root, file).config, file, out);
  }
  const mcp = readObject(join(root, ".mcp.json"), false);
  if (mcp.problem) out[".mcp.json"] = JSON.stringify(mcp.problem);
  const servers = mcp.value?.mcpServers;
  if (isObject(servers))
    for (const [name, server] of Object.entries(servers))
      out[`.mcp.json server ${name}`] = canonicalJson(server);
  else if (mcp.value && servers !== undefined) out[".mcp.json mcpServers"] = canonicalJson(servers);
  // A command file's allowed-tools run without asking when the user types its command.
  const roots = commandRoots({
    projectRoot: root,
    trusted: true,
    keelHome,
    userHome: "",
    claudeUserFiles: false,
  });
  for (const file of discoverCommandFiles(
    roots.filter((r) => r.scope === "project"),
    root,
  ).files)
    if (file.allowedTools.length > 0)
      out[`command ${file.shown} allowed-tools`] = canonicalJson(file.allowedTools);
  let names: string[] = [];
  try {
    names = readdirSync(join(root, ".keel", "extensions"));
  } catch {
    // No folder: no extension files.
  }
  for (const name of names.sort())
    if (!name.startsWith(".")) out[`extension .keel/extensions/${name}`] = '"loads"';
  return out;
}

export interface TrustChange {
  kind: "added" | "removed" | "changed";
  key: string;
  before?: string;
  after?: string;
  /** For a changed JSON value: each leaf that differs (`headers.Authorization: "a" → "b"`). */
  details?: string[];
}

/** What differs between the surface approved and the surface now, in key order. */
export function surfaceChanges(before: Surface, after: Surface): TrustChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const out: TrustChange[] = [];
  for (const key of keys) {
    const b = before[key];
    const a = after[key];
    if (b === a) continue;
    if (b === undefined) out.push({ kind: "added", key, after: a });
    else if (a === undefined) out.push({ kind: "removed", key, before: b });
    else
      out.push({ kind: "changed", key, before: b, after: a, details: leafChanges(parse(b), parse(a), "") });
  }
  return out;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function leafChanges(b: unknown, a: unknown, at: string): string[] {
  if (isObject(b) && isObject(a)) {
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    return keys.flatMap((k) => leafChanges(b[k], a[k], at === "" ? k : `${at}.${k}`));
  }
  if (canonicalJson(b) === canonicalJson(a)) return [];
  const show = (v: unknown) => (v === undefined ? "(none)" : clip(canonicalJson(v)));
  return [`${at === "" ? "" : `${at}: `}${show(b)} → ${show(a)}`];
}

export function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One line per change, as the start notice and /trust show them. */
export function changeLines(changes: readonly TrustChange[]): string[] {
  return changes.map((c) =>
    c.kind === "added"
      ? `+ ${c.key}: ${clip(c.after ?? "")}`
      : c.kind === "removed"
        ? `- ${c.key}: ${clip(c.before ?? "")}`
        : `~ ${c.key}: ${(c.details ?? []).join("; ") || `${clip(c.before ?? "")} → ${clip(c.after ?? "")}`}`,
  );
}
