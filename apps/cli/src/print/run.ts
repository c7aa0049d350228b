// Print mode: one prompt, headless (no approval UI: the kernel denies `ask` with a reason),
// output in the chosen format, background agents waited for (bounded) and reported before the
// run's result, which is the last line, and a clean close on every way of stopping
// (exit-guard.ts) so the session is resumable.
import {
  type CodingAgent,
  type CodingAgentEvent,
  type CodingAgentOptions,
  createCodingAgent,
  killAllCommandTrees,
  type PromptInput,
  parseCommandLine,
} from "@keel/coding-agent";
import type { OutputFormat } from "../args.js";
import { EXIT, outcomeOf } from "../exit-codes.js";
import { guardExits, SIGNAL_EXIT, type StopSignal } from "../exit-guard.js";
import { refusalHint, sessionRef } from "../refusal-hint.js";
import {
  agentResultLine,
  type BackgroundAgent,
  backgroundAgent,
  commandLine,
  deniedLine,
  eventLine,
  externalSince,
  initLine,
  printedSessionId,
  resultLine,
  retryLine,
  type StreamLine,
} from "./events.js";
import type { readInputLines } from "./input.js";
import type { Output } from "./output.js";

export interface PrintRun {
  options: CodingAgentOptions;
  /** The prompt (arguments or stdin), or, with --input-format stream-json, the stdin lines. */
  input: { kind: "prompt"; prompt: string } | { kind: "stream"; lines: ReturnType<typeof readInputLines> };
  format: OutputFormat;
  output: Output;
  /** --include-partial-messages (stream-json only): text and thinking deltas as lines. */
  partial?: boolean;
  /** --debug: debug-log lines on stderr as they are written. */
  debug?: boolean;
  /** --wait-children: how long the end of a run waits for background agents still running (ms). */
  waitChildrenMs?: number;
}

/** What stream-json keeps of lines that come between a result line and the next run at most. */
const MAX_HELD_LINES = 1_000;

/**
 * One listener for the whole life of the agent, creation included (recovery, diagnostics).
 * stream-json carries recovery and notify as lines once its init line is out; before that
 * (while the agent opens) they go to stderr like in the other formats, rather than nowhere.
 * Denials and retries are stderr lines in every format: a headless run says what it did not do
 * and what it is waiting for.
 */
export function listen(run: Pick<PrintRun, "output" | "format" | "debug" | "partial">): {
  onEvent: (event: CodingAgentEvent) => void;
  /** The init line is out: stream-json lines carry this session id from now on. */
  started(sessionId: string | null): void;
  /**
   * A result line is out: it stays the last line. What events come after it (a status line as
   * the session closes) is held for the next run, and dropped if none comes.
   */
  resulted(): void;
} {
  const { output, format } = run;
  let sessionId: string | null | undefined;
  let afterResult = false;
  let held: StreamLine[] = [];
  const onEvent = (event: CodingAgentEvent) => {
    const asNote = format !== "stream-json" || sessionId === undefined;
    const denial = deniedLine(event);
    if (denial) output.note(denial);
    const retry = retryLine(event);
    if (retry) output.note(retry);
    if (event.type === "diagnostic") output.diagnostic(event.diagnostic);
    else if (event.type === "debug" && run.debug) output.note(`debug [${event.source}] ${event.message}`);
    else if (event.type === "recovery" && asNote) output.note(event.text);
    else if (event.type === "notify" && asNote) output.note(`${event.level}: ${event.message}`);
    if (format !== "stream-json" || sessionId === undefined) return;
    const line = eventLine(event, sessionId, { partial: run.partial === true });
    if (!line) return;
    if (afterResult) {
      if (line.type !== "run_start") {
        if (held.length < MAX_HELD_LINES) held.push(line);
        return;
      }
      afterResult = false;
      for (const kept of held) output.json(kept);
      held = [];
    }
    output.json(line);
  };
  return {
    onEvent,
    started: (id) => {
      sessionId = id;
    },
    resulted: () => {
      afterResult = true;
    },
  };
}

type Listener = ReturnType<typeof listen>;

export async function runPrint(run: PrintRun): Promise<number> {
  const { output } = run;
  let agent: CodingAgent | undefined;
  // Stops what waits on background agents too (they are stopped, and reported, at once).
  const stop = new AbortController();
  const signals = guardExits({
    onStop: () => {
      stop.abort();
      agent?.abort();
      if (run.input.kind === "stream") run.input.lines.close();
    },
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
      const hint = refusalHint(created.error, sessionRef(run.options.session));
      if (hint) output.note(hint);
      return EXIT.usage;
    }
    agent = created.value;
    const ends = { listener, stop: stop.signal };
    if (run.input.kind === "prompt") return await runOne(agent, run, run.input.prompt, signals.signal, ends);
    return await runStream(agent, run, run.input.lines, signals.signal, ends);
  } finally {
    // Closing waits for the journal, so an interrupted session is complete and resumable. The
    // guard stays until then: a close that hangs is still cut short.
    if (agent) await agent.close();
    await output.flush();
    signals.dispose();
  }
}

/**
 * `keel -p "/name args"` runs a command of the registry (e.g. /trust, /compact, an MCP prompt);
 * its message is the output, or its prompt is sent. An unknown /name is refused (exit 2, with the
 * close match), never sent to the model as text.
 */
