// What a session's user can change while it runs: the thinking level (catalog-mapped, journaled,
// back on resume), the permission mode and rules (in force at once, saved where asked), the model
// (refused without a key); and what survives: usage totals across a resume, a prompt the model
// never answered taken back out of the conversation.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
let server: MockServer;
beforeEach(async () => {
  box = sandbox();
  server = await startMockServer({ turns: [], fallback: { text: "ok" } });
  mkdirSync(box.home, { recursive: true });
  writeFileSync(
    join(box.home, "config.json"),
    JSON.stringify({ providers: { anthropic: { baseUrl: server.anthropicBaseUrl } } }),
  );
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const streamOptions = { apiKey: "test", retry: { maxRetries: 0 } };

function open(extra: Record<string, unknown> = {}) {
  return createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: "anthropic/claude-sonnet-4-6",
    streamOptions,
    ...extra,
  }).then((r) => r._unsafeUnwrap());
}

describe("thinking", () => {
  it("maps the level per the catalog, journals it with the model and comes back on resume", async () => {
    const agent = await open({ thinking: "high" });
    expect(agent.thinking()).toMatchObject({ level: "high", effort: "high" });
    await agent.prompt("one");
    expect(server.requests[0]!.body.thinking).toMatchObject({ type: "adaptive" });
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "high" });

    agent.setThinking("off")._unsafeUnwrap();
    await agent.prompt("two");
    expect(server.requests[1]!.body).not.toHaveProperty("thinking");
    expect(server.requests[1]!.body).not.toHaveProperty("output_config");
    const file = agent.sessionFile!;
    await agent.close();
    const changes = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; thinking?: string })
      .filter((e) => e.type === "model_change");
    expect(changes.map((c) => c.thinking)).toEqual(["high", "off"]);

    const resumed = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        streamOptions,
        session: { mode: "resume", session: file },
      })
    )._unsafeUnwrap();
    expect(resumed.thinking().level).toBe("off");
    await resumed.close();
  });

  it("asks a model that only thinks when told for medium effort by default, and names adjustments", async () => {
    const agent = await open();
    expect(agent.thinking()).toEqual({
      level: undefined,
      effort: "medium",
      levels: ["off", "low", "medium", "high"],
    });
    await agent.prompt("hi");
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "medium" });
    expect(agent.setThinking("max")._unsafeUnwrap()).toMatchObject({ effort: "high" });
    expect(agent.thinking().note).toContain("does not take effort max");
    await agent.close();
  });

  it("offers the levels each model takes, and says once what a remapped level became", async () => {
    // Asked at start for a level this model does not take: one line says what it gets.
    const agent = await open({ thinking: "max" });
    const said = () => agent.diagnostics().filter((d) => d.message.startsWith("Thinking "));
    expect(said().map((d) => d.message)).toEqual([
      "Thinking max: Claude Sonnet 4.6 does not take effort max; using high.",
    ]);
    // "off", set for a model that can turn thinking off, then a model that always thinks.
    agent.setThinking("off")._unsafeUnwrap();
    expect(agent.thinking()).toMatchObject({ level: "off", effort: "off" });
    expect(agent.thinking().note).toBeUndefined();
    agent.setModel("anthropic/claude-opus-5-5")._unsafeUnwrap();
    const now = agent.thinking();
    expect(now.levels).not.toContain("off");
    expect(now.levels.length).toBeGreaterThan(0);
    expect(now.effort).toBe(now.levels[0]);
    expect(said()).toHaveLength(2);
    expect(said()[1]!.message).toBe(`Thinking off: ${now.note}`);
    expect(now.note).toMatch(/always thinks; using its lowest effort/);
    // A level it takes as it is: nothing more is said.
    agent.setModel("anthropic/claude-sonnet-4-6")._unsafeUnwrap();
    expect(said()).toHaveLength(2);
    await agent.prompt("hi");
    expect(server.requests[0]!.body).not.toHaveProperty("thinking");
    await agent.close();
  });
});

