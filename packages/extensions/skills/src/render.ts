// What the model reads when a skill is loaded: the SKILL.md body wrapped with the skill's name,
// folder and file listing, `$ARGUMENTS` filled in for `/skill:<name> args`, and a file's text.
import type { SkillFileContent, SkillFileListing } from "./files.js";
import type { Skill } from "./types.js";

/** Splits arguments the way a shell would for quoting: `"my widget" React` → two arguments. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3] ?? ""));
  return out;
}

/**
 * Fills `$ARGUMENTS` (the whole string), `$ARGUMENTS[N]` (0-based, shell-quoted words) and
 * `${KEEL_SKILL_DIR}` / `${CLAUDE_SKILL_DIR}` (the skill folder). Bare `$0`, `$1` are left alone:
 * skill bodies are full of shell snippets. Arguments given to a body that never mentions
 * `$ARGUMENTS` are appended, so they are never lost.
 */
export function substituteArguments(body: string, args: string | undefined, dir: string): string {
  let text = body.replace(/\$\{(?:KEEL|CLAUDE)_SKILL_DIR\}/g, () => dir);
  // Loaded by the model (no arguments given): the placeholders stay, so it sees what they ask for.
  if (args === undefined) return text;
  const words = splitArguments(args);
  let used = false;
  text = text.replace(/\$ARGUMENTS(?:\[(\d+)\])?/g, (_m, index: string | undefined) => {
    used = true;
    return index === undefined ? args : (words[Number(index)] ?? "");
  });
  if (!used && args.trim() !== "") text = `${text}\n\nARGUMENTS: ${args.trim()}`;
  return text;
}

function attr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

export function fileListing(skill: Skill, listing: SkillFileListing): string {
  if (listing.files.length === 0) return "This skill has no other files.";
  const lines = [
    `Files in this skill (read one with the Skill tool: {"skill": "${skill.name}", "path": "<file>"}):`,
    ...listing.files.map((f) => `  ${f}`),
  ];
  if (listing.truncated) lines.push(`  … more files not listed (${listing.files.length} shown)`);
  return lines.join("\n");
}

/** The text a loaded skill becomes, for the Skill tool and `/skill:<name>` alike. */
export function skillContent(skill: Skill, body: string, listing: SkillFileListing): string {
  return [
    `<skill name="${attr(skill.name)}" dir="${attr(skill.dir)}">`,
    body,
    "",
    `Relative paths in this skill are relative to ${skill.dir}.`,
    fileListing(skill, listing),
    "</skill>",
  ].join("\n");
}

export function skillFileText(skill: Skill, content: SkillFileContent): string {
  if (content.kind === "binary")
    return `${content.path} in skill ${skill.name} is a binary file (${content.size} bytes) at ${content.absolute}; use it by that path.`;
  const note = content.truncated
    ? `\n[truncated: the file has ${content.size} bytes; the rest is at ${content.absolute}]`
    : "";
  return `<skill_file skill="${attr(skill.name)}" path="${attr(content.path)}">\n${content.text}${note}\n</skill_file>`;
}

/** Bytes as `/skills` shows them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
