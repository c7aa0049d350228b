// Creation's first step: which project this is and whether it is trusted — decided before
// anything from it is read — and what the start says about it (changed, or ignored files).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import { TRUSTED_ROOT_FILES, type TrustError } from "../../trust/hash.js";
import { findProjectRoot } from "../../trust/root.js";
import { checkTrust, type TrustCheck } from "../../trust/store.js";
import { changeLines } from "../../trust/surface.js";

/** How creation's steps leave a startup diagnostic (the kernel reports them once it exists). */
export type Note = (level: Diagnostic["level"], message: string) => void;

export interface ProjectTrust {
  projectRoot: string;
  /** The trust store's answer, with the approvals a trusted project was given. */
  trust: Result<TrustCheck, TrustError>;
  trusted: boolean;
}

export function checkProjectTrust(cwd: string, home: string, note: Note): ProjectTrust {
  const projectRoot = findProjectRoot(cwd, home);
  const trust = checkTrust(projectRoot, { home, cwd });
  const trusted = trust.isOk() && trust.value.status === "trusted";
  if (trust.isErr()) note("error", trust.error.message);
  else if (trust.value.status === "changed") note("warning", changedNotice(projectRoot, trust.value));
  else if (trust.value.status === "untrusted") {
    // Said only when something is being ignored (a stat each, nothing is read).
    const ignored = [".keel", ".claude", ...TRUSTED_ROOT_FILES]
      .filter((name) => existsSync(join(projectRoot, name)))
      .map((name) =>
        name === ".keel"
          ? ".keel/ (config, extensions, hooks)"
          : name === ".claude"
            ? ".claude/ (settings, hooks, commands, skills, agents)"
            : name,
      );
    if (ignored.length > 0) {
      note(
        "info",
        `${projectRoot} is not trusted, so its ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} ignored. Trust it with /trust (or keel -p /trust).`,
      );
    }
  }
  return { projectRoot, trust, trusted };
}

/** What the start says about a project that changed since it was trusted: what changed, each on a line. */
function changedNotice(projectRoot: string, check: TrustCheck): string {
  const lines = changeLines(check.changes ?? []);
  const shown = lines.slice(0, 12);
  const more =
    lines.length > shown.length ? [`… and ${lines.length - shown.length} more (/trust lists them)`] : [];
  const what = check.legacy
    ? "it was trusted before Keel recorded what trust covers, and it changed since; it can run:"
    : "what it runs or widens automatically changed since you trusted it:";
  return [
    `${projectRoot}: ${what}`,
    ...shown.map((l) => `  ${l}`),
    ...more,
    "Its config, extensions, hooks, MCP servers and context files are ignored until you /trust it again.",
  ].join("\n");
}
