// The cache invariant at the wire, with the todo reminder on every request: over a 20-turn session
// whose catalog grows, shrinks and changes an entry, with a persisted notice at turn 7 and a rewind,
// (1) every request minus its one-request reminder is a byte prefix of the next one on its branch,
// and (2) the previous request's history breakpoint (cache_control on the last kept block, read
// from the raw bytes with the markers kept) sits at the same position, unchanged, in the next one.

import { assertPrefixRetained, startKernel } from "@keel/coding-agent/testing";
import { type CatalogEntry, defineExtension, Type, textResult } from "@keel/extension-sdk";
import { fauxModel, isSystemReminder, type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Todo, todoExtension } from "../src/index.js";
import { type Sandbox, sandbox } from "./kernel-harness.js";

type Json = Record<string, unknown>;

const textOf = (message: Json): string => {
  const content = message.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? String((content[0] as Json)?.text ?? "") : "";
};

let server: MockServer;
let box: Sandbox;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => box?.cleanup());

const todos = (n: number): Todo[] => [
  { id: "1", content: `Step ${n}`, status: "in_progress" },
  { id: "2", content: "Wrap up", status: "pending" },
];
const entry = (name: string, description: string): CatalogEntry => ({
  name,
  description,
  parameters: Type.Object({}),
  execute: async () => textResult(`${name} ran`),
});

describe("cache breakpoints with the todo reminder", () => {
  it("keeps retention 1.000 and every history breakpoint readable by the next request, through catalog changes, a persisted notice and a rewind", async () => {
    box = sandbox();
    const tools = new Map<string, string>([["lookup", "Look a thing up"]]);
    let invalidate = () => {};
    let turn = 0;
    const probe = defineExtension({
      id: "probe",
      catalogs: [
        {
          id: "probe",
          discover: () => [...tools].map(([name, d]) => entry(name, d)),
          subscribe: (fn) => {
            invalidate = fn;
            return undefined;
          },
        },
      ],
      hooks: {
        // Turns count per run; the session's turn is what matters here.
        turnEnd: (_event, runtime) => {
          turn++;
          if (turn === 3) tools.set("fetch", "Fetch a page");
          if (turn === 6) runtime.persistNotice("The nightly build finished: green.");
          if (turn === 8) tools.delete("lookup");
          if (turn === 13) tools.set("fetch", "Fetch a page, now with retries");
          invalidate();
        },
      },
    });
    // Ten requests for the first prompt and ten for the second: UpdateTodos every turn keeps the
    // reminder on every request but the first.
    server.setScenario({
      turns: [],
      fallback: (request) => {
        const n = request.index;
        if (n === 9 || n === 19 || n >= 22) return { text: `Done ${n}.` };
        return { toolCalls: [{ name: "UpdateTodos", arguments: { todos: todos(n) } }] };
      },
    });
    const from = server.requests.length;
    const agent = await startKernel({
      cwd: box.workspace,
      home: box.home,
      model: fauxModel("anthropic-messages", { baseUrl: server.anthropicBaseUrl }) as never,
      streamOptions: { apiKey: "test", retry: { baseDelayMs: 1 } },
      permissionMode: "bypassPermissions",
      extensions: [todoExtension, probe],
    });
    expect((await agent.prompt("First part.")).isOk()).toBe(true);
    expect((await agent.prompt("Second part.")).isOk()).toBe(true);
    const firstBranch = server.requests.slice(from);
    expect(firstBranch).toHaveLength(20);
    // Rewind the second prompt and go on from the end of the first: a new branch.
    expect((await agent.rewind(1)).isOk()).toBe(true);
    expect((await agent.prompt("Second part, differently.")).isOk()).toBe(true);
    await agent.close();
    const secondBranch = [...firstBranch.slice(0, 10), ...server.requests.slice(from + 20)];
    expect(secondBranch.length).toBeGreaterThanOrEqual(12);

    // Each branch: every request (its reminder aside) a prefix of the next, the previous request's
    // history breakpoint where it was; one or two history markers each, never on the reminder.
    assertPrefixRetained(firstBranch, { historyMarkers: [1, 2] });
    assertPrefixRetained(secondBranch, { historyMarkers: [1, 2] });

    // The reminder rides on every request but the first, and never takes the breakpoint.
    for (const r of firstBranch.slice(1))
      expect(isSystemReminder(((JSON.parse(r.raw) as Json).messages as Json[]).at(-1))).toBe(true);
    // Left at the end of turn 6, the persisted notice goes out with turn 7 (request 6) and stays.
    const noticeAt = firstBranch.findIndex((r) => r.raw.includes("The nightly build finished"));
    expect(noticeAt).toBe(6);
    for (const r of firstBranch.slice(noticeAt)) expect(r.raw).toContain("The nightly build finished");
    // The catalog reached the model as a first list and then diffs only.
    const last = (JSON.parse(firstBranch.at(-1)!.raw) as Json).messages as Json[];
    const notices = last.map(textOf).filter((t) => t.startsWith("<capabilities>"));
    expect(notices[0]).toContain("probe: lookup");
    expect(notices.slice(1).join("\n")).toMatch(
      /Added:\n {2}probe: fetch[\s\S]*Removed:\n {2}probe: lookup[\s\S]*Updated:\n {2}probe: fetch/,
    );
  });
});
