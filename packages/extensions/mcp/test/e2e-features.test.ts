// Client features through the real kernel: list_changed over HTTP, /mcp and prompts as commands,
// resources as catalog entries, sampling through Keel's model with an approval, elicitation in
// form and URL mode through the host UI (and declined headless), and resume reconnecting.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM fixture without types
import { createFixtureServer } from "./fixtures/fixture-server.mjs";
import { startStreamableServer } from "./helpers/http-server.js";
import {
  fauxProvider,
  notices,
  type Sandbox,
  sandbox,
  start,
  texts,
  writeUserConfig,
} from "./helpers/kernel.js";
import { binOf } from "./helpers/servers.js";
import { scriptedUi } from "./helpers/ui.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const everything = {
  command: process.execPath,
  args: [binOf("@modelcontextprotocol/server-everything"), "stdio"],
};
let box: Sandbox;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  box?.cleanup();
});

const run = (toolRef: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: "ExecuteTool", arguments: { toolRef, arguments: args } }],
});

async function session(
  servers: Record<string, unknown>,
  turns: Parameters<typeof fauxProvider>[0],
  extra: object = {},
) {
  box = sandbox();
  writeUserConfig(box, servers, { permissions: { allow: Object.keys(servers).map((s) => `mcp__${s}`) } });
  const provider = fauxProvider(turns);
  const started = await start({
    cwd: box.workspace,
    home: box.home,
    model: provider.model,
    streamOptions: provider.streamOptions,
    ...extra,
  });
  closing.push(() => started.agent.close());
  await started.status((t) => t === `mcp ${Object.keys(servers).length}/${Object.keys(servers).length}`);
  return { ...started, provider };
}

