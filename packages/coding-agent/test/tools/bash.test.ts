import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type BashDetails,
  createBashTool,
  defaultShell,
  killAllCommandTrees,
} from "../../src/tools/index.js";
import { context, isRunning, makeTempDir, textOf, waitFor } from "./helpers.js";

const FAST_SHELL = { file: defaultShell().file, args: ["-c"] };

describe("Bash", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let bash: ReturnType<typeof createBashTool>;

  const readPids = async (file: string) =>
    (await readFile(join(dir, file), "utf8")).trim().split(/\s+/).filter(Boolean).map(Number);

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    // A login shell costs ~0.3 s here; one test covers it, the rest use plain `bash -c`.
    bash = createBashTool({ cwd: dir, shell: FAST_SHELL, killGraceMs: 300, logDir: join(dir, "logs") });
  });
  afterEach(() => cleanup());

  it("runs in the workspace and returns combined output with exit code 0", async () => {
    const result = await bash.execute({ command: "pwd; echo out; echo err >&2" }, context());
    expect(result.isError).toBeUndefined();
    const text = textOf(result);
    expect(text).toContain(dir);
    expect(text).toContain("out");
    expect(text).toContain("err");
    expect(result.details).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, truncated: false });
  });

  it("gives commands the login environment by default, taken once", async () => {
    expect(defaultShell().file).toMatch(/\/bash$/);
    expect(defaultShell()).toMatchObject({ args: ["-c"], login: true });
    const home = mkdtempSync(join(tmpdir(), "keel-login-"));
    writeFileSync(join(home, ".bash_profile"), "export KEEL_LOGIN_MARK=from-profile\n");
    const login = createBashTool({ cwd: dir, env: { HOME: home } });
    expect(textOf(await login.execute({ command: "echo $KEEL_LOGIN_MARK" }, context()))).toBe("from-profile");
    // The command itself is not a login shell: the profile ran once, for the snapshot.
    expect(
      textOf(await login.execute({ command: "shopt -q login_shell || echo not-login" }, context())),
    ).toBe("not-login");
    rmSync(home, { recursive: true, force: true });
  });

  it("works with a plain sh", async () => {
    const sh = createBashTool({ cwd: dir, shell: { file: "/bin/sh", args: ["-c"] } });
    expect(textOf(await sh.execute({ command: "echo from-sh" }, context()))).toBe("from-sh");
  });

  it("reports a non-zero exit as an error with its output", async () => {
    const result = await bash.execute({ command: "echo failing; exit 3" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("failing\n\nExit code 3.");
    expect((result.details as BashDetails).exitCode).toBe(3);
  });

  it("says when there is no output", async () => {
    expect(textOf(await bash.execute({ command: "true" }, context()))).toBe("(no output)");
  });

  it("kills the whole tree on timeout", async () => {
    const result = await bash.execute(
      { command: "sleep 30 & echo $! > pids; (sleep 30 & echo $! >> pids; wait) & wait", timeout: 1 },
      context(),
    );
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ timedOut: true });
    expect(textOf(result)).toContain("Timed out after 1 s");
    const pids = await readPids("pids");
    expect(pids).toHaveLength(2);
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("kills the whole tree on abort", async () => {
    const controller = new AbortController();
    const running = bash.execute(
      { command: "sleep 30 & echo $! > pids; sleep 30 & echo $! >> pids; wait" },
      context({ signal: controller.signal }),
    );
    expect(await waitFor(() => existsSync(join(dir, "pids")))).toBe(true);
    await waitFor(() => false, 100); // let the second pid be written
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ aborted: true });
    expect(textOf(result)).toContain("Aborted");
    const pids = await readPids("pids");
    expect(pids.length).toBeGreaterThan(0);
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("escalates to SIGKILL when the tree ignores SIGTERM", async () => {
    const result = await bash.execute(
      { command: "trap '' TERM; sleep 30 & echo $! > pids; wait; wait", timeout: 0.5 },
      context(),
    );
    expect(result.details).toMatchObject({ timedOut: true });
    const pids = await readPids("pids");
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("terminates processes left in the background when the command ends", async () => {
    const result = await bash.execute(
      { command: "sleep 30 > /dev/null 2>&1 & echo $! > pids; echo started" },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.details).toMatchObject({ killedBackground: true, exitCode: 0 });
    expect(textOf(result)).toContain("left running in the background were terminated");
    const pids = await readPids("pids");
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  // Escapes from the process group: a new session, a double fork, nohup, a daemon-like launcher.
  // Each writes the pid it leaves behind; none may outlive the tool call.
  const ESCAPES = {
    "setsid sleep &": "setsid sleep 30 > /dev/null 2>&1 & echo $! > pids",
    "sleep & disown": "sleep 30 > /dev/null 2>&1 & echo $! > pids; disown",
    "double fork": "( sleep 30 > /dev/null 2>&1 & echo $! > pids ) &",
    "setsid double fork": "setsid sh -c 'sleep 30 > /dev/null 2>&1 & echo $! > pids' &",
    "nohup in a new session": "nohup setsid sleep 30 > /dev/null 2>&1 & echo $! > pids",
  };

  for (const [name, command] of Object.entries(ESCAPES)) {
    it(`leaves no process behind after "${name}"`, async () => {
      // Wait for the escape to have started (on a loaded machine 0.2 s was not always enough).
      const settle = "for i in $(seq 100); do [ -s pids ] && break; sleep 0.05; done";
      const result = await bash.execute({ command: `${command}\n${settle}; echo started` }, context());
      expect(textOf(result)).toContain("started");
      expect(result.details).toMatchObject({ killedBackground: true });
      const pids = await readPids("pids");
      expect(pids).toHaveLength(1);
      expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
    });
  }

  it("finds escapes on abort too, and ends every live tree at once when keel must exit", async () => {
    const controller = new AbortController();
    const aborted = bash.execute(
      { command: "setsid sleep 30 > /dev/null 2>&1 & echo $! > pids; sleep 30" },
      context({ signal: controller.signal }),
    );
    expect(await waitFor(() => existsSync(join(dir, "pids")))).toBe(true);
    controller.abort();
    await aborted;
    const first = await readPids("pids");
    expect(await waitFor(() => first.every((pid) => !isRunning(pid)))).toBe(true);

    const running = bash.execute(
      { command: "trap '' TERM; setsid sleep 30 > /dev/null 2>&1 & echo $! > pids2; sleep 30 & wait" },
      context(),
    );
    expect(await waitFor(() => existsSync(join(dir, "pids2")))).toBe(true);
    expect(killAllCommandTrees()).toBeGreaterThanOrEqual(2);
    await running;
    const second = await readPids("pids2");
    expect(await waitFor(() => second.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("does not run at all when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await bash.execute({ command: "touch ran" }, context({ signal: controller.signal }));
    expect(result.isError).toBe(true);
    expect(existsSync(join(dir, "ran"))).toBe(false);
  });

  it("keeps the last lines for the model and the full log in a file", async () => {
    const result = await bash.execute({ command: "seq 1 5000" }, context());
    const details = result.details as BashDetails;
    expect(details).toMatchObject({ truncated: true, totalLines: 5000 });
    const text = textOf(result);
    expect(text.startsWith("4001\n")).toBe(true);
    expect(text).toContain("\n5000\n");
    expect(text).not.toContain("\n4000\n");
    expect(text).toContain(`Full log: ${details.logPath}`);
    const expected = `${Array.from({ length: 5000 }, (_, i) => i + 1).join("\n")}\n`;
    expect(await readFile(details.logPath!, "utf8")).toBe(expected);
  });

  it("truncates by bytes too, starting at a whole line", async () => {
    const small = createBashTool({
      cwd: dir,
      shell: FAST_SHELL,
      maxOutputBytes: 100,
      logDir: join(dir, "logs"),
    });
    const result = await small.execute({ command: "for i in $(seq 1 50); do echo line-$i; done" }, context());
    const text = textOf(result);
    const shown = text.slice(0, text.indexOf("\n\n[")).split("\n");
    expect(shown[0]).toMatch(/^line-\d+$/);
    expect(shown.at(-1)).toBe("line-50");
    expect(shown.join("\n").length).toBeLessThanOrEqual(100);
  });

  it("streams output through onUpdate while running", async () => {
    const streaming = createBashTool({ cwd: dir, shell: FAST_SHELL, updateIntervalMs: 10 });
    const ctx = context();
    const result = await streaming.execute({ command: "echo first; sleep 0.4; echo second" }, ctx);
    expect(textOf(result)).toBe("first\nsecond");
    const early = ctx.updates.find((u) => textOf(u).includes("first") && !textOf(u).includes("second"));
    expect(early).toBeDefined();
  });
});
