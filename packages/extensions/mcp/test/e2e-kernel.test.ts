// The extension in the real kernel with the faux model: SearchTools finds an MCP tool by its
// exact name, ExecuteTool runs it, and the answer reaches the model; tools join by notice; the
// readOnlyHint policy meets the user's permission rules.
import { fileURLToPath } from "node:url";
import { recordingUi } from "@keel/coding-agent/testing";
import { afterEach, describe, expect, it } from "vitest";
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

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
let box: Sandbox;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  box?.cleanup();
});

describe("MCP in the kernel", () => {
  it("finds mcp__everything__echo by exact name, runs it, and the answer reaches the model", async () => {
    box = sandbox();
    writeUserConfig(
      box,
      {
        everything: {
          command: process.execPath,
          args: [binOf("@modelcontextprotocol/server-everything"), "stdio"],
        },
      },
      { permissions: { allow: ["mcp__everything__echo"] } },
    );
    const provider = fauxProvider({
      turns: [
        { toolCalls: [{ name: "SearchTools", arguments: { query: "mcp__everything__echo" } }] },
        {
          toolCalls: [
            {
              name: "ExecuteTool",
              arguments: { toolRef: "mcp__everything__echo", arguments: { message: "hi from the model" } },
            },
          ],
        },
        { text: "It said hi." },
      ],
    });
    const { agent, status } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    });
    closing.push(() => agent.close());
    await status((text) => text.startsWith("mcp 1/1"));
    const run = await agent.prompt("use the echo tool");
    expect(run._unsafeUnwrap().stopReason).toBe("stop");
    const [first, second, third] = provider.requests;
    // The first request tells the model the tools by name only, in a notice; no schema is resident.
    const notice = notices(first)[0]!;
    expect(notice).toContain("mcp__everything: ");
    expect(notice).toContain("mcp__everything__echo");
    expect(JSON.stringify(first?.body.tools)).not.toContain("mcp__everything");
    // SearchTools answered with the exact entry first, and its schema.
    const search = texts(second).find((t) => t.includes("mcp__everything:mcp__everything__echo"))!;
    expect(search.indexOf("mcp__everything:mcp__everything__echo")).toBe(0);
    expect(search).toContain('"message"');
    expect(texts(third)).toContain("Echo: hi from the model");
  });

  it("runs a task-only tool through ExecuteTool as a task, its status reaching the host as tool progress", async () => {
    box = sandbox();
    writeUserConfig(
      box,
      { tasks: { command: process.execPath, args: [fixture, "--tasks"] } },
      { permissions: { allow: ["mcp__tasks"] } },
    );
    const provider = fauxProvider({
      turns: [
        {
          toolCalls: [
            { name: "ExecuteTool", arguments: { toolRef: "mcp__tasks__slow_task", arguments: { steps: 3 } } },
          ],
        },
        { text: "Done." },
      ],
    });
    const { agent, status, events } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    });
    closing.push(() => agent.close());
    await status((text) => text.startsWith("mcp 1/1"));
    await agent.prompt("run the task");
    expect(notices(provider.requests[0])[0]).toContain("mcp__tasks__slow_task");
    expect(texts(provider.requests[1])).toContain("done after 3 steps");
    const updates = events.flatMap((e) => (e.type === "tool_update" ? [e] : []));
    expect(updates.some((u) => /^task working: step \d of 3$/.test(u.text))).toBe(true);
    expect(updates.some((u) => u.text === "progress 3 of 3")).toBe(true);
  });

  it("announces a slow server's tools by notice once it connects, without delaying the first request", async () => {
    box = sandbox();
    writeUserConfig(box, {
      fixture: {
        command: process.execPath,
        args: [fixture],
        env: { FIXTURE_INSTRUCTIONS: "Prefer echo for tests." },
      },
    });
    const provider = fauxProvider({ turns: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const { agent, status } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    });
    closing.push(() => agent.close());
    // Prompted at once: the server has not even been spawned yet (it starts after activation).
    await agent.prompt("first");
    expect(notices(provider.requests[0])).toEqual([]);
    await status((text) => text.startsWith("mcp 1/1"));
    await agent.prompt("second");
    const joined = notices(provider.requests[1]);
    expect(joined).toHaveLength(1);
    expect(joined[0]).toContain(
      "mcp__fixture: mcp__fixture__echo, mcp__fixture__set_tools, mcp__fixture__slow",
    );
  });

  it("lets readOnlyHint lift the ask only where the user has not said otherwise", async () => {
    box = sandbox();
    writeUserConfig(
      box,
      { fixture: { command: process.execPath, args: [fixture] } },
      { permissions: { ask: ["mcp__fixture__echo"] } },
    );
    const call = (tool: string, args: Record<string, unknown> = {}) => ({
      toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: tool, arguments: args } }],
    });
    const provider = fauxProvider({
      turns: [call("mcp__fixture__pid"), call("mcp__fixture__echo", { message: "x" }), { text: "done" }],
    });
    const { agent, status } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    });
    closing.push(() => agent.close());
    await status((text) => text.startsWith("mcp 1/1"));
    await agent.prompt("go");
    // pid has no hints: it asks, and headless means no.
    expect(texts(provider.requests[1]).join("\n")).toMatch(/mcp__fixture:mcp__fixture__pid needs approval/);
    // echo is read-only by its hint, but the user's ask rule still stands.
    expect(texts(provider.requests[2]).join("\n")).toMatch(/rule mcp__fixture__echo asks/);
  });

  it("an approval names the tool once (server and tool) and shows its arguments, bounded", async () => {
    box = sandbox();
    writeUserConfig(box, {
      everything: {
        command: process.execPath,
        args: [binOf("@modelcontextprotocol/server-everything"), "stdio"],
        // echo says it is read-only; ignoring that makes it a call Keel asks about.
        readOnlyHints: "ignore",
      },
    });
    const long = "x".repeat(5000);
    const provider = fauxProvider({
      turns: [
        {
          toolCalls: [
            {
              name: "ExecuteTool",
              arguments: { toolRef: "mcp__everything__echo", arguments: { message: "hi from the model" } },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: "ExecuteTool",
              arguments: { toolRef: "mcp__everything__echo", arguments: { message: long } },
            },
          ],
        },
        { text: "Echoed." },
      ],
    });
    const ui = recordingUi({ interactive: true, approve: () => ({ decision: "allow_once" }) });
    const { agent, status } = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
      permissionMode: "default",
      ui: ui.ui,
    });
    closing.push(() => agent.close());
    await status((text) => text.startsWith("mcp 1/1"));
    (await agent.prompt("echo twice"))._unsafeUnwrap();
    const [first, second] = ui.approvals;
    // The identity rules name stays; what people are shown does not repeat the server.
    expect(first!.toolName).toBe("mcp__everything:mcp__everything__echo");
    expect(first!.shownName).toBe("mcp__everything__echo");
    expect(first!.preview).toEqual({
      format: "text",
      text: 'MCP server "everything", tool "echo"\n{\n  "message": "hi from the model"\n}',
    });
    const big = second!.preview!.text;
    expect(big.length).toBeLessThan(2200);
    expect(big).toMatch(/… \(\d+ more characters\)$/);
    // Transcripts and editors describe the call the same way.
    expect(
      agent.describeToolCall("ExecuteTool", {
        toolRef: "mcp__everything__echo",
        arguments: { message: "hi from the model" },
      }).summary,
    ).toBe("mcp__everything__echo hi from the model");
  });
});
