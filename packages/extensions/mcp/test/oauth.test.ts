// OAuth 2.1 through Keel's provider against a local authorization server and protected MCP
// server: login in the browser flow, tokens at rest (0600, per server and issuer), refresh on 401
// with rotation (one exchange for concurrent 401s, a rotated token never sent again), step-up on
// 403, the headless message naming `keel mcp login`, and the loopback listener's state check.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../src/connection/index.js";
import { listenForCallback } from "../src/connection/oauth/callback.js";
import { guardRefresh } from "../src/connection/oauth/rotation.js";
import { OAuthSession } from "../src/connection/oauth/session.js";
import { AuthStore } from "../src/connection/oauth/store.js";
// @ts-expect-error: a plain ESM fixture without types
import { createFixtureServer } from "./fixtures/fixture-server.mjs";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { startOAuthServer } from "./helpers/oauth-server.js";
import { httpSpec, tempDir } from "./helpers/servers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Plays the browser: follows the authorization redirect to Keel's loopback listener. */
async function userAgent(url: URL): Promise<boolean> {
  const response = await fetch(url, { redirect: "manual" });
  await fetch(response.headers.get("location")!);
  return true;
}

async function setup(mode: "defer" | "interactive") {
  const server = await startOAuthServer(() => createFixtureServer().server);
  const dir = tempDir();
  const spec = httpSpec("web", server.url, { oauth: {} });
  const session = new OAuthSession({
    server: "web",
    url: spec.url,
    settings: {},
    storeDir: join(dir.path, "oauth"),
    open: userAgent,
  });
  session.mode = mode;
  const connection = new McpConnection(spec, {
    clientInfo,
    logFile: join(dir.path, "web.log"),
    handlers: plainHandlers(),
    auth: session,
    backoff: { maxAttempts: 0 },
  });
  cleanups.push(
    () => server.stop(),
    dir.cleanup,
    () => connection.close(),
  );
  return { server, session, connection, storeFile: session.store.file };
}

