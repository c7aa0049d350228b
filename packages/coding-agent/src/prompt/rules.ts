// Claude Code's `.claude/rules/**/*.md`: each file a rule. Without `paths` in its front matter a
// rule is instructions like CLAUDE.md; with `paths` (globs relative to the folder holding
// `.claude`) it applies only once a file matching one of them is touched. Front matter is read
// leniently, as Claude Code reads it; a rule whose front matter cannot be read at all is still
// instructions (its text is the user's), said once.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parseFrontMatter } from "@keel/extension-sdk/node";
import picomatch from "picomatch";

/** Rule files per rules folder that are read at most (a folder of thousands is a mistake). */
const MAX_RULE_FILES = 200;

/** The `.md` files under `dir`, depth first in name order; symlinked folders are not followed. */
export function ruleFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return; // No such folder: no rules there.
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= MAX_RULE_FILES || entry.name.startsWith(".")) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      // A symlinked file is read through the loader's checks (where it leads must be admitted).
      else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md")) out.push(path);
    }
  };
  walk(dir);
  return out;
}

export interface ParsedRule {
  body: string;
  /** The globs that scope it; undefined: it always applies. */
  paths?: string[];
  /** Something about its front matter worth saying once. */
  problem?: string;
}

/** `a, {b,c}/**` → `a`, `{b,c}/**`: commas split patterns only outside braces. */
function splitPatterns(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of value) {
    if (c === "{") depth++;
    if (c === "}") depth = Math.max(0, depth - 1);
    if (c === "," && depth === 0) {
      out.push(current);
      current = "";
    } else current += c;
  }
  out.push(current);
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

const unquote = (value: string) => value.trim().replace(/^(["'])(.*)\1$/, "$2");

/**
 * Front matter YAML refuses but Claude Code reads: a glob left unquoted (`paths: **` followed by
 * `/*.ts` is a YAML alias). Only the `paths` line (or its `- item` list) is taken from the block.
 */
function pathsByLine(text: string): ParsedRule | undefined {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const close = normalised.startsWith("---\n") ? normalised.indexOf("\n---", 3) : -1;
  if (close === -1) return undefined;
  const lines = normalised.slice(4, close).split("\n");
  const body = normalised
    .slice(close + 4)
    .replace(/^-*\n?/, "")
    .trim();
  const at = lines.findIndex((l) => /^paths\s*:/.test(l));
  if (at === -1) return { body };
  const inline = lines[at]!.replace(/^paths\s*:/, "").trim();
  const items: string[] = [];
  if (inline !== "") items.push(...splitPatterns(inline.replace(/^\[(.*)\]$/, "$1")).map(unquote));
  else
    for (const line of lines.slice(at + 1)) {
      const item = /^\s*-\s*(.+)$/.exec(line);
      if (!item) break;
      items.push(unquote(item[1]!));
    }
  return items.length > 0 ? { body, paths: items } : { body };
}

export function parseRule(text: string): ParsedRule {
  const parsed = parseFrontMatter(text, { required: false, lenient: true });
  if (parsed.isErr())
    return (
      pathsByLine(text) ?? {
        body: text.trim(),
        problem: `its front matter is not read (${parsed.error.message})`,
      }
    );
  const { data, body } = parsed.value;
  const raw = data.paths;
  if (raw === undefined || raw === null) return { body };
  const items = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : undefined;
  if (!items || items.some((i) => typeof i !== "string"))
    return { body, problem: "paths must be a glob or a list of globs; the rule applies everywhere" };
  const paths = (items as string[]).flatMap(splitPatterns);
  return paths.length > 0 ? { body, paths } : { body };
}

/** Whether `file` (absolute) matches one of a rule's globs, taken relative to `base`. */
export function ruleMatches(patterns: readonly string[], base: string, file: string): boolean {
  const rel = relative(base, file);
  if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) return false;
  return picomatch(patterns as string[], { dot: true })(rel.split(sep).join("/"));
}
