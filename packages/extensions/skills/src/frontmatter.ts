// SKILL.md front matter through gray-matter, YAML only: gray-matter would evaluate `---js` /
// `---javascript` front matter, so those engines are replaced by ones that refuse, and any
// language tag other than YAML is refused before gray-matter sees the text.
import matter from "gray-matter";
import { err, ok, type Result } from "neverthrow";

export type FrontMatterError =
  | { type: "no_front_matter"; message: string }
  | { type: "unsupported_language"; language: string; message: string }
  | { type: "invalid_yaml"; message: string }
  | { type: "not_a_mapping"; message: string };

export interface ParsedSkillFile {
  data: Record<string, unknown>;
  /** The Markdown after the front matter, trimmed. */
  body: string;
  /** Set when the YAML only parsed after quoting values that hold `: ` (as other clients accept). */
  repaired?: string;
}

const refuse = (): never => {
  throw new Error("front matter in a programming language is never evaluated");
};

// Every name gray-matter maps to its eval-based engine, and CoffeeScript's, in any case.
const ENGINES = {
  javascript: refuse,
  js: refuse,
  coffee: refuse,
  coffeescript: refuse,
  cson: refuse,
};

const YAML_TAGS = new Set(["", "yaml", "yml"]);

function yamlMessage(e: unknown): string {
  const ex = e as { reason?: unknown; mark?: { line?: number; column?: number }; message?: unknown };
  if (typeof ex.reason === "string" && ex.mark && typeof ex.mark.line === "number")
    return `${ex.reason} at line ${ex.mark.line + 1}, column ${(ex.mark.column ?? 0) + 1} of the front matter`;
  const text = typeof ex.message === "string" ? ex.message : String(e);
  return text.split("\n")[0] ?? text;
}

/**
 * gray-matter is given the front matter block alone (`head` runs from the opening `---` to just
 * before the closing one): it copies and hashes its whole input, and bodies are much longer.
 */
function parse(head: string, rest: string): ParsedSkillFile {
  const file = matter(`${head}\n---\n`, { language: "yaml", engines: ENGINES });
  const data = file.data as unknown;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new NotAMapping();
  return { data: data as Record<string, unknown>, body: rest.trim() };
}

class NotAMapping extends Error {}

/**
 * Skills written for other clients often hold `description: Use when: …`, which strict YAML
 * rejects. Top-level plain values containing `: ` are quoted and the parse is tried once more.
 */
function quoteColonValues(block: string): { block: string; keys: string[] } {
  const keys: string[] = [];
  const lines = block.split("\n").map((line) => {
    const m = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
    if (!m) return line;
    const [, key, value] = m as unknown as [string, string, string];
    const trimmed = value.trim();
    if (/^["'|>[{&*!#%@`]/.test(trimmed) || !/:(\s|$)/.test(trimmed)) return line;
    keys.push(key);
    return `${key}: ${JSON.stringify(trimmed)}`;
  });
  return { block: lines.join("\n"), keys };
}

/** Splits a SKILL.md into its YAML front matter and body; never evaluates code. */
export function parseSkillFile(raw: string): Result<ParsedSkillFile, FrontMatterError> {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!text.startsWith("---") || text.startsWith("----"))
    return err({ type: "no_front_matter", message: "no front matter: SKILL.md must start with a --- line" });
  const firstLine = text.slice(3, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const language = firstLine.trim().toLowerCase();
  if (!YAML_TAGS.has(language))
    return err({
      type: "unsupported_language",
      language,
      message: `front matter marked "---${firstLine.trim()}" is not read (never evaluated); SKILL.md front matter is YAML`,
    });
  // The closing delimiter as gray-matter finds it: the next line starting with ---.
  const close = text.indexOf("\n---", 3);
  const head = close === -1 ? text : text.slice(0, close);
  const rest = close === -1 ? "" : text.slice(close + 4);
  try {
    return ok(parse(head, rest));
  } catch (first) {
    if (first instanceof NotAMapping)
      return err({ type: "not_a_mapping", message: "front matter is not a mapping of fields" });
    const { block, keys } = quoteColonValues(head);
    if (keys.length > 0) {
      try {
        const repaired = parse(block, rest);
        return ok({
          ...repaired,
          repaired: `not valid YAML (${yamlMessage(first)}); read after quoting ${keys.join(", ")}`,
        });
      } catch {
        // Fall through to the original error, which points at the real problem.
      }
    }
    return err({ type: "invalid_yaml", message: `front matter is not valid YAML: ${yamlMessage(first)}` });
  }
}
