// Known tools before connect: what a server listed is kept (keyed by its definition), so the next
// session's first request lists its tools while it is still connecting, a call waits for it, a
// resume is no news (the bytes already sent stay a prefix), and a server that now offers
// something else is one diff notice. Through the real kernel, with a slow-starting stdio server.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CodingAgentEvent } from "@keel/coding-agent";
import { cacheLines, historyBreakpoints, type RecordedRequest, stripCacheControl } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { definitionKey, KnownInventories } from "../src/catalog/known.js";
import type { ServerSpec } from "../src/config/servers.js";
import { McpSession } from "../src/session.js";
import {
  fauxProvider,
  notices,
  type Sandbox,
  sandbox,
  start,
  texts,
  writeUserConfig,
} from "./helpers/kernel.js";
import { stdioSpec, tempDir } from "./helpers/servers.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
let box: Sandbox;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  box?.cleanup();
});

const search = (query: string) => ({ toolCalls: [{ name: "SearchTools", arguments: { query } }] });
const run = (toolRef: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: "ExecuteTool", arguments: { toolRef, arguments: args } }],
});

/** The fixture server driven by a control file (its definition never changes; what it offers does). */
function fixtureServer(control: { extra?: string[]; startDelayMs?: number }) {
  const file = join(box.root, "control.json");
  writeFileSync(file, JSON.stringify(control));
  return {
    servers: { fixture: { command: process.execPath, args: [fixture, "--control", file] } },
    set: (next: { extra?: string[]; startDelayMs?: number }) => writeFileSync(file, JSON.stringify(next)),
  };
}

/** A session; records the MCP status line as it was when each model request arrived. */
async function session(
  servers: Record<string, unknown>,
  turns: Parameters<typeof fauxProvider>[0],
  resume = false,
) {
  let status = "";
  const atRequest: string[] = [];
  const provider = fauxProvider({
    turns: turns.turns.map((t) => (request: RecordedRequest) => {
      atRequest[request.index] = status;
      return typeof t === "function" ? t(request) : t;
    }),
    ...(turns.fallback ? { fallback: turns.fallback } : {}),
  });
  writeUserConfig(box, servers, { permissions: { allow: ["mcp__fixture"] } });
  const started = await start({
    cwd: box.workspace,
    home: box.home,
    model: provider.model,
    streamOptions: provider.streamOptions,
    ...(resume ? { session: { mode: "continue" as const } } : {}),
    onEvent: (event: CodingAgentEvent) => {
      if (event.type === "status" && event.key === "mcp") status = event.text ?? "";
    },
  });
  closing.push(() => started.agent.close());
  return { ...started, provider, atRequest };
}

/** Closes a session now (and takes it off the list closed after the test). */
async function end(agent: { close(): Promise<void> }) {
  closing.pop();
  await agent.close();
}

function expectPrefix(before: RecordedRequest, after: RecordedRequest) {
  const a = cacheLines(before);
  const b = cacheLines(after);
  const at = a.findIndex((line, i) => b[i] !== line);
  expect(
    at,
    `request ${before.index} is not a prefix of the next at line ${at}: ${a[at]?.slice(0, 300)}`,
  ).toBe(-1);
  // The history breakpoint the earlier request set is on a block the later one still holds, unchanged.
  const mark = historyBreakpoints(before)[0]!;
  const next = (JSON.parse(after.raw) as { messages: { content: unknown[] }[] }).messages;
  expect(stripCacheControl(next[mark.message]?.content?.[mark.block])).toEqual(stripCacheControl(mark.value));
}

