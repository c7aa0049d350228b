// An OAuth-protected MCP server on 127.0.0.1 for tests: protected resource metadata, an
// authorization server (dynamic registration, an authorize endpoint that redirects straight back
// with a code, a token endpoint that rotates refresh tokens and records reuse), and the MCP
// endpoint behind a bearer check whose tokens the test can expire or narrow.
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

interface TokenGrant {
  scope: string[];
}

export interface OAuthTestServer {
  url: string;
  issuer: string;
  /** Token endpoint requests, in order (grant type and the refresh token used). */
  tokenRequests: { grant: string; refreshToken?: string; resource?: string }[];
  authorizeRequests: URLSearchParams[];
  /** Refresh tokens presented after they were rotated away. */
  reusedRefreshTokens: string[];
  /** Every access token issued so far stops working (the next request gets 401). */
  expireAccessTokens(): void;
  /** tools/call now needs these scopes (403 insufficient_scope otherwise). */
  requireForCalls(scopes: string[]): void;
  stop(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
}

export async function startOAuthServer(
  factory: () => McpServer,
  options: {
    scopes?: string[];
    /** The handshake (initialize, notifications) needs no token; everything else does. */
    openHandshake?: boolean;
  } = {},
): Promise<OAuthTestServer> {
  const access = new Map<string, TokenGrant>();
  const refresh = new Map<string, TokenGrant>();
  const rotated = new Set<string>();
  const codes = new Map<string, { challenge: string; scope: string[] }>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let callScopes: string[] = [];
  let base = "";
  const state: OAuthTestServer = {
    url: "",
    issuer: "",
    tokenRequests: [],
    authorizeRequests: [],
    reusedRefreshTokens: [],
    expireAccessTokens: () => access.clear(),
    requireForCalls: (scopes) => {
      callScopes = scopes;
    },
    stop: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };

  const issue = (scope: string[]) => {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.set(accessToken, { scope });
    refresh.set(refreshToken, { scope });
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: refreshToken,
      scope: scope.join(" "),
    };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", base);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      json(response, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [base],
        scopes_supported: options.scopes ?? ["mcp"],
      });
      return;
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      json(response, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
      return;
    }
    if (url.pathname === "/register" && request.method === "POST") {
      const metadata = JSON.parse(await readBody(request)) as Record<string, unknown>;
      json(response, 201, { ...metadata, client_id: `client-${randomUUID()}` });
      return;
    }
    if (url.pathname === "/authorize") {
      state.authorizeRequests.push(url.searchParams);
      const code = `code-${randomUUID()}`;
      codes.set(code, {
        challenge: url.searchParams.get("code_challenge") ?? "",
        scope: (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean),
      });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      response.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const params = new URLSearchParams(await readBody(request));
      const grant = params.get("grant_type") ?? "";
      const refreshToken = params.get("refresh_token") ?? undefined;
      state.tokenRequests.push({
        grant,
        ...(refreshToken ? { refreshToken } : {}),
        ...(params.get("resource") ? { resource: params.get("resource")! } : {}),
      });
      if (grant === "authorization_code") {
        const code = codes.get(params.get("code") ?? "");
        const verifier = params.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        if (!code || code.challenge !== challenge) {
          json(response, 400, { error: "invalid_grant" });
          return;
        }
        codes.delete(params.get("code") ?? "");
        json(response, 200, issue(code.scope));
        return;
      }
      if (grant === "refresh_token" && refreshToken) {
        if (rotated.has(refreshToken)) state.reusedRefreshTokens.push(refreshToken);
        const grantOf = refresh.get(refreshToken);
        if (!grantOf) {
          json(response, 400, {
            error: "invalid_grant",
            error_description: "unknown or rotated refresh token",
          });
          return;
        }
        refresh.delete(refreshToken);
        rotated.add(refreshToken);
        json(response, 200, issue(grantOf.scope));
        return;
      }
      json(response, 400, { error: "unsupported_grant_type" });
      return;
    }
    if (url.pathname !== "/mcp") {
      response.writeHead(404).end();
      return;
    }
    const text = request.method === "POST" ? await readBody(request) : "";
    const body = text ? JSON.parse(text) : undefined;
    const challenge = `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    const grant = access.get(token);
    const handshake =
      options.openHandshake === true &&
      (isInitializeRequest(body) || String(body?.method ?? "").startsWith("notifications/"));
    if (!grant && !handshake) {
      json(response, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
      return;
    }
    if (grant && body?.method === "tools/call" && !callScopes.every((s) => grant.scope.includes(s))) {
      json(
        response,
        403,
        { error: "insufficient_scope" },
        { "www-authenticate": `${challenge}, error="insufficient_scope", scope="${callScopes.join(" ")}"` },
      );
      return;
    }
    const session = request.headers["mcp-session-id"] as string | undefined;
    if (session) {
      const transport = transports.get(session);
      if (!transport) {
        response.writeHead(404).end();
        return;
      }
      await transport.handleRequest(request, response, body);
      return;
    }
    if (isInitializeRequest(body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
        },
      });
      await factory().connect(transport);
      await transport.handleRequest(request, response, body);
      return;
    }
    response.writeHead(400).end();
  };

  const http = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.url = `${base}/mcp`;
  state.issuer = base;
  return state;
}
