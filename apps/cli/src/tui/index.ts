// Interactive mode of keel: mounts the ink app, opens the agent (after the resume picker when
// asked), and resolves with the exit code once the user quits. Loaded lazily by the CLI core.
import type { CodingAgentOptions, SessionChoice } from "@keel/coding-agent";
import { render } from "ink";
import { guardExits, SIGNAL_EXIT } from "../exit-guard.js";
import { refusalHint, sessionRef } from "../refusal-hint.js";
import type { TuiKernel } from "../tui-kernel.js";
import { App } from "./components/app.js";
import { h } from "./components/h.js";
import { captureConsole } from "./console-capture.js";
import { Controller } from "./controller.js";
import { pickSession } from "./presenters.js";
import { UiStore } from "./store.js";

export interface InteractiveFlags {
  /** `--resume` without an id: choose a session first. */
  resumePicker: boolean;
  /** A prompt given on the command line, sent once the agent is ready. */
  initialPrompt?: string;
  /** --debug: show debug-log lines in the transcript. */
  debug?: boolean;
}

/** How long quitting waits for an interrupted run to settle before closing the session. */
const SETTLE_MS = 3000;
/** The same after a signal, which must end keel within about a second (exit-guard.ts). */
const SIGNAL_SETTLE_MS = 200;

/** Runs the TUI until /quit, Ctrl+D or a double Ctrl+C. 0 = normal exit, 130 = interrupted run. */
export async function runInteractive(
  options: CodingAgentOptions,
  flags: InteractiveFlags,
  kernel: TuiKernel,
): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write("keel: interactive mode needs a terminal; use -p for print mode.\n");
    return 2;
  }
  const store = new UiStore();
  store.showDebug = flags.debug === true;
  let finish!: (code: number) => void;
  const exited = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const controller = new Controller(store, options, kernel, (code) => finish(code));
  // SIGINT, SIGTERM, SIGHUP (the terminal closed): the same shutdown as /quit, sooner.
  const exits = guardExits({
    onStop: (signal) => finish(SIGNAL_EXIT[signal]),
    close: () => controller.detach(0),
    note: (message) => process.stderr.write(`keel: ${message}\n`),
    watchTerminal: true,
    killProcesses: kernel.killAllCommandTrees,
  });
  const restoreConsole = captureConsole((level, text) => store.note(level, text));
  const app = render(h(App, { controller }), { exitOnCtrlC: false, patchConsole: false, maxFps: 40 });

  const shutdown = async (code: number, message?: string): Promise<number> => {
    store.dispose();
    await controller.detach(exits.signal() ? SIGNAL_SETTLE_MS : SETTLE_MS);
    exits.dispose();
    app.unmount();
    // ink rejects here when rendering failed; that is a bug to show, not a normal quit.
    const crash = await app.waitUntilExit().then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e)),
    );
    restoreConsole();
    if (message) process.stderr.write(`keel: ${message}\n`);
    if (crash) process.stderr.write(`keel: the screen stopped on an error: ${crash}\n`);
    // How to come back to it, as the other CLIs say on exit (not once the terminal is gone).
    const resume = controller.resumeLine();
    if (resume && exits.signal() !== "SIGHUP") process.stdout.write(`${resume}\n`);
    return code;
  };

  let session: SessionChoice | undefined;
  if (flags.resumePicker) {
    const path = await pickSession(controller);
    if (path) session = { mode: "resume", session: path };
    else session = { mode: "new" };
  }
  const opening = controller.open(session);
  const opened = await Promise.race([opening, exited.then(() => undefined)]);
  if (opened === undefined) {
    await opening; // quit while starting: let the agent finish opening so it can be closed
    return shutdown(await exited);
  }
  if (opened.isErr()) {
    const usage =
      opened.error.type === "config" || opened.error.type === "model" || opened.error.type === "session";
    // The session it tried (-r <id>, or the one picked), not the newest one -c would take.
    const hint = refusalHint(opened.error, sessionRef(session ?? options.session));
    return shutdown(usage ? 2 : 1, hint ? `${opened.error.message}\nkeel: ${hint}` : opened.error.message);
  }
  if (flags.initialPrompt?.trim()) controller.submit(flags.initialPrompt);
  return shutdown(await exited);
}
