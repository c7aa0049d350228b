// What the sandbox holds, by effect: real commands in real bubblewrap, and what they did read
// back from the files, a loopback listener and a Unix socket they must not reach.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/sandbox/probe.js";
import { CREDENTIALS_TEXT, KEY_TEXT, type SandboxFixture, sandboxFixture } from "./fixture.js";

/** The processes whose command line starts with `marker` (gone ones skipped as they are read). */
function processesNamed(marker: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith(marker);
      } catch {
        return false;
      }
    });
}
let fx: SandboxFixture | undefined;
afterEach(async () => {
  await fx?.dispose();
  fx = undefined;
});

beforeAll(async () => {
  const found = await probeSandbox();
  if (found.isErr())
    throw new Error(`these tests need bubblewrap (apt-get install bubblewrap): ${found.error.message}`);
});

/** A loopback TCP listener and a Unix socket that count who reaches them. */
async function listeners(socketPath: string): Promise<{ port: number; hits: () => number; close(): void }> {
  let hits = 0;
  const servers: Server[] = [];
  const listen = (server: Server, ...at: [number, string] | [string]) =>
    new Promise<void>((resolve) => server.listen(...(at as [number, string]), () => resolve()));
  const tcp = createServer((s) => {
    hits++;
    s.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
  });
  const unix = createServer((s) => {
    hits++;
    s.end("reached\n");
  });
  servers.push(tcp, unix);
  await listen(tcp, 0, "127.0.0.1");
  await listen(unix, socketPath);
  const address = tcp.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    hits: () => hits,
    close: () => {
      for (const s of servers) s.close();
    },
  };
}

const PROTECTED_WRITES = [
  "echo evil > .git/hooks/pre-commit",
  "echo '[core] fsmonitor = evil' >> .git/config",
  "mkdir -p .keel && echo '{}' > .keel/config.json",
  "mkdir -p .claude && echo '{}' > .claude/settings.json",
  "mkdir -p .agents/skills/x && echo x > .agents/skills/x/SKILL.md",
  "echo '{}' > .mcp.json",
  "mv .git .git-moved",
];

describe("plan mode", () => {
  it("writes nothing on the host: not the workspace, not outside, not /tmp", async () => {
    fx = sandboxFixture();
    fx.mode = "plan";
    const tmpName = `keel-plan-${process.pid}-${Date.now()}`;
    const { text } = await fx.run(
      `cat README.md; touch new.txt; echo x >> README.md; touch ${fx.outside}/p; touch /tmp/${tmpName} && echo tmp-ok`,
    );
    expect(text).toContain("hello");
    expect(text).toContain("tmp-ok");
    expect(existsSync(join(fx.workspace, "new.txt"))).toBe(false);
    expect(readFileSync(join(fx.workspace, "README.md"), "utf8")).toBe("hello\n");
    expect(readdirSync(fx.outside)).toEqual([]);
    expect(existsSync(join("/tmp", tmpName))).toBe(false);
  });

  it("reaches no network and no host socket", async () => {
    fx = sandboxFixture();
    fx.mode = "plan";
    const net = await listeners(join(fx.home, "agent.sock"));
    try {
      await fx.run(
        `curl -s -m 3 http://127.0.0.1:${net.port}/; python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${join(fx.home, "agent.sock")}'); print(s.recv(9))"`,
      );
      expect(net.hits()).toBe(0);
    } finally {
      net.close();
    }
  });
});

