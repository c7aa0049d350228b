// Print mode: one prompt, headless (no approval UI: the kernel denies `ask` with a reason),
// output in the chosen format, and a clean close on every way of stopping (exit-guard.ts) so
// the session is resumable.
import {
  type CodingAgent,
  type CodingAgentEvent,
  type CodingAgentOptions,
  createCodingAgent,
  killAllCommandTrees,
} from "@keel/coding-agent";
import type { OutputFormat } from "../args.js";
import { EXIT, outcomeOf } from "../exit-codes.js";
import { guardExits, SIGNAL_EXIT, type StopSignal } from "../exit-guard.js";
import { refusalHint } from "../refusal-hint.js";
import { parseSlash } from "../slash-command.js";
import { deniedLine, eventLine, initLine, resultLine, retryLine } from "./events.js";
import type { Output } from "./output.js";

export interface PrintRun {
  options: CodingAgentOptions;
  prompt: string;
  format: OutputFormat;
  output: Output;
  /** --debug: debug-log lines on stderr as they are written. */
  debug?: boolean;
}

/**
 * One listener for the whole life of the agent, creation included (recovery, diagnostics).
 * stream-json carries recovery and notify as lines once its init line is out; before that
 * (while the agent opens) they go to stderr like in the other formats, rather than nowhere.
 * Denials and retries are stderr lines in every format: a headless run says what it did not do
 * and what it is waiting for.
 */
export function listen(run: Pick<PrintRun, "output" | "format" | "debug">): {
  onEvent: (event: CodingAgentEvent) => void;
  started(): void;
} {
  const { output, format } = run;
  let streaming = false;
  const onEvent = (event: CodingAgentEvent) => {
    const asNote = format !== "stream-json" || !streaming;
    const denial = deniedLine(event);
    if (denial) output.note(denial);
    const retry = retryLine(event);
    if (retry) output.note(retry);
    if (event.type === "diagnostic") output.diagnostic(event.diagnostic);
    else if (event.type === "debug" && run.debug) output.note(`debug [${event.source}] ${event.message}`);
    else if (event.type === "recovery" && asNote) output.note(event.text);
    else if (event.type === "notify" && asNote) output.note(`${event.level}: ${event.message}`);
    if (format !== "stream-json" || !streaming) return;
    const line = eventLine(event);
    if (line) output.json(line);
  };
  return { onEvent, started: () => (streaming = true) };
}

export async function runPrint(run: PrintRun): Promise<number> {
  const { output } = run;
  let agent: CodingAgent | undefined;
  const signals = guardExits({
    onStop: () => agent?.abort(),
    close: async () => {
      await agent?.close();
      await output.flush();
    },
    note: output.note,
    killProcesses: killAllCommandTrees,
  });
  const listener = listen(run);
  try {
    const created = await createCodingAgent({ ...run.options, onEvent: listener.onEvent });
    if (created.isErr()) {
      // Nothing configured, unknown model or session, locked session: the run never started.
      output.note(created.error.message);
      const hint = refusalHint(created.error, sessionRef(run.options));
      if (hint) output.note(hint);
      return EXIT.usage;
    }
    agent = created.value;
    return await runPrompt(agent, run, signals.signal, listener.started);
  } finally {
    // Closing waits for the journal, so an interrupted session is complete and resumable. The
    // guard stays until then: a close that hangs is still cut short.
    if (agent) await agent.close();
    await output.flush();
    signals.dispose();
  }
}

/** `keel -p "/name args"` runs a command (e.g. /trust, /compact); its message is the output. */
async function runCommand(agent: CodingAgent, run: PrintRun): Promise<{ code: number } | { prompt: string }> {
  const slash = parseSlash(run.prompt);
  if (!slash || !agent.commands().some((c) => c.name === slash.name)) return { prompt: run.prompt };
  const { name, args } = slash;
  const done = await agent.runCommand(name, args);
  if (done.isErr()) {
    run.output.note(done.error.message);
    return { code: EXIT.usage };
  }
  if (done.value.prompt) return { prompt: done.value.prompt };
  if (run.format === "text") run.output.text(done.value.message ?? "");
  else run.output.json({ type: "command", name, message: done.value.message ?? "" });
  return { code: EXIT.ok };
}

async function runPrompt(
  agent: CodingAgent,
  run: PrintRun,
  signal: () => StopSignal | undefined,
  started: () => void,
): Promise<number> {
  const { output, format } = run;
  const early = signal();
  if (early) return SIGNAL_EXIT[early];
  const command = await runCommand(agent, run);
  if ("code" in command) return command.code;
  if (format === "stream-json") output.json(initLine(agent));
  started();

  const result = await agent.prompt(command.prompt);
  if (result.isErr()) {
    // An extension vetoed the prompt, the session is read-only, or the agent was busy/closed:
    // nothing ran.
    output.note(result.error.message);
    const hint = refusalHint(result.error, agent.sessionId);
    if (hint) output.note(hint);
    return EXIT.usage;
  }
  const summary = result.value;
  if (format === "text") {
    if (summary.text !== "") output.text(summary.text);
  } else output.json(resultLine(summary, agent.sessionId));

  const stopped = signal();
  if (stopped) return SIGNAL_EXIT[stopped];
  const outcome = outcomeOf(summary, undefined);
  if (outcome.note) output.note(outcome.note);
  return outcome.code;
}

function sessionRef(options: CodingAgentOptions): string | undefined {
  const choice = options.session;
  return choice && (choice.mode === "resume" || choice.mode === "fork") ? choice.session : undefined;
}
