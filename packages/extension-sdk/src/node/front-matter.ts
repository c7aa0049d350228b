// Markdown front matter (SKILL.md, agent definitions) through gray-matter, YAML only: gray-matter
// would evaluate `---js` / `---javascript` front matter, so a language tag other than YAML is refused
// before gray-matter sees the text, and every engine but YAML is replaced by one that refuses.
import { createRequire } from "node:module";
import type matterModule from "gray-matter";
import { err, ok, type Result } from "neverthrow";

export interface FrontMatterOptions {
  /** A file without front matter is an error (`no_front_matter`); otherwise it is all body. Default false. */
  required?: boolean;
  /**
   * Read what strict YAML rejects the way other agent clients do: top-level plain values that hold
   * `: ` (`description: Use when: …`) are quoted and the block parsed once more; `repaired` then
   * says what was quoted. Default false (strict YAML).
   */
  lenient?: boolean;
}

export interface FrontMatter {
  /** The fields; `{}` when the file has no front matter or an empty one. */
  data: Record<string, unknown>;
  /** The Markdown after the front matter, trimmed. */
  body: string;
  /** Whether the file opened with a front-matter block. */
  present: boolean;
  /** Set when the YAML only parsed in lenient mode: what was quoted and why. */
  repaired?: string;
}

export type FrontMatterError =
  | { type: "no_front_matter"; message: string }
  | { type: "unsupported_language"; language: string; message: string }
  | { type: "invalid_yaml"; message: string }
  | { type: "not_a_mapping"; message: string };

const refuse = (): never => {
  throw new Error("front matter in a language other than YAML is never evaluated");
};

// Every name gray-matter maps to an engine (its own aliases included), whatever the case.
const ENGINES = {
  javascript: refuse,
  js: refuse,
  coffee: refuse,
  coffeescript: refuse,
  cson: refuse,
  json: refuse,
  toml: refuse,
};

const YAML_TAGS = new Set(["", "yaml", "yml"]);

let loaded: typeof matterModule | undefined;
/**
 * gray-matter (with js-yaml, ~90 KB bundled) is loaded by the first file parsed, not with the
 * entry: most sessions parse none. Parsing is synchronous, hence a require: a bundler inlines the
 * literal `require("gray-matter")`; as plain ESM, without `require`, Node's CommonJS loader does it.
 */
function matter(): typeof matterModule {
  loaded ??= (
    typeof require === "function" ? require("gray-matter") : createRequire(import.meta.url)("gray-matter")
  ) as typeof matterModule;
  return loaded;
}

function yamlMessage(e: unknown): string {
  const ex = e as { reason?: unknown; mark?: { line?: number; column?: number }; message?: unknown };
  if (typeof ex.reason === "string" && ex.mark && typeof ex.mark.line === "number")
    return `${ex.reason} at line ${ex.mark.line + 1}, column ${(ex.mark.column ?? 0) + 1} of the front matter`;
  const text = typeof ex.message === "string" ? ex.message : String(e);
  return text.split("\n")[0] ?? text;
}

class NotAMapping extends Error {}

/**
 * gray-matter is given the front-matter block alone (`head` runs from the opening `---` to just
 * before the closing one): it copies and hashes its whole input, and bodies are much longer.
 */
function parseBlock(head: string): Record<string, unknown> {
  const data = matter()(`${head}\n---\n`, { language: "yaml", engines: ENGINES }).data as unknown;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new NotAMapping();
  return data as Record<string, unknown>;
}

/** Top-level plain values containing `: ` quoted, and the keys that were. */
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

/** Splits Markdown into its YAML front matter and body; never evaluates code. */
export function parseFrontMatter(
  raw: string,
  options: FrontMatterOptions = {},
): Result<FrontMatter, FrontMatterError> {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!text.startsWith("---") || text.startsWith("----")) {
    if (options.required)
      return err({
        type: "no_front_matter",
        message: "no front matter: the file must start with a --- line",
      });
    return ok({ data: {}, body: text.trim(), present: false });
  }
  const lineEnd = text.indexOf("\n");
  const tag = text.slice(3, lineEnd === -1 ? undefined : lineEnd).trim();
  if (!YAML_TAGS.has(tag.toLowerCase()))
    return err({
      type: "unsupported_language",
      language: tag.toLowerCase(),
      message: `front matter marked "---${tag}" is not read (never evaluated); front matter is YAML`,
    });
  // The closing delimiter as gray-matter finds it: the next line starting with ---.
  const close = text.indexOf("\n---", 3);
  const head = close === -1 ? text : text.slice(0, close);
  const body = close === -1 ? "" : text.slice(close + 4).trim();
  try {
    return ok({ data: parseBlock(head), body, present: true });
  } catch (first) {
    if (first instanceof NotAMapping)
      return err({ type: "not_a_mapping", message: "front matter is not a mapping of fields" });
    if (options.lenient) {
      const { block, keys } = quoteColonValues(head);
      if (keys.length > 0) {
        try {
          return ok({
            data: parseBlock(block),
            body,
            present: true,
            repaired: `not valid YAML (${yamlMessage(first)}); read after quoting ${keys.join(", ")}`,
          });
        } catch {
          // Fall through to the first error, which points at the real problem.
        }
      }
    }
    return err({ type: "invalid_yaml", message: `front matter is not valid YAML: ${yamlMessage(first)}` });
  }
}
