// Configuration: `${VAR}` expansion, one server entry resolved (transport, defaults, problems),
// the layers combined (user < .mcp.json < project .keel/config.json, entries replaced whole),
// and the readOnlyHint policy a project cannot loosen.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in config strings is the feature under test
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expandString } from "../src/config/expand.js";
import { collectServers, readMcpJson, resolveLayers } from "../src/config/layers.js";
import { parseServer } from "../src/config/servers.js";
import { tempDir } from "./helpers/servers.js";

const ctx = (extra: Partial<Parameters<typeof parseServer>[2]> = {}) => ({
  scope: "user" as const,
  origin: "config.json",
  env: { TOKEN: "t0k", EMPTY: "", HOME: "/home/me" },
  baseDir: "/work",
  ...extra,
});
const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe("${VAR} expansion", () => {
  it("expands set variables, defaults and reports unset ones", () => {
    const env = { A: "1", EMPTY: "" };
    expect(expandString("x${A}y", env)).toEqual({ value: "x1y", unset: [] });
    expect(expandString("${B:-two}", env)).toEqual({ value: "two", unset: [] });
    expect(expandString("${EMPTY:-fallback}", env)).toEqual({ value: "fallback", unset: [] });
    expect(expandString("${EMPTY}", env)).toEqual({ value: "", unset: [] });
    expect(expandString("a${MISSING}b", env)).toEqual({ value: "ab", unset: ["MISSING"] });
    expect(expandString("$A and ${not valid}", env).value).toBe("$A and ${not valid}");
  });
});

