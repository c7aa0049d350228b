// SKILL.md front matter: the SDK's parser (YAML only, `---js` never evaluated), strict about the
// file opening with front matter and lenient about values other clients write unquoted.
import { type FrontMatterError, parseFrontMatter } from "@keel/extension-sdk/node";
import type { Result } from "neverthrow";

export type { FrontMatterError };

export interface ParsedSkillFile {
  data: Record<string, unknown>;
  /** The Markdown after the front matter, trimmed. */
  body: string;
  /** Set when the YAML only parsed after quoting values that hold `: ` (as other clients accept). */
  repaired?: string;
}

/** Splits a SKILL.md into its YAML front matter and body; never evaluates code. */
export function parseSkillFile(raw: string): Result<ParsedSkillFile, FrontMatterError> {
  return parseFrontMatter(raw, { required: true, lenient: true }).map(({ data, body, repaired }) => ({
    data,
    body,
    ...(repaired !== undefined ? { repaired } : {}),
  }));
}
