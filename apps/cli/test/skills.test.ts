// The skills extension as keel ships it: /skill:name args in print mode and in the TUI (tmux),
// the catalog and the Skill tool in print mode too, /skills with a budget cut over 300 skills,
// and an untrusted project's skill folders never touched by any system call (strace).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, MODEL, runKeel, until, type Workspace, withoutSearchHint, workspace } from "./helpers.js";

let server: MockServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server?.close());
afterEach(() => ws?.dispose());

function skill(root: string, name: string, description: string, body: string): void {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(
    join(root, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`,
  );
}

/** HOME is the workspace's home too, so `~/.agents/skills` is the sandbox's. */
const env = () => ({ HOME: ws.home });
const userSkills = () => join(ws.home, "skills");
/** Every user message of a request, as JSON text (the prompt, then any capability notice). */
const userTexts = (index: number): string => {
  const messages = server.requests[index]!.body.messages as { role: string; content: unknown }[];
  return JSON.stringify(messages.filter((m) => m.role === "user").map((m) => m.content));
};

describe("keel with skills, print mode", () => {
  it("runs /skill:name args, with the catalog and the Skill tool in the request", async () => {
    ws = workspace();
    skill(userSkills(), "fix-issue", "Fix a GitHub issue by number.", "Fix issue $ARGUMENTS and add a test.");
    skill(userSkills(), "other", "Another skill.", "Other.");
    server.setScenario({ turns: [{ text: "Fixed." }] });
    server.requests.length = 0;
    const done = await runKeel(["-p", "/skill:fix-issue 1234", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: env(),
    });
    expect(withoutSearchHint(done.stderr)).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe("Fixed.");
    expect(userTexts(0)).toContain("Fix issue 1234 and add a test.");
    const tools = (server.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toContain("Skill");
    const raw = server.requests[0]!.raw;
    expect(raw).toContain("Skills (load one with the Skill tool");
    expect(raw).toContain("Another skill.");
  });

  it("/skills marks the entries cut when 300 skills exceed the budget", async () => {
    ws = workspace();
    for (let i = 0; i < 300; i++)
      skill(
        userSkills(),
        `s-${String(i).padStart(3, "0")}`,
        // About 250 characters each: 300 of them pass the 40,000 a 1M-token window allows.
        `Does numbered task ${i} whenever it is asked to, in full: ${"every step written out and checked twice, ".repeat(5)}`,
        "Body.",
      );
    const done = await runKeel(["-p", "/skills", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: env(),
    });
    expect(done.code).toBe(0);
    const cut = done.stdout.split("\n").filter((l) => l.includes("cut from the catalog"));
    expect(cut.length).toBeGreaterThan(0);
    expect(done.stdout).toContain(`${cut.length} cut from it by the budget`);
    expect(cut.at(-1)).toContain("s-299");
  });
});

describe("an untrusted project's skills", () => {
  const strace = spawnSync("strace", ["-V"]).error === undefined;

  it("are never opened, stat'ed or listed (strace over the whole keel process tree)", async () => {
    // Fail loudly rather than skip: CI installs strace (apt-get install -y strace).
    if (!strace) throw new Error("strace is not installed: apt-get install -y strace");
    ws = workspace();
    for (const dir of [".keel", ".agents", ".claude"])
      skill(join(ws.repo, dir, "skills"), `p${dir.slice(1)}`, "A project skill.", "Project body.");
    skill(userSkills(), "mine", "My own skill.", "Mine.");
    server.setScenario({ turns: [{ text: "ok" }] });
    server.requests.length = 0;
    const log = join(ws.home, "strace.log");
    const childEnv = {
      ...process.env,
      HOME: ws.home,
      KEEL_HOME: ws.home,
      NO_PROXY: "127.0.0.1,localhost",
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: "test",
    };
    // Asynchronously: the mock server answering keel runs in this process.
    const traced = spawn(
      "strace",
      [
        "-f",
        "-qq",
        "-e",
        "trace=%file",
        "-o",
        log,
        process.execPath,
        BIN,
        "-p",
        "hi",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
      ],
      { env: childEnv, stdio: "ignore" },
    );
    const code = await new Promise<number | null>((resolve) => traced.on("close", resolve));
    expect(code).toBe(0);
    const calls = readFileSync(log, "utf8");
    // The log is real: keel's own user skill was read.
    expect(calls).toContain(join(userSkills(), "mine", "SKILL.md"));
    for (const dir of [".keel/skills", ".agents/skills", ".claude/skills"])
      expect(calls).not.toContain(join(ws.repo, dir));
    const raw = server.requests[0]!.raw;
    expect(raw).toContain("My own skill.");
    expect(raw).not.toContain("A project skill.");
  });
});

describe("keel with skills, TUI", () => {
  const tmuxMissing = spawnSync("tmux", ["-V"]).error !== undefined;
  let socket = "";
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  async function waitFor(session: string, expected: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = tmux("capture-pane", "-p", "-t", session);
      if (now.includes(expected)) return now;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${expected}; the screen was:\n${now}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }
  afterEach(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });

  it("runs /skill:name args typed at the prompt", async () => {
    if (tmuxMissing) throw new Error("tmux is not installed: apt-get install -y tmux");
    ws = workspace();
    skill(userSkills(), "fix-issue", "Fix a GitHub issue by number.", "Fix issue $ARGUMENTS carefully.");
    server.setScenario({ turns: [{ text: "Issue fixed from the skill." }] });
    server.requests.length = 0;
    socket = `keel-skills-tui-${process.pid}`;
    const session = "skills";
    const exitFile = join(ws.home, "keel.exit");
    const command = [
      "env -u OPENAI_API_KEY -u OPENAI_BASE_URL",
      `HOME='${ws.home}' KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
      `ANTHROPIC_BASE_URL='${server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test`,
      `'${process.execPath}' '${BIN}' --cwd '${ws.repo}' --model ${MODEL}; echo $? > '${exitFile}'; sleep 30`,
    ].join(" ");
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command);
    await waitFor(session, "/help for commands");
    tmux("send-keys", "-t", session, "-l", "/skill:fix-issue 42");
    await waitFor(session, "› /skill:fix-issue 42");
    tmux("send-keys", "-t", session, "Enter");
    await waitFor(session, "Issue fixed from the skill.");
    expect(userTexts(0)).toContain("Fix issue 42 carefully.");
    await waitFor(session, "ready ·");
    tmux("send-keys", "-t", session, "-l", "/quit");
    await waitFor(session, "› /quit");
    tmux("send-keys", "-t", session, "Enter");
    // keel has exited (and written its last journal entry) before the workspace is removed.
    await until(() => existsSync(exitFile) && readFileSync(exitFile, "utf8").trim() !== "", "keel to exit");
    expect(readFileSync(exitFile, "utf8").trim()).toBe("0");
  }, 30_000);
});
