// `keel acp` start-up as an editor sees it: process start → the answer to `initialize` (target
// ≤ 150 ms on Node 24), from V8's code cache and without it (the first start after an install), and
// then → the answer to `session/new` (the kernel composed for a folder). Run after `pnpm build`:
// node bench/acp/run.mjs [--runs 15]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "apps/cli/dist/bin.cjs");
const at = process.argv.indexOf("--runs");
const RUNS = at > 0 ? Number(process.argv[at + 1]) : 15;

const base = mkdtempSync(join(tmpdir(), "keel-bench-acp-"));
const home = join(base, "home");
const repo = join(base, "repo");
mkdirSync(home);
mkdirSync(repo);
spawnSync("git", ["init", "-q", repo]);
const env = { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: "bench", NO_PROXY: "127.0.0.1,localhost" };

const line = (id, method, params) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;

/** CPU ms a process has used so far (user + system, from /proc; 10 ms ticks): wall time on a shared machine is mostly its load. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** A bare `node -e 0`: the floor any Node program's start stands on, on this machine now. */
function bare() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("close", () =>
      resolve(performance.now() - t0),
    );
  });
}

/** One start: ms to the initialize answer and to the session/new answer. */
function once(extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, "acp", "--model", "anthropic/claude-sonnet-4-6"], {
      env: { ...env, ...extraEnv },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const times = {};
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      buffer += d;
      for (;;) {
        const nl = buffer.indexOf("\n");
        if (nl < 0) break;
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          times.initialize = performance.now() - t0;
          times.initializeCpu = cpuMs(child.pid);
          child.stdin.write(line(2, "session/new", { cwd: repo, mcpServers: [] }));
        } else if (message.id === 2) {
          times.sessionNew = performance.now() - t0;
          child.stdin.end();
        }
      }
    });
    child.on("close", (code) =>
      times.sessionNew ? resolve(times) : reject(new Error(`keel acp exited ${code}`)),
    );
    child.stdin.write(line(1, "initialize", { protocolVersion: 1, clientCapabilities: {} }));
  });
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const pick = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `median ${pick(0.5).toFixed(0)} ms, p90 ${pick(0.9).toFixed(0)} ms, best ${s[0].toFixed(0)} ms`;
};

try {
  await once(); // writes the code cache
  const cached = [];
  const cold = [];
  const floor = [];
  // Interleaved, so machine load falls on all alike.
  for (let i = 0; i < RUNS; i++) {
    cached.push(await once());
    cold.push(await once({ KEEL_CODE_CACHE: "0" }));
    floor.push(await bare());
  }
  console.log(
    `keel acp on Node ${process.versions.node}, ${RUNS} runs each, load average ${(await import("node:os"))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `start → initialize answer (code cache):     ${stats(cached.map((t) => t.initialize))} (target ≤ 150 ms)`,
  );
  console.log(`  CPU used by then (code cache):            ${stats(cached.map((t) => t.initializeCpu))}`);
  console.log(`start → initialize answer (no code cache):  ${stats(cold.map((t) => t.initialize))}`);
  console.log(`bare node -e 0, start → exit:               ${stats(floor)}`);
  console.log(`start → session/new answer (code cache):    ${stats(cached.map((t) => t.sessionNew))}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
