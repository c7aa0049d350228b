// The user's own shell commands: `!cmd` (journaled for the model to see next) and a command
// file's `` !`cmd` `` lines (their output goes into its prompt). One at a time, never during a run.
import { err, type Result } from "neverthrow";
import { readOnlyRefusal } from "../journal-guard.js";
import type { CodingAgentError, CodingAgentEvent, ShellRun } from "../types.js";
import { runShellCall, runUserShell } from "../user-shell.js";
import type { KernelState } from "./state.js";

export class ShellRuns {
  /** The user's `!cmd` while it runs (abort() stops it too). */
  private shell: AbortController | undefined;

  constructor(
    private readonly state: KernelState,
    private readonly emit: (event: CodingAgentEvent) => void,
  ) {}

  abort(): void {
    this.shell?.abort();
  }

  async runShell(command: string): Promise<Result<ShellRun, CodingAgentError>> {
    const refused = this.refusal();
    if (refused) return err(refused);
    const state = this.state;
    const readOnly = readOnlyRefusal(state.session);
    if (readOnly) return err(readOnly);
    this.shell = new AbortController();
    try {
      const ran = await runUserShell(
        {
          bash: this.bash(),
          session: state.session,
          emit: this.emit,
          signal: this.shell.signal,
          ...this.scrub(),
        },
        command,
      );
      if (ran.isOk()) state.agent.replaceMessages(state.session.context());
      return ran;
    } finally {
      this.shell = undefined;
    }
  }

  /**
   * A command file's `` !`cmd` `` line: judged, sandboxed and shown like the user's `!cmd`, its
   * output returned for the prompt instead of journaled; `allow` (the file's allowed-tools) holds
   * for this call only.
   */
  async runCommandShell(
    command: string,
    allow: readonly string[],
    signal: AbortSignal,
  ): Promise<Result<string, CodingAgentError>> {
    const refused = this.refusal();
    if (refused) return err(refused);
    const permission = this.state.parts.permission;
    const shell = new AbortController();
    this.shell = shell;
    const stop = () => shell.abort();
    signal.addEventListener("abort", stop, { once: true });
    // No run is going on (checked above), so the grant ends with this call and nothing else's.
    if (allow.length > 0) permission.allowForRun(allow);
    try {
      const ran = await runShellCall(
        {
          bash: this.bash(),
          permission: permission.check,
          emit: this.emit,
          signal: shell.signal,
          ...this.scrub(),
        },
        command,
      );
      return ran.map((r) => r.output);
    } finally {
      if (allow.length > 0) permission.endRun();
      signal.removeEventListener("abort", stop);
      this.shell = undefined;
    }
  }

  private refusal(): CodingAgentError | undefined {
    const state = this.state;
    if (state.closed) return { type: "closed", message: "This agent is closed." };
    if (state.agent.isRunning || state.inRun || this.shell)
      return {
        type: "busy",
        message: "Wait for the run to end (or press Esc) before running a command.",
      };
    return undefined;
  }

  /** The built-in tool that runs commands, as it declares itself. */
  private bash() {
    return this.state.parts.builtinTools.find((t) => t.access === "exec" && t.args?.commands !== undefined);
  }

  private scrub(): { scrub?: (text: string) => string } {
    const sandbox = this.state.parts.sandbox;
    return sandbox ? { scrub: (text: string) => sandbox.scrubber().text(text) } : {};
  }
}
