// The disk filling up mid-run: the run stops before its next model request (instead of
// resending a context the journal no longer advances), exits 1 saying why, loses nothing it
// had acknowledged, and once space is back the next run journals again. On a small tmpfs when
// this machine may mount one (CI runs as root), else with ENOSPC injected into writes.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSession } from "@keel/session";
import { afterEach, describe, expect, it } from "vitest";
import { CLI_ROOT, MODEL, mockSuite, runKeel, sessionFiles, type Workspace } from "./helpers.js";

const { fresh } = mockSuite();

interface SmallDisk {
  kind: "tmpfs" | "injected ENOSPC";
  /** KEEL_HOME on the small disk. */
  home: string;
  /** A shell command that fills it (run by the Bash tool, mid-run). */
  fillCommand: string;
  free(): void;
  env: Record<string, string>;
  nodeArgs: string[];
  dispose(): void;
}

/** A small disk holding KEEL_HOME; what fills it lies beside the home, not in it (Keel protects its home). */
function smallDisk(ws: Workspace): SmallDisk {
  const disk = join(ws.home, "..", "small-disk");
  const home = join(disk, "home");
  mkdirSync(disk);
  try {
    // KEEL_TEST_DISK=injected tries the fallback on a machine that could mount.
    if (process.env.KEEL_TEST_DISK === "injected") throw new Error("injection asked for");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk], { stdio: "ignore" });
    mkdirSync(home);
    return {
      kind: "tmpfs",
      home,
      // Fills every byte left (head stops at ENOSPC; that is the point).
      fillCommand: `head -c 64m /dev/zero > '${disk}/filler' 2>/dev/null; echo filled`,
      free: () => rmSync(join(disk, "filler"), { force: true }),
      env: {},
      nodeArgs: [],
      dispose: () => execFileSync("umount", [disk]),
    };
  } catch {
    // Not root, or no mount permission (a container): the same story, by injection.
    mkdirSync(home);
    return {
      kind: "injected ENOSPC",
      home,
      fillCommand: `touch '${disk}/.full'; echo filled`,
      free: () => rmSync(join(disk, ".full"), { force: true }),
      env: { KEEL_TEST_FULL_DISK: disk },
      nodeArgs: ["--import", join(CLI_ROOT, "test/fixtures/full-disk.mjs")],
      dispose: () => {},
    };
  }
}

let disk: SmallDisk | undefined;
afterEach(() => {
  disk?.dispose();
  disk = undefined;
});

describe("a full disk", () => {
  it("stops the run within one request, exits 1, keeps what was acknowledged, and journals again once freed", async () => {
    // The model would call tools forever; only the journal failing can stop this run.
    const { server, ws } = fresh([
      { text: "first answer" },
      { toolCalls: [{ id: "toolu_fill", name: "Bash", arguments: { command: "true" } }] },
    ]);
    disk = smallDisk(ws);
    console.info(`disk full by: ${disk.kind}`);
    // What fills the disk lies outside the workspace: a command the user runs unconfined in
    // bypassPermissions (by default the OS sandbox would keep it from writing there at all).
    writeFileSync(join(disk.home, "config.json"), JSON.stringify({ sandbox: { bypassPermissions: "none" } }));
    const setup = { server, ws: { ...ws, home: disk.home }, env: disk.env, nodeArgs: disk.nodeArgs };
    const args = ["-p", "--model", MODEL, "--permission-mode", "bypassPermissions", "--cwd", ws.repo];

    expect(await runKeel([...args, "first prompt"], setup)).toMatchObject({
      code: 0,
      stdout: "first answer\n",
    });
    const [file] = sessionFiles(disk.home);
    const acknowledged = readFileSync(file!, "utf8");

    server.setScenario({
      turns: [{ toolCalls: [{ id: "toolu_fill", name: "Bash", arguments: { command: disk.fillCommand } }] }],
      fallback: { toolCalls: [{ name: "Bash", arguments: { command: "echo again" } }] },
    });
    const before = server.requests.length;
    const stopped = await runKeel([...args, "-c", "fill the disk"], setup);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/session journal could not be written .*ENOSPC/);
    // Within one request of the failure: every request but the last had its reply journaled.
    // (A tmpfs still takes appends that fit the session file's last page; injection fails all.)
    const after = readFileSync(file!, "utf8");
    const journaledReplies = after
      .slice(acknowledged.length)
      .split("\n")
      .filter((l) => l.includes('"role":"assistant"')).length;
    const requests = server.requests.length - before;
    expect(requests).toBeGreaterThanOrEqual(1);
    expect(requests).toBeLessThanOrEqual(journaledReplies + 1);
    expect(requests).toBeLessThan(5);

    // Everything acknowledged is still there, the tool call's T1 included (it was durable first).
    expect(after.startsWith(acknowledged)).toBe(true);
    expect(after).toContain('"toolu_fill"');
    expect(existsSync(`${file}.lock`)).toBe(false);
    // No cache wrote half a file into the full home.
    const cache = join(disk.home, "cache", "code");
    if (existsSync(cache)) expect(readdirSync(cache).filter((n) => n.endsWith(".tmp"))).toEqual([]);

    disk.free();
    server.setScenario({ turns: [{ text: "space is back" }] });
    const resumed = await runKeel([...args, "-c", "carry on"], setup);
    expect(resumed).toMatchObject({ code: 0, stdout: "space is back\n" });
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain("first prompt");
    expect(sent).toContain("carry on");
    // Whatever call the failure cut off is closed (its outcome unknown, so the model is told
    // to check): every tool call sent has its result.
    const blocks = (server.requests.at(-1)!.body as { messages: { content: unknown }[] }).messages.flatMap(
      (m) =>
        Array.isArray(m.content) ? (m.content as { type: string; id?: string; tool_use_id?: string }[]) : [],
    );
    const calls = blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
    expect(calls).toContain("toolu_fill");
    expect(results.sort()).toEqual(calls.sort());

    const reopened = (await openSession(file!, { readOnly: true }))._unsafeUnwrap();
    expect(reopened.notices.filter((n) => n.type !== "read_only")).toEqual([]);
    // The user's prompts (capability notices are user messages too).
    const prompts = reopened
      .fold()
      .messages.filter(
        (m) => m.role === "user" && typeof m.content === "string" && !m.content.startsWith("<capabilities>"),
      );
    expect(prompts.map((m) => m.content)).toEqual(["first prompt", "fill the disk", "carry on"]);
    await reopened.close();
  });
});
