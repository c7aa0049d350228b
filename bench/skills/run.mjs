// What skills cost before the first model request: a real kernel with the skills extension and
// the faux provider, time from createCodingAgent to the first request with 0 skills and with N
// (default 500), interleaved rounds, median and best; then the bytes of the first request's skills
// notice, and the extension's own activation (discovery, commands, catalog) measured alone.
// After `pnpm build`: node bench/skills/run.mjs [--skills 500] [--rounds 9]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCodingAgent } from "../../packages/coding-agent/dist/index.js";
import { testRuntime } from "../../packages/extension-sdk/dist/testing.js";
import { skillsExtension } from "../../packages/extensions/skills/dist/index.js";
import { createFauxFetch, fauxModel } from "../../packages/testing/dist/index.js";

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const SKILLS = flag("--skills", 500);
const ROUNDS = flag("--rounds", 9);
const GOAL_MS = 50;

const words = ["review", "deploy", "migrate", "document", "profile", "refactor", "triage", "release"];
/** A Keel home with `count` skills of realistic size: a two-line description, a 2 KB body, files. */
function home(count) {
  const root = mkdtempSync(join(tmpdir(), "keel-bench-skills-"));
  const workspace = join(root, "repo");
  const keelHome = join(root, "home", ".keel");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(keelHome, "skills"), { recursive: true });
  execFileSync("git", ["init", "-q", workspace]);
  for (let i = 0; i < count; i++) {
    const name = `${words[i % words.length]}-${String(i).padStart(4, "0")}`;
    const dir = join(keelHome, "skills", name);
    mkdirSync(join(dir, "references"), { recursive: true });
    const description = `${words[i % words.length]} work for component ${i}: use when the user asks to ${words[(i + 3) % words.length]} it or mentions ticket ${1000 + i}.`;
    writeFileSync(
      join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: >\n  ${description}\nlicense: MIT\nallowed-tools: Read Bash(git diff:*)\n---\n# ${name}\n\n${"Follow the steps carefully. ".repeat(75)}\n`,
    );
    writeFileSync(join(dir, "references", "REFERENCE.md"), "# Reference\n");
  }
  return { root, workspace, keelHome, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** ms from createCodingAgent to the first request reaching the provider, and that request. */
async function firstRequest(env) {
  const faux = createFauxFetch({ turns: [{ text: "ok" }] });
  let firstAt = 0;
  let firstCpu;
  const fetch = (...args) => {
    if (!firstAt) {
      firstAt = performance.now();
      firstCpu = process.cpuUsage(cpu0);
    }
    return faux.fetch(...args);
  };
  const previousHome = process.env.HOME;
  process.env.HOME = join(env.keelHome, "..");
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const created = await createCodingAgent({
    cwd: env.workspace,
    home: env.keelHome,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch, apiKey: "bench" },
    extensions: [skillsExtension],
    discoverExtensions: false,
    session: { mode: "ephemeral" },
  });
  if (created.isErr()) throw new Error(created.error.message);
  const run = await created.value.prompt("go");
  if (run.isErr()) throw new Error(run.error.message);
  const ms = firstAt - start;
  const cpuMs = (firstCpu.user + firstCpu.system) / 1000;
  await created.value.close();
  process.env.HOME = previousHome;
  return { ms, cpuMs, body: faux.requests[0].body };
}

async function activationOnly(env) {
  const runtime = testRuntime(skillsExtension, {
    config: { paths: [], budgetFraction: 0.01, watch: false },
    model: fauxModel("anthropic-messages"),
    cwd: env.workspace,
  });
  const ctx = Object.create(runtime, {
    workspace: {
      value: { cwd: env.workspace, projectRoot: env.workspace, trusted: false, keelHome: env.keelHome },
    },
    signal: { value: new AbortController().signal },
  });
  const start = performance.now();
  const instance = await skillsExtension.lifecycle.activate(ctx);
  const ms = performance.now() - start;
  await instance.set.close();
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const best = (xs) => Math.min(...xs);
const fmt = (ms) => `${ms.toFixed(1)} ms`;

const empty = home(0);
const full = home(SKILLS);
try {
  // Warm up module loading and the JIT once on each side.
  await firstRequest(empty);
  await firstRequest(full);
  const none = [];
  const many = [];
  const noneCpu = [];
  const manyCpu = [];
  const alone = [];
  let sample;
  for (let r = 0; r < ROUNDS; r++) {
    const zero = await firstRequest(empty);
    none.push(zero.ms);
    noneCpu.push(zero.cpuMs);
    const one = await firstRequest(full);
    many.push(one.ms);
    manyCpu.push(one.cpuMs);
    sample = one.body;
    alone.push(await activationOnly(full));
  }
  const added = median(many) - median(none);
  const text = JSON.stringify(sample.messages);
  const noticeMessage = sample.messages.find((m) => JSON.stringify(m).includes("Skills (load one"));
  const noticeText = noticeMessage
    ? typeof noticeMessage.content === "string"
      ? noticeMessage.content
      : noticeMessage.content.map((c) => c.text ?? "").join("")
    : "";
  const listed = (noticeText.match(/^ +- [a-z]+-\d{4}: /gm) ?? []).length;
  console.log(`skills bench: ${SKILLS} skills, ${ROUNDS} rounds (median, best)`);
  console.log(`  first request, 0 skills:        ${fmt(median(none))}, ${fmt(best(none))}`);
  console.log(`  first request, ${SKILLS} skills:      ${fmt(median(many))}, ${fmt(best(many))}`);
  console.log(
    `  added by ${SKILLS} skills:            ${fmt(added)} (goal <= ${GOAL_MS} ms) ${added <= GOAL_MS ? "ok" : "OVER"}`,
  );
  console.log(
    `  CPU to the first request:       ${fmt(median(noneCpu))} with 0, ${fmt(median(manyCpu))} with ${SKILLS} (added ${fmt(median(manyCpu) - median(noneCpu))}; wall time also waits on other processes)`,
  );
  console.log(`  extension activation alone:     ${fmt(median(alone))}, ${fmt(best(alone))}`);
  console.log(
    `  skills notice:                  ${Buffer.byteLength(noticeText)} bytes, ${listed} of ${SKILLS} listed (first request ${Buffer.byteLength(text)} bytes of messages)`,
  );
} finally {
  empty.cleanup();
  full.cleanup();
}
