// kill -9 of keel while a Bash call runs leaves no process behind: the command, what it put in the
// background, a `setsid` escape and a `nohup` one all die with keel — the sandbox's PID namespace
// ends with bubblewrap, which dies with keel (--die-with-parent). A real SIGKILL, nothing caught.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, MODEL, until } from "./helpers.js";
import { fixture, hostDir, type Listeners, listeners, removeHostDir } from "./sandbox-machine.js";

/** Host pids of live processes whose command line holds `token` as an argument. */
function processesWith(token: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        if (!readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(token)) return false;
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
      } catch {
        return false;
      }
    })
    .map(Number);
}

let dir: string;
let net: Listeners;
beforeAll(async () => {
  dir = hostDir();
  net = await listeners(dir, "kill");
});
afterAll(async () => {
  await net.close();
  removeHostDir(dir);
});

describe("kill -9 of keel during a Bash call", () => {
  it.each(["default", "bypassPermissions"] as const)(
    "%s: no process of the command survives",
    { timeout: 60_000 },
    async (mode) => {
      const fx = fixture(dir, `kill-${mode}`, [], net);
      const token = `30${process.pid}.${Date.now() % 100000}`;
      const command = [
        `sleep ${token} &`,
        `setsid sleep ${token} &`,
        `(trap '' HUP TERM; nohup sleep ${token} >/dev/null 2>&1 &)`,
        `sleep ${token}`,
      ].join("\n");
      const server = await startMockServer({
        turns: [{ toolCalls: [{ id: "toolu_k", name: "Bash", arguments: { command } }] }, { text: "never" }],
      });
      const env: NodeJS.ProcessEnv = { ...process.env, ...fx.env };
      for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"]) delete env[key];
      Object.assign(env, {
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "test",
        NO_PROXY: "127.0.0.1,localhost",
        // The parser would ask about the background jobs: the sandbox, not the gate, is under test.
        KEEL_TEST_FORCE_PARSER_ALLOW: "1",
      });
      const keel = spawn(process.execPath, [BIN, "-p", "--model", MODEL, "--permission-mode", mode, "go"], {
        cwd: fx.ws,
        env,
        stdio: ["ignore", "ignore", "ignore"],
      });
      const exited = new Promise((resolve) => keel.on("close", resolve));
      try {
        await until(() => processesWith(token).length === 4, "the command and its three escapes to run");
        keel.kill("SIGKILL");
        await exited;
        await until(() => processesWith(token).length === 0, "every process of the command to be gone", 5000);
        expect(processesWith(token)).toEqual([]);
      } finally {
        for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
        await server.close();
      }
    },
  );
});
