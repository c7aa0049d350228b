// The todo extension inside the real kernel, against the faux provider: updates over several
// runs, the widget, the per-request reminder (sent, never journaled), rewind, fork and resume.
import { readFileSync } from "node:fs";
import type { CodingAgent } from "@keel/coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Todo, todoExtension } from "../src/index.js";
import {
  fauxProvider,
  hosted,
  lastMessageText,
  recordingUi,
  type Sandbox,
  sandbox,
  start,
} from "./kernel-harness.js";

const L1: Todo[] = [
  { id: "1", content: "Read the spec", status: "in_progress" },
  { id: "2", content: "Write the parser", status: "pending" },
  { id: "3", content: "Add tests", status: "pending" },
];
const L2: Todo[] = [
  { id: "1", content: "Read the spec", status: "completed" },
  { id: "2", content: "Write the parser", status: "in_progress" },
  { id: "3", content: "Add tests", status: "pending" },
];
const L3: Todo[] = L2.map((t) => ({ ...t, status: "completed" as const }));
const INVALID: Todo[] = L2.map((t) => ({ ...t, status: "in_progress" as const }));

const L1_LINES = ["▶ 1. Read the spec", "○ 2. Write the parser", "○ 3. Add tests"];
const L2_LINES = ["✓ 1. Read the spec", "▶ 2. Write the parser", "○ 3. Add tests"];
const L3_LINES = ["✓ 1. Read the spec", "✓ 2. Write the parser", "✓ 3. Add tests"];
const L1_REMINDER = "Open todos: ▶ 1. Read the spec ○ 2. Write the parser ○ 3. Add tests";
const L2_REMINDER = "Open todos: ▶ 2. Write the parser ○ 3. Add tests";

const update = (todos: Todo[]) => ({ toolCalls: [{ name: "UpdateTodos", arguments: { todos } }] });

let box: Sandbox;
const open: CodingAgent[] = [];
beforeEach(() => {
  box = sandbox();
});
afterEach(async () => {
  for (const agent of open.splice(0)) await agent.close();
  box.cleanup();
});

describe("todo extension in the kernel", () => {
  it("keeps the list across runs, reminds per request only, and follows rewind, fork and resume", async () => {
    const provider = fauxProvider({
      turns: [
        update(L1), // run 1
        { text: "Started." },
        update(INVALID), // run 2: refused, then fixed
        update(L2),
        { text: "Parser next." },
        update(L3), // run 3
        { text: "All done." },
        { text: "Back on the parser." }, // run 4, after the rewind
      ],
    });
    const recorded = recordingUi();
    const agent = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
      extensions: [hosted(todoExtension)],
      ui: recorded.ui,
    });
    open.push(agent);
    const todoWidgets = () => recorded.widgets.filter((w) => w.key === "todos").map((w) => w.lines);

    expect((await agent.prompt("plan the work")).isOk()).toBe(true);
    expect(agent.extensionState("todo")).toEqual({ todos: L1 });
    // Nothing open before the first update; the follow-up request carries the reminder last.
    expect(lastMessageText(provider.requests[0]).text).not.toContain("Open todos");
    const reminded = lastMessageText(provider.requests[1]);
    expect(reminded.role).toBe("user");
    expect(reminded.text).toContain("<system-reminder>");
    expect(reminded.text).toContain(L1_REMINDER);

    expect((await agent.prompt("go on")).isOk()).toBe(true);
    // The refused update reached the model as an error it can act on; the list did not change.
    expect(lastMessageText(provider.requests[3]).text).toContain(L1_REMINDER);
    expect(provider.requests[3]?.raw).toContain("Todo list not changed: 3 items in_progress");
    expect(lastMessageText(provider.requests[4]).text).toContain(L2_REMINDER);
    expect(agent.extensionState("todo")).toEqual({ todos: L2 });

    expect((await agent.prompt("finish")).isOk()).toBe(true);
    expect(agent.extensionState("todo")).toEqual({ todos: L3 });
    expect(lastMessageText(provider.requests[5]).text).toContain(L2_REMINDER);
    // All done: no reminder at all.
    expect(provider.requests[6]?.raw).not.toContain("Open todos");
    expect(todoWidgets()).toEqual(expect.arrayContaining([L1_LINES, L2_LINES, L3_LINES]));
    expect(todoWidgets().at(-1)).toEqual(L3_LINES);

    // The reminder was sent, never journaled, and is not part of the history.
    expect(readFileSync(agent.sessionFile!, "utf8")).not.toContain("Open todos");
    expect(JSON.stringify(agent.messages())).not.toContain("Open todos");
    // Every request's history is the previous one's, grown: a reminder only ever sits last.
    const history = (i: number) => (provider.requests[i]?.body.messages ?? []) as unknown[];
    const withoutCacheMarks = (messages: unknown[]) =>
      JSON.parse(JSON.stringify(messages).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ""));
    for (let i = 1; i < provider.requests.length; i++) {
      expect(JSON.stringify(history(i).slice(0, -1))).not.toContain("Open todos");
      const before = history(i - 1);
      const kept = lastMessageText(provider.requests[i - 1]).text.includes("Open todos") ? -1 : undefined;
      expect(withoutCacheMarks(history(i).slice(0, before.slice(0, kept).length))).toEqual(
        withoutCacheMarks(before.slice(0, kept)),
      );
    }

    // Rewind before run 3: run 2's list is back, in state, /todos and the next request.
    expect((await agent.rewind(1)).isOk()).toBe(true);
    expect(agent.extensionState("todo")).toEqual({ todos: L2 });
    expect(await agent.commands.run("/todos")).toEqual(
      expect.objectContaining({ value: { message: L2_LINES.join("\n") } }),
    );
    expect((await agent.prompt("continue the parser")).isOk()).toBe(true);
    expect(lastMessageText(provider.requests[7]).text).toContain(L2_REMINDER);
    expect(todoWidgets().at(-1)).toEqual(L2_LINES);

    // A fork keeps the list and shows it.
    const forked = await agent.fork();
    expect(forked.isOk()).toBe(true);
    expect(agent.extensionState("todo")).toEqual({ todos: L2 });
    expect(todoWidgets().at(-1)).toEqual(L2_LINES);
    const forkFile = forked._unsafeUnwrap().sessionFile;
    await agent.close();
    open.splice(0);

    // Resuming the fork shows the list from the journal before anything runs.
    const resumedUi = recordingUi();
    const resumed = await start({
      cwd: box.workspace,
      home: box.home,
      model: provider.model,
      streamOptions: provider.streamOptions,
      extensions: [hosted(todoExtension)],
      session: { mode: "resume", session: forkFile },
      ui: resumedUi.ui,
    });
    open.push(resumed);
    expect(resumed.extensionState("todo")).toEqual({ todos: L2 });
    expect(resumedUi.widgets).toEqual([{ key: "todos", lines: L2_LINES }]);
  });
});