describe("permission mode and rules", () => {
  it("a mode change applies to the next call; rules added are in force and saved in their file", async () => {
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Write", arguments: { path: "a.txt", content: "a" } }] },
        { text: "tried" },
        { toolCalls: [{ name: "Write", arguments: { path: "b.txt", content: "b" } }] },
        { text: "wrote" },
        { toolCalls: [{ name: "Bash", arguments: { command: "touch c.txt" } }] },
        { text: "ran" },
      ],
    });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
      })
    )._unsafeUnwrap();
    expect(agent.permissionMode()).toBe("default");
    await agent.prompt("write a");
    expect(existsSync(join(box.workspace, "a.txt"))).toBe(false);
    agent.setPermissionMode("acceptEdits")._unsafeUnwrap();
    await agent.prompt("write b");
    expect(existsSync(join(box.workspace, "b.txt"))).toBe(true);

    const added = agent
      .editPermissionRule({ rule: "Bash(touch:*)", behavior: "allow", scope: "user" })
      ._unsafeUnwrap();
    expect(added.file).toBe(join(box.home, "config.json"));
    expect(JSON.parse(readFileSync(join(box.home, "config.json"), "utf8")).permissions.allow).toEqual([
      "Bash(touch:*)",
    ]);
    await agent.prompt("touch c");
    expect(existsSync(join(box.workspace, "c.txt"))).toBe(true);
    expect(agent.permissionRules()).toContainEqual({
      rule: "Bash(touch:*)",
      behavior: "allow",
      source: "user",
      file: join(box.home, "config.json"),
    });

    agent
      .editPermissionRule({ rule: "Bash(touch:*)", behavior: "allow", scope: "user", remove: true })
      ._unsafeUnwrap();
    expect(agent.permissionRules().some((r) => r.rule === "Bash(touch:*)")).toBe(false);
    expect(JSON.parse(readFileSync(join(box.home, "config.json"), "utf8")).permissions.allow).toEqual([]);
    // An untrusted project's config is not read: a rule there would do nothing, so it is refused.
    const refused = agent.editPermissionRule({ rule: "Read", behavior: "deny", scope: "projectLocal" });
    expect(refused._unsafeUnwrapErr().message).toContain("not trusted");
    expect(agent.setPermissionMode("sideways" as never).isErr()).toBe(true);
    await agent.close();
  });
});

describe("model switch and failed prompts", () => {
  it("refuses a model whose provider has no key and keeps the current one", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const agent = (
        await createCodingAgent({ cwd: box.workspace, home: box.home, model: "anthropic/claude-sonnet-4-6" })
      )._unsafeUnwrap();
      const refused = agent.setModel("openai/gpt-6.2-sol");
      expect(refused._unsafeUnwrapErr().message).toBe(
        "openai/gpt-6.2-sol needs an API key: set OPENAI_API_KEY and start keel again. Still on anthropic/claude-sonnet-4-6.",
      );
      expect(agent.model().id).toBe("claude-sonnet-4-6");
      await agent.close();
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it("takes a prompt the model never answered back out of the conversation", async () => {
    server.setScenario({
      turns: [{ kind: "error", status: 401, message: "invalid x-api-key" }, { text: "Now it works." }],
    });
    const agent = await open();
    const failed = (await agent.prompt("first try"))._unsafeUnwrap();
    expect(failed.stopReason).toBe("error");
    expect(failed.promptWithdrawn).toBe(true);
    expect(failed.unsent).toEqual(["first try"]);
    expect(agent.messages()).toEqual([]);
    const ok = (await agent.prompt("second try"))._unsafeUnwrap();
    expect(ok.text).toBe("Now it works.");
    expect(server.requests[1]!.raw).not.toContain("first try");
    await agent.close();
  });
});

describe("usage across a resume", () => {
  it("keeps the session's token and cost totals", async () => {
    server.setScenario({ turns: [{ text: "one", usage: { input: 1000, output: 100 } }] });
    const agent = await open();
    await agent.prompt("count me");
    const before = agent.usage();
    expect(before.input).toBe(1000);
    expect(before.cost.total).toBeGreaterThan(0);
    const file = agent.sessionFile!;
    await agent.close();
    const resumed = await open({ session: { mode: "resume", session: file } });
    expect(resumed.usage()).toEqual(before);
    expect(resumed.usageBreakdown().own).toEqual(before);
    await resumed.close();
  });
});
