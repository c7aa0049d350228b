// session/list: Keel's own session listing (the one `keel sessions` prints), for the folder the
// editor names or for every project, newest first, in pages. Read from the listing sidecars:
// nothing is opened or locked.
import { isAbsolute } from "node:path";
import type { ListSessionsRequest, ListSessionsResponse } from "@agentclientprotocol/sdk";
import { projectSessions } from "../subcommands/sessions.js";
import { AcpFailure } from "./failure.js";

/** Sessions per page; the cursor is where the next page starts. */
const PAGE = 100;

export function listResponse(keelHome: string, params: ListSessionsRequest): ListSessionsResponse {
  const cwd = params.cwd ?? undefined;
  if (cwd !== undefined && !isAbsolute(cwd))
    throw AcpFailure.invalidParams(`cwd must be an absolute path (got "${cwd}").`, { cwd });
  const start = params.cursor ? Number(params.cursor) : 0;
  if (!Number.isInteger(start) || start < 0)
    throw AcpFailure.invalidParams("The cursor is not one this agent gave.", { cursor: params.cursor });
  const listed = projectSessions(keelHome, cwd);
  if (listed.isErr()) throw AcpFailure.internal(listed.error.message, { type: listed.error.type });
  const { sessions } = listed.value;
  const next = start + PAGE;
  return {
    sessions: sessions.slice(start, next).map((s) => ({
      sessionId: s.id,
      cwd: s.cwd,
      title: s.name ?? s.firstPrompt,
      updatedAt: s.lastActivity,
    })),
    ...(next < sessions.length ? { nextCursor: String(next) } : {}),
  };
}
