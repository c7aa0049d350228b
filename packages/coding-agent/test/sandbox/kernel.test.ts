// The sandbox through the real kernel (createCodingAgent): an extension's program runs under the
// same policy as Bash (the process API), its tree ends when the call is aborted, a token an
// extension protects never reaches the model, and where no sandbox can start plan mode refuses.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineExtension, type ExecOutcome, Type } from "@keel/extension-sdk";
import type { ScenarioTurn } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentOptions, createCodingAgent } from "../../src/index.js";
import { toolResultTexts } from "../host/helpers.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { processesWith, uniqueSleep } from "./processes.js";

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

const outcomes: ExecOutcome[] = [];
/** A tool that runs `bash -c <script>` through the kernel's process API. */
const runner = defineExtension({
  id: "runner",
  tools: (tool) => [
    tool({
      name: "RunScript",
      description: "runs a script",
      parameters: Type.Object({ script: Type.String() }),
      sideEffects: true,
      async execute(args, ctx) {
        const outcome = await ctx.exec("bash", ["-c", args.script], { timeoutMs: 20_000 });
        outcomes.push(outcome);
        return {
          content: [
            {
              type: "text",
              text: outcome.ok ? outcome.result.stdout + outcome.result.stderr : outcome.error.message,
            },
          ],
        };
      },
    }),
    // Declared as only reading, so plan mode lets the call through and only exec can refuse.
    tool({
      name: "Probe",
      description: "runs a read-only check",
      parameters: Type.Object({}),
      access: "read",
      async execute(_args, ctx) {
        const outcome = await ctx.exec("ls", []);
        outcomes.push(outcome);
        return {
          content: [{ type: "text", text: outcome.ok ? outcome.result.stdout : outcome.error.message }],
        };
      },
    }),
  ],
  lifecycle: {
    activate: (context) => {
      context.protectSecret({ value: "ext-secret-4f9c2b7d1e" });
      return undefined;
    },
  },
});

async function start(turns: ScenarioTurn[], options: Partial<CodingAgentOptions> = {}, homeConfig?: object) {
  box = sandbox();
  if (homeConfig) writeFileSync(join(box.home, "config.json"), JSON.stringify(homeConfig));
  const model = faux({ turns });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: model.model,
    streamOptions: model.streamOptions,
    session: { mode: "ephemeral" },
    extensions: [runner],
    discoverExtensions: false,
    ...options,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, model, box };
}

const call = (name: string, args: Record<string, unknown>): ScenarioTurn => ({
  toolCalls: [{ name, arguments: args }],
});

