// Runs a parsed command line: compose the kernel options, then print mode or the interactive TUI.
// Loaded lazily by bin.ts so `keel --version` and `keel --help` load none of the kernel.
import type { CliFlags } from "./args.js";
import { composeOptions } from "./compose.js";
import { EXIT } from "./exit-codes.js";
import { startInteractive } from "./interactive.js";
import { createOutput } from "./print/output.js";
import { printPrompt } from "./print/prompt.js";
import { runPrint } from "./print/run.js";

export async function main(flags: CliFlags): Promise<number> {
  const output = createOutput();
  const usageError = (message: string) => {
    output.note(message);
    return EXIT.usage;
  };
  const composed = composeOptions(flags);
  if (composed.isErr()) return usageError(composed.error.message);

  if (flags.print) {
    const prompt = await printPrompt(flags.prompt);
    if (prompt.isErr()) return usageError(prompt.error.message);
    return runPrint({
      options: composed.value.options,
      forkAfterOpen: composed.value.forkAfterOpen,
      prompt: prompt.value,
      format: flags.outputFormat,
      output,
    });
  }

  if (!process.stdin.isTTY || !process.stdout.isTTY)
    return usageError(
      'Interactive mode needs a terminal. For scripts and pipes use print mode: keel -p "…".',
    );
  if (composed.value.forkAfterOpen)
    // The TUI forks from its own /fork; here the kernel needs the session id (--resume <id> --fork).
    return usageError("--continue --fork is print-mode only for now; use --resume <id> --fork.");
  return startInteractive(
    composed.value.options,
    {
      resumePicker: flags.session.kind === "resume" && flags.session.id === undefined,
      ...(flags.prompt !== undefined ? { initialPrompt: flags.prompt } : {}),
    },
    output.note,
  );
}
