// The hand-off to the interactive TUI (src/tui, loaded only here so print mode never pays for
// ink/react). The specifier is computed so bundlers and tsc leave the TUI out of this graph.
import { fileURLToPath } from "node:url";
import type { CodingAgentOptions } from "@keel/coding-agent";
import { importEsm } from "./esm-import.js";
import { EXIT } from "./exit-codes.js";
import { type TuiKernel, tuiKernel } from "./tui-kernel.js";

export interface InteractiveFlags {
  /** `-r` without an id: show the session picker before opening anything. */
  resumePicker: boolean;
  /** Words given on the command line: sent as the first prompt. */
  initialPrompt?: string;
  /** --debug: show debug-log lines in the transcript. */
  debug?: boolean;
}

/** What src/tui/index.ts exports. It resolves to the process exit code. */
export interface InteractiveModule {
  runInteractive(options: CodingAgentOptions, flags: InteractiveFlags, kernel: TuiKernel): Promise<number>;
}

const TUI_ENTRY = "./tui/index.js";

function isInteractiveModule(value: unknown): value is InteractiveModule {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { runInteractive?: unknown }).runInteractive === "function"
  );
}

/** The variables by which ink decides, once when it loads, that it runs in CI. */
const CI_MARKERS = ["CI", "CONTINUOUS_INTEGRATION"] as const;

/**
 * Loads the TUI with the CI markers hidden. With CI set, ink draws nothing live (only the
 * last frame, on exit), yet a user who reaches this point has a real terminal on both ends
 * and asked for the interactive screen. The variables come back before anything else runs,
 * so tools and child processes still see them.
 */
async function withoutCiMarkers<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_MARKERS.map((key) => [key, process.env[key]] as const);
  for (const [key] of saved) delete process.env[key];
  try {
    return await load();
  } finally {
    for (const [key, value] of saved) if (value !== undefined) process.env[key] = value;
  }
}

export async function startInteractive(
  options: CodingAgentOptions,
  flags: InteractiveFlags,
  note: (message: string) => void,
): Promise<number> {
  const entry = new URL(TUI_ENTRY, import.meta.url);
  let loaded: unknown;
  try {
    loaded = await withoutCiMarkers(() => importEsm(entry.href));
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
  return loaded.runInteractive(options, flags, tuiKernel);
}
