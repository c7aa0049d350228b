// What the OS sandbox costs: per Bash call (the built Bash tool, unconfined against inside
// bubblewrap, default and plan mode, interleaved rounds: median, p90 and the difference), what
// bubblewrap alone costs to start, and its effect on the CLI's 10-turn coding scenario (keel -p
// against the mock model, sandbox on against `sandbox.enabled: false`). Run after `pnpm build`:
// node bench/sandbox/run.mjs [--calls 60] [--runs 5]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLS = arg("--calls", 60);
const RUNS = arg("--runs", 5);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const agent = await import(pathToFileURL(join(root, "packages/coding-agent/dist/index.js")).href);
const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);
const { secretScrubber } = await import(
  pathToFileURL(join(root, "packages/extension-sdk/dist/index.js")).href
);
const { createBashTool, CommandSandbox, DEFAULT_SANDBOX_SETTINGS, probeSandbox } = agent;

const load = loadavg()[0].toFixed(1);
const found = await probeSandbox();
if (!found.ok) {
  console.error(`No sandbox here: ${found.reason}`);
  process.exit(1);
}

const base = realpathSync(
  mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "keel-bench-sandbox-")),
);
const home = join(base, "home");
const repo = join(base, "repo");
mkdirSync(home);
mkdirSync(repo);
execFileSync("git", ["init", "-q", repo]);
writeFileSync(join(repo, "README.md"), "hello\n");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const fmt = (x) => `${x.toFixed(1)} ms`;
const lines = [];
const row = (name, value, note = "") => lines.push(`${name.padEnd(58)} ${value.padStart(10)}  ${note}`);

