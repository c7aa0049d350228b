// Runs a parsed command line: compose the kernel options, then print mode or the interactive TUI.
// Loaded lazily by bin.ts so `keel --version` and `keel --help` load none of the kernel.
import type { CliFlags } from "./args.js";
import { composeOptions } from "./compose.js";
import { EXIT } from "./exit-codes.js";
import { startInteractive } from "./interactive.js";
import { runInspect } from "./print/inspect.js";
import { installProxyFetch } from "./proxy-fetch.js";

export { models } from "./models-command.js";

import { readInputLines } from "./print/input.js";
import { createOutput } from "./print/output.js";
import { printPrompt } from "./print/prompt.js";
import { runPrint } from "./print/run.js";

export { acpBackend } from "./acp/backend.js";
export { runSubcommand as subcommand } from "./subcommands/index.js";

// Before any extension or subcommand runs: their SDKs call the global fetch.
installProxyFetch();

export async function main(flags: CliFlags): Promise<number> {
  const output = createOutput();
  const usageError = (message: string) => {
    output.note(message);
    return EXIT.usage;
  };
  const composed = composeOptions(flags);
  if (composed.isErr()) return usageError(composed.error.message);
  if (composed.value.testing?.forceParserAllow)
    output.note(
      "TEST SWITCH ON: the shell parser's verdicts are forced to allow (KEEL_TEST_FORCE_PARSER_ALLOW); only the OS sandbox confines commands.",
    );

  // --read-only only shows a session, in a terminal or not.
  if (flags.session.kind === "inspect") return runInspect(composed.value, flags.outputFormat, output);

  if (flags.print) {
    const common = {
      options: composed.value,
      format: flags.outputFormat,
      output,
      partial: flags.includePartialMessages,
      debug: flags.debug,
      waitChildrenMs: flags.waitChildrenMs,
    };
    if (flags.inputFormat === "stream-json")
      return runPrint({ ...common, input: { kind: "stream", lines: readInputLines() } });
    const prompt = await printPrompt(flags.prompt);
    if (prompt.isErr()) return usageError(prompt.error.message);
    return runPrint({ ...common, input: { kind: "prompt", prompt: prompt.value } });
  }

  if (!process.stdin.isTTY || !process.stdout.isTTY)
    return usageError(
      'Interactive mode needs a terminal. For scripts and pipes use print mode: keel -p "…".',
    );
  return startInteractive(
    composed.value,
    {
      resumePicker: flags.session.kind === "resume" && flags.session.id === undefined,
      ...(flags.prompt !== undefined ? { initialPrompt: flags.prompt } : {}),
      debug: flags.debug,
    },
    output.note,
  );
}
