// `keel acp` end to end: the ACP SDK's client app (what editors build on) drives the built bin
// against the mock model: streaming, an Edit asked about and written through the editor, a Bash
// command's output, the todo plan, a cancel that leaves no process, and the session loaded again.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { EDITOR_CAPABILITIES, openEditor, processesWith } from "./acp-client.js";
import { CLI_ROOT, MODEL, mockSuite, until } from "./helpers.js";

const { fresh } = mockSuite();

const text = (content: ToolCallContent[] | null | undefined) =>
  (content ?? [])
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("");

describe("keel acp", () => {
  it("streams a turn, asks before an Edit and writes it through the editor, runs Bash, keeps the plan, cancels, loads", {
    timeout: 90_000,
  }, async () => {
    const token = `40${process.pid}.${Date.now() % 100000}`;
    const { server, ws } = fresh([
      {
        thinking: "The greeting is in hello.txt.",
        text: "I'll fix the greeting.",
        toolCalls: [
          {
            id: "toolu_plan",
            name: "UpdateTodos",
            arguments: { todos: [{ id: "1", content: "Fix the greeting", status: "in_progress" }] },
          },
          { id: "toolu_read", name: "Read", arguments: { path: "hello.txt" } },
        ],
      },
      {
        toolCalls: [
          {
            id: "toolu_edit",
            name: "Edit",
            arguments: { path: "hello.txt", old_string: "hello", new_string: "goodbye" },
          },
        ],
      },
      { toolCalls: [{ id: "toolu_bash", name: "Bash", arguments: { command: "echo ran-$((40 + 2))" } }] },
      { text: "Done: the greeting says goodbye." },
      // The second prompt: a command that would run for minutes, cancelled by the editor.
      {
        toolCalls: [
          { id: "toolu_sleep", name: "Bash", arguments: { command: `sleep ${token} &\nsleep ${token}` } },
        ],
      },
      { text: "never reached" },
    ]);
    const file = join(ws.repo, "hello.txt");
    writeFileSync(file, "hello world\n");

    const editor = await openEditor({ server, ws, args: ["--model", MODEL] });
    const agent = editor.connection.agent;
    const created = await agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes?.currentModeId).toBe("default");
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "dontAsk",
      "bypassPermissions",
    ]);
    expect(created.configOptions?.find((o) => o.category === "model")).toMatchObject({ currentValue: MODEL });

    const first = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Make the greeting say goodbye." }],
    });
    expect(first.stopReason).toBe("end_turn");

    // Streamed text and thinking.
    const said = editor
      .of("agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    expect(said.length).toBeGreaterThan(1);
    expect(said.join("")).toBe("I'll fix the greeting.Done: the greeting says goodbye.");
    expect(
      editor
        .of("agent_thought_chunk")
        .map((u) => (u.content.type === "text" ? u.content.text : ""))
        .join(""),
    ).toBe("The greeting is in hello.txt.");

    // The Edit: asked through the editor with the terminal's choices, shown as a diff, written by the editor.
    const asked = editor.permissions.find((p) => p.toolCall.toolCallId === "toolu_edit");
    expect(asked).toBeDefined();
    expect(asked!.options.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["allow_once", "allow_always", "reject_once"]),
    );
    const editCall = editor.of("tool_call").find((u) => u.toolCallId === "toolu_edit");
    expect(editCall).toMatchObject({ kind: "edit", locations: [{ path: file }] });
    expect(editCall!.content).toEqual([{ type: "diff", path: file, oldText: "hello", newText: "goodbye" }]);
    expect(
      editor.of("tool_call_update").find((u) => u.toolCallId === "toolu_edit" && u.status === "completed"),
    ).toBeDefined();
    expect(editor.reads).toContain(file);
    expect(editor.writes).toEqual([{ path: file, content: "goodbye world\n" }]);
    expect(readFileSync(file, "utf8")).toBe("goodbye world\n");

    // Bash: its output in the tool call.
    expect(editor.of("tool_call").find((u) => u.toolCallId === "toolu_bash")).toMatchObject({
      kind: "execute",
    });
    const bashDone = editor
      .of("tool_call_update")
      .find((u) => u.toolCallId === "toolu_bash" && u.status === "completed");
    expect(text(bashDone?.content)).toContain("ran-42");

    // The todo list as the plan; Keel's commands offered.
    expect(editor.of("plan").at(-1)?.entries).toEqual([
      { content: "Fix the greeting", status: "in_progress", priority: "medium" },
    ]);
    const commands =
      editor
        .of("available_commands_update")
        .at(-1)
        ?.availableCommands.map((c) => c.name) ?? [];
    expect(commands).toEqual(expect.arrayContaining(["compact", "todos", "trust", "model"]));

    // Cancel mid-run: the command and what it put in the background end with the turn.
    const second = agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Now wait a long time." }],
    });
    await until(() => processesWith(token).length >= 2, "the long command to run", 30_000);
    await agent.notify("session/cancel", { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    await until(() => processesWith(token).length === 0, "no process of the command left", 10_000);

    expect(await editor.quit()).toBe(0);

    // A new connection loads the session: its history comes back as updates before the answer.
    const again = await openEditor({ server, ws, args: ["--model", MODEL] });
    const loaded = await again.connection.agent.request("session/load", {
      sessionId,
      cwd: ws.repo,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("default");
    const users = again
      .of("user_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    // (Persisted notices, such as the capability notice, are in the conversation too: the kernel's
    // messages() does not set them apart from prompts, so the replay shows them as the TUI does.)
    expect(users.filter((u) => !u.startsWith("<capabilities>"))).toEqual([
      "Make the greeting say goodbye.",
      "Now wait a long time.",
    ]);
    expect(
      again.of("agent_message_chunk").map((u) => (u.content.type === "text" ? u.content.text : "")),
    ).toEqual(["I'll fix the greeting.", "Done: the greeting says goodbye."]);
    const replayed = again.of("tool_call");
    expect(replayed.map((c) => c.toolCallId)).toEqual([
      "toolu_plan",
      "toolu_read",
      "toolu_edit",
      "toolu_bash",
      "toolu_sleep",
    ]);
    expect(replayed.find((c) => c.toolCallId === "toolu_edit")).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: file, oldText: "hello", newText: "goodbye" }],
    });
    expect(text(replayed.find((c) => c.toolCallId === "toolu_bash")?.content)).toContain("ran-42");
    expect(again.of("plan").at(-1)?.entries).toEqual([
      { content: "Fix the greeting", status: "in_progress", priority: "medium" },
    ]);
    expect(await again.quit()).toBe(0);
  });

  it("starts the editor's MCP servers, switches modes, takes a denial, asks for trust, cancels a streaming reply", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ id: "toolu_write", name: "Write", arguments: { path: "new.txt", content: "x\n" } }] },
      { text: "streaming forever ", endless: true },
    ]);
    const marker = join(ws.home, "mcp-started");
    const editor = await openEditor({
      server,
      ws,
      args: ["--model", MODEL],
      capabilities: { ...EDITOR_CAPABILITIES, elicitation: { form: {} } },
      answer: (request) => {
        const wanted = request.toolCall.toolCallId.startsWith("trust:") ? "trust" : "tell";
        return { outcome: { outcome: "selected", optionId: wanted } };
      },
      elicit: () => ({ action: "accept", content: { instead: "put it in notes.md instead" } }),
    });
    const agent = editor.connection.agent;
    // The project is not trusted; the editor's server is the user's choice and starts all the same.
    const { sessionId } = await agent.request("session/new", {
      cwd: ws.repo,
      mcpServers: [
        {
          name: "marker",
          command: process.execPath,
          args: [join(CLI_ROOT, "test/mcp-fixtures/marker-server.mjs")],
          env: [{ name: "MARKER", value: marker }],
        },
      ],
    });
    await until(() => existsSync(marker), "the editor's MCP server to be started", 20_000);

    await agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await until(
      () => editor.of("current_mode_update").some((u) => u.currentModeId === "plan"),
      "the mode update",
    );
    const set = await agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "default",
    });
    expect(set.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("default");

    // A Write denied with words (the editor's form): nothing written, the turn ends (it is not a
    // cancel), and the model is not asked again until the next prompt.
    const denied = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Write it." }],
    });
    expect(denied.stopReason).toBe("end_turn");
    const asked = editor.permissions.find((p) => p.toolCall.toolCallId === "toolu_write");
    expect(asked?.options.map((o) => o.optionId)).toEqual(["once", "always:0", "deny", "tell"]);
    expect(existsSync(join(ws.repo, "new.txt"))).toBe(false);
    expect(editor.writes).toEqual([]);
    expect(editor.of("tool_call_update").find((u) => u.toolCallId === "toolu_write")?.status).toBe("failed");

    // /trust shows what the project could do and asks through the editor, like the terminal.
    const trusted = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/trust" }],
    });
    expect(trusted.stopReason).toBe("end_turn");
    const question = editor.permissions.find((p) => p.toolCall.toolCallId.startsWith("trust:"));
    expect(question?.toolCall.title).toBe("Trust this project as it is now?");
    expect(question?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(readFileSync(join(ws.home, "trust.json"), "utf8")).toContain(ws.repo);
    const said = editor
      .of("agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    expect(said.join("\n")).toContain(`Trusted ${ws.repo}`);

    // A cancel while the model streams reaches the model request: a reply that never ends, ended.
    const streaming = agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Talk." }],
    });
    await until(
      () =>
        editor
          .of("agent_message_chunk")
          .some((u) => u.content.type === "text" && u.content.text.startsWith("streaming")),
      "the endless reply to stream",
    );
    await agent.notify("session/cancel", { sessionId });
    expect((await streaming).stopReason).toBe("cancelled");
    // The words typed with the denial reached the model with the Write's result.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("put it in notes.md instead");
    expect(await editor.quit()).toBe(0);
  });
  it("sends the sandbox's line to an editor that takes notices, once, even when its probe ends after the session started", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([]);
    // A bubblewrap that takes its time, then cannot make a sandbox: the probe ends after session/new.
    const fake = join(ws.home, "slow-bwrap");
    writeFileSync(
      fake,
      '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\nsleep 1\necho "bwrap: setting up uid map: Permission denied" >&2; exit 1\n',
    );
    chmodSync(fake, 0o755);
    const editor = await openEditor({
      server,
      ws,
      args: ["--model", MODEL],
      env: { KEEL_BWRAP: fake },
      capabilities: { ...EDITOR_CAPABILITIES, session: { notices: {} } },
    });
    await editor.connection.agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    const said = () =>
      editor.updates
        .map((u) => u.update as { sessionUpdate: string; title?: string })
        .filter((u) => u.sessionUpdate === "notice" && u.title?.startsWith("No OS sandbox"));
    await until(() => said().length > 0, "the sandbox's notice");
    await new Promise((r) => setTimeout(r, 300));
    expect(said()).toHaveLength(1);
    expect(await editor.quit()).toBe(0);
  });
});