try {
  // 1. One Bash call, unconfined against sandboxed, in interleaved rounds (a busy machine hits both alike).
  let mode = "default";
  const sandbox = new CommandSandbox({
    workspace: repo,
    cwd: repo,
    userHome: home,
    keelHome: join(home, ".keel"),
    settings: { ...DEFAULT_SANDBOX_SETTINGS },
    mode: () => mode,
    rules: () => [],
  });
  const shell = { file: "/bin/bash", args: ["-c"] };
  const plain = createBashTool({ cwd: repo, shell });
  const boxed = createBashTool({ cwd: repo, shell, sandbox });
  const ctx = { signal: new AbortController().signal, toolCallId: "b", onUpdate: () => {} };
  const time = async (tool, command) => {
    const t = performance.now();
    const r = await tool.execute({ command }, ctx);
    if (r.isError) throw new Error(`${command}: ${r.content[0].text}`);
    return performance.now() - t;
  };
  for (const command of ["true", "git status --short"]) {
    const samples = { plain: [], default: [], plan: [] };
    await time(plain, command);
    await time(boxed, command);
    for (let i = 0; i < CALLS; i++) {
      samples.plain.push(await time(plain, command));
      mode = "default";
      samples.default.push(await time(boxed, command));
      mode = "plan";
      samples.plan.push(await time(boxed, command));
    }
    row(`Bash \`${command}\` unconfined (median / p90)`, fmt(median(samples.plain)), fmt(p90(samples.plain)));
    for (const m of ["default", "plan"]) {
      const extra = median(samples[m]) - median(samples.plain);
      row(
        `  in the sandbox, ${m} mode (median / p90)`,
        fmt(median(samples[m])),
        `${fmt(p90(samples[m]))}   sandbox cost: ${fmt(extra)} (target ≤ 15 ms)`,
      );
    }
  }
  // Keel's own part of a sandboxed call: the policy, placeholders, the filter's descriptor.
  const own = [];
  for (let i = 0; i < CALLS * 3; i++) {
    mode = "default";
    const t = performance.now();
    const confined = await sandbox.confine({ file: "/bin/true", args: [], cwd: repo, env: process.env });
    confined.value.release();
    own.push(performance.now() - t);
  }
  row("  of which Keel's own work per call (policy, placeholders)", fmt(median(own)), `p90 ${fmt(p90(own))}`);

  await sandbox.close();

  // Scrubbing a tool result of known secrets (every result goes through it): 30 KB, five secrets.
  const secrets = [1, 2, 3, 4, 5].map((n) => `ghp_${n}R7x2Kq9LmZ4vT1nB8cW3yH6pJ0sD5fG2aE1`);
  const scrubber = secretScrubber(secrets);
  const output = `${"lorem ipsum dolor sit amet, 0123456789 abcdef\n".repeat(680)}${secrets[2]}`;
  const scrubTimes = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    scrubber.text(output);
    scrubTimes.push(performance.now() - t);
  }
  row(
    "scrubbing a 30 KB tool result of 5 secrets (median)",
    fmt(median(scrubTimes)),
    `p90 ${fmt(p90(scrubTimes))}`,
  );

  // 2. Bubblewrap alone: spawning it around `true`, against spawning `true`.
  const bwrap = found.backend.path;
  const spawnTimes = { bare: [], bwrap: [] };
  const minimalArgs = [
    "--die-with-parent",
    "--unshare-all",
    "--unshare-user",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--",
    "/bin/true",
  ];
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now();
    spawnSync("/bin/true");
    spawnTimes.bare.push(performance.now() - t);
    t = performance.now();
    spawnSync(bwrap, minimalArgs);
    spawnTimes.bwrap.push(performance.now() - t);
  }
  row("spawn /bin/true (median)", fmt(median(spawnTimes.bare)));
  row(
    "spawn bwrap … /bin/true (median)",
    fmt(median(spawnTimes.bwrap)),
    `bubblewrap's own start: ${fmt(median(spawnTimes.bwrap) - median(spawnTimes.bare))}`,
  );

  // 3. The CLI's 10-turn coding scenario, sandbox on against off.
  const bin = join(root, "apps/cli/dist/bin.cjs");
  const server = await startMockServer({ turns: [] });
  const tool = (name, args) => ({ toolCalls: [{ name, arguments: args }] });
  const CODING = [
    tool("Write", { path: "src/app.js", content: "export const answer = 41;\n" }),
    tool("Read", { path: "src/app.js" }),
    tool("Edit", { path: "src/app.js", old_string: "41", new_string: "42" }),
    tool("Bash", { command: "cat src/app.js" }),
    tool("Write", { path: "README.md", content: "# app\n\nanswer: 41\n" }),
    tool("Read", { path: "README.md" }),
    tool("Edit", { path: "README.md", old_string: "41", new_string: "42" }),
    tool("Bash", { command: "grep -r 42 src README.md" }),
    tool("LS", { path: "." }),
    { text: "Done." },
  ];
  const keelHome = join(base, "keel-home");
  mkdirSync(keelHome);
  const env = {
    ...process.env,
    KEEL_HOME: keelHome,
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    ANTHROPIC_API_KEY: "bench",
    NO_PROXY: "127.0.0.1,localhost",
  };
  delete env.OPENAI_API_KEY;
  const scenario = (sandboxOn) =>
    new Promise((resolve, reject) => {
      writeFileSync(join(keelHome, "config.json"), JSON.stringify({ sandbox: { enabled: sandboxOn } }));
      rmSync(join(repo, "src"), { recursive: true, force: true });
      server.setScenario({ turns: CODING });
      const started = performance.now();
      const args = [
        "-p",
        "fix it",
        "--output-format",
        "stream-json",
        "--permission-mode",
        "bypassPermissions",
        "--model",
        "anthropic/claude-sonnet-4-6",
        "--cwd",
        repo,
      ];
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
      let err = "";
      const starts = [];
      const ends = [];
      child.stdout.setEncoding("utf8").on("data", (d) => {
        const at = performance.now();
        for (const line of d.split("\n")) {
          if (line.includes('"type":"tool_start"') && line.includes('"Bash"')) starts.push(at);
          if (line.includes('"type":"tool_end"') && line.includes('"Bash"')) ends.push(at);
        }
      });
      child.stderr.on("data", (d) => (err += d));
      child.on("error", reject);
      child.on("close", (code) => {
        if (code !== 0) return reject(new Error(`keel exited ${code}: ${err}`));
        resolve({
          wall: performance.now() - started,
          bash: ends.reduce((s, e, k) => s + e - (starts[k] ?? e), 0),
        });
      });
    });
  await scenario(true);
  await scenario(false);
  const on = [];
  const off = [];
  for (let i = 0; i < RUNS; i++) {
    off.push(await scenario(false));
    on.push(await scenario(true));
  }
  await server.close();
  const wall = (xs) => median(xs.map((x) => x.wall));
  const bash = (xs) => median(xs.map((x) => x.bash));
  row("10-turn scenario, sandbox off (wall, median)", fmt(wall(off)), `its 2 Bash calls: ${fmt(bash(off))}`);
  row("10-turn scenario, sandbox on (wall, median)", fmt(wall(on)), `its 2 Bash calls: ${fmt(bash(on))}`);
  row(
    "  the sandbox's share",
    fmt(wall(on) - wall(off)),
    `${((100 * (wall(on) - wall(off))) / wall(off)).toFixed(1)} % of the run`,
  );
  console.log(
    `bench/sandbox — ${found.backend.kind} at ${found.backend.path}, ${CALLS} calls, ${RUNS} scenario runs, load average ${load} at the start, ${loadavg()[0].toFixed(1)} at the end\n`,
  );
  console.log(lines.join("\n"));
} finally {
  rmSync(base, { recursive: true, force: true });
}
