// Cross-app access, the enterprise-managed authorization extension (SEP-990): the user's ID token
// from the organisation's identity provider is exchanged there for an identity assertion grant
// (an ID-JAG, RFC 8693 token exchange), which the MCP server's authorization server takes in a
// JWT bearer grant (RFC 7523) for an access token. No browser: the organisation decides who may
// use which server. Discovery, the bearer grant's client authentication and the token request are
// the SDK's; this provider supplies the grant and keeps tokens in Keel's store.
import { readFileSync } from "node:fs";
import {
  discoverAuthorizationServerMetadata,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { IdentityProviderSettings } from "../../config/servers.js";
import type { AuthStore } from "./store.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

export interface CrossAppOptions {
  /** The MCP server's URL: the resource when its metadata names none. */
  serverUrl: string;
  /** Keel's client at the MCP server's authorization server. */
  clientId: string;
  clientSecret?: string;
  scope?: string;
  idp: IdentityProviderSettings;
  store: AuthStore;
  clientName: string;
  fetch?: FetchLike;
}

/** The user's ID token: as configured (usually `${VAR}`), or read from its file each time (it is renewed). */
function idToken(idp: IdentityProviderSettings): string {
  if (idp.idTokenFile !== undefined) {
    try {
      return readFileSync(idp.idTokenFile, "utf8").trim();
    } catch (error) {
      throw new Error(
        `cross-app access: cannot read the ID token file ${idp.idTokenFile}: ${(error as Error).message}`,
      );
    }
  }
  if (!idp.idToken)
    throw new Error(
      "cross-app access: no ID token from the identity provider is configured (oauth.idp.idToken)",
    );
  return idp.idToken;
}

async function tokenEndpointOf(idp: IdentityProviderSettings, fetchFn: FetchLike): Promise<string> {
  if (idp.tokenEndpoint) return idp.tokenEndpoint;
  const metadata = idp.issuer
    ? await discoverAuthorizationServerMetadata(idp.issuer, { fetchFn })
    : undefined;
  if (!metadata?.token_endpoint)
    throw new Error(
      `cross-app access: the identity provider ${idp.issuer ?? "(no issuer)"} names no token endpoint`,
    );
  return metadata.token_endpoint;
}

/** RFC 8693 at the identity provider: the ID token for an ID-JAG for this resource's authorization server. */
async function exchangeForIdJag(
  options: CrossAppOptions,
  audience: string,
  resource: string,
  scope: string | undefined,
): Promise<string> {
  const fetchFn = options.fetch ?? fetch;
  const { idp } = options;
  const endpoint = await tokenEndpointOf(idp, fetchFn);
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    subject_token: idToken(idp),
    subject_token_type: ID_TOKEN,
    requested_token_type: ID_JAG,
    audience,
    resource,
    ...(scope ? { scope } : {}),
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (idp.clientId && idp.clientSecret)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(idp.clientId)}:${encodeURIComponent(idp.clientSecret)}`).toString("base64")}`;
  else if (idp.clientId) body.set("client_id", idp.clientId);
  const response = await fetchFn(endpoint, { method: "POST", headers, body });
  const answer = (await response.json().catch(() => ({}))) as {
    access_token?: unknown;
    issued_token_type?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  if (!response.ok || typeof answer.access_token !== "string")
    throw new Error(
      `cross-app access: the identity provider refused the token exchange (HTTP ${response.status}${answer.error ? ` ${String(answer.error)}` : ""}${answer.error_description ? `: ${String(answer.error_description)}` : ""}); is the ID token still valid?`,
    );
  if (answer.issued_token_type !== undefined && answer.issued_token_type !== ID_JAG)
    throw new Error(
      `cross-app access: the identity provider issued ${String(answer.issued_token_type)}, not an ID-JAG`,
    );
  return answer.access_token;
}

/** A non-interactive provider: the SDK runs discovery and the token request, this supplies the grant. */
export function crossAppProvider(options: CrossAppOptions): OAuthClientProvider {
  const { store } = options;
  const metadata: OAuthClientMetadata = {
    client_name: options.clientName,
    redirect_uris: [],
    grant_types: [JWT_BEARER],
    token_endpoint_auth_method: options.clientSecret ? "client_secret_basic" : "none",
    ...(options.scope ? { scope: options.scope } : {}),
  };
  return {
    get redirectUrl() {
      return undefined;
    },
    get clientMetadata() {
      return metadata;
    },
    clientInformation: (): OAuthClientInformationMixed => ({
      client_id: options.clientId,
      ...(options.clientSecret ? { client_secret: options.clientSecret } : {}),
    }),
    tokens: (): OAuthTokens | undefined => store.entry()?.tokens,
    saveTokens: (tokens) => store.saveTokens(tokens),
    saveDiscoveryState: (state) =>
      void store.update((record) => {
        record.discovery = state;
      }),
    discoveryState: () => store.read().discovery,
    redirectToAuthorization: () => {
      throw new Error("cross-app access needs no browser: the identity provider vouches for the user");
    },
    saveCodeVerifier: () => {},
    codeVerifier: () => {
      throw new Error("cross-app access uses no authorization code");
    },
    invalidateCredentials: (scope) => store.invalidate(scope),
    // Runs after discovery was saved: the authorization server (the ID-JAG's audience) and the
    // server's resource identifier are known.
    prepareTokenRequest: async (scope) => {
      const discovery = store.read().discovery;
      const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
      if (!audience)
        throw new Error("cross-app access: the server's authorization server was not discovered");
      const resource = discovery?.resourceMetadata?.resource ?? options.serverUrl;
      const assertion = await exchangeForIdJag(options, String(audience), String(resource), scope);
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion, ...(scope ? { scope } : {}) });
    },
  };
}
