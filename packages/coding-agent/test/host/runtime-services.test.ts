// What the runtime gives an extension, through the real kernel: commands added after activation,
// writes of its own user config, approvals (headless: unsupported at once), persisted notices
// (journaled, sent, kept on resume, waking an idle session), models and one-off completions, a
// data dir and the debug log, run-scoped grants, signals in hooks, and sessionShutdown's reasons.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  defineExtension,
  definitionFromFactory,
  type ExtensionDefinition,
  type ExtensionRuntime,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CodingAgent,
  type CodingAgentOptions,
  createCodingAgent,
  trustProject,
} from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { toolResultTexts, userTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

/** An extension that hands its runtime to the test. */
function grab(extra: Partial<ExtensionDefinition> = {}) {
  const holder: { runtime?: ExtensionRuntime } = {};
  const definition = defineExtension({
    id: "probe",
    ...extra,
    lifecycle: {
      activate: (ctx) => {
        holder.runtime = ctx as unknown as ExtensionRuntime;
      },
    },
  } as ExtensionDefinition) as ExtensionDefinition;
  return { definition, holder };
}

async function start(
  scenario: Scenario,
  extensions: ExtensionDefinition[],
  options: Partial<CodingAgentOptions> = {},
) {
  box ??= sandbox();
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
  return { agent: created.value, requests: f.requests, f };
}

const waitFor = async (check: () => boolean, ms = 3000) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
};

describe("commands after activation", () => {
  it("adds and removes commands with the same clash checks as declared ones", async () => {
    box = sandbox();
    const other = defineExtension({
      id: "other",
      commands: [{ name: "taken", description: "d", run: () => ({ message: "other's" }) }],
    }) as ExtensionDefinition;
    const { definition, holder } = grab();
    const { agent } = await start({ turns: [] }, [other, definition]);
    const rt = holder.runtime!;
    expect(rt.commands.add({ name: "help", description: "d", run: () => undefined })).toEqual({
      ok: false,
      message: 'command "/help" is already provided by built-in',
    });
    expect(rt.commands.add({ name: "taken", description: "d", run: () => undefined })).toEqual({
      ok: false,
      message: 'command "/taken" is already provided by extension other',
    });
    expect(
      rt.commands.add({
        name: "skill:review",
        description: "Review",
        run: (args) => ({ message: `review ${args}` }),
      }),
    ).toEqual({ ok: true });
    expect(agent.commands.list().map((c) => c.name)).toContain("skill:review");
    expect((await agent.commands.run("/skill:review src/a.ts"))._unsafeUnwrap()).toEqual({
      message: "review src/a.ts",
    });
    expect(rt.commands.remove("skill:review")).toBe(true);
    expect(rt.commands.remove("taken")).toBe(false);
    expect(agent.commands.list().map((c) => c.name)).not.toContain("skill:review");
    await agent.close();
  });
});

describe("updateConfig", () => {
  it("writes only extensions.<id>.config of the user file, validated, and the runtime sees it", async () => {
    box = sandbox();
    mkdirSync(box.home, { recursive: true });
    const userFile = join(box.home, "config.json");
    writeFileSync(
      userFile,
      JSON.stringify({
        model: "anthropic/x",
        extensions: { probe: { enabled: true, config: { level: 1 } } },
      }),
    );
    const { definition, holder } = grab({
      configuration: {
        scope: "user",
        schema: Type.Object({ level: Type.Integer({ minimum: 0 }), always: Type.Array(Type.String()) }),
        default: { level: 0, always: [] },
      },
    });
    const { agent } = await start({ turns: [] }, [definition]);
    const rt = holder.runtime! as ExtensionRuntime<{ level: number; always: string[] }>;
    expect(rt.config).toEqual({ level: 1, always: [] });
    const updated = rt.updateConfig("user", (c) => ({ ...c, always: [...c.always, "github__list_issues"] }));
    expect(updated).toEqual({ ok: true, config: { level: 1, always: ["github__list_issues"] } });
    expect(rt.config.always).toEqual(["github__list_issues"]);
    expect(JSON.parse(readFileSync(userFile, "utf8"))).toEqual({
      model: "anthropic/x",
      extensions: { probe: { enabled: true, config: { level: 1, always: ["github__list_issues"] } } },
    });
    const before = readFileSync(userFile, "utf8");
    const invalid = rt.updateConfig("user", (c) => ({ ...c, level: -3 }));
    expect(invalid.ok).toBe(false);
    expect(readFileSync(userFile, "utf8")).toBe(before);
    expect(rt.config.level).toBe(1);
    await agent.close();
  });
});

