// Loading one skill: SKILL.md read fresh (so an edit since discovery is what the model gets),
// front matter removed, arguments filled in, wrapped with its name and files, bounded.
import { readFile, stat } from "node:fs/promises";
import { err, ok, type Result } from "neverthrow";
import { MAX_SKILL_FILE_BYTES } from "./discover.js";
import { listSkillFiles } from "./files.js";
import { skillContent, substituteArguments } from "./render.js";
import type { Skill } from "./types.js";

/** A loaded body longer than this is cut, saying where the rest is (about 15k tokens). */
export const MAX_BODY_CHARS = 60_000;

export type LoadError = { type: "load_failed"; skill: string; message: string };

export interface LoadOptions {
  /** `/skill:<name> args`: fills `$ARGUMENTS`; undefined when the model loads it. */
  args?: string;
  maxChars?: number;
}

export async function loadSkillText(
  skill: Skill,
  options: LoadOptions = {},
): Promise<Result<string, LoadError>> {
  const fail = (message: string) =>
    err<string, LoadError>({ type: "load_failed", skill: skill.name, message });
  let text: string;
  try {
    const st = await stat(skill.file);
    if (!st.isFile() || st.size > MAX_SKILL_FILE_BYTES)
      return fail(`${skill.file} is no longer a readable SKILL.md`);
    text = await readFile(skill.file, "utf8");
  } catch (e) {
    return fail(`${skill.file} cannot be read (${(e as Error).message}); it may have been removed`);
  }
  // Loaded here rather than with the extension: see discoverSkills.
  const { parseSkillFile } = await import("./frontmatter.js");
  const parsed = parseSkillFile(text);
  if (parsed.isErr()) return fail(`${skill.file}: ${parsed.error.message}`);
  const max = options.maxChars ?? MAX_BODY_CHARS;
  let body = substituteArguments(parsed.value.body, options.args, skill.dir);
  if (body.length > max)
    body = `${body.slice(0, max)}\n[truncated at ${max} characters; the whole file is ${skill.file}]`;
  const listing = await listSkillFiles(skill.dir);
  return ok(skillContent(skill, body, listing));
}
