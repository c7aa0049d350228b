// @keel/session public API: the session journal, its pure fold, recovery and listing.

export { branchSummaryMessage, compactionSummaryMessage, fold, indexEntries } from "./fold.js";
export type { JournalFileSystem, WriterStats } from "./journal-writer.js";
export { listSessions, type SessionInfo, type SessionListing, sessionInfo } from "./listing.js";
export { recoveryMessage, recoveryToolResults } from "./recovery.js";
export { type FileRestore, type RestorePlan, restorePlan } from "./restore-plan.js";
export {
  type CreateSessionOptions,
  createSession,
  currentPlatform,
  type OpenSessionOptions,
  openSession,
  Session,
  type SessionOptions,
} from "./session.js";
export type * from "./types.js";
export { isNodeEntry, isUnknownEntry, SESSION_FORMAT_VERSION } from "./types.js";