describe("approve", () => {
  it("answers unsupported at once without a UI, maps dialog answers with one, and journals each", async () => {
    box = sandbox();
    const headless = grab();
    const a = await start({ turns: [] }, [headless.definition]);
    const started = Date.now();
    expect(await headless.holder.runtime!.approve({ title: "Create an issue?" })).toEqual({
      status: "unsupported",
    });
    // At once: no dialog to wait for (generous for a loaded machine; a hang would take forever).
    expect(Date.now() - started).toBeLessThan(1000);
    await a.agent.close();

    const seen: unknown[] = [];
    const answers = [
      { decision: "allow_always" },
      { decision: "allow_always" },
      { decision: "deny", reason: "not today" },
    ] as const;
    const withUi = grab();
    const b = await start({ turns: [] }, [withUi.definition], {
      ui: {
        approve: async (request) => {
          seen.push({
            kind: request.kind,
            title: request.title,
            offersAlways: request.offersAlways,
            preview: request.preview,
          });
          return answers[seen.length - 1]!;
        },
      },
    });
    const rt = withUi.holder.runtime!;
    const preview = { format: "json" as const, text: '{"title":"bug"}' };
    expect(
      await rt.approve({
        title: "Create?",
        subject: "github:github__create_issue",
        offerAlways: true,
        preview,
      }),
    ).toEqual({ status: "allowed", scope: "always" });
    // "always" that was not offered is granted once only.
    expect(await rt.approve({ title: "Merge?" })).toEqual({ status: "allowed", scope: "once" });
    expect(await rt.approve({ title: "Close?" })).toEqual({ status: "denied", reason: "not today" });
    expect(seen[0]).toEqual({ kind: "extension", title: "Create?", offersAlways: true, preview });
    const file = b.agent.sessionFile!;
    await b.agent.close();
    const approvals = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "approval");
    expect(approvals.map((e) => [e.subject, e.decision])).toEqual([
      ["github:github__create_issue", "allow_always"],
      ["probe", "allow_once"],
      ["probe", "deny"],
    ]);
  });

  it("an aborted question answers cancelled", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const { agent } = await start({ turns: [] }, [definition], {
      ui: { approve: () => new Promise(() => {}) },
    });
    const controller = new AbortController();
    const pending = holder.runtime!.approve({ title: "Wait?", signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ status: "cancelled" });
    await agent.close();
  });
});

