// The TUI reads the kernel's command registry live, in a real terminal (tmux): an MCP server that
// connects after the TUI started adds its prompt to an open /command menu with no key pressed and
// no restart; with the todo extension off the menu offers no /todos and typing it is refused as
// unknown (the same words print mode uses); /help lists the registry and the TUI's own commands.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { terminalSuite } from "./tmux.js";

const suite = terminalSuite();
const MARKER = fileURLToPath(new URL("./mcp-fixtures/marker-server.mjs", import.meta.url));

describe("keel TUI and the command registry", () => {
  it("a prompt command registered after start appears in the open menu, live", async () => {
    const ws = suite.fresh();
    // Nothing known of the server, and it answers initialize late: its prompt can only come later.
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: {
          mcp: {
            config: {
              servers: {
                marker: {
                  command: process.execPath,
                  args: [MARKER],
                  env: { PROMPTS: "1", INIT_DELAY_MS: "5000" },
                },
              },
            },
          },
        },
      }),
    );
    const t = suite.start({ scenario: { turns: [] } });
    await t.waitFor(/ready ·/);
    await t.type("/mcp");
    const before = await t.waitFor("/mcp [reconnect|login|logout|tools] [server]");
    expect(before).not.toContain("mcp__marker__review");
    // No key pressed: the server connects, lists its prompt, and the menu shows it.
    const after = await t.waitFor("/mcp__marker__review <file>", 30_000);
    expect(after).toContain("Review a file (MCP prompt of marker)");
  });

  it("with the todo extension off there is no /todos; /help lists the registry and the TUI's own commands", async () => {
    const ws = suite.fresh();
    writeFileSync(join(ws.home, "config.json"), JSON.stringify({ extensions: { todo: { enabled: false } } }));
    // Tall enough for the whole of /help.
    const t = suite.start({ scenario: { turns: [] }, height: 100 });
    await t.waitFor(/ready ·/);
    await t.type("/t");
    let now = await t.waitFor("/trust [yes]");
    expect(now).toContain("/thinking");
    expect(now).toContain("/tree");
    expect(now).not.toContain("/todos");
    t.keys("BSpace", "BSpace");
    await t.waitGone("/trust [yes]");
    await t.type("/todos", "Enter");
    await t.waitFor("Unknown command /todos. /help lists the commands.");
    await t.type("/help", "Enter");
    now = await t.waitFor("/quit — Exit");
    expect(now).toContain("/resume [session file] — Resume another session of this project");
    expect(now).toContain("/help — List commands");
    expect(now).not.toContain("/todos —");
  });
});