describe("one server entry", () => {
  it("infers stdio from a command and http from a url, expanding every field", () => {
    const stdio = parseServer(
      "fs",
      { command: "node", args: ["${HOME}/srv.js"], env: { KEY: "${TOKEN}" }, cwd: "tools" },
      ctx(),
    )._unsafeUnwrap();
    expect(stdio.spec).toMatchObject({
      transport: "stdio",
      command: "node",
      args: ["/home/me/srv.js"],
      env: { KEY: "t0k" },
      cwd: "/work/tools",
      timeoutMs: 60_000,
      enabled: true,
      readOnlyHints: "trust",
      sampling: { enabled: false },
    });
    const http = parseServer(
      "web",
      { url: "https://example.com/mcp", headers: { "X-Key": "${TOKEN}" } },
      ctx(),
    );
    expect(http._unsafeUnwrap().spec).toMatchObject({
      transport: "http",
      headers: { "X-Key": "t0k" },
      oauth: {},
    });
    expect(
      parseServer("w", { type: "streamable-http", url: "http://x/mcp" }, ctx())._unsafeUnwrap().spec
        .transport,
    ).toBe("http");
    expect(parseServer("s", { type: "sse", url: "http://x/sse" }, ctx())._unsafeUnwrap().spec.transport).toBe(
      "sse",
    );
  });

  it("says which variables were unset", () => {
    const parsed = parseServer("a", { command: "x", args: ["${NOPE}"] }, ctx())._unsafeUnwrap();
    expect(parsed.warnings).toEqual([
      'config.json: server "a" uses ${NOPE}, which is not set; it expands to an empty string',
    ]);
  });

  it("refuses entries that cannot work, naming the file and the server", () => {
    const problems = [
      parseServer("a", {}, ctx()),
      parseServer("b", { type: "http" }, ctx()),
      parseServer("c", { url: "ftp://x" }, ctx()),
      parseServer("d", { url: "not a url" }, ctx()),
      parseServer("e", { command: "x", args: "not-a-list" }, ctx()),
      parseServer("f", { command: "${UNSET_COMMAND}" }, ctx()),
      parseServer("g", { url: "https://x", oauth: { grant: "client_credentials" } }, ctx()),
      parseServer("h", { url: "https://x", oauth: { clientMetadataUrl: "http://insecure/doc.json" } }, ctx()),
      parseServer(
        "i",
        {
          url: "https://x",
          oauth: { grant: "cross_app_access", clientId: "c", idp: { issuer: "https://idp" } },
        },
        ctx(),
      ),
    ].map((r) => r._unsafeUnwrapErr().message);
    expect(problems[0]).toBe('config.json: server "a": needs a "command" (stdio) or a "url" (http)');
    expect(problems[1]).toContain('type "http" needs a "url"');
    expect(problems[2]).toContain("must be http or https");
    expect(problems[3]).toContain("is not a URL");
    expect(problems[4]).toContain("/args");
    expect(problems[5]).toContain("empty after expansion");
    expect(problems[6]).toContain("needs clientId and clientSecret or privateKeyFile");
    expect(problems[7]).toContain("must be an https URL");
    expect(problems[8]).toContain(
      "cross_app_access needs clientId and idp { issuer or tokenEndpoint, idToken or idTokenFile }",
    );
  });

  it("takes cross-app access with the ID token from the environment", () => {
    const parsed = parseServer(
      "corp",
      {
        url: "https://mcp.corp.example/mcp",
        oauth: {
          grant: "cross_app_access",
          clientId: "keel",
          clientSecret: "s",
          idp: { issuer: "https://login.corp.example", clientId: "keel-idp", idToken: "${IDP_ID_TOKEN}" },
        },
      },
      { ...ctx(), env: { IDP_ID_TOKEN: "eyJ.id.token" } },
    )._unsafeUnwrap();
    expect(parsed.spec).toMatchObject({
      oauth: {
        grant: "cross_app_access",
        idp: { idToken: "eyJ.id.token", issuer: "https://login.corp.example" },
      },
    });
    expect(parsed.warnings).toEqual([]);
  });

  it("runs no OAuth for a server given an Authorization header, unless told to", () => {
    const headers = { Authorization: "Bearer ${TOKEN}" };
    expect(parseServer("a", { url: "https://x/mcp", headers }, ctx())._unsafeUnwrap().spec).toMatchObject({
      oauth: false,
    });
    expect(
      parseServer("b", { url: "https://x/mcp", oauth: false }, ctx())._unsafeUnwrap().spec,
    ).toMatchObject({ oauth: false });
  });

  it("lets a project tighten the readOnlyHint policy of its servers but never loosen it", () => {
    const policy = (entry: object, extra: Partial<Parameters<typeof parseServer>[2]>) =>
      (
        parseServer("p", { command: "x", ...entry }, ctx(extra))._unsafeUnwrap().spec as {
          readOnlyHints: string;
        }
      ).readOnlyHints;
    expect(policy({}, { scope: "user" })).toBe("trust");
    expect(policy({ readOnlyHints: "ignore" }, { scope: "user" })).toBe("ignore");
    expect(policy({}, { scope: "project" })).toBe("ignore");
    expect(policy({ readOnlyHints: "trust" }, { scope: "project" })).toBe("ignore");
    expect(policy({}, { scope: "project", projectReadOnlyHints: "trust" })).toBe("trust");
    expect(policy({ readOnlyHints: "ignore" }, { scope: "project", projectReadOnlyHints: "trust" })).toBe(
      "ignore",
    );
  });
});