describe("persisted notices", () => {
  it("an idle session journals it at once; the next request carries it; a resume keeps it", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const { agent, requests } = await start({ turns: [{ text: "one" }, { text: "two" }] }, [definition]);
    await agent.prompt("first");
    holder.runtime!.persistNotice("Agent reviewer finished: 2 findings.");
    await waitFor(() => readFileSync(agent.sessionFile!, "utf8").includes('"type":"notice"'));
    await agent.prompt("second");
    const file = agent.sessionFile!;
    await agent.close();
    const texts = userTexts(requests[1]!.body);
    expect(texts).toContain('<notice from="probe">\nAgent reviewer finished: 2 findings.\n</notice>');
    // Appended after what was sent: the first request's messages are a prefix of the second's.
    expect(texts.indexOf("first")).toBeLessThan(texts.findIndex((t) => t.startsWith("<notice")));

    const resumed = await start({ turns: [{ text: "three" }] }, [], {
      session: { mode: "resume", session: file },
    });
    expect(resumed.agent.messages().some((m) => JSON.stringify(m).includes("Agent reviewer finished"))).toBe(
      true,
    );
    await resumed.agent.close();
  });

  it("two notices left at once on an idle session are journaled once each, in order", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const { agent } = await start({ turns: [{ text: "one" }] }, [definition]);
    // Two background agents finishing together: each starts a flush while the other's is writing.
    holder.runtime!.persistNotice("first done");
    holder.runtime!.persistNotice("second done");
    holder.runtime!.persistNotice("third done");
    const noticeTexts = () =>
      readFileSync(agent.sessionFile!, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === "notice")
        .map((e) => String(e.message.content).split("\n")[1]);
    await waitFor(() => noticeTexts().length >= 3);
    await new Promise((r) => setTimeout(r, 50));
    await agent.close();
    expect(noticeTexts()).toEqual(["first done", "second done", "third done"]);
  });

  it("a wake left after the run's last request starts a run once that run has ended", async () => {
    // A background agent finishing while the final reply streams (messageEnd), or as the run ends
    // (runEnd): the notice must not wait for the user's next prompt, and the run it wakes starts
    // only after the first one has ended.
    for (const hook of ["messageEnd", "runEnd"] as const) {
      box = sandbox();
      let left = false;
      const { definition } = grab({
        hooks: {
          [hook]: (event: { message?: { role: string } }, runtime: ExtensionRuntime) => {
            if (left || (hook === "messageEnd" && event.message?.role !== "assistant")) return;
            left = true;
            runtime.persistNotice(`${hook}-time agent done`, { wake: true });
          },
        },
      } as Partial<ExtensionDefinition>);
      const { agent, requests } = await start({ turns: [{ text: "first reply" }, { text: "woken" }] }, [
        definition,
      ]);
      const events: string[] = [];
      agent.subscribe((e) => {
        if (e.type === "run_start" || e.type === "run_end") events.push(e.type);
      });
      await agent.prompt("go");
      await waitFor(() => events.filter((e) => e === "run_end").length >= 2);
      await agent.close();
      expect(events, hook).toEqual(["run_start", "run_end", "run_start", "run_end"]);
      expect(requests, hook).toHaveLength(2);
      expect(userTexts(requests[1]!.body).at(-1), hook).toContain(`${hook}-time agent done`);
      box.cleanup();
    }
  });

  it("during a run it goes out with the next request; with wake an idle session runs on it", async () => {
    box = sandbox();
    const { definition, holder } = grab({
      tools: (tool) => [
        tool({
          name: "Note",
          description: "Leaves a notice.",
          parameters: Type.Object({}),
          execute: async (_a, _c, runtime) => {
            runtime.persistNotice("left mid-run");
            return textResult("noted");
          },
        }),
      ],
    });
    const { agent, requests } = await start(
      { turns: [{ toolCalls: [{ name: "Note", arguments: {} }] }, { text: "seen" }, { text: "woken" }] },
      [definition],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("go");
    expect(userTexts(requests[1]!.body).some((t) => t.includes("left mid-run"))).toBe(true);
    const ends: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "run_end") ends.push(e.summary.text);
    });
    holder.runtime!.persistNotice("background agent done", { wake: true });
    await waitFor(() => ends.length > 0);
    await agent.close();
    expect(ends).toEqual(["woken"]);
    expect(userTexts(requests[2]!.body).at(-1)).toContain("background agent done");
  });
});

describe("keyed notices", () => {
  it("journal once per branch: again in the queue, again after a resume, again on another branch only", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const { agent, requests } = await start(
      { turns: [{ text: "one" }, { text: "two" }, { text: "three" }] },
      [definition],
    );
    const noticeLines = (file: string) =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.includes('"type":"notice"'));
    await agent.prompt("first");
    const rt = holder.runtime!;
    rt.persistNotice("Agent a1 finished.", { key: "agent:a1" });
    rt.persistNotice("Agent a1 finished.", { key: "agent:a1" });
    await waitFor(() => noticeLines(agent.sessionFile!).length > 0);
    rt.persistNotice("Agent a1 finished (again).", { key: "agent:a1" });
    await agent.prompt("second");
    const file = agent.sessionFile!;
    await agent.close();
    expect(noticeLines(file)).toHaveLength(1);
    expect(JSON.parse(noticeLines(file)[0]!)).toMatchObject({ source: "probe", key: "agent:a1" });
    expect(userTexts(requests[1]!.body).filter((t) => t.includes("Agent a1 finished"))).toHaveLength(1);

    // After a resume the extension cannot know it was delivered: it persists again, and nothing lands.
    const again = grab();
    const resumed = await start({ turns: [{ text: "four" }] }, [again.definition], {
      session: { mode: "resume", session: file },
    });
    again.holder.runtime!.persistNotice("Agent a1 finished.", { key: "agent:a1" });
    again.holder.runtime!.persistNotice("Agent a2 finished.", { key: "agent:a2" });
    await waitFor(() => noticeLines(file).length > 1);
    expect(noticeLines(file).map((l) => JSON.parse(l).key)).toEqual(["agent:a1", "agent:a2"]);
    // Rewound to before the first notice, the branch never had it: it is delivered there.
    expect((await resumed.agent.rewind(2)).isOk()).toBe(true);
    again.holder.runtime!.persistNotice("Agent a1 finished.", { key: "agent:a1" });
    await waitFor(() => noticeLines(file).length > 2);
    await resumed.agent.close();
    expect(noticeLines(file).map((l) => JSON.parse(l).key)).toEqual(["agent:a1", "agent:a2", "agent:a1"]);
  });
});

