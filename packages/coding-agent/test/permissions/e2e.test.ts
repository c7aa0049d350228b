// The permission matrix end to end: every case of cases.ts that names an effect runs through the
// real kernel (createCodingAgent, headless) in each of the five modes, driven by the mock model
// server asking for that tool call. The payload's effect (a sentinel file, a deleted file, a
// secret in what reached the model) must happen exactly when decide() allows the call; a direct
// bash run of each command first proves the payload is live.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model } from "@keel/ai";
import { fauxModel, type MockServer, type RecordedRequest, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import type { PermissionMode } from "../../src/permissions/types.js";
import { CASES, type Case, type Effect, MODES } from "./cases.js";
import { copyPermissionFixture, makePermissionFixture, type PermissionFixture } from "./fixture.js";

const E2E = CASES.map((c, index) => ({ c, index })).filter(
  (x): x is { c: Case & { e2e: Effect }; index: number } => x.c.e2e !== undefined,
);
/**
 * The programs the payloads run; CI must have them (Debian: coreutils, findutils, git, tar, sed,
 * gawk or mawk, diffutils, util-linux, bsdutils, gdb, expect, strace, parallel, fakeroot, python3).
 */
const NEEDED = [
  "bash",
  "git",
  "tar",
  "sed",
  "awk",
  "sort",
  "seq",
  "find",
  "xargs",
  "env",
  "diff",
  "grep",
  "setsid",
  "flock",
  "stdbuf",
  "ionice",
  "nice",
  "nohup",
  "timeout",
  // Runners (class 7): util-linux, gdb, expect, strace, parallel, fakeroot, python3.
  "unshare",
  "setpriv",
  "chrt",
  "prlimit",
  "script",
  "gdb",
  "expect",
  "unbuffer",
  "strace",
  "parallel",
  "fakeroot",
  "python3",
];

let template: PermissionFixture;
let server: MockServer;
let model: Model;
let scratch: string;
const savedHome = process.env.HOME;

/** At most this many kernels run at once (each also runs a shell). */
const PARALLEL = 6;
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const tagOf = (index: number, mode: string) => `KEELCASE-${index}-${mode}`;

function toolCallOf(c: Case) {
  const tool = c.tool ?? "Bash";
  const args = c.args ?? { command: c.cmd, timeout: 20 };
  return { name: tool, arguments: args as Record<string, unknown> };
}

/** One stateless script for every run: the prompt names the case, the tool result ends it. */
function route(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (JSON.stringify(last?.content ?? "").includes("tool_result")) return { text: "done" };
  const m = /KEELCASE-(\d+)-/.exec(JSON.stringify(messages[0]?.content ?? ""));
  const c = m ? CASES[Number(m[1])] : undefined;
  return c ? { toolCalls: [toolCallOf(c)] } : { text: "no case" };
}

beforeAll(async () => {
  template = makePermissionFixture();
  // `~` in commands and rules is this home; every run's copy keeps its own Keel home for rules.
  process.env.HOME = template.home;
  scratch = mkdtempSync(join(tmpdir(), "keel-perm-e2e-"));
  server = await startMockServer({ turns: [], fallback: route });
  model = { ...(fauxModel("anthropic-messages") as Model), baseUrl: server.anthropicBaseUrl };
}, 60_000);

afterAll(async () => {
  process.env.HOME = savedHome;
  await server?.close();
  template?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

function happened(effect: Effect, fx: PermissionFixture, requests: RecordedRequest[] | string): boolean {
  if ("creates" in effect) return existsSync(join(fx.root, effect.creates));
  if ("removes" in effect) return !existsSync(join(fx.root, effect.removes));
  const seen = typeof requests === "string" ? requests : requests.map((r) => r.raw).join("\n");
  return seen.includes(effect.leaks);
}

function workspaceOf(c: Case, fx: PermissionFixture): string {
  const base = c.workspace ? fx[c.workspace] : fx.workspace;
  return c.cwd ? join(base, c.cwd) : base;
}

/** Runs a command directly (no Keel), with the same HOME, without blocking the other runs. */
function bash(command: string, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const env = { ...process.env, HOME: template.home, CDPATH: "" };
    // stdin closed, as the Bash tool runs commands: a payload reading it must not wait.
    const child = spawn("bash", ["-c", command], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("close", () => resolve(out));
  });
}

let staleTimes = 0;
/**
 * Gives a tracked file a new mtime (and so ctime) in the past: git's next index refresh finds its
 * stat data changed and the content not (never "racily clean", which it may leave alone), and so
 * has something to write.
 */
function staleIndex(effect: Effect, fx: PermissionFixture): void {
  const when = 946_684_800 + ++staleTimes * 60;
  if (effect.stale) utimesSync(join(fx.root, effect.stale), when, when);
}

/** Puts the copy back as it was before a run, so the next mode starts from the same tree. */
function undo(effect: Effect, fx: PermissionFixture): void {
  if ("creates" in effect) rmSync(join(fx.root, effect.creates), { recursive: true, force: true });
  if ("removes" in effect) cpSync(join(template.root, effect.removes), join(fx.root, effect.removes));
}

async function runKernel(c: Case, index: number, mode: PermissionMode, fx: PermissionFixture) {
  const created = await createCodingAgent({
    cwd: workspaceOf(c, fx),
    home: fx.keelHome,
    model,
    streamOptions: { apiKey: "test", retry: { baseDelayMs: 1 } },
    permissionMode: mode,
    session: { mode: "ephemeral" },
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const results: string[] = [];
  const calls: unknown[] = [];
  agent.subscribe((event) => {
    if (event.type === "tool_start") calls.push({ name: event.toolName, arguments: event.args });
    if (event.type === "tool_end") results.push(event.text);
  });
  const run = await agent.prompt(`${tagOf(index, mode)}: please make the tool call.`);
  await agent.close();
  const requests = server.requests.filter((r) => r.raw.includes(tagOf(index, mode)));
  return { run: run._unsafeUnwrap(), requests, results, calls };
}

describe("permission matrix end to end", () => {
  it("has the programs the payloads run", () => {
    const missing = NEEDED.filter((p) => spawnSync("bash", ["-c", `command -v ${p}`]).status !== 0);
    expect(missing, `install these for the permission e2e suite: ${missing.join(" ")}`).toEqual([]);
  });

  it(`runs ${E2E.length} cases with effects, in every mode`, () => {
    expect(E2E.length).toBeGreaterThanOrEqual(100);
  });

  describe.concurrent.each(E2E)("%#", ({ c, index }) => {
    // Concurrent tests must assert with their own `expect` so failures land on the right test.
    it(`[${c.class}] ${c.name}`, { timeout: 120_000 }, ({ expect }) =>
      slot(async () => {
        const effect = c.e2e;
        // One copy per case; each mode's run is undone before the next (modes run in turn).
        const fx = await copyPermissionFixture(template, join(scratch, String(index)));
        const rules = { allow: c.allow ?? [], ask: c.ask ?? [], deny: c.deny ?? [] };
        // The parser's own verdicts are what this suite checks: the OS sandbox (which would hold
        // some allowed effects back) is off here; sandbox/ tests what it holds.
        writeFileSync(
          join(fx.keelHome, "config.json"),
          JSON.stringify({ permissions: rules, sandbox: { enabled: false } }),
        );
        // The payload is live: run directly, outside Keel, the effect happens.
        staleIndex(effect, fx);
        if (c.tool === undefined && !effect.never) {
          const out = await bash(c.cmd!, workspaceOf(c, fx));
          expect(happened(effect, fx, out), `control run of ${c.cmd}: ${out}`).toBe(true);
          undo(effect, fx);
          staleIndex(effect, fx);
        }
        for (const mode of MODES) {
          const { run, requests, results, calls } = await runKernel(c, index, mode, fx);
          // The mock asked for exactly this case's call, once.
          expect(calls, mode).toEqual([toolCallOf(c)]);
          const allowed = c.expect[mode] === "allow";
          const saw = happened(effect, fx, requests);
          const why = `${mode}: expected the effect ${allowed && !effect.never ? "" : "not "}to happen; tool said: ${results.join(" | ").slice(0, 400)}`;
          expect(saw, why).toBe(allowed && !effect.never);
          expect(run.stopReason, mode).toBe("stop");
          // The model heard why it was refused.
          if (!allowed)
            expect(results.join(" "), mode).toMatch(/denied|approval|not allowed|plan mode|rule/i);
          undo(effect, fx);
          staleIndex(effect, fx);
        }
        fx.cleanup();
      }),
    );
  });
});