describe("the process API (exec)", () => {
  it("runs an extension's program in the sandbox of the mode in force", async () => {
    outcomes.length = 0;
    const { agent, box } = await start(
      [
        call("RunScript", {
          script: "touch inside.txt; touch ../outside.txt; echo '{}' > .mcp.json; echo done",
        }),
        { text: "ok" },
      ],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("go");
    await agent.close();
    expect(outcomes[0]).toMatchObject({ ok: true, result: { sandbox: "bwrap", exitCode: 0 } });
    expect(existsSync(join(box.workspace, "inside.txt"))).toBe(true);
    expect(existsSync(join(box.workspace, "..", "outside.txt"))).toBe(false);
    expect(existsSync(join(box.workspace, ".mcp.json"))).toBe(false);
  });

  it("ends the program's whole tree when the tool call is aborted", async () => {
    outcomes.length = 0;
    const sleep = uniqueSleep(120);
    const { agent } = await start(
      [call("RunScript", { script: `sleep ${sleep} & setsid sleep ${sleep}` }), { text: "never" }],
      {
        permissionMode: "bypassPermissions",
      },
    );
    const running = agent.prompt("go");
    const deadline = Date.now() + 10_000;
    while (processesWith(sleep).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(processesWith(sleep)).toHaveLength(2);
    agent.abort();
    await running;
    await agent.close();
    expect(processesWith(sleep)).toEqual([]);
    expect(outcomes[0]).toMatchObject({ ok: true, result: { aborted: true } });
  });
});

describe("sandbox.autoAllow", () => {
  it("in default mode, a command that would ask runs unasked inside the sandbox; a deny rule still denies", async () => {
    const { agent, model, box } = await start(
      [
        call("Bash", { command: "touch made.txt" }),
        call("Bash", { command: "touch ../outside.txt" }),
        call("Bash", { command: "rm -f made.txt" }),
        { text: "ok" },
      ],
      { permissionMode: "default" },
      { sandbox: { autoAllow: true }, permissions: { deny: ["Bash(rm:*)"] } },
    );
    await agent.prompt("go");
    await agent.close();
    const results = toolResultTexts(model.requests.at(-1)!.body);
    // Nothing asked (headless, an ask would be a denial); the write outside ran but landed nowhere
    // on the host (below /tmp the command sees its private /tmp).
    expect(results.slice(0, 2).filter((r) => /approv/.test(r.text))).toEqual([]);
    expect(results[0]!.isError).toBeFalsy();
    expect(existsSync(join(box.workspace, "made.txt"))).toBe(true);
    expect(existsSync(join(box.workspace, "..", "outside.txt"))).toBe(false);
    expect(results[2]!.text).toMatch(/denied by rule Bash\(rm:\*\)/);
  });
});

describe("!cmd", () => {
  it("runs unasked but in the same sandbox: in plan mode it writes nothing", async () => {
    const { agent, box } = await start([], { permissionMode: "plan" });
    const ran = await agent.runShell("touch made.txt; echo tried");
    await agent.close();
    expect(ran.isOk()).toBe(true);
    expect(ran._unsafeUnwrap().output).toMatch(/tried/);
    expect(ran._unsafeUnwrap().output).toMatch(/Read-only file system/);
    expect(existsSync(join(box.workspace, "made.txt"))).toBe(false);
  });
});

describe("secrets an extension protects", () => {
  it("are scrubbed from what the model sees, whatever tool printed them", async () => {
    const { agent, model, box } = await start(
      [call("Bash", { command: "cat secret.txt; base64 -w0 secret.txt" }), { text: "ok" }],
      { permissionMode: "bypassPermissions" },
    );
    writeFileSync(join(box.workspace, "secret.txt"), "ext-secret-4f9c2b7d1e\n");
    await agent.prompt("go");
    await agent.close();
    const seen = JSON.stringify(model.requests.map((r) => r.body));
    expect(seen).not.toContain("ext-secret-4f9c2b7d1e");
    expect(seen).not.toContain(Buffer.from("ext-secret-4f9c2b7d1e").toString("base64").slice(0, 16));
    expect(toolResultTexts(model.requests.at(-1)!.body)[0]!.text).toContain("[redacted]");
  });
});

describe("where no sandbox can start", () => {
  it("plan refuses Bash and the process API; default asks before Bash (headless: denied); it is said once", async () => {
    const saved = process.env.KEEL_BWRAP;
    process.env.KEEL_BWRAP = "/nonexistent/bwrap";
    try {
      for (const mode of ["plan", "default"] as const) {
        outcomes.length = 0;
        const said: string[] = [];
        const { agent, model, box } = await start(
          [call("Bash", { command: "ls" }), call("Probe", {}), { text: "ok" }],
          {
            permissionMode: mode,
            onEvent: (e) => e.type === "diagnostic" && said.push(e.diagnostic.message),
          },
        );
        await agent.prompt("go");
        await agent.close();
        const results = toolResultTexts(model.requests.at(-1)!.body);
        expect(results[0]!.isError, mode).toBe(true);
        expect(results[0]!.text, mode).toMatch(
          mode === "plan" ? /no OS sandbox can start here/ : /nobody can approve/,
        );
        expect(readdirSync(box.workspace), mode).toEqual([".git"]);
        expect(
          said.filter((m) => m.startsWith("No OS sandbox:")),
          mode,
        ).toHaveLength(1);
        if (mode === "plan")
          expect(outcomes).toEqual([
            {
              ok: false,
              error: {
                type: "sandbox_unavailable",
                message: expect.stringMatching(/plan mode runs no command unconfined/),
              },
            },
          ]);
        // default: the program runs, unconfined, as the user's Bash would after a prompt.
        else expect(outcomes[0]).toMatchObject({ ok: true, result: { sandbox: "none" } });
      }
    } finally {
      if (saved === undefined) delete process.env.KEEL_BWRAP;
      else process.env.KEEL_BWRAP = saved;
    }
  });
});