describe("models, data and debug", () => {
  it("lists and resolves models, completes once through the provider layer, counts the usage", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const { agent } = await start({ turns: [{ text: "a title" }] }, [definition]);
    const rt = holder.runtime!;
    expect(rt.models.current().id).toBe(agent.model().id);
    expect(rt.models.list().length).toBeGreaterThan(5);
    expect(rt.models.resolve("anthropic/does-not-exist")).toBeUndefined();
    const done = await rt.models.complete({
      messages: [{ role: "user", content: "title this", timestamp: 1 }],
    });
    expect(done.ok && done.message.content).toEqual([{ type: "text", text: "a title" }]);
    expect(agent.usage().output).toBeGreaterThan(0);
    await agent.close();
  });

  it("gives a private data dir under the Keel home and writes the debug log, emitting it live", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const lines: string[] = [];
    const { agent } = await start({ turns: [] }, [definition], {
      onEvent: (e) => {
        if (e.type === "debug") lines.push(`${e.source}: ${e.message}`);
      },
    });
    const dir = holder.runtime!.dataDir();
    expect(dir).toBe(join(box.home, "data", "probe"));
    expect(existsSync(dir)).toBe(true);
    holder.runtime!.debug("connected to server x");
    expect(lines).toEqual(["probe: connected to server x"]);
    expect(readFileSync(join(box.home, "logs", "debug.log"), "utf8")).toMatch(
      /\[probe\] connected to server x\n$/,
    );
    await agent.close();
  });

  it("a debug line that is not a string (an error a JS extension passes) becomes text, in the log and the event", async () => {
    box = sandbox();
    const { definition, holder } = grab();
    const events: unknown[] = [];
    const { agent } = await start({ turns: [] }, [definition], {
      onEvent: (e) => {
        if (e.type === "debug") events.push(e);
      },
    });
    holder.runtime!.debug(new Error("socket hang up") as never);
    holder.runtime!.debug({ retry: 2 } as never);
    await agent.close();
    expect(events).toEqual([
      { type: "debug", source: "probe", message: "Error: socket hang up" },
      { type: "debug", source: "probe", message: '{"retry":2}' },
    ]);
    expect(readFileSync(join(box.home, "logs", "debug.log"), "utf8")).toContain(
      "[probe] Error: socket hang up\n",
    );
  });

  it("workspace says where and whether trusted", async () => {
    box = sandbox();
    trustProject(box.workspace, { home: box.home });
    const { definition, holder } = grab();
    const { agent } = await start({ turns: [] }, [definition]);
    expect(holder.runtime!.workspace).toMatchObject({
      cwd: box.workspace,
      trusted: true,
      keelHome: box.home,
    });
    await agent.close();
  });
});