describe("MCP client features in the kernel", () => {
  it("carries a Streamable HTTP server's list_changed to the model as one diff notice", async () => {
    const server = await startStreamableServer(() => createFixtureServer().server);
    closing.push(() => server.stop());
    const { agent, provider } = await session(
      { web: { type: "http", url: server.url } },
      {
        turns: [run("mcp__web__set_tools", { names: ["gamma"] }), { text: "ok" }, { text: "still ok" }],
      },
    );
    await agent.prompt("add a tool");
    // Over HTTP the notification comes on the server's event stream, which may trail the call's
    // own response: once the connection has it, the next request carries it.
    for (let i = 0; i < 100; i++) {
      if ((await agent.commands.run("/mcp tools web"))._unsafeUnwrap().message?.includes("mcp__web__gamma"))
        break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await agent.prompt("and now?");
    const told = notices(provider.requests.at(-1));
    expect(told).toHaveLength(2);
    expect(told[1]).toBe("<capabilities>\nAdded:\n  mcp__web: mcp__web__gamma\n</capabilities>");
  });

  it("shows servers in /mcp and offers the server's prompts as commands", async () => {
    const { agent } = await session({ everything }, { turns: [] });
    const listing = (await agent.commands.run("/mcp"))._unsafeUnwrap().message!;
    expect(listing).toMatch(/everything \(user, stdio\) — connected, \d+ tools/);
    expect(listing).toContain(join("data", "mcp", "logs", "everything.log"));
    const tools = (await agent.commands.run("/mcp tools everything"))._unsafeUnwrap().message!;
    expect(tools).toContain("mcp__everything__echo");
    expect(agent.commands.list().map((c) => c.name)).toEqual(
      expect.arrayContaining(["mcp__everything__args-prompt"]),
    );
    const prompt = await agent.commands.run("/mcp__everything__args-prompt Lisbon");
    expect(prompt._unsafeUnwrap().prompt).toContain("Lisbon");
    const missing = await agent.commands.run("/mcp__everything__args-prompt");
    expect(missing._unsafeUnwrapErr().message).toContain("missing city");
    // A stdio server has no OAuth: /mcp login says so and leaves it connected.
    const login = (await agent.commands.run("/mcp login everything"))._unsafeUnwrap().message;
    expect(login).toBe('Login for everything did not complete: MCP server "everything" does not use OAuth');
  });

  it("completes and attaches @server:uri mentions of resources in the user's prompt", async () => {
    const { agent, provider } = await session(
      { everything },
      { turns: [{ text: "Read it." }, { text: "ok" }] },
    );
    expect(await agent.completeMention("ever")).toEqual([{ prefix: "everything", ref: "", source: "mcp" }]);
    const found = await agent.completeMention("everything:features");
    expect(found).toEqual([
      {
        prefix: "everything",
        ref: "demo://resource/static/document/features.md",
        label: "features.md",
        description: "Static document file exposed from /docs: features.md",
        source: "mcp",
      },
    ]);
    const notes: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") notes.push(e.diagnostic.message);
    });
    await agent.prompt("summarise @everything:demo://resource/static/document/features.md please");
    const sent = texts(provider.requests[0]).join("\n");
    expect(sent).toMatch(
      /<mention ref="@everything:demo:\/\/resource\/static\/document\/features.md" title="features.md">\n[\s\S]*\S[\s\S]*<\/mention>/,
    );
    expect(
      notes.some((n) =>
        n.startsWith("attached @everything:demo://resource/static/document/features.md (features.md, "),
      ),
    ).toBe(true);
    // A resource the server does not have: a note, and the prompt still goes.
    await agent.prompt("and @everything:demo://resource/nope");
    expect(notes.some((n) => n.startsWith("not attached: @everything:demo://resource/nope"))).toBe(true);
    expect(provider.requests).toHaveLength(2);
  });

  it("lists and reads resources as catalog entries", async () => {
    const { agent, provider } = await session(
      { everything },
      {
        turns: [
          run("mcp__everything__list_resources"),
          run("mcp__everything__read_resource", { uri: "demo://resource/dynamic/text/3" }),
          { text: "read" },
        ],
      },
    );
    await agent.prompt("read a resource");
    expect(texts(provider.requests[1]).join("\n")).toContain("demo://resource/");
    expect(texts(provider.requests[2]).join("\n")).toContain("[resource demo://resource/dynamic/text/3");
  });

  it("samples through Keel's model after the user approves, within the server's cap", async () => {
    const ui = scriptedUi({ approve: () => true });
    const { agent, provider } = await session(
      { everything: { ...everything, sampling: { enabled: true, maxTokens: 64 } } },
      {
        turns: [
          run("mcp__everything__trigger-sampling-request", { prompt: "Name a colour.", maxTokens: 500 }),
          { text: "Teal, said Keel's model." },
          { text: "The server got its answer." },
        ],
      },
      { ui: ui.ui },
    );
    await agent.prompt("sample");
    const sampling = provider.requests[1]!;
    expect(texts(sampling).join("\n")).toContain("Name a colour.");
    expect(sampling.body.max_tokens).toBe(64);
    expect(texts(provider.requests[2]).join("\n")).toContain("Teal, said Keel's model.");
    expect(ui.asked.find((a) => a.kind === "approve")?.title).toContain(
      'MCP server "everything" asks Keel\'s model',
    );
  });

  it("refuses sampling with no one to approve it", async () => {
    const { agent, provider } = await session(
      { everything: { ...everything, sampling: { enabled: true } } },
      { turns: [run("mcp__everything__trigger-sampling-request", { prompt: "x" }), { text: "ok" }] },
    );
    await agent.prompt("sample");
    expect(provider.requests).toHaveLength(2);
    expect(texts(provider.requests[1]).join("\n")).toMatch(/No one can approve sampling here/);
  });

  it("asks the user a server's form, names the server, and sends what they confirmed", async () => {
    const ui = scriptedUi({
      input: () => "Ada",
      select: (_t, options) => options.find((o) => o.startsWith("blue"))!,
      confirm: () => true,
    });
    const { agent, provider } = await session(
      { fixture: { command: process.execPath, args: [fixture] } },
      {
        turns: [run("mcp__fixture__ask"), { text: "thanks" }],
      },
      { ui: ui.ui },
    );
    await agent.prompt("ask me");
    expect(ui.asked.map((a) => a.title)).toEqual([
      "[fixture] Your name",
      "[fixture] colour (optional)",
      'Send this to MCP server "fixture"?',
    ]);
    expect(texts(provider.requests[1]).join("\n")).toContain(
      '{"action":"accept","content":{"name":"Ada","colour":"blue"}}',
    );
  });

  it("shows the host of a URL elicitation and asks before opening it; headless declines", async () => {
    const ui = scriptedUi({ confirm: () => false });
    const { agent, provider } = await session(
      { fixture: { command: process.execPath, args: [fixture] } },
      {
        turns: [run("mcp__fixture__visit"), { text: "ok" }],
      },
      { ui: ui.ui },
    );
    await agent.prompt("visit");
    expect(ui.asked[0]?.title).toBe('MCP server "fixture" asks you to open setup.example.com');
    expect(texts(provider.requests[1]).join("\n")).toContain('{"action":"decline"}');
    await agent.close();
    closing.splice(0);

    const headless = await session(
      { fixture: { command: process.execPath, args: [fixture] } },
      {
        turns: [run("mcp__fixture__ask"), { text: "ok" }],
      },
    );
    await headless.agent.prompt("ask");
    expect(texts(headless.provider.requests[1]).join("\n")).toContain('{"action":"decline"}');
  });

  it("reconnects on resume and does not announce tools the model already knows", async () => {
    const servers = { fixture: { command: process.execPath, args: [fixture] } };
    const first = await session(servers, { turns: [{ text: "hello" }] });
    await first.agent.prompt("hi");
    expect(notices(first.provider.requests[0])).toHaveLength(1);
    const file = first.agent.sessionFile!;
    await first.agent.close();
    closing.splice(0);

    const provider = fauxProvider({
      turns: [run("mcp__fixture__echo", { message: "again" }), { text: "ok" }],
    });
    const resumed = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
      session: { mode: "continue" },
    });
    closing.push(() => resumed.agent.close());
    expect(resumed.agent.sessionFile).toBe(file);
    await resumed.status((t) => t === "mcp 1/1");
    await resumed.agent.prompt("call it");
    expect(notices(provider.requests[0])).toHaveLength(1);
    expect(texts(provider.requests[1])).toContain("echo: again");
  });
});
