// The shapes the skills core passes around: where a skill came from, what its SKILL.md said,
// and the diagnostics discovery produces. Plain JSON, so they can be shown, logged and compared.

/** Where a skill root sits; project roots outrank user roots, which outrank extension roots. */
export type SkillScope = "project" | "user" | "extension";

export interface SkillRoot {
  /** Absolute path of the folder holding skill folders (`~/.agents/skills`). */
  path: string;
  scope: SkillScope;
  /** How `/skills` names it: `.claude/skills`, `~/.keel/skills`, `extension todo`. */
  label: string;
  /**
   * Whether `allowed-tools` may be honoured for skills from here: the user's own folders and
   * installed extensions always, a project's only once the project is trusted (and an untrusted
   * project's roots are never listed at all).
   */
  trusted: boolean;
}

/** The front matter fields Keel reads, per the Agent Skills format plus Claude Code's extras. */
export interface SkillMeta {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** Permission rules (`Bash(git diff:*)`, `Read`), split from the field as written. */
  allowedTools: string[];
  /** `disable-model-invocation: true`: left out of the model's catalog; `/skill:name` still works. */
  disableModelInvocation: boolean;
  /** `user-invocable: false`: no `/skill:name` command (the model may still load it). */
  userInvocable: boolean;
  /** `argument-hint`, shown in command completion. */
  argumentHint?: string;
}

export interface Skill extends SkillMeta {
  /** The skill folder (realpath: a symlinked skill folder resolves to where it lives). */
  dir: string;
  /** The SKILL.md as found (under its root, before symlinks are resolved). */
  file: string;
  root: SkillRoot;
  /** Bytes of SKILL.md. */
  size: number;
  /** One line for the catalog: the description with its whitespace folded, bounded. */
  summary: string;
}

export type DiagnosticLevel = "info" | "warning" | "error";

export interface SkillDiagnostic {
  level: DiagnosticLevel;
  /** The file (or folder) the diagnostic is about. */
  file: string;
  /** The front matter field, when one is at fault. */
  field?: string;
  message: string;
}

/** Renders a diagnostic as the one line users see. */
export function diagnosticLine(d: SkillDiagnostic): string {
  return `${d.file}${d.field ? ` (${d.field})` : ""}: ${d.message}`;
}
