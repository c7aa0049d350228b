// Temp skill trees for the tests: a sandbox with a home, a Keel home and a git project, and a
// helper that writes `<root>/<folder>/SKILL.md` (plus any extra files).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface Tree {
  root: string;
  /** The user's home directory (`~`). */
  home: string;
  keelHome: string;
  project: string;
  cleanup(): void;
}

export function tree(): Tree {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "keel-skills-")));
  const home = join(root, "home");
  const keelHome = join(home, ".keel");
  const project = join(root, "project");
  mkdirSync(keelHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  execFileSync("git", ["init", "-q", project]);
  return { root, home, keelHome, project, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function skillMd(fields: Record<string, string>, body = "Do the thing."): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

/** Writes `<root>/<folder>/SKILL.md` with `text` and any `files` (relative paths → contents). */
export function writeSkill(
  root: string,
  folder: string,
  text: string,
  files: Record<string, string> = {},
): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), text);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}
