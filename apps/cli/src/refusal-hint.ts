// What to type next when the kernel refused a session, in this CLI's flags (the kernel says
// what happened; only the CLI knows its own options).
import type { CodingAgentError, SessionChoice } from "@keel/coding-agent";

/** How to go on after the kernel refused, in this CLI's flags. */
export function refusalHint(error: CodingAgentError, sessionId?: string): string | undefined {
  if (error.type !== "session") return undefined;
  const ref = sessionId ? ` -r ${sessionId}` : " -c";
  if (error.problem === "read_only")
    return `To go on, continue in a copy: keel${ref} --fork (or look at it: keel${ref} --read-only).`;
  if (error.problem === "locked")
    return `To look at it meanwhile: keel${ref} --read-only; to go on in a copy: keel${ref} --fork.`;
  return undefined;
}

/** The session a choice names (`-r`, `--fork`), for the hint; undefined for -c and new sessions. */
export function sessionRef(choice: SessionChoice | undefined): string | undefined {
  return choice && (choice.mode === "resume" || choice.mode === "fork") ? choice.session : undefined;
}
