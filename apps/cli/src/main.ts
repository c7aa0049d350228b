// Runs a parsed command line: compose the kernel options, then print mode or the interactive TUI.
// Loaded by bin.ts only for a run, `keel models` or a subcommand, so `keel --version` and
// `keel --help` load none of the kernel; what a print-mode run does not use (subcommands, the
// models table, --read-only, the TUI hand-off) is evaluated only when asked for. The official
// extensions come from their bundles beside the core (bundled-extensions.ts).
import type { CliFlags, ModelsFlags } from "./args.js";
import { bundledExtensions } from "./bundled-extensions.js";
import { composeOptions } from "./compose.js";
import { EXIT } from "./exit-codes.js";
import { readInputLines } from "./print/input.js";
import { createOutput } from "./print/output.js";
import { printPrompt } from "./print/prompt.js";
import { runPrint } from "./print/run.js";
import { installProxyFetch } from "./proxy-fetch.js";

export { acpBackend } from "./acp/backend.js";

// Before any extension or subcommand runs: their SDKs call the global fetch.
installProxyFetch();

export async function models(flags: ModelsFlags): Promise<number> {
  return (await import("./models-command.js")).models(flags);
}

export async function subcommand(name: string, argv: string[]): Promise<number> {
  const { cliIO, runSubcommand } = await import("./subcommands/index.js");
  return runSubcommand(name, argv, cliIO(), bundledExtensions());
}

export async function main(flags: CliFlags): Promise<number> {
  const output = createOutput();
  const usageError = (message: string) => {
    output.note(message);
    return EXIT.usage;
  };
  const composed = composeOptions(flags, process.cwd(), process.env, bundledExtensions);
  if (composed.isErr()) return usageError(composed.error.message);
  if (composed.value.testing?.forceParserAllow)
    output.note(
      "TEST SWITCH ON: the shell parser's verdicts are forced to allow (KEEL_TEST_FORCE_PARSER_ALLOW); only the OS sandbox confines commands.",
    );

  // --read-only only shows a session, in a terminal or not.
  if (flags.session.kind === "inspect")
    return (await import("./print/inspect.js")).runInspect(composed.value, flags.outputFormat, output);

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
  const { startInteractive } = await import("./interactive.js");
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
