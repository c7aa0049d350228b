// Trust before spawn: an untrusted project's config names commands to run; none runs (counted
// at child_process itself) until the project is trusted, and an edit revokes the trust.
import childProcess from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { probeSandbox } from "../../src/sandbox/probe.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

const SPAWNERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
type Spawner = (typeof SPAWNERS)[number];
const originals = Object.fromEntries(SPAWNERS.map((n) => [n, childProcess[n]])) as Record<Spawner, unknown>;
let spawned: string[] = [];

// Keel's own look for bubblewrap, made once per process before anything else: not the project's.
beforeAll(async () => {
  await probeSandbox();
});

beforeEach(() => {
  spawned = [];
  for (const name of SPAWNERS) {
    const original = originals[name] as (...args: unknown[]) => unknown;
    (childProcess as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      spawned.push(`${name} ${String(args[0])}`);
      return original(...args);
    };
  }
  // ESM importers of node:child_process see the patched functions only after this.
  syncBuiltinESMExports();
});

let box: Sandbox;
afterEach(() => {
  for (const name of SPAWNERS) (childProcess as unknown as Record<string, unknown>)[name] = originals[name];
  syncBuiltinESMExports();
  box?.cleanup();
});

async function runOnce(box: Sandbox) {
  const f = faux({ turns: [{ text: "hello" }] });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    discoverExtensions: true,
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const diagnostics = agent.diagnostics();
  const run = await agent.prompt("hi");
  await agent.close();
  return { run: run._unsafeUnwrap(), diagnostics };
}

describe("trust gate", () => {
  it("spawns nothing for an untrusted project, runs its hooks once trusted, and re-locks on edit", async () => {
    box = sandbox();
    const marker = join(box.workspace, "hook-ran");
    mkdirSync(join(box.workspace, ".keel"));
    const config = (command: string) =>
      JSON.stringify({ hooks: { sessionStart: [{ command }], runEnd: [{ command }] } }, null, 2);
    writeFileSync(join(box.workspace, ".keel", "config.json"), config(`touch ${marker}`));
    spawned = []; // the sandbox's own git init is not the kernel's doing

    const untrusted = await runOnce(box);
    expect(untrusted.run.text).toBe("hello");
    expect(spawned).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    const notices = untrusted.diagnostics.filter((d) => d.message.includes("not trusted"));
    expect(notices).toHaveLength(1);

    // The user trusts it with /trust from inside a session.
    const f = faux({ turns: [] });
    const trusting = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
      })
    )._unsafeUnwrap();
    // /trust alone only shows what the project could do; "yes" trusts it.
    const shown = (await trusting.commands.run("/trust"))._unsafeUnwrap();
    expect(shown.message).toContain(`runEnd: touch ${marker}`);
    expect(shown.message).toContain("Nothing was trusted");
    expect((await trusting.trustPreview()).status).toBe("untrusted");
    const said = (await trusting.commands.run("/trust yes"))._unsafeUnwrap();
    expect(said.message).toContain("Trusted");
    await trusting.close();
    expect(spawned).toEqual([]);
    await runOnce(box);
    expect(existsSync(marker)).toBe(true);
    expect(spawned.length).toBeGreaterThan(0);

    // An edit to what was trusted makes the project untrusted again.
    spawned = [];
    writeFileSync(join(box.workspace, ".keel", "config.json"), config(`touch ${marker}-2`));
    const edited = await runOnce(box);
    expect(spawned).toEqual([]);
    expect(existsSync(`${marker}-2`)).toBe(false);
    expect(edited.diagnostics.some((d) => d.message.includes("changed since you trusted it"))).toBe(true);
  });
});
