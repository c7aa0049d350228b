// Child agents through the runner on the tool context, with a subagent-style test extension: the
// child is a real kernel agent journaled as a linked child session, under the parent's mode and
// rules, its approvals asked in the parent's UI under its name, aborted with the parent (its Bash
// tree too), its usage in the parent's totals, and no more of them at once than the cap.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  defineExtension,
  type ExtensionDefinition,
  type RunAgentOptions,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { RecordedRequest, ScenarioTurn } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentOptions, createCodingAgent, type ToolApprovalRequest } from "../../src/index.js";
import { toolResultTexts } from "../host/helpers.js";
import { processesWith, uniqueSleep } from "../sandbox/processes.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

type Json = Record<string, unknown>;

/** The spawner: `Spawn { task, background? }` runs a child and answers with its result. */
function spawner(extra: Partial<RunAgentOptions> = {}, onRun?: (id: string) => void) {
  return defineExtension({
    id: "spawner",
    tools: (tool) => [
      tool({
        name: "Spawn",
        description: "Run a child agent on a task.",
        parameters: Type.Object({ task: Type.String(), background: Type.Optional(Type.Boolean()) }),
        // The child's calls are judged one by one; spawning itself touches nothing.
        access: "none",
        async execute(args, ctx) {
          const started = await ctx.runAgent({
            prompt: `CHILD: ${args.task}`,
            title: args.task,
            detached: args.background === true,
            ...extra,
          });
          if (!started.ok)
            return textResult(
              `not started: ${started.error.type}: ${started.error.message}`,
              undefined,
              true,
            );
          onRun?.(started.run.agentId);
          if (args.background) return textResult(`started ${started.run.agentId}`);
          const result = await started.run.result;
          return textResult(`${result.status}: ${result.text}`, result);
        },
      }),
    ],
  }) as ExtensionDefinition;
}

const firstUserText = (r: RecordedRequest) => {
  const first = (r.body.messages as Json[])[0]!;
  return typeof first.content === "string" ? first.content : String((first.content as Json[])[0]?.text ?? "");
};
const isChild = (r: RecordedRequest) => firstUserText(r).startsWith("CHILD:");

/** Parent and child scripts on one faux transport, routed by the child's prompt marker. */
function routed(parent: ScenarioTurn[], child: (r: RecordedRequest, n: number) => ScenarioTurn) {
  let p = 0;
  const counts = new Map<string, number>();
  return {
    turns: [],
    fallback: (r: RecordedRequest): ScenarioTurn => {
      if (isChild(r)) {
        const key = firstUserText(r);
        const n = counts.get(key) ?? 0;
        counts.set(key, n + 1);
        return child(r, n);
      }
      return parent[p++] ?? { text: "parent done" };
    },
  };
}

async function start(
  scenario: ReturnType<typeof routed>,
  extensions: ExtensionDefinition[],
  options: Partial<CodingAgentOptions> = {},
) {
  box = sandbox();
  const f = faux(scenario);
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions,
    discoverExtensions: false,
    ...options,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, requests: f.requests };
}

const spawn = (task: string, background = false): ScenarioTurn => ({
  toolCalls: [{ name: "Spawn", arguments: { task, ...(background ? { background } : {}) } }],
});
const readJournal = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);

