// The TUI as a daily driver, in a real terminal (tmux) against the mock model server: approvals
// that show their diff and deny with words that stop the run, Shift+Tab modes on the status line,
// @file completion, images, !cmd, typed bursts and pastes.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MockServer } from "@keel/testing";
import { beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./helpers.js";
import { terminalSuite } from "./tmux.js";

const suite = terminalSuite();
let server: MockServer;
let ws: Workspace;
const fresh = () => suite.fresh();
const start = suite.start;

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("keel TUI as a daily driver", () => {
  beforeAll(() => {
    server = suite.server;
  });

  it("an Edit approval shows its coloured diff and path; denying with words stops the run and the model gets them", async () => {
    ws = fresh();
    writeFileSync(join(ws.repo, "calc.ts"), "export const rate = 2;\nexport const tax = 0.2;\n");
    const t = start({
      ci: true,
      scenario: {
        turns: [
          { toolCalls: [{ name: "Read", arguments: { path: "calc.ts" } }] },
          {
            toolCalls: [
              {
                name: "Edit",
                arguments: { path: "calc.ts", old_string: "rate = 2", new_string: "rate = 3" },
              },
            ],
          },
          { text: "Understood: I will leave the rate alone." },
        ],
      },
    });
    await t.waitFor(/ready ·/);
    await t.type("raise the rate", "Enter");
    let now = await t.waitFor("Allow Edit calc.ts?");
    expect(now).toContain("-export const rate = 2;");
    expect(now).toContain("+export const rate = 3;");
    expect(now).toContain("@@ -1,2 +1,2 @@");
    // Coloured: the removed line red, the added one green.
    const ansi = t.tmux("capture-pane", "-p", "-e", "-t", t.session);
    expect(ansi).toMatch(/\x1b\[31m-export const rate = 2;/);
    expect(ansi).toMatch(/\x1b\[32m\+export const rate = 3;/);
    expect(now).toContain("[t] Deny, tell keel what to do");
    t.keys("t");
    await t.waitFor("Tell keel what to do instead:");
    t.keys("-l", "keep the rate, change the tax");
    await t.waitFor("› keep the rate, change the tax");
    t.keys("Enter");
    now = await t.waitFor("Stopped after your denial");
    await t.waitFor(/ready ·/);
    // The run stopped: the model was not asked again.
    expect(server.requests).toHaveLength(2);
    expect(readFileSync(join(ws.repo, "calc.ts"), "utf8")).toContain("rate = 2");
    await t.type("ok", "Enter");
    await t.waitFor("Understood: I will leave the rate alone.");
    expect(server.requests[2]!.raw).toContain("keep the rate, change the tax");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("Shift+Tab cycles default → acceptEdits → plan → default on the status line, and the mode applies", async () => {
    ws = fresh();
    const t = start({
      scenario: {
        turns: [
          { toolCalls: [{ name: "Write", arguments: { path: "made.txt", content: "x" } }] },
          { text: "Made it." },
        ],
      },
    });
    await t.waitFor(/ready ·.*default mode/);
    t.keys("BTab");
    await t.waitFor("⏵ acceptEdits (shift+tab)");
    t.keys("BTab");
    await t.waitFor("⏵ plan (shift+tab)");
    t.keys("BTab");
    await t.waitFor(/ready ·.*default mode/);
    t.keys("BTab");
    await t.waitFor("⏵ acceptEdits (shift+tab)");
    // A model whose provider has no key is refused, and the session stays on its model.
    await t.type("/model openai/gpt-6.2-sol", "Enter");
    await t.waitFor("openai/gpt-6.2-sol needs an API key: set OPENAI_API_KEY");
    await t.waitFor(/ready ·.*anthropic\/claude-sonnet-4-6/);
    // acceptEdits: the Write runs without asking.
    await t.type("make it", "Enter");
    await t.waitFor("Made it.");
    expect(readFileSync(join(ws.repo, "made.txt"), "utf8")).toBe("x");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("@ completes a file fuzzily and attaches its content; an image path pasted is sent as an image block", async () => {
    ws = fresh();
    mkdirSync(join(ws.repo, "src"));
    writeFileSync(join(ws.repo, "src", "zeta-utils.ts"), "export const zeta = 26;\n");
    writeFileSync(join(ws.repo, "README.md"), "# readme\n");
    writeFileSync(join(ws.home, "shot.png"), PNG);
    const t = start({ scenario: { turns: [{ text: "Zeta is 26." }, { text: "A tiny picture." }] } });
    await t.waitFor(/ready ·/);
    t.keys("-l", "what is in @zetut");
    let now = await t.waitFor("@src/zeta-utils.ts");
    expect(now).not.toContain("@README.md");
    t.keys("Tab");
    await t.waitFor("› what is in @src/zeta-utils.ts");
    t.keys("Enter");
    now = await t.waitFor("Zeta is 26.");
    expect(now).toContain("+ src/zeta-utils.ts");
    await t.waitFor(/ready ·/);
    expect(server.requests[0]!.raw).toContain("export const zeta = 26;");

    // A dragged-in file pastes its path: with bracketed paste it becomes an image, not text.
    t.tmux("set-buffer", "-b", "img", join(ws.home, "shot.png"));
    t.tmux("paste-buffer", "-p", "-b", "img", "-t", t.session);
    await t.waitFor("› [Image #1]");
    t.keys("-l", "what is this?");
    t.keys("Enter");
    await t.waitFor("A tiny picture.");
    const content = (
      server.requests[1]!.body.messages as { content: { type: string; source?: unknown }[] }[]
    ).at(-1)!.content;
    expect(content.map((c) => c.type)).toEqual(["text", "image"]);
    expect(content[1]!.source).toMatchObject({
      type: "base64",
      media_type: "image/png",
      data: PNG.toString("base64"),
    });
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("@ completes an MCP server's resource as @server:uri and attaches what it reads", async () => {
    ws = fresh();
    const server_ = fileURLToPath(new URL("./mcp-fixtures/marker-server.mjs", import.meta.url));
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: {
          mcp: {
            config: {
              servers: { notes: { command: process.execPath, args: [server_], env: { RESOURCES: "1" } } },
            },
          },
        },
      }),
    );
    const t = start({ scenario: { turns: [{ text: "Use make bounce." }] } });
    await t.waitFor(/mcp 1\/1/);
    t.keys("-l", "how do I restart? see @no");
    await t.waitFor("@notes:");
    t.keys("Tab");
    await t.waitFor("› how do I restart? see @notes:");
    t.keys("-l", "run");
    await t.waitFor("@notes:notes://team/runbook");
    t.keys("Tab");
    await t.waitFor("› how do I restart? see @notes:notes://team/runbook");
    t.keys("Enter");
    const now = await t.waitFor("Use make bounce.");
    expect(now).toContain("+ @notes:notes://team/runbook");
    expect(server.requests[0]!.raw).toContain("Restart with make bounce.");
    expect(server.requests[0]!.raw).toContain(
      '<mention ref=\\"@notes:notes://team/runbook\\" title=\\"runbook\\">',
    );
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("Ctrl+V attaches the clipboard's image (through xclip)", async () => {
    ws = fresh();
    const bin = join(ws.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(ws.home, "clip.png"), PNG);
    writeFileSync(join(bin, "xclip"), `#!/bin/sh\ncat '${join(ws.home, "clip.png")}'\n`);
    chmodSync(join(bin, "xclip"), 0o755);
    const t = start({
      scenario: { turns: [{ text: "Clipboard picture seen." }] },
      env: `PATH='${bin}:${process.env.PATH}'`,
    });
    await t.waitFor(/ready ·/);
    t.keys("C-v");
    await t.waitFor("› [Image #1]");
    t.keys("-l", "and this?");
    t.keys("Enter");
    await t.waitFor("Clipboard picture seen.");
    expect(server.requests[0]!.raw).toContain('"type":"image"');
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("!cmd is the user's: it runs unasked, shows its output, and the model sees it next", async () => {
    ws = fresh();
    writeFileSync(join(ws.repo, "hello-there.txt"), "hi\n");
    const t = start({ scenario: { turns: [{ text: "I saw the listing." }] } });
    await t.waitFor(/ready ·/);
    // A command with a side effect, which the model's Bash call would have to ask for.
    await t.type("!touch made-by-me.txt", "Enter");
    const after = await t.waitFor("✓ Bash(touch made-by-me.txt)");
    expect(after).not.toContain("Allow Bash command?");
    expect(existsSync(join(ws.repo, "made-by-me.txt"))).toBe(true);
    await t.waitFor(/ready ·/);
    await t.type("!ls", "Enter");
    await t.waitFor("✓ Bash(ls) · hello-there.txt");
    await t.waitFor("the model sees it with your next prompt");
    expect(t.screen(true)).not.toContain("Allow Bash command?");
    expect(server.requests).toHaveLength(0);
    await t.type("what did you see?", "Enter");
    await t.waitFor("I saw the listing.");
    expect(server.requests[0]!.raw).toContain("<bash-input>ls</bash-input>");
    expect(server.requests[0]!.raw).toContain("hello-there.txt");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("typed text and Enter in one burst submits; a pasted newline does not", async () => {
    ws = fresh();
    const t = start({ scenario: { turns: [{ text: "Burst received." }] } });
    await t.waitFor(/ready ·/);
    // Two lines pasted: they stay in the prompt as text.
    t.tmux("set-buffer", "-b", "two", "first line\nsecond line");
    t.tmux("paste-buffer", "-p", "-b", "two", "-t", t.session);
    await t.waitFor(/│ › first line\s+│\n│\s+second line\s+│/);
    expect(server.requests).toHaveLength(0);
    t.keys("C-u", "C-u", "C-u");
    await t.waitFor("Ask keel…");
    // One send-keys call: the text and Enter arrive as one read.
    t.keys("say it at once", "Enter");
    await t.waitFor("Burst received.");
    expect(server.requests[0]!.raw).toContain("say it at once");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);
});
