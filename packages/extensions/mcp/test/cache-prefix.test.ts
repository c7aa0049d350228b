// Cache discipline with MCP: over a 20-request session in which the server's tools change twice
// (tools/list_changed) and the server dies and is reconnected, every request is the previous one
// grown (canonical prefix retention 1.000), the cache breakpoints are where the provider reads
// them back, and the model hears each change only as a diff notice (a reconnect is no news).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertPrefixRetained } from "@keel/coding-agent/testing";
import { historyBreakpoints } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { fauxProvider, notices, type Sandbox, sandbox, start, writeUserConfig } from "./helpers/kernel.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
type Json = Record<string, unknown>;

let box: Sandbox;
afterEach(() => box?.cleanup());

const marked = (block: unknown) => typeof block === "object" && block !== null && "cache_control" in block;

const echo = (n: number) => ({
  toolCalls: [
    {
      name: "ExecuteTool",
      arguments: { toolRef: "mcp__fixture__echo", arguments: { message: `turn ${n}` } },
    },
  ],
});
const setTools = (names: string[]) => ({
  toolCalls: [
    { name: "ExecuteTool", arguments: { toolRef: "mcp__fixture__set_tools", arguments: { names } } },
  ],
});

describe("MCP and the prompt cache", () => {
  it("keeps retention at 1.000 over 20 requests with two list_changed changes and a reconnect", async () => {
    box = sandbox();
    writeUserConfig(
      box,
      { fixture: { command: process.execPath, args: [fixture] } },
      { permissions: { allow: ["mcp__fixture"] } },
    );
    const provider = fauxProvider({
      turns: [],
      fallback: (request) => {
        const i = request.index;
        if (i === 3) return { text: "Paused." };
        if (i === 8) return setTools(["alpha"]);
        if (i === 14) return setTools(["beta"]);
        if (i === 19) return { text: "Done." };
        return echo(i);
      },
    });
    const { agent, status } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    });
    await status((t) => t === "mcp 1/1");
    expect((await agent.prompt("Work for a while.")).isOk()).toBe(true);
    expect(provider.requests).toHaveLength(4);

    // The server dies between runs; the connection brings it back on its own.
    const log = join(box.home, "data", "mcp", "logs", "fixture.log");
    const pid = Number(/fixture server (\d+) starting/.exec(readFileSync(log, "utf8"))![1]);
    const down = status((t) => t.includes("fixture: reconnecting"));
    process.kill(pid, "SIGKILL");
    await down;
    await status((t) => t === "mcp 1/1");
    // The new server's stderr reaches its log file on its own schedule; the connection may be first.
    const restarted = Date.now() + 10_000;
    while ((readFileSync(log, "utf8").match(/fixture server \d+ starting/g) ?? []).length < 2) {
      if (Date.now() > restarted)
        throw new Error(`the server was not restarted:\n${readFileSync(log, "utf8")}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(readFileSync(log, "utf8").match(/fixture server \d+ starting/g)).toHaveLength(2);

    expect((await agent.prompt("Go on.")).isOk()).toBe(true);
    await agent.close();
    const requests = provider.requests;
    expect(requests).toHaveLength(20);

    // Each request the previous one grown, its history breakpoint on a block the next still has
    // (the one check); system and tools are marked too, with one or two history breakpoints.
    assertPrefixRetained(requests);
    for (const request of requests) {
      const raw = JSON.parse(request.raw) as Json;
      expect(marked((raw.system as unknown[]).at(-1)) && marked((raw.tools as unknown[]).at(-1))).toBe(true);
      expect(historyBreakpoints(request).length).toBeGreaterThanOrEqual(1);
      expect(historyBreakpoints(request).length).toBeLessThanOrEqual(2);
    }

    // What the model was told: the tools once, then only the two diffs; the reconnect was no news.
    const told = notices(requests.at(-1));
    expect(told, told.join("\n---\n")).toHaveLength(3);
    expect(told[0]).toContain("mcp__fixture: mcp__fixture__echo");
    expect(told[1]).toBe("<capabilities>\nAdded:\n  mcp__fixture: mcp__fixture__alpha\n</capabilities>");
    expect(told[2]).toBe(
      "<capabilities>\nAdded:\n  mcp__fixture: mcp__fixture__beta\nRemoved:\n  mcp__fixture: mcp__fixture__alpha\n</capabilities>",
    );
    // Each diff went out with the request right after the change.
    expect(notices(requests[8])).toHaveLength(1);
    expect(notices(requests[9])).toHaveLength(2);
    expect(notices(requests[14])).toHaveLength(2);
    expect(notices(requests[15])).toHaveLength(3);
  });
});
