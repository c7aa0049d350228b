// What a session is billed for its input, against an ideal client, at the prompt cache's edges.
// Part 1: the first requests of a session with the todo extension on, at the wire — where the
// history breakpoints sit and whether the next request still holds them. Part 2: four sessions
// run through the real kernel against the mock server (Anthropic Messages), their requests replayed
// on an Anthropic cache simulator (simulator.mjs): a session resumed across midnight, a turn with
// 12 parallel tool calls, a compaction, and three child agents. Billed input is in units of the
// base input price (cache reads 0.1, writes 1.25); the ideal client reads back every prefix any
// earlier request sent, in the same session as this build sends it, so "×" is how far from the
// floor the markers and bytes leave it. `--root` runs the same sessions on another built checkout
// (e.g. the base commit) for a before/after.
// After `pnpm build`: node bench/cache/run.mjs [--root <checkout>] [--turns 6] [--save <file>]
// [--ideal <file>]: --save keeps the requests of part 2; --ideal takes another run's saved requests
// as the ideal client's (a build that changes bytes mid-session is measured against one that does not).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate, sum } from "./simulator.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const here = new URL("../..", import.meta.url).pathname;
const root = resolve(arg("--root", here));
const idealFile = arg("--ideal", undefined);
const saveFile = arg("--save", undefined);
const turns = Number(arg("--turns", 6));
const loadFrom = (base) => (pkg) => import(pathToFileURL(join(base, pkg, "dist/index.js")).href);
const load = loadFrom(root);
const { createCodingAgent } = await load("packages/coding-agent");
const { todoExtension } = await load("packages/extensions/todo");
const { subagentExtension } = await load("packages/extensions/subagent");
const { startMockServer, fauxModel } = await load("packages/testing");

console.log(`root: ${root}`);

// --- Part 1: where the history breakpoints sit -----------------------------------------------

const todos = (n) => [
  { id: "1", content: `Step ${n}`, status: "in_progress" },
  { id: "2", content: "Wrap up", status: "pending" },
];

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-cache-"));
  execFileSync("mkdir", ["-p", join(dir, "repo"), join(dir, "home")]);
  execFileSync("git", ["init", "-q", join(dir, "repo")]);
  writeFileSync(
    join(dir, "repo", "notes.md"),
    Array.from(
      { length: 200 },
      (_, i) => `Line ${i + 1} of the project's notes, a decision and its reason.`,
    ).join("\n"),
  );
  return { dir, repo: join(dir, "repo"), home: join(dir, "home") };
}