describe("OAuth", () => {
  it("logs in through the browser flow and stores the tokens 0600, per server and issuer", async () => {
    const { server, connection, storeFile } = await setup("interactive");
    expect((await connection.ready()).isOk()).toBe(true);
    expect(server.authorizeRequests[0]?.get("code_challenge_method")).toBe("S256");
    expect(server.authorizeRequests[0]?.get("resource")).toBe(server.url);
    expect(server.tokenRequests[0]).toMatchObject({ grant: "authorization_code", resource: server.url });
    expect(statSync(storeFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(storeFile, "..")).mode & 0o777).toBe(0o700);
    const record = JSON.parse(readFileSync(storeFile, "utf8"));
    expect(record).toMatchObject({ server: "web", url: server.url });
    expect(Object.keys(record.issuers)).toEqual([server.issuer]);
    expect(record.issuers[server.issuer].tokens.access_token).toMatch(/^at-/);
    const call = await connection.callTool("echo", { message: "authorized" });
    expect(call.isOk()).toBe(true);
  });

  it("refreshes on 401 with one exchange for concurrent calls and never reuses a rotated token", async () => {
    const { server, connection, session } = await setup("interactive");
    await connection.ready();
    const firstRefresh = session.store.entry()!.tokens!.refresh_token!;
    server.expireAccessTokens();
    const [a, b] = await Promise.all([
      connection.callTool("echo", { message: "a" }),
      connection.callTool("echo", { message: "b" }),
    ]);
    expect(a.isOk() && b.isOk()).toBe(true);
    const refreshes = () => server.tokenRequests.filter((r) => r.grant === "refresh_token");
    expect(refreshes()).toHaveLength(1);
    expect(refreshes()[0]?.refreshToken).toBe(firstRefresh);
    const secondRefresh = session.store.entry()!.tokens!.refresh_token!;
    expect(secondRefresh).not.toBe(firstRefresh);
    expect(session.store.isSpent(firstRefresh)).toBe(true);

    server.expireAccessTokens();
    expect((await connection.callTool("echo", { message: "c" })).isOk()).toBe(true);
    expect(refreshes().map((r) => r.refreshToken)).toEqual([firstRefresh, secondRefresh]);
    expect(server.reusedRefreshTokens).toEqual([]);
  });

  it("answers a refresh with a token already rotated away from the store, without sending it", async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const store = new AuthStore(dir.path, "web", "https://example.test/mcp");
    store.update((record) => {
      record.discovery = { authorizationServerUrl: "https://as.example.test/" };
    });
    store.saveTokens({
      access_token: "a1",
      token_type: "Bearer",
      refresh_token: "r1",
      issuer: "https://as.example.test/",
    });
    // Another Keel process refreshed meanwhile: r1 was replaced by r2.
    store.markSpent("r1");
    store.saveTokens({
      access_token: "a2",
      token_type: "Bearer",
      refresh_token: "r2",
      issuer: "https://as.example.test/",
    });
    let sent = 0;
    const guarded = guardRefresh(store, async () => {
      sent += 1;
      return new Response("{}");
    });
    const body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r1" });
    const response = await guarded("https://as.example.test/token", { method: "POST", body });
    expect(sent).toBe(0);
    expect(await response.json()).toMatchObject({ access_token: "a2", refresh_token: "r2" });
  });

  it("headless: the server needs a login and the error names the command", async () => {
    const { connection, server } = await setup("defer");
    const ready = await connection.ready();
    expect(ready.isErr() && ready.error.type).toBe("auth_required");
    expect(ready.isErr() && ready.error.message).toContain("keel mcp login web");
    expect(connection.status().state).toBe("needs-auth");
    // Nothing was opened and no code exchanged.
    expect(server.authorizeRequests).toHaveLength(0);
    expect(server.tokenRequests).toHaveLength(0);
  });

  it("steps up on 403: deferred it names the scope, interactive it re-authorizes and the call goes through", async () => {
    const { server, connection, session } = await setup("interactive");
    await connection.ready();
    server.requireForCalls(["mcp", "write"]);
    session.mode = "defer";
    const refused = await connection.callTool("echo", { message: "x" });
    expect(refused.isErr() && refused.error.type).toBe("auth_required");
    expect(refused.isErr() && refused.error.message).toContain('scope "mcp write"');
    expect(session.store.read().pendingScope).toBe("mcp write");

    // What /mcp login and `keel mcp login` do: the browser flow for the scope asked for.
    expect((await session.authorize({ scope: session.store.read().pendingScope })).isOk()).toBe(true);
    expect(server.authorizeRequests.at(-1)?.get("scope")).toBe("mcp write");
    expect(session.store.read().pendingScope).toBeUndefined();
    const allowed = await connection.callTool("echo", { message: "y" });
    expect(allowed.isOk()).toBe(true);
  });

  it("steps up on 403 within the call when a person is there to authorize", async () => {
    const { server, connection } = await setup("interactive");
    await connection.ready();
    server.requireForCalls(["mcp", "admin"]);
    const allowed = await connection.callTool("echo", { message: "z" });
    expect(allowed.isOk()).toBe(true);
    expect(server.authorizeRequests.map((p) => p.get("scope"))).toEqual(["mcp", "mcp admin"]);
    expect(server.tokenRequests.filter((r) => r.grant === "refresh_token")).toHaveLength(0);
  });
});

describe("the loopback callback listener", () => {
  it("takes only the state Keel sent", async () => {
    const listener = await listenForCallback({ port: 0, state: "right", timeoutMs: 5000 });
    const { port, code } = listener._unsafeUnwrap();
    const wrong = await fetch(`http://127.0.0.1:${port}/callback?code=evil&state=wrong`);
    expect(wrong.status).toBe(400);
    const right = await fetch(`http://127.0.0.1:${port}/callback?code=good&state=right`);
    expect(right.status).toBe(200);
    expect((await code)._unsafeUnwrap()).toBe("good");
  });

  it("reports a denied authorization", async () => {
    const listener = (await listenForCallback({ port: 0, state: "s", timeoutMs: 5000 }))._unsafeUnwrap();
    await fetch(`http://127.0.0.1:${listener.port}/callback?error=access_denied&state=s`);
    const result = await listener.code;
    expect(result.isErr() && result.error.type).toBe("denied");
  });
});