describe("allowForRun", () => {
  it("pre-approves a rule until the run ends; outside a run it is refused", async () => {
    box = sandbox();
    const { definition, holder } = grab({
      tools: (tool) => [
        tool({
          name: "LoadSkill",
          access: "none",
          description: "Loads a skill.",
          parameters: Type.Object({}),
          execute: async (_a, _c, runtime) => {
            const granted = runtime.allowForRun(["Bash(touch:*)"], "skill allowed-tools");
            return textResult(granted.ok ? "granted" : granted.message);
          },
        }),
      ],
    });
    const touch = (name: string) => ({
      toolCalls: [{ name: "Bash", arguments: { command: `touch ${name}` } }],
    });
    const { agent, requests } = await start(
      {
        turns: [
          { toolCalls: [{ name: "LoadSkill", arguments: {} }] },
          touch("during.txt"),
          { text: "ok" },
          touch("after.txt"),
          { text: "ok" },
        ],
      },
      [definition],
      { permissionMode: "default" },
    );
    expect(holder.runtime!.allowForRun(["Bash"], "x").ok).toBe(false);
    await agent.prompt("first");
    await agent.prompt("second");
    await agent.close();
    expect(existsSync(join(box.workspace, "during.txt"))).toBe(true);
    expect(existsSync(join(box.workspace, "after.txt"))).toBe(false);
    expect(toolResultTexts(requests[4]!.body).at(-1)!.text).toMatch(/needs the user's approval/);
  });
});

describe("hooks and lifecycle", () => {
  it("a hook past its deadline sees its signal aborted", async () => {
    box = sandbox();
    let aborted = false;
    const slow = defineExtension({
      id: "slow",
      hooks: {
        turnStart: (_e, _r, { signal }) =>
          new Promise<void>((resolve) => {
            signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            });
          }),
      },
    }) as ExtensionDefinition;
    const { agent } = await start({ turns: [{ text: "ok" }] }, [slow], { hookDeadlineMs: 30 });
    await agent.prompt("go");
    await agent.close();
    expect(aborted).toBe(true);
  });

  it("sessionShutdown says fork, switch and exit", async () => {
    box = sandbox();
    const reasons: string[] = [];
    const listener = defineExtension({
      id: "listener",
      hooks: { sessionShutdown: (e) => void reasons.push(e.reason) },
    }) as ExtensionDefinition;
    const a = await start({ turns: [{ text: "ok" }] }, [listener]);
    await a.agent.prompt("go");
    await a.agent.fork();
    await a.agent.close({ reason: "switch" });
    const b = await start({ turns: [] }, [listener]);
    await (b.agent as CodingAgent).close();
    expect(reasons).toEqual(["fork", "switch", "exit"]);
  });

  it("a factory's registrations are frozen once it returned; it builds typed and JSON Schema tools without imports", async () => {
    let api: Parameters<Parameters<typeof definitionFromFactory>[1]>[0] | undefined;
    const made = await definitionFromFactory("one-file", (keel) => {
      api = keel;
      keel.registerTool({
        name: "Typed",
        description: "typed",
        parameters: keel.Type.Object({ n: keel.Type.Integer() }),
        execute: async (args) => keel.textResult(`n=${args.n}`),
      });
      keel.registerTool({
        name: "Plain",
        description: "plain",
        parameters: { type: "object", properties: { s: { type: "string" } }, required: ["s"] },
        execute: async (args) => keel.textResult(`s=${String(args.s)}`),
      });
    });
    expect(made.ok).toBe(true);
    expect(() => api!.registerCommand({ name: "late", description: "d", run: () => undefined })).toThrow(
      /after loading/,
    );
    if (!made.ok) return;
    box = sandbox();
    const { agent, requests } = await start(
      {
        turns: [
          {
            toolCalls: [
              { name: "Typed", arguments: { n: "4" } },
              { name: "Plain", arguments: {} },
            ],
          },
          { text: "ok" },
        ],
      },
      [made.definition],
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("go");
    await agent.close();
    const results = toolResultTexts(requests[1]!.body);
    expect(results[0]).toEqual({ isError: false, text: "n=4" });
    expect(results[1]!.isError).toBe(true);
    expect(results[1]!.text).toContain("/s is required (expected a string)");
  });
});

describe("layered configuration", () => {
  it("a project-local { enabled: true } does not erase the project's config (one merge rule)", async () => {
    box = sandbox();
    trustProject(box.workspace, { home: box.home });
    mkdirSync(join(box.workspace, ".keel"), { recursive: true });
    writeFileSync(
      join(box.workspace, ".keel", "config.json"),
      JSON.stringify({ extensions: { probe: { config: { limit: 3 } } } }),
    );
    writeFileSync(
      join(box.workspace, ".keel", "config.local.json"),
      JSON.stringify({ extensions: { probe: { enabled: true } } }),
    );
    trustProject(box.workspace, { home: box.home });
    const { definition, holder } = grab({
      configuration: {
        scope: "layered",
        schema: Type.Object({ limit: Type.Integer(), mode: Type.String() }),
        default: { limit: 10, mode: "fast" },
      },
    });
    const { agent } = await start({ turns: [] }, [definition]);
    expect(holder.runtime!.config).toEqual({ limit: 3, mode: "fast" });
    await agent.close();
  });
});
