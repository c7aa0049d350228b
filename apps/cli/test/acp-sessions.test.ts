// `keel acp` beyond one session's turn, through the SDK's client over the built bin: a child
// agent's tool calls shown under the call that started it, session/list, resume and close (the
// lock released), commands offered by what their specs say, and previews from the editor's buffer.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { openEditor } from "./acp-client.js";
import { MODEL, mockSuite } from "./helpers.js";

const { fresh } = mockSuite();

const text = (content: ToolCallContent[] | null | undefined) =>
  (content ?? [])
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("");

describe("keel acp sessions", () => {
  it("shows a child agent's tool calls, asked and updated, under the SpawnAgent call", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([
      {
        toolCalls: [
          {
            id: "toolu_spawn",
            name: "SpawnAgent",
            arguments: { description: "Count files", prompt: "TASK: count the files" },
          },
        ],
      },
      // The child's turns, then the parent's answer.
      // (It writes a file, so it is asked about in the default mode.)
      {
        toolCalls: [
          {
            id: "toolu_child",
            name: "Bash",
            arguments: { command: "touch made.txt && echo child-$((6 * 7))" },
          },
        ],
      },
      { text: "There are 42." },
      { text: "The helper says 42." },
    ]);
    const editor = await openEditor({ server, ws, args: ["--model", MODEL] });
    const agent = editor.connection.agent;
    const { sessionId } = await agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    const done = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Ask a helper." }],
    });
    expect(done.stopReason).toBe("end_turn");

    const calls = editor.of("tool_call");
    const child = calls.find((c) => c.toolCallId.endsWith(":toolu_child"));
    expect(child).toBeDefined();
    const agentId = child!.toolCallId.slice(0, -":toolu_child".length);
    expect(child).toMatchObject({
      kind: "execute",
      title: expect.stringMatching(/^\[Count files\] /),
      _meta: { keel: { agentId, agentTitle: "Count files", parentToolCallId: "toolu_spawn" } },
    });
    // Its approval is the editor's, about the same call.
    const asked = editor.permissions.find((p) => p.toolCall.toolCallId === child!.toolCallId);
    expect(asked?.toolCall.title).toMatch(/^\[Count files\] /);
    const updates = editor.of("tool_call_update").filter((u) => u.toolCallId === child!.toolCallId);
    const finished = updates.find((u) => u.status === "completed");
    expect(text(finished?.content)).toContain("child-42");
    expect(existsSync(join(ws.repo, "made.txt"))).toBe(true);
    // The parent's call ends after its child's.
    const all = editor.updates.map((u) => u.update);
    const childEnd = all.findIndex(
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        u.toolCallId === child!.toolCallId &&
        u.status === "completed",
    );
    const spawnEnd = all.findIndex(
      (u) =>
        u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_spawn" && u.status === "completed",
    );
    expect(childEnd).toBeGreaterThan(-1);
    expect(spawnEnd).toBeGreaterThan(childEnd);
    // The child's words are its own: the editor's message stream is the parent's.
    const said = editor
      .of("agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    expect(said.join("")).toBe("The helper says 42.");
    expect(await editor.quit()).toBe(0);
  });

  it("lists a folder's sessions, closes one (its lock released) and resumes it elsewhere without replay", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([{ text: "Hello there." }, { text: "Still here." }]);
    const editor = await openEditor({ server, ws, args: ["--model", MODEL] });
    expect(editor.initialized.agentCapabilities?.sessionCapabilities).toMatchObject({
      list: {},
      resume: {},
      close: {},
    });
    const agent = editor.connection.agent;
    const { sessionId } = await agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Say hello." }] });

    const listed = await agent.request("session/list", { cwd: ws.repo });
    expect(listed.sessions).toEqual([
      expect.objectContaining({
        sessionId,
        cwd: ws.repo,
        title: "Say hello.",
        updatedAt: expect.any(String),
      }),
    ]);
    expect(listed.nextCursor ?? undefined).toBeUndefined();
    expect((await agent.request("session/list", { cwd: join(ws.repo, "elsewhere") })).sessions).toEqual([]);
    expect((await agent.request("session/list", {})).sessions.map((s) => s.sessionId)).toContain(sessionId);

    // Held open here, another process cannot have it.
    const other = await openEditor({ server, ws, args: ["--model", MODEL] });
    await expect(
      other.connection.agent.request("session/resume", { sessionId, cwd: ws.repo, mcpServers: [] }),
    ).rejects.toThrow(/open|lock/i);

    await agent.request("session/close", { sessionId });
    await expect(
      agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Hi?" }] }),
    ).rejects.toThrow();

    const resumed = await other.connection.agent.request("session/resume", {
      sessionId,
      cwd: ws.repo,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("default");
    // No history replayed: the client has it already.
    expect(other.of("user_message_chunk")).toEqual([]);
    expect(other.of("agent_message_chunk")).toEqual([]);
    expect(other.of("available_commands_update").length).toBeGreaterThan(0);
    const again = await other.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Are you there?" }],
    });
    expect(again.stopReason).toBe("end_turn");
    // The model was given the conversation so far: the same session went on.
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain("Say hello.");
    expect(sent).toContain("Hello there.");
    expect(await other.quit()).toBe(0);
    expect(await editor.quit()).toBe(0);
  });

  it("offers commands by their specs: none that needs a terminal, and refuses to run one", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([]);
    const ran = join(ws.home, "ran");
    const extension = join(ws.home, "screens.mjs");
    writeFileSync(
      extension,
      `import { writeFileSync } from "node:fs";
export default (keel) => {
  keel.registerCommand({ name: "fullscreen", description: "A screen of its own", needsTerminal: true,
    run: () => { writeFileSync(${JSON.stringify(ran)}, "ran"); return { message: "ran" }; } });
  keel.registerCommand({ name: "plain", description: "Says hi", run: () => ({ message: "hi from plain" }) });
};
`,
    );
    const editor = await openEditor({ server, ws, args: ["--model", MODEL, "-e", extension] });
    const agent = editor.connection.agent;
    const { sessionId } = await agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    const answered = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/plain" }],
    });
    expect(answered.stopReason).toBe("end_turn");
    const names =
      editor
        .of("available_commands_update")
        .at(-1)
        ?.availableCommands.map((c) => c.name) ?? [];
    // /tree runs headless (a listing; /tree <id> continues from an entry): offered like the rest.
    expect(names).toEqual(expect.arrayContaining(["plain", "tree", "rewind", "compact"]));
    expect(names).not.toContain("fullscreen");

    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/fullscreen" }] });
    const said = editor
      .of("agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    expect(said.join("\n")).toContain("hi from plain");
    expect(said.join("\n")).toContain("/fullscreen needs Keel's terminal UI");
    expect(existsSync(ran)).toBe(false);
    expect(await editor.quit()).toBe(0);
  });

  it("previews a Write and an Edit against the editor's unsaved buffer, not the disk", {
    timeout: 60_000,
  }, async () => {
    const { server, ws } = fresh([
      // Read first (through the editor): a change to a file never read fails before anyone is asked.
      {
        toolCalls: [
          { id: "toolu_read_notes", name: "Read", arguments: { path: "notes.md" } },
          { id: "toolu_read_plan", name: "Read", arguments: { path: "plan.md" } },
        ],
      },
      {
        toolCalls: [
          { id: "toolu_write", name: "Write", arguments: { path: "notes.md", content: "new text\n" } },
        ],
      },
      // The Write is rejected, which ends that prompt's run; the next prompt makes the Edit.
      {
        toolCalls: [
          {
            id: "toolu_edit",
            name: "Edit",
            arguments: { path: "plan.md", old_string: "typed in the editor", new_string: "edited" },
          },
        ],
      },
      { text: "ok" },
    ]);
    const notes = join(ws.repo, "notes.md");
    const plan = join(ws.repo, "plan.md");
    writeFileSync(notes, "saved on disk\n");
    writeFileSync(plan, "saved on disk\n");
    const buffers: Record<string, string> = {
      [notes]: "unsaved buffer\n",
      [plan]: "typed in the editor\n",
    };
    const editor = await openEditor({
      server,
      ws,
      args: ["--model", MODEL],
      read: (path) => buffers[path] ?? "",
      // Denied: nothing is written; only what was shown matters here.
      answer: () => ({ outcome: { outcome: "selected", optionId: "deny" } }),
    });
    const agent = editor.connection.agent;
    const { sessionId } = await agent.request("session/new", { cwd: ws.repo, mcpServers: [] });
    await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Write the notes." }],
    });
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Edit the plan." }] });

    const write = editor.permissions.find((p) => p.toolCall.toolCallId === "toolu_write");
    expect(write?.toolCall.content).toEqual(
      expect.arrayContaining([
        { type: "diff", path: notes, oldText: "unsaved buffer\n", newText: "new text\n" },
      ]),
    );
    expect(editor.of("tool_call").find((c) => c.toolCallId === "toolu_write")?.content).toEqual([
      { type: "diff", path: notes, oldText: "unsaved buffer\n", newText: "new text\n" },
    ]);
    // The Edit applies to the buffer (not to the disk): the kernel's preview is a diff, with no
    // "does not apply" in what the editor is shown.
    const edit = editor.permissions.find((p) => p.toolCall.toolCallId === "toolu_edit");
    expect(edit).toBeDefined();
    expect(text(edit!.toolCall.content)).not.toContain("does not apply");
    expect(editor.reads).toEqual(expect.arrayContaining([notes, plan]));
    expect(await editor.quit()).toBe(0);
  });
});