describe("default mode", () => {
  it("writes the workspace, nothing outside it, and none of the protected paths", async () => {
    fx = sandboxFixture();
    const { text } = await fx.run(
      [`touch made.txt`, `touch ${fx.outside}/out`, `touch ${fx.home}/.bashrc-new`, ...PROTECTED_WRITES].join(
        "; ",
      ),
    );
    expect(existsSync(join(fx.workspace, "made.txt"))).toBe(true);
    expect(readdirSync(fx.outside)).toEqual([]);
    expect(existsSync(join(fx.home, ".bashrc-new"))).toBe(false);
    expect(existsSync(join(fx.workspace, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(readFileSync(join(fx.workspace, ".git", "config"), "utf8")).not.toContain("fsmonitor");
    // Nothing was created, and the empty folders that held the missing ones are gone again.
    for (const name of [".keel", ".claude", ".agents", ".mcp.json", ".git-moved"])
      expect(existsSync(join(fx.workspace, name)), name).toBe(false);
    expect(text).toMatch(/Read-only file system|Permission denied/);
    // The model is told why, in words it can act on.
    expect(text).toContain("Keel's OS sandbox");
  });

  it("lets git commit (the index and objects are writable) without committing a placeholder", async () => {
    fx = sandboxFixture();
    const { result, text } = await fx.run(
      "echo more >> README.md && git add -A && git commit -qm change && git status --porcelain && echo committed",
    );
    expect(result.isError, text).toBeUndefined();
    expect(text).toContain("committed");
    const { text: files } = await fx.run("git show --name-only --format= HEAD");
    expect(files.trim()).toBe("README.md");
  });

  it("ends what a command left running in the background with it, and never calls the sandbox's own teardown a background process", async () => {
    fx = sandboxFixture();
    const marker = join(fx.workspace, "still-running");
    const { text } = await fx.run(`(sleep 1; touch ${marker}) & echo started`);
    expect(text).toContain("started");
    // bubblewrap's init ends the namespace as the shell exits, before Keel looks for strays.
    for (let i = 0; i < 5; i++) {
      const { text: quiet } = await fx.run("git status --short && echo done");
      expect(quiet).not.toContain("in the background");
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(marker)).toBe(false);
  });

  it("hides Keel's home, the ssh key and what a Read deny rule names", async () => {
    fx = sandboxFixture();
    writeFileSync(join(fx.workspace, "secret.txt"), "RULE-HIDDEN-TEXT\n");
    mkdirSync(join(fx.workspace, "conf"));
    writeFileSync(join(fx.workspace, "conf", "prod.env"), "GLOB-HIDDEN-TEXT\n");
    fx.rules = [
      { rule: "Read(./secret.txt)", behavior: "deny", source: "user" },
      { rule: "Read(./conf/*.env)", behavior: "deny", source: "user" },
    ];
    const { text } = await fx.run(
      `cat ${fx.keelHome}/credentials.json ${fx.home}/.ssh/id_ed25519 secret.txt conf/prod.env; ls -a ${fx.keelHome}; cat README.md`,
    );
    expect(text).toContain("hello");
    for (const hidden of [CREDENTIALS_TEXT, KEY_TEXT, "RULE-HIDDEN-TEXT", "GLOB-HIDDEN-TEXT"])
      expect(text).not.toContain(hidden);
  });

  it("keeps secret-looking variables out of the environment unless the user lists them", async () => {
    const env = {
      ...process.env,
      KEEL_TEST_API_TOKEN: "tok-1234567890abcdef",
      KEEL_TEST_LISTED_KEY: "listed-0987654321",
    };
    fx = sandboxFixture({ env, settings: { allowEnv: ["KEEL_TEST_LISTED_KEY"] } });
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
      const { text } = await fx.run("echo A=$KEEL_TEST_API_TOKEN B=${#KEEL_TEST_LISTED_KEY} C=$HOME");
      expect(text).toContain("A= ");
      // Listed, it is passed (its length shows), and its value is still scrubbed from output.
      expect(text).toContain(`B=${env.KEEL_TEST_LISTED_KEY.length}`);
      expect(fx.sandbox.scrubber().text(`x ${env.KEEL_TEST_LISTED_KEY} y`)).toBe("x [redacted] y");
    } finally {
      process.env = saved;
    }
  });

  it("ends background processes with the command (its own PID namespace)", async () => {
    fx = sandboxFixture();
    const marker = `sleep-${process.pid}-${Date.now()}`;
    await fx.run(
      `(exec -a ${marker} sleep 300) & setsid bash -c 'exec -a ${marker} sleep 301' & echo started`,
    );
    const alive = processesNamed(marker);
    expect(alive).toEqual([]);
  });
});

describe("a confined command's end", () => {
  it("is known from the sandbox's init: once ended() says so, nothing the command started is alive", async () => {
    fx = sandboxFixture();
    const marker = `ended-${process.pid}-${Date.now()}`;
    const command = `(exec -a ${marker} sleep 300) & setsid bash -c 'exec -a ${marker} sleep 301' & echo started`;
    const confined = await fx.sandbox.confine({
      file: "/bin/bash",
      args: ["-c", command],
      cwd: fx.workspace,
      env: { PATH: process.env.PATH },
    });
    if (confined.isErr()) throw new Error(confined.error.message);
    const run = confined.value;
    const child = spawn(run.file, run.args, { env: run.env, stdio: run.stdio(["ignore", "pipe", "pipe"]) });
    run.attach(child);
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d));
    await new Promise((resolve) => child.once("exit", resolve));
    const ended = await run.ended();
    const alive = processesNamed(marker);
    run.release();
    expect(out).toContain("started");
    expect(ended).toBe(true);
    expect(alive).toEqual([]);
  });
});

