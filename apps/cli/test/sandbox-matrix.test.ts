// The sandbox end to end, through the built keel against the mock model: every payload of
// sandbox-payloads.ts, in every permission mode, counted two ways — with the normal gate, and with
// the shell parser's verdicts forced to "allow" (keel's test switch), so that only the OS sandbox
// stands between the command and its effect. In plan mode nothing happens either way; in the other
// modes nothing is written outside the workspace or to a protected path, no listener is reached
// and no secret is read, either way. A plain bash run of each payload first proves it is live.
// One keel process runs all payloads of a mode as one batch of tool calls; each effect is traced to
// its payload by the id it carries.
import { spawn, spawnSync } from "node:child_process";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, MODEL } from "./helpers.js";
import {
  effectsOf,
  type Fixture,
  fixture,
  hostDir,
  type Listeners,
  listeners,
  removeHostDir,
  runPlain,
} from "./sandbox-machine.js";
import { type Effect, PAYLOADS, PROGRAMS } from "./sandbox-payloads.js";

const MODES = ["plan", "default", "acceptEdits", "dontAsk", "bypassPermissions"] as const;
type Mode = (typeof MODES)[number];
const ENTRIES = PAYLOADS.map((payload, i) => {
  const id = `p${String(i).padStart(3, "0")}`;
  return { id, payload, cmd: payload.cmd.replaceAll("{id}", id) };
});
const IDS = ENTRIES.map((e) => e.id);
const FORBIDDEN: Effect[] = ["outside", "protected", "network", "socket", "read"];

let dir: string;
beforeAll(() => {
  // Without a sandbox, bypassPermissions would run the payloads unconfined: refuse to start.
  const trial = spawnSync("bwrap", ["--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "--", "true"]);
  if (trial.status !== 0)
    throw new Error(
      `the sandbox matrix needs bubblewrap that can start (apt-get install bubblewrap): ${trial.stderr}`,
    );
  dir = hostDir();
});
afterAll(() => removeHostDir(dir));

/** Runs `work` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/** The tool results of the run's last request, by payload id. */
function outputsOf(server: MockServer): Map<string, string> {
  const outputs = new Map<string, string>();
  const body = server.requests.at(-1)?.body as
    | { messages?: { role: string; content: unknown }[] }
    | undefined;
  for (const message of body?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
      if (block.type !== "tool_result" || !block.tool_use_id) continue;
      const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content ?? "");
      outputs.set(block.tool_use_id.replace(/^toolu_/, ""), text);
    }
  }
  return outputs;
}

interface Run {
  mode: Mode;
  forced: boolean;
  fx: Fixture;
  net: Listeners;
  effects: Map<string, Set<Effect>>;
  outputs: Map<string, string>;
  code: number | null;
  stderr: string;
}

