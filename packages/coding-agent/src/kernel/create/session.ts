// Creation's session step: the session file asked for (new, continued, resumed, forked or none),
// with what opening it noticed (a repaired line, a read-only open) said once.
import { err, ok, type Result } from "neverthrow";
import { defaultSessionDir, type OpenedSession, openChosenSession } from "../session-open.js";
import type { CodingAgentError, CodingAgentOptions } from "../types.js";
import type { Note } from "./project-trust.js";

export async function openSession(
  options: CodingAgentOptions,
  where: { home: string; cwd: string },
  note: Note,
): Promise<Result<OpenedSession, CodingAgentError>> {
  const sessionDir = options.sessionDir ?? defaultSessionDir(where.home, where.cwd);
  const opened = await openChosenSession(options.session ?? { mode: "new" }, sessionDir, where.cwd);
  if (opened.isErr()) return err(opened.error);
  for (const notice of opened.value.session.notices) note("warning", notice.message);
  return ok(opened.value);
}