describe("the sandbox's own folder", () => {
  it("is removed on close, and those of keel processes that are gone are removed on the next start", async () => {
    const base = join(tmpdir(), `keel-sandbox-${process.getuid?.() ?? "user"}`);
    mkdirSync(join(base, "2147483646-stale", "tmp"), { recursive: true });
    fx = sandboxFixture();
    await fx.run("echo x > /tmp/scratch");
    const own = readdirSync(base).filter((n) => n.startsWith(`${process.pid}-`));
    expect(own).toHaveLength(1);
    expect(existsSync(join(base, "2147483646-stale"))).toBe(false);
    await fx.sandbox.close();
    expect(existsSync(join(base, own[0]!))).toBe(false);
  });
});

describe("started in the home folder (the workspace is ~)", () => {
  it("still hides Keel's home and keeps rc files and credential stores read-only", async () => {
    fx = sandboxFixture({ workspaceIsHome: true });
    const { text } = await fx.run(
      `cat .keel/credentials.json; echo pwned >> .bashrc; echo pwned >> .profile; echo k >> .ssh/authorized_keys; mkdir -p .keel/extensions && echo x > .keel/extensions/evil.mjs; touch ok.txt; cat .ssh/id_ed25519`,
    );
    expect(text).not.toContain(CREDENTIALS_TEXT);
    expect(text).not.toContain(KEY_TEXT);
    expect(readFileSync(join(fx.home, ".bashrc"), "utf8")).toBe("# rc\n");
    // A missing start-up file was held by an empty file for the command's life, then removed.
    expect(existsSync(join(fx.home, ".profile"))).toBe(false);
    expect(existsSync(join(fx.home, ".ssh", "authorized_keys"))).toBe(false);
    expect(existsSync(join(fx.keelHome, "extensions"))).toBe(false);
    expect(existsSync(join(fx.home, "ok.txt"))).toBe(true);
  });
});

describe("acceptEdits and bypassPermissions", () => {
  it.each(["acceptEdits", "bypassPermissions", "dontAsk"] as const)(
    "%s holds the same walls as default",
    async (mode) => {
      fx = sandboxFixture();
      fx.mode = mode;
      await fx.run([`touch made.txt`, `touch ${fx.outside}/out`, ...PROTECTED_WRITES].join("; "));
      expect(existsSync(join(fx.workspace, "made.txt"))).toBe(true);
      expect(readdirSync(fx.outside)).toEqual([]);
      for (const name of [".keel", ".claude", ".agents", ".mcp.json"])
        expect(existsSync(join(fx.workspace, name))).toBe(false);
    },
  );

  it('bypassPermissions with sandbox.bypassPermissions "none" runs unconfined: the user\'s choice', async () => {
    fx = sandboxFixture({ settings: { bypassPermissions: "none" } });
    fx.mode = "bypassPermissions";
    const { result } = await fx.run(`touch ${fx.outside}/out`);
    expect((result.details as { sandbox?: string }).sandbox).toBe("none");
    expect(readdirSync(fx.outside)).toEqual(["out"]);
  });
});