async function agentOn(server, ws, extra = {}) {
  const created = await createCodingAgent({
    cwd: ws.repo,
    home: ws.home,
    model: fauxModel("anthropic-messages", { baseUrl: server.anthropicBaseUrl }),
    streamOptions: { apiKey: "bench", retry: { baseDelayMs: 1 } },
    permissionMode: "bypassPermissions",
    discoverExtensions: false,
    ...extra,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

{
  const server = await startMockServer({
    turns: [],
    fallback: (r) =>
      r.index < turns - 1
        ? { toolCalls: [{ name: "UpdateTodos", arguments: { todos: todos(r.index) } }] }
        : { text: "done" },
  });
  const ws = workspace();
  try {
    const agent = await agentOn(server, ws, { extensions: [todoExtension] });
    await agent.prompt("Plan and work through two steps.");
    await agent.close();
    const text = (b) => (typeof b?.text === "string" ? b.text : (b?.type ?? ""));
    let readable = 0;
    server.requests.forEach((r, n) => {
      const messages = JSON.parse(r.raw).messages;
      const marks = [];
      messages.forEach((m, i) => {
        (Array.isArray(m.content) ? m.content : []).forEach((b, j) => {
          if (b.cache_control) marks.push({ i, j, block: b });
        });
      });
      const mark = marks.at(-1);
      const onReminder = mark && text(mark.block).startsWith("<system-reminder>");
      const next = server.requests[n + 1];
      let kept = "-";
      if (next && mark) {
        const block = JSON.parse(next.raw).messages[mark.i]?.content?.[mark.j];
        const strip = (v) => JSON.stringify(v, (k, x) => (k === "cache_control" ? undefined : x));
        kept = block && strip(block) === strip(mark.block) ? "yes" : "no";
        if (kept === "yes") readable++;
      }
      console.log(
        `request ${n + 1}: ${r.raw.length} bytes, ${messages.length} messages; history breakpoints ${marks.map((m) => `${m.i}.${m.j}`).join(", ")} (last on ${mark?.block.type}${onReminder ? ", the reminder" : ""}); next request holds the last: ${kept}`,
      );
    });
    console.log(`breakpoints the next request can read back: ${readable} of ${server.requests.length - 1}`);
  } finally {
    await server.close();
    rmSync(ws.dir, { recursive: true, force: true });
  }
}

// --- Part 2: billed input against an ideal client -------------------------------------------

/** Runs `session` against a mock answering with `answer(request)`; returns the request bodies. */
async function recorded(answer, session) {
  const server = await startMockServer({ turns: [], fallback: answer });
  const ws = workspace();
  try {
    await session(server, ws);
    return server.requests.map((r) => JSON.parse(r.raw));
  } finally {
    await server.close();
    rmSync(ws.dir, { recursive: true, force: true });
  }
}

/** Date.now and new Date() at `iso` onwards (the clock moves on from there). */
function setClock(iso) {
  const RealDate = globalThis.__keelRealDate ?? Date;
  globalThis.__keelRealDate = RealDate;
  const offset = new RealDate(iso).getTime() - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
}
function realClock() {
  if (globalThis.__keelRealDate) globalThis.Date = globalThis.__keelRealDate;
}

const read = (path) => ({ name: "Read", arguments: { path } });
const userText = (body) => {
  const first = body.messages?.[0];
  const c = first?.content;
  return typeof c === "string" ? c : (c?.[0]?.text ?? "");
};

/** Which requests each scenario is about, for its own line. */
const focus = {
  "resumed across midnight": (bodies) =>
    bodies.findIndex((b) => JSON.stringify(b.messages).includes("After midnight")),
  "12 parallel tool calls": (bodies) =>
    bodies.findIndex(
      (b) => (b.messages.at(-1)?.content ?? []).filter?.((c) => c.type === "tool_result").length === 12,
    ),
  "a compaction": (bodies) =>
    bodies.findIndex(
      (b) =>
        JSON.stringify(b).includes("compacted") || JSON.stringify(b).includes("Summarize this conversation"),
    ),
  "three child agents": (bodies) => bodies.findIndex((b) => userText(b).includes("TASK:")),
};

const scenarios = {
  async "resumed across midnight"() {
    let n = 0;
    return recorded(
      () => (n++ % 2 === 0 ? { toolCalls: [read("notes.md")] } : { text: `answer ${n}` }),
      async (server, ws) => {
        setClock("2026-12-01T23:55:00Z");
        const a = await agentOn(server, ws);
        for (const p of ["Read the notes.", "Read them again.", "Once more."]) await a.prompt(p);
        await a.close();
        setClock("2026-12-02T00:01:00Z");
        const b = await agentOn(server, ws, { session: { mode: "continue" } });
        for (const p of ["After midnight: read the notes.", "And again."]) await b.prompt(p);
        await b.close();
        realClock();
      },
    );
  },
  async "12 parallel tool calls"() {
    let n = 0;
    const steps = [
      ...Array.from({ length: 4 }, () => ({ toolCalls: [read("notes.md")] })),
      {
        toolCalls: Array.from({ length: 12 }, (_, i) => ({
          name: "LS",
          arguments: { path: `.${"/.".repeat(i)}` },
        })),
      },
      { text: "listed twelve times" },
    ];
    return recorded(
      () => steps[n++] ?? { text: "ok" },
      async (server, ws) => {
        const a = await agentOn(server, ws);
        await a.prompt("Read the notes four times, then list the folder twelve times at once.");
        await a.prompt("Anything else?");
        await a.close();
      },
    );
  },
  async "a compaction"() {
    let n = 0;
    // A working session: short files read, answers a few paragraphs long (kept whole by both ways
    // of summarizing; a transcript clips only tool output past 2,000 characters).
    const answer = (i) =>
      Array.from(
        { length: 6 },
        (_, k) => `Paragraph ${k + 1} of answer ${i}: what the file says and what to change next.`,
      ).join("\n\n");
    return recorded(
      (r) =>
        JSON.stringify(r.body).includes("compacted") ||
        JSON.stringify(r.body).includes("Summarize this conversation")
          ? { text: "## Goal\nRead the notes.\n## Progress\nRead them eight times." }
          : n++ % 2 === 0
            ? { toolCalls: [read("short.md")] }
            : { text: answer(n) },
      async (server, ws) => {
        writeFileSync(
          join(ws.repo, "short.md"),
          `${"A short note, read whole into a transcript.\n".repeat(40)}`,
        );
        const a = await agentOn(server, ws);
        for (let i = 0; i < 8; i++) await a.prompt(`Read the short notes (${i + 1}).`);
        await a.compact();
        await a.prompt("Go on.");
        await a.close();
      },
    );
  },
  async "three child agents"() {
    let p = 0;
    const counts = new Map();
    return recorded(
      (r) => {
        const first = userText(r.body);
        if (first.includes("TASK:")) {
          const k = counts.get(first) ?? 0;
          counts.set(first, k + 1);
          return k === 0 ? { toolCalls: [read("notes.md")] } : { text: "child done" };
        }
        p++;
        if (p === 1) return { toolCalls: [read("notes.md")] };
        if (p === 2)
          return {
            toolCalls: ["one", "two", "three"].map((t) => ({
              name: "SpawnAgent",
              arguments: { description: `look ${t}`, prompt: `TASK: look at the notes, part ${t}` },
            })),
          };
        return { text: "all three reported" };
      },
      async (server, ws) => {
        const a = await agentOn(server, ws, { extensions: [subagentExtension] });
        await a.prompt("Read the notes, then have three agents look at them.");
        await a.close();
      },
    );
  },
};

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const idealBodies = idealFile ? JSON.parse(readFileSync(idealFile, "utf8")) : undefined;
console.log(
  `\nbilled input (base-price units) vs an ideal client (over ${idealFile ? `the requests saved in ${idealFile}` : "this build's own requests"}):`,
);
const results = {};
for (const [name, run] of Object.entries(scenarios)) {
  const bodies = await run();
  const rows = simulate(bodies);
  results[name] = bodies;
  const ideal = idealBodies?.[name] ? simulate(idealBodies[name]) : rows;
  const billed = sum(rows, (r) => r.keel.billed);
  const floor = sum(ideal, (r) => r.ideal.billed);
  const at = focus[name](bodies);
  const idealAt = idealBodies?.[name] ? focus[name](idealBodies[name]) : at;
  const one = rows[at]?.keel;
  const oneIdeal = ideal[idealAt]?.ideal;
  console.log(
    `${name.padEnd(24)} ${String(bodies.length).padStart(3)} requests: billed ${fmt(billed).padStart(8)} vs ideal ${fmt(floor).padStart(8)} (${(billed / floor).toFixed(3)}×); read ${fmt(sum(rows, (r) => r.keel.read))}, written ${fmt(sum(rows, (r) => r.keel.write))}, uncached ${fmt(sum(rows, (r) => r.keel.input))}` +
      (one && oneIdeal
        ? `\n${"".padEnd(24)}   the request it is about (#${at + 1}): billed ${fmt(one.billed)} vs ideal ${fmt(oneIdeal.billed)} (${(one.billed / oneIdeal.billed).toFixed(2)}×; read ${fmt(one.read)}, written ${fmt(one.write)} of ${fmt(one.total)})`
        : ""),
  );
}
if (saveFile) writeFileSync(saveFile, JSON.stringify(results));
