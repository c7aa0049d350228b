// The TUI's pickers and session commands in a real terminal (tmux): /model marks and refuses a
// provider without a key, /thinking offers the levels the model takes and sets one on the status
// line, a level the next model cannot take is said once with what it gets, an "always" answer says
// the file it is saved to and /permissions lists and removes it there; /clear starts a new session,
// the slash menu says more commands exist, and Shift+Tab reaches bypass only when keel started in it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MockServer } from "@keel/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { MODEL, runKeel, type Workspace } from "./helpers.js";
import { terminalSuite } from "./tmux.js";

const suite = terminalSuite();
let server: MockServer;
let ws: Workspace;
const fresh = () => suite.fresh();
const start = suite.start;

describe("keel TUI commands", () => {
  beforeAll(() => {
    server = suite.server;
  });

  it("/model and /thinking pick; an always rule says its file, and /permissions lists and removes it there", async () => {
    ws = fresh();
    server.setScenario({ turns: [] });
    const trusted = await runKeel(["-p", "/trust yes", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(trusted.code).toBe(0);
    const local = join(ws.repo, ".keel", "config.local.json");
    const t = start({
      scenario: {
        turns: [
          { toolCalls: [{ name: "Bash", arguments: { command: "touch made.txt" } }] },
          { text: "Done." },
        ],
      },
    });
    await t.waitFor(/ready ·.*thinking medium/);

    // /model: the picker marks the models whose provider has no key; choosing one is refused.
    await t.type("/model", "Enter");
    let now = await t.waitFor("Model (now anthropic/claude-sonnet-4-6)");
    expect(now).toContain("❯ ● anthropic/claude-sonnet-4-6");
    expect(now).toContain("openai/gpt-6.2-astra  GPT-6.2 Astra · no key: set OPENAI_API_KEY");
    t.keys("Down");
    await t.waitFor("❯ openai/gpt-6.2-astra");
    t.keys("Enter");
    await t.waitFor("openai/gpt-6.2-astra needs an API key: set OPENAI_API_KEY");
    await t.waitFor(/ready ·.*anthropic\/claude-sonnet-4-6/);

    // /thinking: a picker of the levels this model takes; the one chosen shows on the status line.
    await t.type("/thinking", "Enter");
    now = await t.waitFor("Thinking for claude-sonnet-4-6 (now default: medium)");
    expect(now).toContain("❯ ● default  the model's own");
    const offered = [...now.matchAll(/^│ [❯ ] (?:● )?(\w+)/gm)].map((m) => m[1]);
    expect(offered).toEqual(["default", "off", "low", "medium", "high"]);
    t.keys("Down", "Down", "Down", "Down");
    await t.waitFor("❯ high");
    t.keys("Enter");
    await t.waitFor(/ready ·.*thinking high/);

    // A trusted project: "always" says the file the rule goes to.
    await t.type("make it", "Enter");
    now = await t.waitFor("Allow Bash command?");
    // The dialog wraps the line inside its box: read it with the borders out.
    expect(now.replace(/[│\s]+/g, " ")).toContain(`— saved to ${local}`);
    t.keys("a");
    await t.waitFor("Done.");
    expect(readFileSync(local, "utf8")).toContain("Bash(touch made.txt)");
    // The request carried the level picked (the default would have asked for medium).
    expect(server.requests[0]!.body.thinking).toMatchObject({ type: "adaptive" });
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "high" });

    // /permissions: the rule with its file; choosing it removes it from there.
    await t.waitFor(/ready ·/);
    await t.type("/permissions", "Enter");
    now = await t.waitFor("Permissions · mode default");
    expect(now).toMatch(new RegExp(`allow Bash\\(touch made\\.txt\\)\\s+${local.replace(/[.]/g, "\\.")}`));
    t.keys("Down");
    await t.waitFor("❯ allow Bash(touch made.txt)");
    t.keys("Enter");
    await t.waitFor("Remove allow Bash(touch made.txt)?");
    t.keys("y");
    await t.waitFor(`Removed allow Bash(touch made.txt) from ${local}.`);
    expect(readFileSync(local, "utf8")).not.toContain("touch made.txt");

    // Adding one: the scopes name the user's config file where KEEL_HOME puts it.
    await t.waitFor(/ready ·/);
    await t.type("/permissions", "Enter");
    await t.waitFor("❯ + Add a rule…");
    t.keys("Enter");
    await t.waitFor("Add a rule: allow, ask or deny, then the rule");
    t.keys("-l", "allow Bash(npm test:*)");
    await t.waitFor("│ allow Bash(npm test:*)");
    t.keys("Enter");
    now = await t.waitFor("Keep allow Bash(npm test:*) where?");
    expect(now).toContain(`You, in every project (${join(ws.home, "config.json")})`);
    expect(now).not.toContain("~/.keel/config.json");
    t.keys("Down", "Down", "Down");
    await t.waitFor("❯ This session only");
    t.keys("Enter");
    await t.waitFor("Added allow Bash(npm test:*) to this session.");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 90_000);

  it("a thinking level the next model cannot take is said once, with what it gets instead", async () => {
    ws = fresh();
    const t = start({ scenario: { turns: [] } });
    await t.waitFor(/ready ·/);
    await t.type("/thinking off", "Enter");
    await t.waitFor("Thinking: off (off for claude-sonnet-4-6)");
    await t.waitFor(/ready ·.*anthropic\/claude-sonnet-4-6 · thinking off/);
    // Claude Opus 5.5 always thinks: "off" becomes its lowest effort, and the transcript says so.
    await t.type("/model anthropic/claude-opus-5-5", "Enter");
    const now = await t.waitFor(/Thinking off: .+ always thinks; using its lowest effort, (\w+)\./);
    const lowest = /using its lowest effort, (\w+)\./.exec(now)![1]!;
    await t.waitFor(new RegExp(`ready ·.*claude-opus-5-5 · thinking ${lowest}`));
    expect(t.screen(true).match(/Thinking off: /g)).toHaveLength(1);
    // Its picker does not offer "off", and marks the level set earlier that it cannot take.
    await t.type("/thinking", "Enter");
    const picker = await t.waitFor("Thinking for claude-opus-5-5 (now off:");
    expect(picker).toContain(`● off  not taken as it is: ${lowest} is used`);
    const offered = [...picker.matchAll(/^│ [❯ ] (?:● )?(\w+)/gm)].map((m) => m[1]);
    expect(offered.slice(0, 2)).toEqual(["default", lowest]);
    expect(offered.at(-1)).toBe("off");
    expect(offered.filter((l) => l === "off")).toHaveLength(1);
    t.keys("Escape");
    await t.waitGone("Thinking for claude-opus-5-5");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("/clear starts a new session, the slash menu says more commands exist, Shift+Tab reaches bypass when started in it", async () => {
    ws = fresh();
    const t = start({
      args: "--permission-mode bypassPermissions",
      scenario: { turns: [{ text: "First answer." }, { text: "Fresh answer." }] },
    });
    const now = await t.waitFor("⏵ bypassPermissions (shift+tab)");
    const first = /session ([0-9a-f]{8})/.exec(now)![1]!;
    t.keys("BTab");
    await t.waitFor(/ready ·.*default mode/);
    t.keys("BTab");
    await t.waitFor("⏵ acceptEdits (shift+tab)");
    t.keys("BTab");
    await t.waitFor("⏵ plan (shift+tab)");
    t.keys("BTab");
    await t.waitFor("⏵ bypassPermissions (shift+tab)");

    // The menu shows some commands and says how many more there are.
    t.keys("-l", "/");
    await t.waitFor(/↓ \d+ more commands \(keep typing, or ↓\) · \/help lists all/);
    t.keys("C-u");
    await t.waitGone("more commands");

    await t.type("remember the first question", "Enter");
    await t.waitFor("First answer.");
    await t.waitFor(/ready ·/);
    await t.type("/clear", "Enter");
    await t.waitFor("Started a new session.");
    const ids = [...t.screen(true).matchAll(/session ([0-9a-f]{8})/g)].map((m) => m[1]);
    expect(ids.at(-1)).not.toBe(first);
    await t.type("and now?", "Enter");
    await t.waitFor("Fresh answer.");
    // The new session's request holds none of the old conversation.
    expect(server.requests[1]!.raw).toContain("and now?");
    expect(server.requests[1]!.raw).not.toContain("remember the first question");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 90_000);
});
