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
  if (parsed.specifier?.startsWith("domain:") && parsed.specifier.slice("domain:".length).trim() === "") {
    return `"${rule}": domain: needs a host, e.g. ${parsed.tool}(domain:example.com)`;
  }
  return undefined;
}

/**
 * The families of rules, by what a tool does (its declared access): `Read(…)` judges every read
 * tool's paths, `Edit(…)` / `Write(…)` every write tool's, `Bash(…)` every exec tool's commands.
 */
export type RuleFamily = "bash" | "edit" | "read";

/**
 * Rule words that stand for a family rather than one tool — permission vocabulary, as in Claude
 * Code's settings (whose `MultiEdit` and `NotebookEdit` rules keep their meaning when imported).
 */
const FAMILY_WORDS: Readonly<Record<string, RuleFamily>> = {
  Read: "read",
  Edit: "edit",
  Write: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Bash: "bash",
};

/** How a family's rules are written when Keel offers one to save ("always"). */
export const RULE_WORD: Readonly<Record<RuleFamily, string>> = { read: "Read", edit: "Edit", bash: "Bash" };

/** The family whose rules judge a tool of this access, if any. */
export function familyOfAccess(access: string | undefined): RuleFamily | undefined {
  return access === "read" ? "read" : access === "write" ? "edit" : access === "exec" ? "bash" : undefined;
}

/** A tool being judged within its own family: rules naming it join the family's (`Glob(src/**)`). */
export interface JudgedTool {
  name: string;
  family: RuleFamily;
}

export interface FamilyRule {
  entry: PermissionRuleEntry;
  specifier?: string;
}

/** The well-formed rules of one behavior, each with its parse: what every selection below starts from. */
function parsedRules(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
): { entry: PermissionRuleEntry; parsed: ParsedRule }[] {
  return rules.flatMap((entry) => {
    const parsed = entry.behavior === behavior ? parseRule(entry.rule) : undefined;
    return parsed ? [{ entry, parsed }] : [];
  });
}

/**
 * The rules that judge `family`, by behavior: those written with the family's word, and, when
 * `tool` is judged within that family, those naming it. A tool's rules never judge another
 * family's checks (`Bash(rm:*)` is not a path rule for the files a command reads).
 */
export function rulesFor(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
  family: RuleFamily,
  tool?: JudgedTool,
): FamilyRule[] {
  const out: FamilyRule[] = [];
  for (const { entry, parsed } of parsedRules(rules, behavior)) {
    const own = tool !== undefined && tool.family === family && parsed.tool === tool.name;
    if (FAMILY_WORDS[parsed.tool] === family || own) out.push({ entry, specifier: parsed.specifier });
  }
  return out;
}

/**
 * Rules naming one tool as a whole, by behavior: `Tool`, and for deny and ask also `Tool(…)`
 * whatever the specifier (a narrower rule the tool cannot apply must not let it slip through);
 * `mcp__server` rules cover that server's tools.
 */
export function toolRules(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
  tool: string,
): FamilyRule[] {
  const out: FamilyRule[] = [];
  for (const { entry, parsed } of parsedRules(rules, behavior)) {
    if (parsed.tool === tool) {
      if (behavior !== "allow" || parsed.specifier === undefined)
        out.push({ entry, specifier: parsed.specifier });
    } else if (!parsed.specifier && tool.startsWith("mcp__") && mcpRuleMatches(parsed.tool, tool))
      out.push({ entry });
  }
  return out;
}

/** Rules naming a tool with a `domain:` specifier (or none): what judges a network tool's URLs. */
export function domainRules(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
  tool: string,
): FamilyRule[] {
  return parsedRules(rules, behavior)
    .filter(({ parsed }) => parsed.tool === tool)
    .map(({ entry, parsed }) => ({ entry, specifier: parsed.specifier }));
}

/** Rules without a specifier, by behavior: the ones that can name a catalog entry or group. */
export function catalogRules(
  rules: readonly PermissionRuleEntry[],
  behavior: PermissionBehavior,
): { tool: string; rule: string }[] {
  return parsedRules(rules, behavior)
    .filter(({ parsed }) => !parsed.specifier)
    .map(({ entry, parsed }) => ({ tool: parsed.tool, rule: entry.rule }));
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

/** `<Tool>(domain:example.com)` covers example.com; `domain:*.example.com` its subdomains. */
export function domainMatches(specifier: string | undefined, host: string): boolean {
  if (specifier === undefined) return true;
  if (!specifier.startsWith("domain:")) return false;
  const raw = specifier.slice("domain:".length).trim();
  const h = normalizeDomain(host);
  if (raw.startsWith("*.")) return h.endsWith(`.${normalizeDomain(raw.slice(2))}`);
  return h === normalizeDomain(raw);
}
