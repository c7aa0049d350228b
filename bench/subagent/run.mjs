// Sub-agent costs at zero model latency: the time from a SpawnAgent call to the child's first model
// request (split at the kernel's agent_start: the child's journal and kernel made / its first
// request prepared), alone and four in one batch; and the memory one running child holds.
// After `pnpm build`: node bench/subagent/run.mjs [--children 40] [--memory 40]
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCodingAgent } from "../../packages/coding-agent/dist/index.js";
import { subagentExtension } from "../../packages/extensions/subagent/dist/index.js";
import { createSession } from "../../packages/session/dist/index.js";
import { createFauxFetch, fauxModel } from "../../packages/testing/dist/index.js";

if (typeof globalThis.gc !== "function") {
  // Heap figures need a collection before each reading.
  const again = spawnSync(process.execPath, ["--expose-gc", ...process.argv.slice(1)], { stdio: "inherit" });
  process.exit(again.status ?? 1);
}

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const CHILDREN = flag("--children", 40);
const MEMORY = flag("--memory", 40);

const firstUser = (r) => JSON.stringify(r.body.messages[0] ?? "");
const isChild = (r) => firstUser(r).includes("TASK");

function workspace() {
  const root = mkdtempSync(join(tmpdir(), "keel-bench-subagent-"));
  execFileSync("mkdir", ["-p", join(root, "repo"), join(root, "home")]);
  execFileSync("git", ["init", "-q", join(root, "repo")]);
  return { root, cwd: join(root, "repo"), home: join(root, "home") };
}

async function session(scenario, options = {}) {
  const ws = workspace();
  const faux = createFauxFetch(scenario);
  const created = await createCodingAgent({
    cwd: ws.cwd,
    home: ws.home,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: faux.fetch, apiKey: "bench" },
    permissionMode: "bypassPermissions",
    extensions: [subagentExtension],
    discoverExtensions: false,
    ...options,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, faux, dispose: () => rmSync(ws.root, { recursive: true, force: true }) };
}

const spawnCall = (i, background = false) => ({
  name: "SpawnAgent",
  arguments: { description: `task ${i}`, prompt: `TASK ${i}`, run_in_background: background },
});

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p90: at(0.9), max: s.at(-1) };
};
const ms = (x) => `${x.toFixed(2)} ms`;

/** SpawnAgent's tool_start → agent_start → the child's first request, per child. */
async function overhead(batch) {
  const t = { call: new Map(), start: new Map(), request: new Map() };
  let parentTurn = 0;
  const rounds = Math.ceil(CHILDREN / batch);
  const { agent, dispose } = await session({
    turns: [],
    fallback: (r) => {
      if (isChild(r)) {
        const task = /TASK (\d+)/.exec(firstUser(r))[1];
        if (!t.request.has(task)) t.request.set(task, performance.now());
        return { text: "done" };
      }
      const round = parentTurn++;
      if (round >= rounds) return { text: "all done" };
      return { toolCalls: Array.from({ length: batch }, (_, k) => spawnCall(round * batch + k)) };
    },
  });
  agent.subscribe((e) => {
    if (e.type === "tool_start" && e.toolName === "SpawnAgent")
      t.call.set(String(e.args.prompt).slice(5), performance.now());
    if (e.type === "agent_start") t.start.set(/task (\d+)/.exec(e.title)[1], performance.now());
  });
  // The session's first child also pays for loading what all children share: reported apart.
  await agent.prompt("go");
  await agent.close();
  dispose();
  const ids = [...t.request.keys()];
  const total = ids.map((id) => t.request.get(id) - t.call.get(id));
  const open = ids.map((id) => t.start.get(id) - t.call.get(id));
  const first = ids.map((id) => t.request.get(id) - t.start.get(id));
  return {
    n: ids.length,
    first: total[0],
    total: stats(total.slice(1)),
    open: stats(open.slice(1)),
    request: stats(first.slice(1)),
  };
}

/** Heap and RSS held per running child: K background children whose first request never answers. */
async function memory() {
  let parentTurn = 0;
  let children = 0;
  const { agent, dispose } = await session(
    {
      turns: [],
      fallback: (r) => {
        if (isChild(r)) {
          children++;
          return { text: "never", headerDelayMs: 600_000 };
        }
        return parentTurn++ === 0
          ? { toolCalls: Array.from({ length: MEMORY }, (_, k) => spawnCall(k, true)) }
          : { text: "started" };
      },
    },
    { maxConcurrentAgents: MEMORY },
  );
  globalThis.gc();
  const before = process.memoryUsage();
  await agent.prompt("start them");
  const deadline = Date.now() + 30_000;
  while (children < MEMORY && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  for (let i = 0; i < 3; i++) globalThis.gc();
  const after = process.memoryUsage();
  const running = agent.agents().filter((a) => a.status === "running").length;
  await agent.close();
  dispose();
  return {
    running,
    heap: (after.heapUsed + after.external - before.heapUsed - before.external) / running / 1024 / 1024,
    rss: (after.rss - before.rss) / running / 1024 / 1024,
  };
}

/**
 * What creating one journal costs (the kernel makes one per child, in AgentSupervisor's
 * openChildSession): writeNewSessionFile's fdatasync and the directory fsync, both synchronous.
 */
async function journalCreation() {
  const ws = workspace();
  const times = [];
  for (let i = 0; i < CHILDREN; i++) {
    const start = performance.now();
    const created = await createSession({ dir: join(ws.home, "children"), cwd: ws.cwd, fsync: "turn" });
    times.push(performance.now() - start);
    await created._unsafeUnwrap().close();
  }
  rmSync(ws.root, { recursive: true, force: true });
  return stats(times);
}

const alone = await overhead(1);
const four = await overhead(4);
const mem = await memory();
const journals = await journalCreation();

console.log(`SpawnAgent → child's first request (${alone.n} children one at a time; target ≤ 20 ms)`);
console.log(`  first child of the session: ${ms(alone.first)}`);
console.log(`  median ${ms(alone.total.median)}  p90 ${ms(alone.total.p90)}  max ${ms(alone.total.max)}`);
console.log(
  `    call → agent_start (journal + kernel):    median ${ms(alone.open.median)}  p90 ${ms(alone.open.p90)}`,
);
console.log(
  `    agent_start → request (run start, prep):  median ${ms(alone.request.median)}  p90 ${ms(alone.request.p90)}`,
);
console.log(
  `    of which createSession alone (sync fdatasync + dir fsync): median ${ms(journals.median)}  p90 ${ms(journals.p90)}`,
);
console.log(`SpawnAgent → first request, four in one batch (${four.n} children)`);
console.log(`  median ${ms(four.total.median)}  p90 ${ms(four.total.p90)}  max ${ms(four.total.max)}`);
console.log(`Memory per running child (${mem.running} running; target ≤ 15 MB)`);
console.log(`  heap + external ${mem.heap.toFixed(2)} MB  rss ${mem.rss.toFixed(2)} MB`);