async function runCommand(
  agent: CodingAgent,
  run: PrintRun,
  prompt: string,
): Promise<{ code: number } | { prompt: PromptInput }> {
  const slash = parseCommandLine(prompt);
  if (!slash) return { prompt: { text: prompt } };
  const { name } = slash;
  const done = await agent.commands.run(prompt);
  if (done.isErr()) {
    run.output.note(done.error.message);
    return { code: EXIT.usage };
  }
  if (done.value.prompt) return { prompt: { text: done.value.prompt, ...done.value.promptOptions } };
  if (run.format === "text") run.output.text(done.value.message ?? "");
  else run.output.json(commandLine(printedSessionId(agent), name, done.value.message ?? ""));
  return { code: EXIT.ok };
}

/** What the end of a run needs: the line order to keep, and the stop that cuts a wait short. */
interface RunEnds {
  listener: Listener;
  stop: AbortSignal;
}

/** One prompt, the whole of print mode unless stdin streams them. */
async function runOne(
  agent: CodingAgent,
  run: PrintRun,
  prompt: string,
  signal: () => StopSignal | undefined,
  ends: RunEnds,
): Promise<number> {
  const early = signal();
  if (early) return SIGNAL_EXIT[early];
  const command = await runCommand(agent, run, prompt);
  if ("code" in command) return command.code;
  if (run.format === "stream-json") run.output.json(initLine(agent));
  ends.listener.started(printedSessionId(agent));
  return runPrompt(agent, run, command.prompt, signal, ends, true);
}

/**
 * --input-format stream-json: the init line at once (a driver may wait for the session id),
 * then one run per stdin line, each ending in its result line. The exit code is the last run's,
 * or 2 when a line was not a user message (reading stops there).
 */
async function runStream(
  agent: CodingAgent,
  run: PrintRun,
  lines: ReturnType<typeof readInputLines>,
  signal: () => StopSignal | undefined,
  ends: RunEnds,
): Promise<number> {
  run.output.json(initLine(agent));
  ends.listener.started(printedSessionId(agent));
  let code: number = EXIT.ok;
  let any = false;
  for await (const item of lines.items) {
    const stopped = signal();
    if (stopped) return SIGNAL_EXIT[stopped];
    if (item.kind === "invalid") {
      run.output.note(item.error.message);
      return EXIT.usage;
    }
    any = true;
    const command = await runCommand(agent, run, item.text);
    code =
      "code" in command ? command.code : await runPrompt(agent, run, command.prompt, signal, ends, false);
    if (signal()) return code;
  }
  const stopped = signal();
  if (stopped) return SIGNAL_EXIT[stopped];
  // Background agents ran on between messages (their results reached the model with the next
  // one); the last result line is out, so what is left is waited for and reported on stderr.
  for (const child of await waitForChildren(agent, run, ends.stop))
    run.output.note(`background agent ${child.agentId} (${child.agentTitle}) ${child.status}: ${child.text}`);
  if (!any) {
    run.output.note(
      'stdin held no user message; --input-format stream-json reads lines like {"type":"user","content":"…"}.',
    );
    return EXIT.usage;
  }
  return code;
}

/**
 * Waits (--wait-children) for the background agents still running, and says plainly of each one
 * it had to stop that it did. Each one that was running, as it ended.
 */
async function waitForChildren(
  agent: CodingAgent,
  run: PrintRun,
  stop: AbortSignal,
): Promise<BackgroundAgent[]> {
  if (!agent.agents().some((a) => a.status === "running")) return [];
  const timeoutMs = stop.aborted ? 0 : (run.waitChildrenMs ?? 0);
  const waited = await agent.waitForAgents({ timeoutMs, signal: stop });
  const reported = waited.map(({ result, stopped }) => backgroundAgent(result, stopped));
  for (const child of reported)
    if (child.stopped)
      run.output.note(
        `stopped background agent ${child.agentId} (${child.agentTitle}): it was still running after ${Math.round(timeoutMs / 100) / 10} s (--wait-children); what it did so far: keel --read-only -r ${child.agentSessionId}`,
      );
  return reported;
}

async function runPrompt(
  agent: CodingAgent,
  run: PrintRun,
  prompt: PromptInput,
  signal: () => StopSignal | undefined,
  ends: RunEnds,
  waitChildren: boolean,
): Promise<number> {
  const { output, format } = run;
  const externalBefore = agent.usageBreakdown().external;
  const result = await agent.prompt(prompt);
  if (result.isErr()) {
    // An extension vetoed the prompt, the session is read-only, or the agent was busy/closed:
    // nothing ran.
    output.note(result.error.message);
    const hint = refusalHint(result.error, agent.sessionFile ? agent.sessionId : undefined);
    if (hint) output.note(hint);
    return EXIT.usage;
  }
  const summary = result.value;
  const sessionId = printedSessionId(agent);
  // The background agents the model was promised results from: waited for, each reported
  // before the run's own result (a stop cuts the wait short; nothing is waited for then).
  const children = waitChildren ? await waitForChildren(agent, run, ends.stop) : [];
  if (format === "text") {
    if (summary.text !== "") output.text(summary.text);
    for (const child of children)
      output.text(
        `\n── background agent ${child.agentId} (${child.agentTitle}): ${child.status}${child.stopped ? ", stopped by keel" : ""}\n${child.text || "(no report)"}`,
      );
  } else {
    if (format === "stream-json")
      for (const child of children) output.json(agentResultLine(sessionId, child));
    const external = externalSince(externalBefore, agent.usageBreakdown().external);
    output.json(resultLine(summary, sessionId, external, format === "json" ? children : []));
    ends.listener.resulted();
  }

  const stopped = signal();
  if (stopped) return SIGNAL_EXIT[stopped];
  const outcome = outcomeOf(summary, undefined);
  if (outcome.note) output.note(outcome.note);
  return outcome.code;
}
