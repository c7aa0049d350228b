// The kernel's process API: how an extension runs a program for the model. The program runs as
// the Bash tool's commands do — inside the OS sandbox of the permission mode in force, without
// secret-looking environment variables, its whole process tree ended on abort, timeout or exit.

export interface ExecOptions {
  /** Working directory (absolute, or relative to the session's cwd); default the session's cwd. */
  cwd?: string;
  /** Set over the command's environment (after the secret-looking variables were taken out). */
  env?: Record<string, string>;
  /** Written to the program's stdin, which is then closed; default: stdin closed at once. */
  input?: string;
  /** The whole process tree is killed after this long; default 120000 (2 minutes). */
  timeoutMs?: number;
  /** Kills the process tree. On a tool call's context the call's own signal does as well. */
  signal?: AbortSignal;
  /** stdout and stderr each keep at most their last this-many bytes; default 1 MiB. */
  maxOutputBytes?: number;
}

export interface ExecResult {
  /** null when it was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Output past `maxOutputBytes` was dropped (the start goes first). */
  truncated: boolean;
  /** What confined it: "bwrap" (Linux), "seatbelt" (macOS), or "none" (the user turned the sandbox off). */
  sandbox: "bwrap" | "seatbelt" | "none";
}

export type ExecOutcome =
  | { ok: true; result: ExecResult }
  | {
      ok: false;
      error: {
        /** sandbox_unavailable: the mode runs nothing unconfined and no sandbox can start here. */
        type: "sandbox_unavailable" | "spawn_failed" | "invalid";
        message: string;
      };
    };

/** Runs `file` with `args` (no shell: pass `bash`, `-c`, `…` for one). */
export type Exec = (file: string, args: readonly string[], options?: ExecOptions) => Promise<ExecOutcome>;

/** A credential an extension holds, kept out of commands and tool results. */
export interface ProtectedSecret {
  /** A variable holding it: left out of the environment of every command Keel runs for the model. */
  env?: string;
  /** Its value: scrubbed from every tool result, plain or encoded, before the model or the journal see it. */
  value?: string;
}
