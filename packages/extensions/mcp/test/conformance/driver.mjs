#!/usr/bin/env node
// The conformance suite's client under test: Keel's own connection module (from dist/) driving
// one scenario. The suite passes the server URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO (pre-registered credentials, or an identity provider's ID token, in
// MCP_CONFORMANCE_CONTEXT). The browser
// of the OAuth flow is played by a user agent that follows the authorization redirect to Keel's
// own loopback callback listener; elicitation questions are answered by a person who accepts
// every default.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServer } from "../../dist/config/servers.js";
import { McpConnection } from "../../dist/connection/connection.js";
import { OAuthSession } from "../../dist/connection/oauth/session.js";
import { elicit } from "../../dist/features/elicitation.js";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const url = process.argv.at(-1);
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const dir = mkdtempSync(join(tmpdir(), "keel-mcp-conformance-"));
const isAuth = scenario.startsWith("auth/");

/** Machine-credential scenarios hand over a PEM key; Keel reads keys from files. */
function keyFile(pem) {
  const path = join(dir, "client-key.pem");
  writeFileSync(path, pem, { mode: 0o600 });
  return path;
}

// The URL-based client id the suite's CIMD scenario expects (a real deployment names its own).
const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const entry = {
  type: "http",
  url,
  oauth: isAuth
    ? {
        clientMetadataUrl: CIMD_URL,
        ...(context.client_id ? { clientId: context.client_id } : {}),
        ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
        ...(scenario.startsWith("auth/client-credentials") ? { grant: "client_credentials" } : {}),
        ...(context.private_key_pem ? { privateKeyFile: keyFile(context.private_key_pem) } : {}),
        ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
        // Cross-app access: the organisation's identity provider and the user's ID token from it.
        ...(context.idp_id_token
          ? {
              grant: "cross_app_access",
              idp: {
                issuer: context.idp_issuer,
                tokenEndpoint: context.idp_token_endpoint,
                clientId: context.idp_client_id,
                idToken: context.idp_id_token,
              },
            }
          : {}),
      }
    : false,
};
const parsed = parseServer("conformance", entry, {
  scope: "user",
  origin: "conformance",
  env: process.env,
  baseDir: dir,
});
if (parsed.isErr()) {
  console.error(parsed.error.message);
  process.exit(1);
}
const spec = parsed.value.spec;

/** The browser: asks the authorization endpoint, which redirects straight back with a code. */
async function userAgent(authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`no redirect from ${authorizationUrl.href} (HTTP ${response.status})`);
  await fetch(location);
  return true;
}

/** A person at the terminal who keeps every default and confirms. */
const acceptingUi = {
  supports: { status: true, widget: true, notify: true, confirm: true, select: true, input: true },
  setStatus() {},
  setWidget() {},
  notify() {},
  confirm: async () => ({ status: "ok", value: true }),
  select: async (_title, options) => ({ status: "ok", value: options[0] }),
  input: async () => ({ status: "ok", value: "" }),
};

let auth;
if (isAuth) {
  auth = new OAuthSession({
    server: spec.name,
    url: spec.url,
    settings: spec.oauth,
    storeDir: join(dir, "oauth"),
    open: userAgent,
    tell: (message) => console.error(message),
  });
  auth.mode = "interactive";
}

const connection = new McpConnection(spec, {
  clientInfo: { name: "keel", version: "0.1.0" },
  logFile: join(dir, "server.log"),
  handlers: {
    roots: () => [],
    elicit: (params, signal) =>
      elicit(params, { server: spec.name, ui: acceptingUi, open: async () => false }, signal),
  },
  ...(auth ? { auth } : {}),
  backoff: { maxAttempts: 0 },
});

async function main() {
  const ready = await connection.ready();
  if (ready.isErr()) throw new Error(`connect: ${ready.error.type}: ${ready.error.message}`);
  if (scenario !== "initialize") {
    for (const tool of connection.tools()) {
      const args = tool.name === "add_numbers" ? { a: 2, b: 3 } : {};
      const result = await connection.callTool(tool.name, args);
      if (result.isErr()) throw new Error(`${tool.name}: ${result.error.type}: ${result.error.message}`);
      console.error(`${tool.name}: ${JSON.stringify(result.value.content)}`);
    }
  }
}

let code = 0;
try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  code = 1;
} finally {
  await connection.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
process.exit(code);
