// MCP in print mode through the built keel bin: with three stdio reference servers configured, a
// model whose first action is SearchTools then ExecuteTool on an MCP tool gets it on turn one —
// in a fresh session (the servers never seen before, and again once they are known) and after
// -c, where the first request says nothing new. A server that never answers initialize (and
// ignores SIGTERM, and keeps a child): keel exits within a second of its answer and nothing of the
// server's process group is left.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RecordedRequest, ScenarioTurn } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, startKeel, type Workspace } from "./helpers.js";

const suite = mockSuite();
const mcpPackage = fileURLToPath(new URL("../../../packages/extensions/mcp/package.json", import.meta.url));
const fromMcp = createRequire(mcpPackage);
const SILENT = join(dirname(mcpPackage), "test/fixtures/silent-server.mjs");
type Json = Record<string, unknown>;

function binOf(pkg: string): string {
  const manifestPath = fromMcp.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(manifestPath), bin);
}

function config(ws: Workspace, servers: Record<string, unknown>) {
  writeFileSync(
    join(ws.home, "config.json"),
    JSON.stringify({
      permissions: { allow: Object.keys(servers).map((s) => `mcp__${s}`) },
      extensions: { mcp: { config: { servers } } },
    }),
  );
}

const referenceServers = (ws: Workspace) => ({
  everything: {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-everything"), "stdio"],
  },
  filesystem: {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-filesystem"), ws.repo],
  },
  memory: {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-memory")],
    env: { MEMORY_FILE_PATH: join(ws.home, "memory.jsonl") },
  },
});

const texts = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.messages ?? []) as Json[]).flatMap((m) =>
    typeof m.content === "string"
      ? [m.content]
      : (m.content as Json[]).flatMap((b) =>
          typeof b.text === "string"
            ? [b.text]
            : Array.isArray(b.content)
              ? (b.content as Json[]).map((c) => String(c.text ?? ""))
              : typeof b.content === "string"
                ? [b.content]
                : [],
        ),
  );
const notices = (r: RecordedRequest | undefined) => texts(r).filter((t) => t.startsWith("<capabilities>"));

const firstTurn = (message: string): ScenarioTurn[] => [
  { toolCalls: [{ name: "SearchTools", arguments: { query: "mcp__everything__echo" } }] },
  {
    toolCalls: [
      { name: "ExecuteTool", arguments: { toolRef: "mcp__everything__echo", arguments: { message } } },
    ],
  },
  { text: "Echoed." },
];

const args = (ws: Workspace) => ["--model", MODEL, "--cwd", ws.repo, "--output-format", "stream-json"];

describe("keel -p with MCP servers", () => {
  it("three reference servers: SearchTools then ExecuteTool work on turn one, fresh, known, and after -c", async () => {
    const { server, ws } = suite.fresh(firstTurn("cold"));
    config(ws, referenceServers(ws));

    // Never seen: nothing is known, so the search waits for the servers it needs.
    const cold = await runKeel(["-p", "echo cold", ...args(ws)], { server, ws });
    expect(cold.code, cold.stderr).toBe(0);
    expect(texts(server.requests[1]).join("\n")).toContain("mcp__everything:mcp__everything__echo");
    expect(texts(server.requests[2])).toContain("Echo: cold");
    expect(lines(cold.stdout).at(-1)).toMatchObject({ type: "result", text: "Echoed." });
    // What each server listed is kept for the next session, by its definition.
    expect(
      readdirSync(join(ws.home, "data", "mcp", "inventory")).filter((f) => f.endsWith(".json")),
    ).toHaveLength(3);

    // Known now: a new session's first request already names every server's tools.
    server.setScenario({ turns: firstTurn("known") });
    server.requests.length = 0;
    const known = await runKeel(["-p", "echo known", ...args(ws)], { server, ws });
    expect(known.code, known.stderr).toBe(0);
    const told = notices(server.requests[0]);
    expect(told).toHaveLength(1);
    for (const name of [
      "mcp__everything__echo",
      "mcp__filesystem__list_directory",
      "mcp__memory__read_graph",
    ])
      expect(told[0]).toContain(name);
    expect(texts(server.requests[2])).toContain("Echo: known");

    // Resumed: the model knows these tools; the first request says nothing new, and the call works.
    server.setScenario({ turns: firstTurn("resumed") });
    server.requests.length = 0;
    const resumed = await runKeel(["-c", "-p", "echo again", ...args(ws)], { server, ws });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(notices(server.requests[0])).toEqual(told);
    expect(texts(server.requests[2])).toContain("Echo: resumed");
    expect(notices(server.requests[2])).toEqual(told);
  });

  it("a server that never answers initialize: keel exits within a second of its answer, nothing of it left", async () => {
    const { server, ws } = suite.fresh([]);
    const pids = join(ws.home, "silent-pids.json");
    config(ws, { silent: { command: process.execPath, args: [SILENT, pids] } });
    // The answer comes once the server is up and stuck in its handshake.
    server.setScenario({ turns: [{ text: "Nothing to do.", headerDelayMs: 2_500 }] });
    const running = startKeel(["-p", "hi", ...args(ws)], { server, ws });
    await running.waitForLine((l) => l.includes('"type":"result"'));
    const answered = Date.now();
    expect(existsSync(pids)).toBe(true);
    const done = await running.done;
    const took = Date.now() - answered;
    expect(done.code, done.stderr).toBe(0);
    expect(took).toBeLessThan(1_000);
    const { pid, child } = JSON.parse(readFileSync(pids, "utf8")) as { pid: number; child: number };
    // By process group: the server led one, its child in it; none of it runs now (a killed
    // process not yet reaped by init is a zombie, not running).
    const group = execFileSync("ps", ["-A", "-o", "pid=,pgid=,stat="], { encoding: "utf8" })
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter(([, pgid, stat]) => Number(pgid) === pid && !stat?.startsWith("Z"));
    expect(group).toEqual([]);
    for (const p of [pid, child]) {
      // ps exits 1 for a pid that no longer exists.
      const stat = spawnSync("ps", ["-o", "stat=", "-p", String(p)], { encoding: "utf8" }).stdout.trim();
      expect(stat === "" || stat.startsWith("Z"), `process ${p} is still running (${stat})`).toBe(true);
    }
    expect(done.stderr).not.toMatch(/hook timeout|sessionShutdown/);
  });
});
