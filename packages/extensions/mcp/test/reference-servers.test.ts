// The official reference servers over stdio, spawned as `node <bin>` from devDependencies:
// server-everything (tools, errors, progress, timeout, sampling, roots, resources, prompts,
// rich results), server-filesystem (roots only, and roots changing), server-memory (its file
// in a temp dir).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { failureResult, toToolResult } from "../src/catalog/results.js";
import { McpConnection } from "../src/connection/index.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { binOf, everything, stdioSpec, tempDir } from "./helpers/servers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(spec: ReturnType<typeof stdioSpec>, handlers = plainHandlers()) {
  const dir = tempDir();
  const connection = new McpConnection(spec, {
    clientInfo,
    logFile: join(dir.path, `${spec.name}.log`),
    handlers,
  });
  cleanups.push(dir.cleanup, () => connection.close());
  return { connection, dir: dir.path };
}

const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => (c.type === "text" ? c.text : `<${c.type}>`)).join("\n");

/** Runs a call and converts it the way the catalog entry does. */
async function call(connection: McpConnection, name: string, args: Record<string, unknown>, saveDir: string) {
  const tool =
    connection.tools().find((t) => t.name === name) ?? ({ name, inputSchema: { type: "object" } } as Tool);
  const result = await connection.callTool(name, args);
  return result.isOk()
    ? toToolResult(result.value, {
        server: connection.name,
        tool,
        maxChars: 40_000,
        saveDir,
        callId: `call-${name}`,
      })
    : failureResult(connection.name, name, result.error);
}