describe("known tools before connect", () => {
  it("lists a server's tools on the first request of a new session while it connects; SearchTools says so; the call waits for it", async () => {
    box = sandbox();
    const server = fixtureServer({});
    const first = await session(server.servers, { turns: [{ text: "hello" }] });
    await first.status((t) => t === "mcp 1/1");
    await first.agent.prompt("hi");
    await end(first.agent);

    server.set({ startDelayMs: 1500 });
    const second = await session(server.servers, {
      turns: [search("echo"), run("mcp__fixture__echo", { message: "first turn" }), { text: "done" }],
    });
    expect((await second.agent.prompt("echo something")).isOk()).toBe(true);
    const [r0, r1, r2] = second.provider.requests;
    // The first request went out before the server was up, and already named its tools.
    expect(second.atRequest[0]).not.toBe("mcp 1/1");
    expect(notices(r0)).toHaveLength(1);
    expect(notices(r0)[0]).toContain("mcp__fixture: mcp__fixture__echo");
    const found = texts(r1).find((t) => t.includes("mcp__fixture:mcp__fixture__echo"));
    expect(found).toContain("Not settled yet");
    expect(found).toContain("mcp__fixture: still connecting");
    // The call waited for the server and ran.
    expect(texts(r2)).toContain("echo: first turn");
    // The server turned out to offer what was known: nothing more was said.
    expect(notices(r2)).toEqual(notices(r0));
  });

  it("a resumed session says nothing new while its server connects, and the bytes already sent stay a prefix", async () => {
    box = sandbox();
    const server = fixtureServer({});
    const first = await session(server.servers, { turns: [{ text: "hello" }] });
    await first.status((t) => t === "mcp 1/1");
    await first.agent.prompt("hi");
    const before = first.provider.requests[0]!;
    await end(first.agent);
    const told = notices(before);
    expect(told).toHaveLength(1);

    // Resumed with the server slow to start, then again with nothing remembered on disk at all.
    for (const forget of [false, true]) {
      if (forget) rmSync(join(box.home, "data", "mcp", "inventory"), { recursive: true, force: true });
      server.set({ startDelayMs: 1200 });
      const resumed = await session(
        server.servers,
        {
          turns: [run("mcp__fixture__echo", { message: "again" }), { text: "ok" }],
          fallback: { text: "more" },
        },
        true,
      );
      await resumed.agent.prompt("call it");
      expect(resumed.atRequest[0]).not.toBe("mcp 1/1");
      await resumed.status((t) => t === "mcp 1/1");
      await resumed.agent.prompt("and now?");
      const requests = resumed.provider.requests;
      // No Removed, no Added, no instructions again: the model knows these tools.
      for (const request of requests) expect(notices(request)).toEqual(told);
      expect(texts(requests[1])).toContain("echo: again");
      expectPrefix(before, requests[0]!);
      for (let n = 0; n + 1 < requests.length; n++) expectPrefix(requests[n]!, requests[n + 1]!);
      await end(resumed.agent);
    }
  });

  it("a server that turns out to offer something else is one diff notice, once it is up", async () => {
    box = sandbox();
    const server = fixtureServer({ extra: ["alpha"] });
    const first = await session(server.servers, { turns: [{ text: "hello" }] });
    await first.status((t) => t === "mcp 1/1");
    await first.agent.prompt("hi");
    await end(first.agent);

    server.set({ extra: ["beta"], startDelayMs: 800 });
    const second = await session(
      server.servers,
      { turns: [{ text: "one" }], fallback: { text: "two" } },
      true,
    );
    await second.agent.prompt("one");
    await second.status((t) => t === "mcp 1/1");
    await second.agent.prompt("two");
    await second.agent.prompt("three");
    const [r0, r1, r2] = second.provider.requests;
    expect(notices(r0)).toHaveLength(1);
    expect(notices(r1).slice(1)).toEqual([
      "<capabilities>\nAdded:\n  mcp__fixture: mcp__fixture__beta\nRemoved:\n  mcp__fixture: mcp__fixture__alpha\n</capabilities>",
    ]);
    expect(notices(r2)).toEqual(notices(r1));
  });

  it("a call to a server that does not come up ends at its startup time, or at once when the run is stopped", async () => {
    box = sandbox();
    const server = fixtureServer({});
    const first = await session(server.servers, { turns: [{ text: "hello" }] });
    await first.status((t) => t === "mcp 1/1");
    await first.agent.prompt("hi");
    await end(first.agent);

    server.set({ startDelayMs: 60_000 });
    const slow = {
      fixture: { ...server.servers.fixture, startupTimeout: 700 },
    };
    const timed = await session(slow, {
      turns: [run("mcp__fixture__echo", { message: "x" }), { text: "ok" }],
    });
    const started = Date.now();
    await timed.agent.prompt("call it");
    expect(Date.now() - started).toBeLessThan(10_000);
    const answer = texts(timed.provider.requests[1]).find((t) => t.includes("MCP server"));
    expect(answer).toMatch(/fixture/);
    await end(timed.agent);

    const stopped = await session(server.servers, { turns: [run("mcp__fixture__echo", { message: "x" })] });
    const going = stopped.agent.prompt("call it");
    await new Promise<void>((resolve) => {
      const off = stopped.agent.subscribe((event) => {
        if (event.type === "tool_start") {
          off();
          resolve();
        }
      });
    });
    const abortedAt = Date.now();
    stopped.agent.abort();
    const summary = await going;
    expect(summary.isOk() && summary.value.stopReason).toBe("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
  });
});

describe("the known inventory on disk", () => {
  const spec = (extra: Partial<ServerSpec> = {}) => stdioSpec("srv", ["server.js"], extra as never);

  it("is keyed by the definition: command, args, env, cwd, url and headers each make another key", () => {
    const base = definitionKey(spec());
    expect(definitionKey(spec())).toBe(base);
    for (const change of [
      { command: "/usr/bin/other" },
      { args: ["server.js", "--flag"] },
      { env: { TOKEN: "x" } },
      { cwd: "/elsewhere" },
    ])
      expect(definitionKey(spec(change as Partial<ServerSpec>)), JSON.stringify(change)).not.toBe(base);
    // What does not change what a server offers (its timeouts, tool lists) keeps the key.
    expect(definitionKey(spec({ timeoutMs: 1, tools: { deny: ["x"] } }))).toBe(base);
    const http = (url: string, headers: Record<string, string> = {}) =>
      definitionKey({ ...spec(), transport: "http", url, headers, oauth: false } as unknown as ServerSpec);
    expect(http("https://a.example/mcp")).not.toBe(http("https://b.example/mcp"));
    expect(http("https://a.example/mcp")).not.toBe(http("https://a.example/mcp", { Authorization: "x" }));
  });

  it("never hands a changed definition what another one listed, and reads a damaged file as unknown", () => {
    const dir = tempDir();
    try {
      const known = new KnownInventories(dir.path);
      const inventory = {
        tools: [{ name: "t", inputSchema: { type: "object" as const } }],
        prompts: [],
        resources: false,
        taskCalls: false,
      };
      known.write(spec(), inventory);
      expect(known.read(spec())).toEqual(inventory);
      expect(known.read(spec({ args: ["other.js"] }))).toBeUndefined();
      writeFileSync(join(dir.path, `${definitionKey(spec())}.json`), "{ not json");
      expect(known.read(spec())).toBeUndefined();
      // Secrets of the definition are never written, only its hash.
      known.write(spec({ env: { TOKEN: "s3cret-value" } }), inventory);
      const file = join(dir.path, `${definitionKey(spec({ env: { TOKEN: "s3cret-value" } }))}.json`);
      expect(JSON.stringify(known.read(spec({ env: { TOKEN: "s3cret-value" } })))).not.toContain("s3cret");
      expect(readFileSync(file, "utf8")).not.toContain("s3cret");
    } finally {
      dir.cleanup();
    }
  });

  it("makes a server's prompts known from the start, before anything connects", () => {
    const dir = tempDir();
    try {
      const dataDir = join(dir.path, "data");
      mkdirSync(dataDir);
      const server = spec();
      new KnownInventories(join(dataDir, "inventory")).write(server, {
        tools: [],
        prompts: [
          { name: "review", description: "Review a diff", arguments: [{ name: "pr", required: true }] },
        ],
        resources: false,
        taskCalls: false,
      });
      const added: string[] = [];
      const runtime = {
        dataDir: () => dataDir,
        catalogs: {
          add: (c: { id: string }) => {
            added.push(c.id);
            return { ok: true as const };
          },
          remove: () => true,
        },
        mentions: { add: () => ({ ok: true as const }), remove: () => true },
        commands: {
          add: (c: { name: string; source?: unknown; argumentHint?: string }) => {
            commands.push({ name: c.name, source: c.source, argumentHint: c.argumentHint });
            return { ok: true as const };
          },
          remove: () => true,
        },
        report: () => {},
        debug: () => {},
      };
      const commands: unknown[] = [];
      const mcp = new McpSession(runtime as never, [server], {});
      mcp.start();
      expect(added).toEqual(["srv"]);
      // Its prompt is a command before the server was even started.
      expect(commands).toEqual([
        { name: "mcp__srv__review", source: { kind: "mcp", owner: "srv" }, argumentHint: "<pr>" },
      ]);
      expect(mcp.prompts()).toEqual([
        {
          server: "srv",
          name: "mcp__srv__review",
          prompt: {
            name: "review",
            description: "Review a diff",
            arguments: [{ name: "pr", required: true }],
          },
        },
      ]);
      void mcp.close();
    } finally {
      dir.cleanup();
    }
  });
});
