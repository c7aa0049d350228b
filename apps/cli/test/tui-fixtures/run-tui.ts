// Runs the interactive TUI directly (no CLI argument parsing) for the tmux e2e test:
// `node --import tsx run-tui.ts <cwd>`, with ANTHROPIC_BASE_URL pointing at a mock server.
import { todoExtension } from "@keel/ext-todo";
import { runInteractive } from "../../src/tui/index.js";

const cwd = process.argv[2];
if (!cwd) {
  process.stderr.write("usage: run-tui.ts <cwd>\n");
  process.exit(2);
}
const code = await runInteractive(
  {
    cwd,
    extensions: [todoExtension],
    ...(process.env.KEEL_HOME ? { home: process.env.KEEL_HOME } : {}),
    streamOptions: { retry: { maxRetries: 0 } },
  },
  { resumePicker: false },
);
process.exit(code);
