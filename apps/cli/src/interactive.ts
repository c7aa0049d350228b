// The hand-off to the interactive TUI (src/tui, loaded only here so print mode never pays for
// ink/react). The specifier is computed so bundlers and tsc leave the TUI out of this graph.
import { fileURLToPath } from "node:url";
import type { CodingAgentOptions } from "@keel/coding-agent";
import { EXIT } from "./exit-codes.js";

export interface InteractiveFlags {
  /** `-r` without an id: show the session picker before opening anything. */
  resumePicker: boolean;
  /** Words given on the command line: sent as the first prompt. */
  initialPrompt?: string;
}

/** What src/tui/index.ts exports. It resolves to the process exit code. */
export interface InteractiveModule {
  runInteractive(options: CodingAgentOptions, flags: InteractiveFlags): Promise<number>;
}

const TUI_ENTRY = "./tui/index.js";

function isInteractiveModule(value: unknown): value is InteractiveModule {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { runInteractive?: unknown }).runInteractive === "function"
  );
}

export async function startInteractive(
  options: CodingAgentOptions,
  flags: InteractiveFlags,
  note: (message: string) => void,
): Promise<number> {
  const entry = new URL(TUI_ENTRY, import.meta.url);
  let loaded: unknown;
  try {
    loaded = await import(entry.href);
  } catch (e) {
    // Only the entry itself being absent means "no TUI in this build"; a broken TUI is a bug.
    const missing =
      (e as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" &&
      String((e as { message?: unknown }).message).startsWith(`Cannot find module '${fileURLToPath(entry)}'`);
    if (!missing) throw e;
    note('The interactive TUI is not part of this build. Use print mode: keel -p "your prompt".');
    return EXIT.usage;
  }
  if (!isInteractiveModule(loaded)) {
    note("The interactive TUI module has no runInteractive export; this build is broken.");
    return EXIT.usage;
  }
  return loaded.runInteractive(options, flags);
}
