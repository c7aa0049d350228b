// Why a kernel call failed: tagged, JSON-safe errors (a front end tells the user what to do).

/** Why a session could not be used, for hosts that say how to go on (e.g. open read-only, fork). */
export type SessionProblem =
  /** Another live process holds the writer lock. */
  | "locked"
  /** The journal opened read-only (damage, unknown entry types, newer format, or asked for). */
  | "read_only"
  /** The file asked for (or the newest one) is damaged or empty and cannot be opened. */
  | "damaged"
  /** Writing to the journal failed (disk full, I/O error). */
  | "journal";

export type CodingAgentError =
  | { type: "config"; message: string }
  | { type: "model"; message: string }
  | { type: "session"; message: string; problem?: SessionProblem }
  | { type: "extension"; message: string }
  | { type: "busy"; message: string }
  /** A compaction that would not shrink the context (too short a conversation); nothing changed. */
  | { type: "nothing_to_compact"; message: string }
  | { type: "closed"; message: string }
  /** A `/name` no command has; `suggestion` is the close match, if one is. */
  | { type: "unknown_command"; message: string; name: string; suggestion?: string }
  /** A command that failed (its own error, a throw, bad arguments). */
  | { type: "command"; message: string };