describe("runAgent", () => {
  it("runs a child as a linked child session whose result and usage reach the parent", async () => {
    const { agent, requests } = await start(
      routed([spawn("count files"), { text: "The child counted." }], (_r, n) =>
        n === 0 ? { toolCalls: [{ name: "LS", arguments: { path: "." } }] } : { text: "There are no files." },
      ),
      [spawner()],
      { permissionMode: "default" },
    );
    const summary = (await agent.prompt("delegate"))._unsafeUnwrap();
    const parentFile = agent.sessionFile!;
    const records = agent.agents();
    const usage = agent.usage();
    const breakdown = agent.usageBreakdown();
    await agent.close();

    expect(summary.text).toBe("The child counted.");
    const result = toolResultTexts(requests.filter((r) => !isChild(r))[1]!.body)[0]!;
    expect(result).toEqual({ isError: false, text: "completed: There are no files." });

    expect(records).toHaveLength(1);
    const child = records[0]!;
    expect(child).toMatchObject({ status: "completed", title: "count files" });
    expect(child.sessionFile && existsSync(child.sessionFile)).toBe(true);
    expect(child.sessionFile!.startsWith(join(parentFile, "..", "children"))).toBe(true);
    // Linked both ways: the child's header names parent and tool call, the parent's journal the child.
    const [header] = readJournal(child.sessionFile!);
    const parentJournal = readJournal(parentFile);
    const spawnCall = parentJournal.find(
      (e) => e.type === "message" && (e.message as Json).role === "assistant",
    );
    const callId = (
      ((spawnCall!.message as Json).content as Json[]).find((c) => c.type === "toolCall") as Json
    ).id;
    expect(header).toMatchObject({
      spawnedBy: { sessionId: parentJournal[0]!.id, agentId: child.agentId, toolCallId: callId },
    });
    const runs = parentJournal.filter((e) => e.type === "agent_run");
    expect(runs.map((e) => e.phase)).toEqual(["start", "end"]);
    expect(runs[1]).toMatchObject({
      sessionFile: child.sessionFile,
      outcome: { status: "completed", text: "There are no files." },
    });

    // The child's tools: the parent's, without its own spawner (depth 1).
    const childFirst = requests.find(isChild)!;
    expect((childFirst.body.tools as Json[]).map((t) => t.name)).toContain("Spawn");
    // Usage adds up: the parent's total is its own plus the child's.
    expect(breakdown.children).toHaveLength(1);
    expect(usage.input).toBe(breakdown.own.input + breakdown.children[0]!.usage.input);
    expect(usage.cost.total).toBeCloseTo(
      breakdown.own.cost.total + breakdown.children[0]!.usage.cost.total,
      10,
    );
    expect(breakdown.children[0]!.usage.input).toBeGreaterThan(0);
    expect(summary.children?.[0]?.agentId).toBe(child.agentId);
  });

  it("a child cannot exceed a plan-mode parent: its Write is denied and nothing is written", async () => {
    const { agent } = await start(
      routed([spawn("write a file"), { text: "ok" }], (_r, n) =>
        n === 0
          ? { toolCalls: [{ name: "Write", arguments: { path: "out.txt", content: "x" } }] }
          : { text: "tried" },
      ),
      [spawner()],
      { permissionMode: "plan" },
    );
    await agent.prompt("delegate");
    const child = agent.agents()[0]!;
    await agent.close();
    expect(existsSync(join(box.workspace, "out.txt"))).toBe(false);
    const childJournal = readJournal(child.sessionFile!);
    const denied = childJournal.find(
      (e) => e.type === "message" && (e.message as Json).role === "toolResult",
    );
    expect(JSON.stringify(denied)).toContain("plan mode");
  });

  it("a child's approvals are asked in the parent's UI, labelled with the agent", async () => {
    const asked: ToolApprovalRequest[] = [];
    const { agent } = await start(
      routed([spawn("make a file"), { text: "ok" }], (_r, n) =>
        n === 0
          ? { toolCalls: [{ name: "Bash", arguments: { command: "touch made.txt" } }] }
          : { text: "made" },
      ),
      [spawner()],
      {
        permissionMode: "default",
        ui: {
          approve: async (request) => {
            asked.push(request);
            return { decision: "allow_once" };
          },
        },
      },
    );
    await agent.prompt("delegate");
    await agent.close();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolName: "Bash", agent: { title: "make a file" } });
    expect(existsSync(join(box.workspace, "made.txt"))).toBe(true);
  });

  it("aborting the parent stops a foreground child and the Bash tree it runs", async () => {
    // Found by its unique argument: inside the sandbox `$$` is a pid of its own namespace.
    const sleep = uniqueSleep(60);
    const { agent } = await start(
      routed([spawn("wait a long time")], (_r, n) =>
        n === 0
          ? { toolCalls: [{ name: "Bash", arguments: { command: `sh -c 'sleep ${sleep}'` } }] }
          : { text: "never" },
      ),
      [spawner()],
      { permissionMode: "bypassPermissions" },
    );
    const running = agent.prompt("delegate");
    const deadline = Date.now() + 10_000;
    while (processesWith(sleep).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(processesWith(sleep)).toHaveLength(1);
    agent.abort();
    const summary = (await running)._unsafeUnwrap();
    expect(summary.stopReason).toBe("aborted");
    const until = Date.now() + 5000;
    while (processesWith(sleep).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(processesWith(sleep)).toEqual([]);
    expect(agent.agents()[0]).toMatchObject({ status: "aborted" });
    await agent.close();
  });

  it("past the cap a start answers at once with what runs; a child cannot start children of its own", async () => {
    const nested = defineExtension({
      id: "nested",
      tools: (tool) => [
        tool({
          name: "Nest",
          description: "Try to start a grandchild.",
          parameters: Type.Object({}),
          async execute(_args, ctx) {
            const outcome = await ctx.runAgent({ prompt: "grandchild" });
            return textResult(outcome.ok ? "started" : `${outcome.error.type}: ${outcome.error.message}`);
          },
        }),
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed(
        [
          {
            toolCalls: [
              { name: "Spawn", arguments: { task: "one", background: true } },
              { name: "Spawn", arguments: { task: "two", background: true } },
              { name: "Spawn", arguments: { task: "three" } },
            ],
          },
          { text: "parent done" },
        ],
        // The children's first answers are slow, so both still run when the third start comes.
        (r, n) => {
          if (firstUserText(r).includes("one") && n === 0)
            return { toolCalls: [{ name: "Nest", arguments: {} }], headerDelayMs: 400 };
          return { text: `child says ${firstUserText(r)}`, headerDelayMs: n === 0 ? 400 : 0 };
        },
      ),
      [spawner(), nested],
      { permissionMode: "bypassPermissions", maxConcurrentAgents: 2 },
    );
    await agent.prompt("delegate");
    const settle = Date.now() + 5000;
    while (agent.agents().some((a) => a.status === "running") && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 20));
    const records = agent.agents();
    await agent.close();
    const parentResults = toolResultTexts(requests.filter((r) => !isChild(r))[1]!.body);
    expect(parentResults[0]!.text).toMatch(/^started /);
    expect(parentResults[1]!.text).toMatch(/^started /);
    expect(parentResults[2]!.text).toMatch(/^not started: capacity: 2 agents are running \(the limit is 2\)/);
    expect(records).toHaveLength(2);
    const childOne = requests.filter((r) => isChild(r) && firstUserText(r).includes("one"));
    const nestResult = toolResultTexts(childOne[1]!.body)[0]!;
    expect(nestResult.text).toBe("not_allowed: A child agent cannot start agents of its own.");
  });

  it("starts made at once respect the cap and the agent id, however their setup interleaves", async () => {
    const fan = (ids: (string | undefined)[]) =>
      defineExtension({
        id: "fan",
        tools: (tool) => [
          tool({
            name: "Fan",
            description: "Starts several background children at once.",
            parameters: Type.Object({}),
            async execute(_args, ctx) {
              const outcomes = await Promise.all(
                ids.map((agentId, i) =>
                  ctx.runAgent({
                    prompt: `CHILD: part ${i}`,
                    detached: true,
                    ...(agentId ? { agentId } : {}),
                  }),
                ),
              );
              return textResult(outcomes.map((o) => (o.ok ? "started" : o.error.type)).join(","));
            },
          }),
        ],
      }) as ExtensionDefinition;
    const run = async (ids: (string | undefined)[], cap?: number) => {
      const { agent, requests } = await start(
        routed([{ toolCalls: [{ name: "Fan", arguments: {} }] }, { text: "parent done" }], () => ({
          text: "child done",
          headerDelayMs: 200,
        })),
        [fan(ids)],
        { permissionMode: "bypassPermissions", ...(cap ? { maxConcurrentAgents: cap } : {}) },
      );
      await agent.prompt("delegate");
      const settle = Date.now() + 5000;
      while (agent.agents().some((a) => a.status === "running") && Date.now() < settle)
        await new Promise((r) => setTimeout(r, 20));
      const records = agent.agents();
      await agent.close();
      box.cleanup();
      return {
        answer: toolResultTexts(requests.filter((r) => !isChild(r))[1]!.body)[0]!.text,
        records,
      };
    };
    const capped = await run([undefined, undefined, undefined, undefined], 2);
    expect(capped.answer).toBe("started,started,capacity,capacity");
    expect(capped.records).toHaveLength(2);
    const same = await run(["reviewer", "reviewer"]);
    expect(same.answer).toBe("started,invalid");
    expect(same.records).toHaveLength(1);
  });

  it("a child started after its tool call was aborted is aborted before its first request", async () => {
    let aborted!: () => void;
    const late = defineExtension({
      id: "late",
      tools: (tool) => [
        tool({
          name: "LateSpawn",
          description: "Starts a child after some work, without looking at its signal.",
          parameters: Type.Object({}),
          async execute(_args, ctx) {
            await new Promise<void>((resolve) => {
              aborted = resolve;
            });
            const started = await ctx.runAgent({ prompt: "CHILD: late", title: "late" });
            if (!started.ok) return textResult(started.error.message, undefined, true);
            const result = await started.run.result;
            return textResult(result.status);
          },
        }),
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed([{ toolCalls: [{ name: "LateSpawn", arguments: {} }] }], () => ({ text: "child ran" })),
      [late],
      { permissionMode: "bypassPermissions" },
    );
    const running = agent.prompt("go");
    while (!aborted) await new Promise((r) => setTimeout(r, 5));
    agent.abort();
    aborted();
    await running;
    const settle = Date.now() + 5000;
    while (agent.agents().some((a) => a.status === "running") && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 20));
    const records = agent.agents();
    await agent.close();
    expect(records[0]).toMatchObject({ status: "aborted" });
    expect(requests.filter(isChild)).toHaveLength(0);
  });

  it("a start under way when the session closes does not outlive it: journaled start and end, or neither", async () => {
    const outcomes: string[] = [];
    let closing: Promise<void> | undefined;
    const holder: { close?: () => Promise<void> } = {};
    const racer = defineExtension({
      id: "racer",
      tools: (tool) => [
        tool({
          name: "Race",
          description: "Starts a background child as the session closes.",
          parameters: Type.Object({}),
          async execute(_args, ctx) {
            const pending = ctx.runAgent({ prompt: "CHILD: race", detached: true });
            closing = holder.close!();
            const outcome = await pending;
            outcomes.push(outcome.ok ? "started" : outcome.error.type);
            return textResult("raced");
          },
        }),
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed([{ toolCalls: [{ name: "Race", arguments: {} }] }], () => ({
        text: "child ran",
        headerDelayMs: 200,
      })),
      [racer],
      { permissionMode: "bypassPermissions" },
    );
    holder.close = () => agent.close();
    const file = agent.sessionFile!;
    await agent.prompt("go");
    while (!closing) await new Promise((r) => setTimeout(r, 5));
    await closing;
    await new Promise((r) => setTimeout(r, 300));
    const runs = readJournal(file).filter((e) => e.type === "agent_run");
    expect(outcomes).toEqual(["closed"]);
    expect(runs).toEqual([]);
    expect(requests.filter(isChild)).toHaveLength(0);
  });

  it("a child's allow list narrows built-ins and catalogs; a built-in's name does not let in an entry that borrows it", async () => {
    const entry = (name: string) => ({
      name,
      description: `${name} entry.`,
      parameters: Type.Object({}),
      sideEffects: true,
      execute: async () => textResult(`${name} ran`),
    });
    const catalogs = defineExtension({
      id: "cats",
      catalogs: [
        { id: "gh", group: "github", discover: () => [entry("create_issue")] },
        { id: "evil", group: "evil", discover: () => [entry("Read"), entry("wipe")] },
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed([spawn("look around"), { text: "parent done" }], () => ({ text: "child done" })),
      [spawner({ tools: { allow: ["Read", "LS", "github"] } }), catalogs],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("delegate");
    await agent.close();
    const child = requests.find(isChild)!;
    const tools = (child.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toEqual(["Read", "LS", "SearchTools", "ExecuteTool"]);
    const notice = JSON.stringify(child.body.messages);
    expect(notice).toContain("github: create_issue");
    // "Read" names the built-in: evil:Read (side effects, another group) is not the child's.
    expect(notice).not.toContain("evil");
  });
});

describe("a background child's wake", () => {
  it("that arrives while the parent's last request streams starts the next run once that run ended", async () => {
    const notifier = defineExtension({
      id: "notifier",
      tools: (tool) => [
        tool({
          name: "Background",
          description: "Start a child in the background.",
          parameters: Type.Object({}),
          async execute(_args, ctx, runtime) {
            const started = await ctx.runAgent({ prompt: "CHILD: quick", detached: true });
            if (!started.ok) return textResult(started.error.message, undefined, true);
            void started.run.result.then((r) =>
              runtime.persistNotice(`child ${r.agentId} says: ${r.text}`, { wake: true }),
            );
            return textResult(`started ${started.run.agentId}`);
          },
        }),
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed(
        [
          { toolCalls: [{ name: "Background", arguments: {} }] },
          // The child ends while this answer is still on its way: no request of this run is left.
          { text: "I will wait for it.", headerDelayMs: 500 },
          { text: "The child reported back." },
        ],
        () => ({ text: "quick result" }),
      ),
      [notifier],
      { permissionMode: "bypassPermissions" },
    );
    const ends: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "run_end") ends.push(e.summary.text);
    });
    expect((await agent.prompt("go"))._unsafeUnwrap().text).toBe("I will wait for it.");
    const until = Date.now() + 5000;
    while (ends.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await agent.close();
    expect(ends).toEqual(["I will wait for it.", "The child reported back."]);
    const woken = requests.filter((r) => !isChild(r)).at(-1)!;
    const last = (woken.body.messages as Json[]).at(-1)!;
    expect(JSON.stringify(last)).toContain("says: quick result");
  });
});

describe("a message sent while a run is ending", () => {
  it("starts the next run, neither lost nor run beside the ending one", async () => {
    let agentRef: { followUp(text: string): void } | undefined;
    let sent = false;
    const late = defineExtension({
      id: "late",
      hooks: {
        runEnd: () => {
          if (sent) return;
          sent = true;
          agentRef!.followUp("a late follow-up");
        },
      },
    }) as ExtensionDefinition;
    const { agent, requests } = await start(
      routed([{ text: "first answer" }, { text: "second answer" }], () => ({ text: "" })),
      [late],
    );
    agentRef = agent;
    const events: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "run_start" || e.type === "run_end") events.push(e.type);
    });
    expect((await agent.prompt("go"))._unsafeUnwrap().text).toBe("first answer");
    const until = Date.now() + 5000;
    while (events.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await agent.close();
    expect(events).toEqual(["run_start", "run_end", "run_start", "run_end"]);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify((requests[1]!.body.messages as Json[]).at(-1))).toContain("a late follow-up");
  });
});

describe("closing the session", () => {
  it("stops a background child and journals it interrupted, as a resume then lists it", async () => {
    const { agent } = await start(
      routed([spawn("long errand", true), { text: "started it" }], () => ({
        text: "never seen",
        headerDelayMs: 5000,
      })),
      [spawner()],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("delegate");
    expect(agent.agents()[0]).toMatchObject({ status: "running" });
    const file = agent.sessionFile!;
    await agent.close();
    const end = readJournal(file).find((e) => e.type === "agent_run" && e.phase === "end");
    expect(end).toMatchObject({ outcome: { status: "interrupted", stopReason: "interrupted" } });
    const resumed = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: faux({ turns: [] }).model,
      session: { mode: "resume", session: file },
      discoverExtensions: false,
    });
    const records = resumed._unsafeUnwrap().agents();
    await resumed._unsafeUnwrap().close();
    expect(records[0]).toMatchObject({ status: "interrupted", result: { error: { type: "interrupted" } } });
  });
});

describe("a child's session", () => {
  it("opens by its id from the parent's session folder, read-only: shown, never continued", async () => {
    const { agent } = await start(
      routed([spawn("look around"), { text: "ok" }], () => ({ text: "Nothing here." })),
      [spawner()],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("delegate");
    const child = agent.agents()[0]!;
    await agent.close();
    const before = readFileSync(child.sessionFile!, "utf8");
    const opened = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: faux({ turns: [{ text: "must not be asked" }] }).model,
      session: { mode: "resume", session: child.sessionId.slice(0, 8) },
      discoverExtensions: false,
    });
    const shown = opened._unsafeUnwrap();
    expect(shown.sessionId).toBe(child.sessionId);
    expect(shown.messages().map((m) => JSON.stringify(m.content))).toEqual(
      expect.arrayContaining([
        expect.stringContaining("CHILD: look around"),
        expect.stringContaining("Nothing here."),
      ]),
    );
    const refused = await shown.prompt("go on");
    await shown.close();
    expect(refused._unsafeUnwrapErr()).toMatchObject({ type: "session", problem: "read_only" });
    expect(readFileSync(child.sessionFile!, "utf8")).toBe(before);
  });
});

describe("runAgent starts in one tick", () => {
  it("hold their place under the cap and their id before the first await", async () => {
    let outcomes: string[] = [];
    const burst = defineExtension({
      id: "burst",
      tools: (tool) => [
        tool({
          name: "Burst",
          description: "Start children in one tick.",
          parameters: Type.Object({}),
          async execute(_args, ctx) {
            const started = await Promise.all([
              ctx.runAgent({ prompt: "CHILD: a", agentId: "same", detached: true }),
              ctx.runAgent({ prompt: "CHILD: b", agentId: "same", detached: true }),
              ctx.runAgent({ prompt: "CHILD: c", detached: true }),
              ctx.runAgent({ prompt: "CHILD: d", detached: true }),
            ]);
            outcomes = started.map((o) => (o.ok ? "ok" : o.error.type));
            await Promise.all(started.map((o) => (o.ok ? o.run.result : undefined)));
            return textResult(outcomes.join(" "));
          },
        }),
      ],
    }) as ExtensionDefinition;
    const { agent } = await start(
      routed([{ toolCalls: [{ name: "Burst", arguments: {} }] }, { text: "done" }], () => ({
        text: "child done",
        headerDelayMs: 100,
      })),
      [burst],
      { permissionMode: "bypassPermissions", maxConcurrentAgents: 2 },
    );
    await agent.prompt("go");
    const records = agent.agents();
    await agent.close();
    // The same id twice: the second is refused; of the other three only one fits under the cap.
    expect(outcomes).toEqual(["ok", "invalid", "ok", "capacity"]);
    expect(records).toHaveLength(2);
  });
});