describe("server-everything over stdio", () => {
  it("lists and calls tools; an unknown tool and bad arguments are tool errors", async () => {
    const { connection, dir } = open(everything());
    expect((await connection.ready()).isOk()).toBe(true);
    expect(connection.tools().map((t) => t.name)).toEqual(
      expect.arrayContaining(["echo", "get-sum", "get-tiny-image"]),
    );
    expect(textOf(await call(connection, "echo", { message: "hello" }, dir))).toBe("Echo: hello");
    expect(textOf(await call(connection, "get-sum", { a: 2, b: 40 }, dir))).toContain("42");
    const unknown = await call(connection, "no-such-tool", {}, dir);
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/no-such-tool/);
    const bad = await call(connection, "echo", { message: 42 }, dir);
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/message/);
  });

  it("turns images, resource links, embedded resources and structured content into Keel results", async () => {
    const { connection, dir } = open(everything());
    await connection.ready();
    const image = await call(connection, "get-tiny-image", {}, dir);
    expect(
      image.content.some((c) => c.type === "image" && c.mimeType === "image/png" && c.data.length > 100),
    ).toBe(true);
    const links = await call(connection, "get-resource-links", { count: 2 }, dir);
    expect(textOf(links).match(/\[resource link\] .*: demo:\/\/resource\//g)).toHaveLength(2);
    const embedded = await call(
      connection,
      "get-resource-reference",
      { resourceType: "Text", resourceId: 1 },
      dir,
    );
    expect(textOf(embedded)).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/1/);
    const structured = await call(connection, "get-structured-content", { location: "New York" }, dir);
    expect(structured.isError).toBeUndefined();
    expect(structured.details).toMatchObject({ structuredContent: { temperature: expect.any(Number) } });
  });

  it("reports progress of a long call, and times out a call that goes quiet", async () => {
    const { connection } = open(everything({ timeoutMs: 600 }));
    await connection.ready();
    const progress: number[] = [];
    const done = await connection.callTool(
      "trigger-long-running-operation",
      { duration: 1.5, steps: 5 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(done.isOk()).toBe(true);
    // The last notification may arrive after the result (then the SDK drops it).
    expect(progress.slice(0, 4)).toEqual([1, 2, 3, 4]);
    const quiet = await connection.callTool("trigger-long-running-operation", { duration: 5, steps: 1 });
    expect(quiet.isErr() && quiet.error.type).toBe("timeout");
  });

  it("answers its sampling and roots requests", async () => {
    const samples: unknown[] = [];
    const { connection, dir } = open(
      everything({ sampling: { enabled: true, maxTokens: 100, maxRequests: 3 } }),
      plainHandlers({
        roots: () => [{ uri: pathToFileURL("/work/project").href, name: "project" }],
        sample: async (params) => {
          samples.push(params);
          return {
            role: "assistant",
            content: { type: "text", text: "sampled answer" },
            model: "faux/model",
            stopReason: "endTurn",
          };
        },
      }),
    );
    await connection.ready();
    const sampled = await call(
      connection,
      "trigger-sampling-request",
      { prompt: "What is 2+2?", maxTokens: 50 },
      dir,
    );
    expect(textOf(sampled)).toContain("sampled answer");
    expect(JSON.stringify(samples[0])).toContain("What is 2+2?");
    const roots = await call(connection, "get-roots-list", {}, dir);
    expect(textOf(roots)).toContain("file:///work/project");
  });

  it("reads a resource and gets prompts", async () => {
    const { connection } = open(everything());
    await connection.ready();
    const listed = await connection.listResources(undefined);
    expect(listed.isOk()).toBe(true);
    const first = listed._unsafeUnwrap().resources[0]!;
    const read = await connection.readResource(first.uri);
    expect(read.isOk() && read.value.contents[0]?.uri).toBe(first.uri);
    expect(connection.prompts().map((p) => p.name)).toEqual(
      expect.arrayContaining(["simple-prompt", "args-prompt"]),
    );
    const prompt = await connection.getPrompt("args-prompt", { city: "Lisbon" });
    expect(prompt.isOk() && JSON.stringify(prompt.value.messages)).toContain("Lisbon");
  });
});

describe("server-filesystem with roots only", () => {
  it("works inside the roots Keel gives and follows a change of roots", async () => {
    const work = tempDir();
    cleanups.push(work.cleanup);
    const first = join(work.path, "first");
    const second = join(work.path, "second");
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(first, "note.txt"), "from the first root");
    let roots = [{ uri: pathToFileURL(first).href, name: "first" }];
    const { connection, dir } = open(
      stdioSpec("filesystem", [binOf("@modelcontextprotocol/server-filesystem")]),
      plainHandlers({ roots: () => roots }),
    );
    expect((await connection.ready()).isOk()).toBe(true);
    // The server asks for roots once initialized, on its own schedule: poll its answer, bounded.
    const allowedNow = async (want: string) => {
      let now = "";
      for (let i = 0; i < 50 && !now.includes(want); i++) {
        now = textOf(await call(connection, "list_allowed_directories", {}, dir));
      }
      return now;
    };
    expect(await allowedNow(first)).toContain(first);
    const read = await call(connection, "read_text_file", { path: join(first, "note.txt") }, dir);
    expect(textOf(read)).toBe("from the first root");
    const outside = await call(connection, "read_text_file", { path: join(second, "x.txt") }, dir);
    expect(outside.isError).toBe(true);

    roots = [{ uri: pathToFileURL(second).href, name: "second" }];
    connection.rootsChanged();
    const now = await allowedNow(second);
    expect(now).toContain(second);
    expect(now).not.toContain(first);
  });
});

describe("server-memory", () => {
  it("keeps its graph in the file Keel points it to", async () => {
    const work = tempDir();
    cleanups.push(work.cleanup);
    const file = join(work.path, "memory.jsonl");
    const { connection, dir } = open(
      stdioSpec("memory", [binOf("@modelcontextprotocol/server-memory")], {
        env: { MEMORY_FILE_PATH: file },
      }),
    );
    await connection.ready();
    const created = await call(
      connection,
      "create_entities",
      { entities: [{ name: "Keel", entityType: "project", observations: ["speaks MCP"] }] },
      dir,
    );
    expect(created.isError).toBeUndefined();
    const graph = await call(connection, "read_graph", {}, dir);
    expect(textOf(graph)).toContain("speaks MCP");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain('"name":"Keel"');
  });
});
