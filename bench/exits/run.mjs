// How fast keel stops on a signal while a Bash call runs (setsid and disowned children included):
// milliseconds from the signal to the process's exit, with the session unlocked after.
// After `pnpm build`: node bench/exits/run.mjs [--trials 5]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockServer } from "../../packages/testing/dist/index.js";

const at = process.argv.indexOf("--trials");
const trials = at === -1 ? 5 : Number(process.argv[at + 1]);
const bin = new URL("../../apps/cli/dist/bin.cjs", import.meta.url).pathname;
const command = "setsid sleep 60 & (sleep 60 & disown); echo started; sleep 30";
const server = await startMockServer({
  turns: [],
  fallback: { toolCalls: [{ name: "Bash", arguments: { command } }] },
});

const locks = (home) => {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".lock")) out.push(join(d, e.name));
    }
  };
  if (existsSync(join(home, "sessions"))) walk(join(home, "sessions"));
  return out;
};

const results = {};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  results[signal] = [];
  for (let t = 0; t < trials; t++) {
    const dir = mkdtempSync(join(tmpdir(), "keel-bench-exits-"));
    execFileSync("mkdir", ["-p", join(dir, "repo"), join(dir, "home")]);
    const child = spawn(
      process.execPath,
      [
        bin,
        "-p",
        "go",
        "--cwd",
        join(dir, "repo"),
        "--model",
        "anthropic/claude-sonnet-4-6",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "stream-json",
      ],
      {
        env: {
          ...process.env,
          KEEL_HOME: join(dir, "home"),
          ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
          ANTHROPIC_API_KEY: "bench",
          NO_PROXY: "127.0.0.1",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    await new Promise((resolve) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("started")) resolve();
      });
    });
    const sent = performance.now();
    child.kill(signal);
    await new Promise((resolve) => child.on("close", resolve));
    results[signal].push(performance.now() - sent);
    if (locks(join(dir, "home")).length > 0) console.log(`${signal}: a lock was left behind`);
    rmSync(dir, { recursive: true, force: true });
  }
}
await server.close();
for (const [signal, times] of Object.entries(results)) {
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `${signal}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms over ${times.length} trials`,
  );
}
