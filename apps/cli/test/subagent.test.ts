// Sub-agents through the built keel bin against the mock server: kill -9 while a background child
// runs, then `keel -c` reports it interrupted (to the user and, once, to the model); a finished
// child's result is still there after a resume; child events in stream-json carry the agent id
// and the result line its usage; a child's transcript opens read-only with -r <child id>.
import type { RecordedRequest, ScenarioTurn } from "@keel/testing";
import { describe, expect, it } from "vitest";
import {
  lines,
  MODEL,
  mockSuite,
  readText,
  runKeel,
  sessionFiles,
  startKeel,
  until,
  type Workspace,
} from "./helpers.js";

const suite = mockSuite();

type Json = Record<string, unknown>;
const CHILD = "TASK:";
const firstUser = (r: RecordedRequest) => JSON.stringify((r.body.messages as Json[])[0] ?? "");
const isChild = (r: RecordedRequest) => firstUser(r).includes(CHILD);
const userTexts = (r: RecordedRequest) =>
  (r.body.messages as Json[]).flatMap((m) =>
    m.role !== "user"
      ? []
      : typeof m.content === "string"
        ? [m.content]
        : (m.content as Json[]).flatMap((b) => (b.type === "text" ? [String(b.text)] : [])),
  );
const toolResultTexts = (r: RecordedRequest) =>
  (r.body.messages as Json[]).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Json[]).filter((b) => b.type === "tool_result").map((b) => JSON.stringify(b.content))
      : [],
  );
const startedId = (r: RecordedRequest) =>
  toolResultTexts(r)
    .map((t) => /Started background agent (\S+) /.exec(t)?.[1])
    .find(Boolean);

const args = (ws: Workspace) => [
  "--permission-mode",
  "bypassPermissions",
  "--model",
  MODEL,
  "--cwd",
  ws.repo,
];
const spawnBg = (task: string): ScenarioTurn => ({
  toolCalls: [
    {
      name: "SpawnAgent",
      arguments: { description: task, prompt: `${CHILD} ${task}`, run_in_background: true },
    },
  ],
});

describe("keel with sub-agents", () => {
  it("after kill -9 while a background child runs, keel -c reports it interrupted, once", async () => {
    let id = "";
    const { server, ws } = suite.fresh([]);
    let parentTurn = 0;
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (isChild(r)) return { text: "never", headerDelayMs: 60_000 };
        id ||= startedId(r) ?? "";
        const n = parentTurn++;
        if (n === 0) return spawnBg("survey the repo");
        if (n === 1)
          return { toolCalls: [{ name: "GetAgentResult", arguments: { agent_id: id, wait_ms: 60_000 } }] };
        return { text: "The survey was cut off; I will redo it." };
      },
    });
    const first = startKeel(["-p", "survey", "--output-format", "stream-json", ...args(ws)], { server, ws });
    await first.waitForLine((l) => l.includes('"agent_start"'));
    await until(() => server.requests.some(isChild), "the child's first request");
    await until(
      () => sessionFiles(ws.home).some((f) => readText(f).includes('"GetAgentResult"')),
      "the parent waiting on the child",
    );
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");

    const resumed = await runKeel(["-c", "-p", "go on", "--output-format", "json", ...args(ws)], {
      server,
      ws,
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`agent ${id} \\(survey the repo\\) was interrupted`));
    expect(lines(resumed.stdout)[0]).toMatchObject({ text: "The survey was cut off; I will redo it." });
    const last = server.requests.filter((r) => !isChild(r)).at(-1)!;
    const told = userTexts(last).filter((t) => t.includes(`Background agent ${id} `));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/was interrupted: Keel stopped while this agent was running/);

    // A second resume tells nobody again.
    server.setScenario({ turns: [{ text: "nothing new" }] });
    const again = await runKeel(["-c", "-p", "anything else?", ...args(ws)], { server, ws });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("was interrupted");
    const file = sessionFiles(ws.home)[0]!;
    expect(
      readText(file)
        .split("\n")
        .filter((l) => l.includes('"type":"notice"')),
    ).toHaveLength(1);
  });

  it("keeps a finished child's result across a resume, marks its events in stream-json, opens its transcript read-only", async () => {
    let id = "";
    const { server, ws } = suite.fresh([]);
    let parentTurn = 0;
    const parent = (r: RecordedRequest): ScenarioTurn => {
      id ||= startedId(r) ?? "";
      const n = parentTurn++;
      if (n === 0) return spawnBg("count the tests");
      if (n === 1)
        return { toolCalls: [{ name: "GetAgentResult", arguments: { agent_id: id, wait_ms: 20_000 } }] };
      return { text: "There are 12 tests." };
    };
    server.setScenario({
      turns: [],
      fallback: (r) => (isChild(r) ? { text: "I counted 12 tests.", headerDelayMs: 200 } : parent(r)),
    });
    const first = await runKeel(["-p", "count tests", "--output-format", "stream-json", ...args(ws)], {
      server,
      ws,
    });
    expect(first.code).toBe(0);
    const out = lines(first.stdout);
    expect(out.find((l) => l.type === "agent_start")).toMatchObject({ agentId: id, background: true });
    const childLines = out.filter((l) => l.agentId === id && l.type === "message");
    expect(childLines.length).toBeGreaterThan(0);
    const result = out.find((l) => l.type === "result")!;
    expect(result).toMatchObject({ text: "There are 12 tests.", children: [{ agentId: id }] });

    // Resumed: the result is read back from the journal.
    server.setScenario({
      turns: [
        { toolCalls: [{ name: "GetAgentResult", arguments: { agent_id: id } }] },
        { text: "Still 12." },
      ],
    });
    const resumed = await runKeel(["-c", "-p", "how many again?", ...args(ws)], { server, ws });
    expect(resumed.code).toBe(0);
    expect(toolResultTexts(server.requests.at(-1)!).at(-1)).toContain("I counted 12 tests.");

    // The child's transcript: by its session id, read-only.
    const childSession = /keel -r (\S+) \(read-only\)/.exec(
      toolResultTexts(server.requests.at(-1)!).at(-1)!,
    )![1]!;
    const shown = await runKeel(["--read-only", "-r", childSession, "--cwd", ws.repo], { ws });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Session ${childSession}`);
    expect(shown.stdout).toContain("TASK: count the tests");
    expect(shown.stdout).toContain("assistant: I counted 12 tests.");
    const refused = await runKeel(["-r", childSession, "-p", "go on", ...args(ws)], { server, ws });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/read-only/);
  });
});
