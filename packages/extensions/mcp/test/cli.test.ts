// `keel mcp …` through its CliIO: add (user scope into config.json, project scope into .mcp.json,
// other keys kept), remove, list and get (checked, secrets hidden, an untrusted project's files
// never read), login through the browser flow ($BROWSER), logout, and usage errors.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in config strings is the feature under test
import { lstatSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIO } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { runMcpCli } from "../src/cli/command.js";
// @ts-expect-error: a plain ESM fixture without types
import { createFixtureServer } from "./fixtures/fixture-server.mjs";
import { startOAuthServer } from "./helpers/oauth-server.js";
import { tempDir } from "./helpers/servers.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const agent = fileURLToPath(new URL("./fixtures/user-agent.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function io(extra: Partial<CliIO> = {}) {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = {
    cwd: dir.path,
    keelHome: join(dir.path, "home"),
    env: {},
    interactive: false,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    workspace: { projectRoot: dir.path, trusted: false },
    ...extra,
  };
  return { io: value, dir: dir.path, out: () => out.join(""), err: () => err.join("") };
}
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("keel mcp", () => {
  it("adds servers to the user's config, keeping everything else, and removes them", async () => {
    const t = io();
    const { mkdirSync } = await import("node:fs");
    mkdirSync(t.io.keelHome, { recursive: true });
    writeFileSync(
      join(t.io.keelHome, "config.json"),
      JSON.stringify({ model: "anthropic/x", extensions: { todo: { enabled: true } } }),
    );
    expect(
      await runMcpCli(["add", "-e", "TOKEN=${TOKEN}", "fs", "--", "node", "server.js", "--flag"], t.io),
    ).toBe(0);
    expect(
      await runMcpCli(
        ["add", "-H", "Authorization: Bearer ${GH}", "gh", "https://api.example.com/mcp"],
        t.io,
      ),
    ).toBe(0);
    const config = json(join(t.io.keelHome, "config.json"));
    expect(config.model).toBe("anthropic/x");
    expect(config.extensions.todo).toEqual({ enabled: true });
    expect(config.extensions.mcp.config.servers).toEqual({
      fs: { type: "stdio", command: "node", args: ["server.js", "--flag"], env: { TOKEN: "${TOKEN}" } },
      gh: { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${GH}" } },
    });
    expect(t.out()).toContain("${TOKEN}, which is not set");
    expect(await runMcpCli(["remove", "fs"], t.io)).toBe(0);
    expect(Object.keys(json(join(t.io.keelHome, "config.json")).extensions.mcp.config.servers)).toEqual([
      "gh",
    ]);
    expect(await runMcpCli(["remove", "fs"], t.io)).toBe(1);
  });

  it("reads and edits a commented config (JSONC) without losing its comments; a broken one is left alone", async () => {
    const t = io();
    const { mkdirSync } = await import("node:fs");
    mkdirSync(t.io.keelHome, { recursive: true });
    const file = join(t.io.keelHome, "config.json");
    writeFileSync(
      file,
      '{\n  // my model\n  "model": "anthropic/x",\n  "extensions": {\n    "todo": { "enabled": true }, // keep todo\n  },\n}\n',
    );
    expect(await runMcpCli(["add", "fs", "--", "node", "server.js"], t.io), t.err()).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("// my model");
    expect(text).toContain("// keep todo");
    expect(await runMcpCli(["list"], t.io), t.err()).toBe(0);
    expect(t.out()).toContain("fs (user, stdio: node server.js)");
    expect(await runMcpCli(["remove", "fs"], t.io), t.err()).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("// my model");
    expect(readFileSync(file, "utf8")).not.toContain("server.js");

    // A symlinked config (a dotfile manager's) stays a link; the edit lands in its target.
    const real = join(t.dir, "dotfiles-config.json");
    renameSync(file, real);
    symlinkSync(real, file);
    expect(await runMcpCli(["add", "fs", "--", "node", "server.js"], t.io), t.err()).toBe(0);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toContain("server.js");
    expect(readFileSync(real, "utf8")).toContain("// my model");
    rmSync(file);
    renameSync(real, file);

    writeFileSync(file, '{ "model": "anthropic/x", ');
    expect(await runMcpCli(["add", "fs", "--", "node", "server.js"], t.io)).not.toBe(0);
    expect(t.err()).toMatch(/config\.json:1 is not valid JSON .*nothing was changed/);
    expect(readFileSync(file, "utf8")).toBe('{ "model": "anthropic/x", ');
  });

  it("adds to a project's .mcp.json in Claude Code's format and says trust must be given again", async () => {
    const t = io();
    expect(await runMcpCli(["add", "--scope", "project", "web", "https://x.example/mcp"], t.io)).toBe(0);
    expect(json(join(t.dir, ".mcp.json"))).toEqual({
      mcpServers: { web: { type: "http", url: "https://x.example/mcp" } },
    });
    expect(t.out()).toContain("trust it again with /trust");
  });

  it("refuses bad input with a usage error and changes nothing", async () => {
    const t = io();
    expect(await runMcpCli(["add", "bad name", "https://x"], t.io)).toBe(2);
    expect(await runMcpCli(["add", "x", "ftp://x"], t.io)).toBe(2);
    expect(await runMcpCli(["add", "x"], t.io)).toBe(2);
    expect(await runMcpCli(["add", "--bogus", "x", "https://x"], t.io)).toBe(2);
    expect(await runMcpCli(["frobnicate"], t.io)).toBe(2);
    expect(t.err()).toContain("usage: keel mcp");
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(t.io.keelHome, "config.json"))).toBe(false);
  });

  it("lists and gets servers, checked, with secrets kept out, and never reads an untrusted project", async () => {
    const t = io({ env: { SECRET: "s3cr3t" } });
    await runMcpCli(["add", "-e", "API_KEY=${SECRET}", "fixture", "--", process.execPath, fixture], t.io);
    writeFileSync(join(t.dir, ".mcp.json"), "{ this is not JSON");
    expect(await runMcpCli(["list"], t.io)).toBe(0);
    expect(t.out()).toMatch(/fixture \(user, stdio: .*fixture-server\.mjs\) — connected, 9 tools/);
    expect(t.out()).toContain("listed once the project is trusted");
    expect(t.err()).toBe("");
    expect(await runMcpCli(["get", "fixture"], t.io)).toBe(0);
    expect(t.out()).toContain("env: API_KEY=…");
    expect(t.out()).not.toContain("s3cr3t");
    expect(await runMcpCli(["get", "nope"], t.io)).toBe(1);

    const trusted = { ...t.io, workspace: { projectRoot: t.dir, trusted: true } };
    expect(await runMcpCli(["list"], trusted)).toBe(1);
    expect(t.err()).toMatch(/\.mcp\.json:1 is not valid JSON/);
  });

  it("logs in through the browser, then get shows it, and logout forgets it", async () => {
    const server = await startOAuthServer(() => createFixtureServer().server);
    cleanups.push(() => server.stop());
    const t = io({ env: { BROWSER: `${process.execPath} ${agent}` } });
    await runMcpCli(["add", "web", server.url], t.io);
    expect(await runMcpCli(["list"], t.io)).toBe(0);
    expect(t.out()).toContain("web (user, http: ");
    expect(t.out()).toContain("needs login");
    expect(await runMcpCli(["login", "web"], t.io)).toBe(0);
    expect(t.out()).toContain('Logged in to "web" (9 tools)');
    expect(server.tokenRequests[0]?.grant).toBe("authorization_code");
    expect(await runMcpCli(["get", "web"], t.io)).toBe(0);
    expect(t.out()).toMatch(/oauth: logged in/);
    expect(t.out()).toMatch(/status: connected, 9 tools/);
    expect(await runMcpCli(["logout", "web"], t.io)).toBe(0);
    expect(await runMcpCli(["get", "web"], t.io)).toBe(0);
    expect(t.out()).toMatch(/oauth: not logged in/);
  });

  it("says a server that takes the handshake but wants a login for tools/list needs a login", async () => {
    const server = await startOAuthServer(() => createFixtureServer().server, { openHandshake: true });
    cleanups.push(() => server.stop());
    const t = io();
    await runMcpCli(["add", "web", server.url], t.io);
    expect(await runMcpCli(["get", "web"], t.io)).toBe(0);
    expect(t.out()).toContain(
      "status: connected, but it needs a login to list its tools: keel mcp login web",
    );
    expect(t.out()).not.toContain("0 tools");
  });

  it("refuses to add a server under a name that exists (its env would be lost), unless --force", async () => {
    const t = io();
    await runMcpCli(["add", "-e", "TOKEN=${TOKEN}", "fs", "--", "node", "server.js"], t.io);
    expect(await runMcpCli(["add", "fs", "--", "node", "other.js"], t.io)).toBe(1);
    expect(t.err()).toContain('MCP server "fs" already exists');
    expect(t.err()).toContain("--force");
    const servers = () => json(join(t.io.keelHome, "config.json")).extensions.mcp.config.servers;
    expect(servers().fs).toEqual({
      type: "stdio",
      command: "node",
      args: ["server.js"],
      env: { TOKEN: "${TOKEN}" },
    });
    expect(await runMcpCli(["add", "--force", "fs", "--", "node", "other.js"], t.io)).toBe(0);
    expect(t.out()).toContain('Replaced MCP server "fs"');
    expect(servers().fs).toEqual({ type: "stdio", command: "node", args: ["other.js"] });
  });

  it("says when a server needs no login", async () => {
    const t = io();
    await runMcpCli(["add", "fixture", "--", process.execPath, fixture], t.io);
    expect(await runMcpCli(["login", "fixture"], t.io)).toBe(1);
    expect(t.err()).toContain("does not use OAuth");
  });
});