describe("layers", () => {
  it("replaces a same-named server whole and takes policy keys from the user only", () => {
    const resolved = resolveLayers({
      user: {
        servers: { gh: { url: "https://api.github.com/mcp", headers: { Authorization: "Bearer mine" } } },
        disabled: ["a"],
      },
      project: {
        servers: { gh: { url: "https://evil.example/mcp" }, other: { command: "x" } },
        disabled: ["b"],
        projectReadOnlyHints: "trust",
      },
    });
    expect(resolved.servers.gh).toEqual({ url: "https://evil.example/mcp" });
    expect(resolved.serverScopes).toEqual({ gh: "project", other: "project" });
    expect(resolved.disabled).toEqual(["a", "b"]);
    expect(resolved.projectReadOnlyHints).toBeUndefined();
  });

  it("puts .mcp.json between the user's config and the project's Keel config, and keeps going past a bad entry", () => {
    const collected = collectServers(
      {
        servers: {
          a: { command: "user-a" },
          b: { command: "user-b" },
          c: { command: "keel-c" },
          broken: { command: 1 },
        },
        serverScopes: { a: "user", b: "user", c: "project", broken: "user" },
        disabled: ["b"],
      },
      {
        path: "/repo/.mcp.json",
        servers: { b: { command: "json-b" }, c: { command: "json-c" }, d: { url: "https://d" } },
      },
      {
        env: {},
        cwd: "/repo/sub",
        projectRoot: "/repo",
        userOrigin: "~/.keel/config.json",
        projectOrigin: ".keel/config.json",
      },
    );
    const specs = Object.fromEntries(collected.servers.map((s) => [s.spec.name, s.spec]));
    expect(Object.keys(specs)).toEqual(["a", "b", "c", "d"]);
    expect(specs.a).toMatchObject({ command: "user-a", scope: "user", cwd: "/repo/sub" });
    expect(specs.b).toMatchObject({
      command: "json-b",
      scope: "project",
      origin: "/repo/.mcp.json",
      enabled: false,
      cwd: "/repo",
    });
    expect(specs.c).toMatchObject({ command: "keel-c", scope: "project" });
    expect(collected.problems.map((p) => p.server)).toEqual(["broken"]);
  });

  it("gives the host's session servers (an editor's) the last word, over .mcp.json too", () => {
    const resolved = resolveLayers({
      user: { servers: { docs: { command: "user-docs" } } },
      project: { servers: { gh: { url: "https://project/mcp" } } },
      session: { servers: { gh: { command: "editor-gh" }, docs: { url: "https://editor/docs" } } },
    });
    expect(resolved.servers).toEqual({ docs: { url: "https://editor/docs" }, gh: { command: "editor-gh" } });
    expect(resolved.serverScopes).toEqual({ docs: "user", gh: "user" });
    expect(resolved.sessionServers).toEqual(["gh", "docs"]);
    const collected = collectServers(
      resolved,
      { path: "/repo/.mcp.json", servers: { gh: { command: "json-gh" } } },
      {
        env: {},
        cwd: "/repo",
        projectRoot: "/repo",
        userOrigin: "~/.keel/config.json",
        projectOrigin: ".keel/config.json",
        sessionOrigin: "the editor (this session)",
      },
    );
    const specs = Object.fromEntries(collected.servers.map((s) => [s.spec.name, s.spec]));
    expect(specs.gh).toMatchObject({
      command: "editor-gh",
      scope: "user",
      origin: "the editor (this session)",
    });
  });

  it("with `only` in the session layer (--strict-mcp-config) uses the session's servers and no file's", () => {
    const context = { env: {}, cwd: "/repo", projectRoot: "/repo", userOrigin: "u", projectOrigin: "p" };
    const mcpJson = { path: "/repo/.mcp.json", servers: { json: { command: "json-server" } } };
    const strict = resolveLayers({
      user: { servers: { mine: { command: "user-server" } } },
      project: { servers: { proj: { command: "project-server" } } },
      session: { servers: { flag: { command: "flag-server" } }, only: true },
    });
    expect(collectServers(strict, mcpJson, context).servers.map((s) => s.spec.name)).toEqual(["flag"]);
    // In a file it means nothing: a project cannot hide the user's servers.
    const loose = resolveLayers({
      user: { servers: { mine: { command: "user-server" } } },
      project: { servers: { proj: { command: "project-server" } }, only: true },
    });
    expect(collectServers(loose, mcpJson, context).servers.map((s) => s.spec.name)).toEqual([
      "json",
      "mine",
      "proj",
    ]);
  });

  it("reads .mcp.json as Claude Code writes it, and says so when it cannot", () => {
    const dir = tempDir();
    dirs.push(dir);
    expect(readMcpJson(dir.path)._unsafeUnwrap()).toBeUndefined();
    writeFileSync(
      join(dir.path, ".mcp.json"),
      JSON.stringify({ mcpServers: { x: { type: "stdio", command: "x" } } }),
    );
    expect(readMcpJson(dir.path)._unsafeUnwrap()?.servers).toEqual({ x: { type: "stdio", command: "x" } });
    writeFileSync(join(dir.path, ".mcp.json"), "{ not json");
    expect(readMcpJson(dir.path)._unsafeUnwrapErr().message).toContain("not valid JSON");
    writeFileSync(join(dir.path, ".mcp.json"), JSON.stringify({ mcpServers: [] }));
    expect(readMcpJson(dir.path).isErr()).toBe(true);
    mkdirSync(join(dir.path, "sub"));
  });
});
