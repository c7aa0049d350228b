// Permission rule syntax: `Tool` or `Tool(specifier)`, grouped into tool families for matching.
import { domainToASCII } from "node:url";
import type { PermissionBehavior, PermissionRuleEntry } from "./types.js";

export interface ParsedRule {
  tool: string;
  specifier?: string;
}

const RULE = /^([A-Za-z0-9_.*:-]+)(?:\((.*)\))?$/s;

export function parseRule(rule: string): ParsedRule | undefined {
  const m = RULE.exec(rule.trim());
  if (!m) return undefined;
  const specifier = m[2]?.trim();
  return specifier === undefined || specifier === "" ? { tool: m[1]! } : { tool: m[1]!, specifier };
}

/** Returns a message for a malformed rule, for config diagnostics; undefined when it is fine. */
export function checkRule(rule: string): string | undefined {
  const parsed = parseRule(rule);
  if (!parsed) return `"${rule}" is not a permission rule (expected Tool or Tool(specifier))`;
  if (parsed.tool === "WebFetch" && parsed.specifier && !parsed.specifier.startsWith("domain:")) {
    return `"${rule}": WebFetch rules take domain:<host>`;
  }
  return undefined;
}

export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
export const READ_TOOLS: ReadonlySet<string> = new Set(["Read", "Glob", "Grep", "LS"]);

export type ToolFamily = "bash" | "edit" | "read" | "webfetch" | "mcp" | "other";

export function familyOf(tool: string): ToolFamily {
  if (tool === "Bash") return "bash";
  if (EDIT_TOOLS.has(tool)) return "edit";
  if (READ_TOOLS.has(tool)) return "read";
  if (tool === "WebFetch") return "webfetch";
  if (tool.startsWith("mcp__")) return "mcp";
  return "other";
}

export interface FamilyRule {
  entry: PermissionRuleEntry;
  specifier?: string;
}

/**
 * The rules that apply to a family, by behavior. Edit and Write rules cover every editing tool;
 * a Read rule covers every reading tool (Read, Glob, Grep, LS), as in Claude Code.
 */
export function rulesFor(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
  family: ToolFamily,
  tool?: string,
): FamilyRule[] {
  const out: FamilyRule[] = [];
  for (const entry of rules) {
    if (entry.behavior !== behavior) continue;
    const parsed = parseRule(entry.rule);
    if (!parsed) continue;
    const fam = familyOf(parsed.tool);
    if (family === "edit" || family === "read") {
      if (fam === family) out.push({ entry, specifier: parsed.specifier });
    } else if (family === "mcp" && tool) {
      if (!parsed.specifier && mcpRuleMatches(parsed.tool, tool)) out.push({ entry });
    } else if (family === "other" && tool) {
      if (parsed.tool === tool) out.push({ entry, specifier: parsed.specifier });
    } else if (fam === family) out.push({ entry, specifier: parsed.specifier });
  }
  return out;
}

/** Rules without a specifier, by behavior: the ones that can name a catalog entry or group. */
export function catalogRules(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
): { tool: string; rule: string }[] {
  const out: { tool: string; rule: string }[] = [];
  for (const entry of rules) {
    if (entry.behavior !== behavior) continue;
    const parsed = parseRule(entry.rule);
    if (parsed && !parsed.specifier) out.push({ tool: parsed.tool, rule: entry.rule });
  }
  return out;
}

/**
 * `mcp__server` and `mcp__server__*` cover a server's tools; `mcp__server__tool` one tool. The
 * server is the name up to the second `__` (the MCP extension never gives a server a name with
 * `__` in it or ending in `_`, so `mcp__docs` never covers a server named `docs__evil`).
 */
export function mcpRuleMatches(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  const base = ruleTool.endsWith("__*") ? ruleTool.slice(0, -3) : ruleTool;
  if (base.split("__").length !== 2) return false;
  const server = /^mcp__.+?(?=__)/.exec(tool)?.[0];
  return server === base;
}

/**
 * A host as rules compare it: lower case, ASCII (punycode, as the URL parser gives hosts), no
 * trailing dot — `evil.example.` is the same host as `evil.example` and must meet the same rules.
 */
export function normalizeDomain(host: string): string {
  const trimmed = host.trim().replace(/\.+$/, "");
  return (domainToASCII(trimmed) || trimmed).toLowerCase();
}

/** `WebFetch(domain:example.com)` covers example.com; `domain:*.example.com` its subdomains. */
export function domainMatches(specifier: string | undefined, host: string): boolean {
  if (specifier === undefined) return true;
  if (!specifier.startsWith("domain:")) return false;
  const raw = specifier.slice("domain:".length).trim();
  const h = normalizeDomain(host);
  if (raw.startsWith("*.")) return h.endsWith(`.${normalizeDomain(raw.slice(2))}`);
  return h === normalizeDomain(raw);
}