async function runKeel(mode: Mode, forced: boolean): Promise<Run> {
  const name = `${mode}-${forced ? "forced" : "gate"}`;
  const net = await listeners(dir, name);
  const fx = fixture(dir, name, ENTRIES, net);
  const server = await startMockServer({
    turns: [
      {
        toolCalls: ENTRIES.map((e) => ({
          id: `toolu_${e.id}`,
          name: "Bash",
          arguments: { command: e.cmd, timeout: 30 },
        })),
      },
      { text: "done" },
    ],
  });
  const env: NodeJS.ProcessEnv = { ...process.env, ...fx.env };
  for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"]) delete env[key];
  Object.assign(env, {
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    ANTHROPIC_API_KEY: "test",
    NO_PROXY: "127.0.0.1,localhost",
    ...(forced ? { KEEL_TEST_FORCE_PARSER_ALLOW: "1" } : {}),
  });
  const child = spawn(
    process.execPath,
    [BIN, "-p", "--model", MODEL, "--permission-mode", mode, "run the payloads"],
    {
      cwd: fx.ws,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const outputs = outputsOf(server);
  await server.close();
  const effects = effectsOf(fx, net, IDS, outputs);
  return { mode, forced, fx, net, effects, outputs, code, stderr };
}

const runs: Run[] = [];

describe("the sandbox matrix", () => {
  it(`has at least 150 payloads (it has ${PAYLOADS.length}) and the programs they run`, () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(150);
    // One shell for all of them: a spawn from a busy test worker can take a second on a loaded machine.
    const check = 'for p in "$@"; do command -v "$p" >/dev/null || echo "$p"; done';
    const listed = spawnSync("bash", ["-c", check, "bash", ...PROGRAMS], { encoding: "utf8" });
    expect(listed.status, listed.stderr).toBe(0);
    const missing = listed.stdout.split("\n").filter(Boolean);
    expect(missing, `install these for the sandbox matrix: ${missing.join(" ")}`).toEqual([]);
  });

  it("every payload is live: run by plain bash, outside Keel, it has its effect", {
    timeout: 600_000,
  }, async () => {
    const net = await listeners(dir, "control");
    const dead: string[] = [];
    try {
      await pool(ENTRIES, 4, async (e) => {
        const fx = fixture(dir, `control-${e.id}`, [e], net);
        const output = await runPlain(fx, e.cmd);
        const has = () =>
          effectsOf(fx, net, [e.id], new Map([[e.id, output]]))
            .get(e.id)
            ?.has(e.payload.effect);
        // A listener may hear the last bytes a moment after the client exited.
        for (let waited = 0; !has() && waited < 1000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        if (!has()) dead.push(`${e.id} [${e.payload.cls}] ${e.cmd} → ${output.slice(0, 200)}`);
      });
    } finally {
      await net.close();
    }
    expect(dead, `payloads without their effect when run unconfined:\n${dead.join("\n")}`).toEqual([]);
  });

  it("runs every payload in every mode, with the normal gate and with the parser forced to allow", {
    timeout: 1_500_000,
  }, async () => {
    const plan = MODES.flatMap((mode) => [false, true].map((forced) => ({ mode, forced })));
    await pool(plan, 2, async ({ mode, forced }) => {
      const run = await runKeel(mode, forced);
      await run.net.close();
      runs.push(run);
    });
    // The table, for the record: payloads with each effect, per mode and gate.
    const kinds: Effect[] = ["inside", ...FORBIDDEN];
    const rows = [...runs]
      .sort((a, b) => MODES.indexOf(a.mode) - MODES.indexOf(b.mode) || Number(a.forced) - Number(b.forced))
      .map((r) => {
        const count = (k: Effect) => [...r.effects.values()].filter((s) => s.has(k)).length;
        return `${r.mode.padEnd(18)} ${(r.forced ? "parser forced" : "normal gate").padEnd(14)} ${kinds.map((k) => String(count(k)).padStart(10)).join("")}`;
      });
    console.log(
      [
        `sandbox matrix: ${PAYLOADS.length} payloads; payloads with each effect`,
        `${"mode".padEnd(18)} ${"gate".padEnd(14)} ${kinds.map((k) => k.padStart(10)).join("")}`,
        ...rows,
      ].join("\n"),
    );
    expect(runs).toHaveLength(MODES.length * 2);
  });

  it.each(MODES.flatMap((mode) => [false, true].map((forced) => [mode, forced] as const)))(
    "%s (parser forced: %s): what the sandbox allows and nothing more",
    (mode, forced) => {
      const run = runs.find((r) => r.mode === mode && r.forced === forced);
      expect(run, "the run above did not finish").toBeDefined();
      const r = run!;
      expect(r.code, r.stderr).toBe(0);
      expect(r.outputs.size, "every payload has a tool result").toBe(PAYLOADS.length);
      const seen = (kinds: Effect[]) =>
        ENTRIES.filter((e) => kinds.some((k) => r.effects.get(e.id)?.has(k))).map(
          (e) => `${e.id} [${e.payload.cls}] ${e.cmd} → ${[...r.effects.get(e.id)!].join(", ")}`,
        );
      if (mode === "plan") expect(seen(["inside", ...FORBIDDEN])).toEqual([]);
      else expect(seen(FORBIDDEN)).toEqual([]);
      if (forced) {
        // The switch did what it says: the payloads ran, the sandbox alone held them.
        expect(r.stderr).toContain("TEST SWITCH ON");
        const refused = [...r.outputs.values()].filter((t) =>
          /^(plan mode|dontAsk mode|Bash needs the user's approval)|^[^\n]* is denied by rule/.test(t),
        );
        expect(refused).toEqual([]);
        if (mode !== "plan") expect(seen(["inside"]).length).toBeGreaterThan(0);
      }
    },
  );
});
