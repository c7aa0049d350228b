// @keel/session bench over dist: appends/s per fsync policy, open+fold of 10k/100k entries,
// listing 5,000 sessions; `--trials N` runs the crash torture instead.
// Usage: pnpm --filter @keel/session build && node bench/session/run.mjs [--trials 200]
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

const distUrl = new URL("../../packages/session/dist/index.js", import.meta.url);
const api = await import(distUrl.href);
const { createSession, openSession, listSessions } = api;

const GOALS = { appendsPerSecTurn: 20_000, openFold100kMs: 1000, list5000Ms: 300 };
const root = mkdtempSync(join(tmpdir(), "keel-session-bench-"));
const must = (r) => {
  if (r.isErr()) throw new Error(JSON.stringify(r.error));
  return r.value;
};
const usage = {
  input: 900,
  output: 120,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  totalTokens: 1020,
  cost: { input: 0.0027, output: 0.0018, cacheRead: 0, cacheWrite: 0, total: 0.0045 },
};
const filler = "The quick brown fox jumps over the lazy dog while the build runs again. ";

function entryFor(i) {
  switch (i % 6) {
    case 0:
      return {
        type: "message",
        message: { role: "user", content: `${filler.repeat(2)} #${i}`, timestamp: Date.now() },
      };
    case 1:
      return {
        type: "message",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: filler.repeat(3) },
            {
              type: "toolCall",
              id: `call_${i}`,
              name: "Edit",
              arguments: { path: `src/file${i}.ts`, old: "a", new: "b" },
            },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-x",
          usage,
          stopReason: "toolUse",
          timestamp: Date.now(),
        },
      };
    case 2:
      return {
        type: "op_begin",
        toolCallId: `call_${i - 1}`,
        toolName: "Edit",
        args: { path: `src/file${i}.ts` },
      };
    case 3:
      return { type: "op_end", toolCallId: `call_${i - 2}`, outcome: "ok", summary: "1 edit" };
    case 4:
      return {
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: `call_${i - 3}`,
          toolName: "Edit",
          content: [{ type: "text", text: filler.repeat(4) }],
          isError: false,
          timestamp: Date.now(),
        },
      };
    default:
      return {
        type: "app_state",
        extensionId: "todo",
        state: { items: [{ text: "step", done: i % 2 === 0 }] },
      };
  }
}

async function appendsPerSec(policy, count, turnEvery) {
  const s = must(
    await createSession({ dir: join(root, `appends-${policy}-${turnEvery}`), cwd: "/bench", fsync: policy }),
  );
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    // op_begin is always flushed; measure the policy on content entries only.
    const e = entryFor(i);
    must(await s.appendEntry(e.type === "op_begin" ? entryFor(0) : e));
    if (turnEvery && (i + 1) % turnEvery === 0) must(await s.sync());
  }
  const ms = performance.now() - start;
  const fsyncs = s.stats().fsyncs;
  must(await s.close());
  return { perSec: Math.round((count / ms) * 1000), fsyncs };
}

async function buildSession(n) {
  const s = must(await createSession({ dir: join(root, `open-${n}`), cwd: "/bench", fsync: "never" }));
  for (let i = 0; i < n; i++) {
    // A branch now and then so the fold walks a real tree.
    if (i % 5000 === 4999) must(await s.branch(s.entries()[s.entries().length - 10].id));
    must(await s.appendEntry(entryFor(i)));
  }
  must(await s.close());
  return s.path;
}

async function openFold(path) {
  const times = [];
  let folded;
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    const s = must(await openSession(path));
    folded = s.fold();
    times.push(performance.now() - start);
    must(await s.close());
  }
  return { ms: Math.min(...times), messages: folded.messages.length, mb: statSync(path).size / 1e6 };
}

async function listing(count) {
  const dir = join(root, "list");
  const s = must(await createSession({ dir, cwd: "/bench/project", fsync: "never" }));
  for (let i = 0; i < 20; i++) must(await s.appendEntry(entryFor(i)));
  must(await s.setName("bench session"));
  must(await s.close());
  const sidecar = JSON.parse(readFileSync(`${s.path}.meta.json`, "utf8"));
  for (let i = 0; i < count - 1; i++) {
    const id = `${String(i).padStart(8, "0")}-0000-4000-8000-000000000000`;
    const file = join(dir, basename(s.path).replace(s.id, id));
    copyFileSync(s.path, file);
    const lastActivity = new Date(Date.parse(sidecar.lastActivity) - i * 1000).toISOString();
    writeFileSync(`${file}.meta.json`, JSON.stringify({ ...sidecar, id, lastActivity }));
  }
  const warm = [];
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    const { sessions } = must(listSessions(dir));
    warm.push(performance.now() - start);
    if (sessions.length !== count) throw new Error(`listed ${sessions.length}, expected ${count}`);
  }
  // Cold: no sidecars and no directory index (sessions that crashed before their first turn end).
  for (const f of readdirSync(dir))
    if (f.endsWith(".meta.json") || f.startsWith(".keel-sessions-index")) rmSync(join(dir, f));
  const start = performance.now();
  must(listSessions(dir));
  const cold = performance.now() - start;
  return { warmMs: Math.min(...warm), coldMs: cold };
}

const fmt = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });
const verdict = (ok) => (ok ? "ok" : "MISSED");

try {
  const trialsAt = process.argv.indexOf("--trials");
  if (trialsAt !== -1) {
    const { runTorture } = await import(
      new URL("../../packages/session/test/fixtures/torture.mjs", import.meta.url).href
    );
    const trials = Number(process.argv[trialsAt + 1] ?? 200);
    const start = performance.now();
    const figures = await runTorture({ api, moduleUrl: distUrl.href, trials, seed: Date.now() % 100_000 });
    console.log(
      `crash torture: ${figures.trials} SIGKILLs in ${fmt((performance.now() - start) / 1000)} s, all reopened and verified`,
    );
    console.log(JSON.stringify(figures, null, 2));
  } else {
    for (const [policy, count, turnEvery] of [
      ["never", 50_000, 0],
      ["turn", 50_000, 0],
      ["turn", 20_000, 20],
      ["always", 2_000, 0],
    ]) {
      const r = await appendsPerSec(policy, count, turnEvery);
      const label = `${policy}${turnEvery ? ` (turn end every ${turnEvery})` : ""}`;
      const goal =
        policy === "turn" && !turnEvery
          ? `  goal ≥ ${fmt(GOALS.appendsPerSecTurn)}: ${verdict(r.perSec >= GOALS.appendsPerSecTurn)}`
          : "";
      console.log(`appends/s  ${label.padEnd(28)} ${fmt(r.perSec).padStart(9)}  (${r.fsyncs} fsyncs)${goal}`);
    }
    for (const n of [10_000, 100_000]) {
      const path = await buildSession(n);
      const r = await openFold(path);
      const goal =
        n === 100_000 ? `  goal ≤ ${GOALS.openFold100kMs} ms: ${verdict(r.ms <= GOALS.openFold100kMs)}` : "";
      console.log(
        `open+fold  ${fmt(n).padStart(7)} entries (${fmt(r.mb)} MB)  ${fmt(r.ms).padStart(7)} ms  (${r.messages} messages in context)${goal}`,
      );
    }
    const l = await listing(5000);
    console.log(
      `list 5,000 sessions  ${fmt(l.warmMs)} ms with sidecars  goal ≤ ${GOALS.list5000Ms} ms: ${verdict(l.warmMs <= GOALS.list5000Ms)}`,
    );
    console.log(
      `list 5,000 sessions  ${fmt(l.coldMs)} ms cold: no sidecars, no index (full parse of each file)`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
