// OAuth 2.1 for one HTTP server through the SDK's OAuthClientProvider: discovery, dynamic client
// registration, client ID metadata documents and pre-registered ids, PKCE and `resource` are the
// SDK's; Keel stores the results (./store), keeps refresh rotation honest (./rotation) and owns
// the user's side: "defer" records that a login is needed, "interactive" runs the browser flow.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { err, ok, type Result } from "neverthrow";
import type { OAuthSettings, ServerSpec } from "../../config/servers.js";
import type { AuthSession } from "../connection.js";
import { classify, type McpFailure } from "../errors.js";
import type { BrowserOpener } from "./browser.js";
import { freePort, listenForCallback } from "./callback.js";
import { crossAppProvider } from "./cross-app.js";
import { guardRefresh } from "./rotation.js";
import { AuthStore } from "./store.js";

export type AuthMode = "defer" | "interactive";

export interface OAuthSessionOptions {
  server: string;
  url: string;
  settings: OAuthSettings;
  /** Where the token files live (`<keel home>/mcp/oauth`). */
  storeDir: string;
  open: BrowserOpener;
  /** Tells the user something (the URL to open when no browser could be). */
  tell?: (message: string) => void;
  /** How long the browser flow may take (default five minutes). */
  callbackTimeoutMs?: number;
  fetch?: FetchLike;
  clientName?: string;
  clientVersion?: string;
}

/** The message a headless host shows: what happened and the one command that fixes it. */
export function loginHint(server: string, scope?: string): string {
  const what = scope ? `needs more access (scope "${scope}")` : "needs authorization";
  return `MCP server "${server}" ${what}: run \`keel mcp login ${server}\` (or /mcp login ${server} in the TUI)`;
}

function readKey(path: string): Result<string, { type: "key_unreadable"; message: string }> {
  try {
    return ok(readFileSync(path, "utf8"));
  } catch (error) {
    return err({
      type: "key_unreadable",
      message: `cannot read the private key file ${path}: ${(error as Error).message}`,
    });
  }
}

/** A server's OAuth session: an HTTP server gets one unless its config turns OAuth off (`"oauth": false`). */
export function oauthSessionFor(
  spec: ServerSpec,
  options: Omit<OAuthSessionOptions, "server" | "url" | "settings">,
): OAuthSession | undefined {
  if (spec.transport === "stdio" || spec.oauth === false) return undefined;
  return new OAuthSession({ server: spec.name, url: spec.url, settings: spec.oauth, ...options });
}

export class OAuthSession implements AuthSession {
  mode: AuthMode = "defer";
  readonly store: AuthStore;
  readonly provider: OAuthClientProvider;
  readonly fetch: FetchLike;
  private pending: Promise<Result<string, McpFailure>> | undefined;
  private chosenPort: number | undefined;
  /**
   * Set while a 403 insufficient_scope is answered: a refresh keeps the old scope, so the SDK
   * must not be offered the refresh token then and goes to the authorization page instead.
   */
  private steppingUp = false;

  constructor(private readonly options: OAuthSessionOptions) {
    this.store = new AuthStore(options.storeDir, options.server, options.url);
    this.provider = this.makeProvider();
    const guarded = guardRefresh(this.store, options.fetch ?? fetch);
    this.fetch = async (input, init) => {
      const response = await guarded(input, init);
      if (response.status === 403 && extractWWWAuthenticateParams(response).error === "insufficient_scope")
        this.steppingUp = true;
      // The SDK reads redirectUrl synchronously once it decides to authorize: know the port first.
      if (response.status === 401 || response.status === 403) await this.preparePort();
      return response;
    };
  }

  get server(): string {
    return this.options.server;
  }

  /** Picks the loopback port of the redirect URI (configured, registered before, or a free one). */
  async preparePort(): Promise<number> {
    const known = this.port();
    if (known !== undefined) return known;
    const port = await freePort();
    this.chosenPort = port;
    this.store.update((record) => {
      record.callbackPort = port;
    });
    return port;
  }

  takeAuthorization(signal?: AbortSignal): Promise<Result<string, McpFailure>> {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) {
      const scope = this.store.read().pendingScope;
      return Promise.resolve(
        err({
          type: "auth_required",
          message: loginHint(this.options.server, scope),
          ...(scope ? { scope } : {}),
        }),
      );
    }
    if (!signal) return pending;
    return Promise.race([
      pending,
      new Promise<Result<string, McpFailure>>((resolve) => {
        if (signal.aborted) resolve(err({ type: "cancelled", message: "cancelled" }));
        signal.addEventListener("abort", () => resolve(err({ type: "cancelled", message: "cancelled" })), {
          once: true,
        });
      }),
    ]);
  }

  /**
   * Runs the browser flow now (login, or a step-up to `scope`), whatever the mode: the
   * authorization page, the code on the loopback listener, the token exchange. A refresh never
   * widens scope, so a step-up skips it.
   */
  async authorize(options: { scope?: string; signal?: AbortSignal } = {}): Promise<Result<void, McpFailure>> {
    const previous = this.mode;
    this.mode = "interactive";
    if (options.scope) this.steppingUp = true;
    const discovery = this.store.read().discovery;
    const base = {
      serverUrl: this.options.url,
      fetchFn: this.fetch,
      ...(options.scope ? { scope: options.scope } : {}),
      ...(discovery?.resourceMetadataUrl
        ? { resourceMetadataUrl: new URL(discovery.resourceMetadataUrl) }
        : {}),
    };
    try {
      await this.preparePort();
      if ((await auth(this.provider, base)) === "AUTHORIZED") return ok(undefined);
      const code = await this.takeAuthorization(options.signal);
      if (code.isErr()) return err(code.error);
      const result = await auth(this.provider, { ...base, authorizationCode: code.value });
      return result === "AUTHORIZED"
        ? ok(undefined)
        : err({
            type: "auth_required",
            message: `${this.options.server}: the authorization did not complete`,
          });
    } catch (error) {
      return err(classify(error));
    } finally {
      this.mode = previous;
      this.steppingUp = false;
    }
  }

  /** Forgets everything stored for this server (logout). */
  forget(): void {
    this.store.remove();
  }

  private port(): number | undefined {
    return this.options.settings.callbackPort ?? this.store.read().callbackPort ?? this.chosenPort;
  }

  private redirectUrl(): string {
    return `http://127.0.0.1:${this.port() ?? 0}/callback`;
  }

  private async redirect(authorizationUrl: URL): Promise<void> {
    this.steppingUp = false;
    const scope = authorizationUrl.searchParams.get("scope") ?? undefined;
    if (this.mode === "defer") {
      // Nobody asked for a browser now: remember what a login must ask for, and say so once.
      this.store.update((record) => {
        if (scope) record.pendingScope = scope;
        else delete record.pendingScope;
      });
      return;
    }
    const state = authorizationUrl.searchParams.get("state") ?? "";
    const listener = await listenForCallback({
      port: this.port() ?? (await this.preparePort()),
      state,
      timeoutMs: this.options.callbackTimeoutMs ?? 5 * 60_000,
    });
    if (listener.isErr()) {
      // A dynamically registered client can move to another port; the next attempt re-registers.
      if (this.options.settings.callbackPort === undefined && !this.options.settings.clientId) {
        this.chosenPort = undefined;
        this.store.update((record) => {
          delete record.callbackPort;
        });
        this.store.invalidate("client");
      }
      this.pending = Promise.resolve(err({ type: "auth_required", message: listener.error.message }));
      return;
    }
    this.pending = listener.value.code.then((code) =>
      code.isOk()
        ? ok(code.value)
        : err<string, McpFailure>({ type: "auth_required", message: code.error.message }),
    );
    const opened = await this.options.open(authorizationUrl);
    this.options.tell?.(
      opened
        ? `Opened the browser to authorize MCP server "${this.options.server}" (${authorizationUrl.host}).`
        : `To authorize MCP server "${this.options.server}", open this URL in a browser:\n${authorizationUrl.href}`,
    );
  }

  /** Machine credentials (no person, no browser): the SDK's providers, with tokens in Keel's store. */
  private machineProvider(): OAuthClientProvider {
    const { settings } = this.options;
    const clientId = settings.clientId ?? "";
    const key = settings.privateKeyFile ? readKey(settings.privateKeyFile) : undefined;
    const provider: OAuthClientProvider = key
      ? new PrivateKeyJwtProvider({
          clientId,
          privateKey: key.isOk() ? key.value : "",
          algorithm: settings.signingAlgorithm ?? "ES256",
          clientName: this.options.clientName ?? "Keel",
          ...(settings.scope ? { scope: settings.scope } : {}),
        })
      : new ClientCredentialsProvider({
          clientId,
          clientSecret: settings.clientSecret ?? "",
          clientName: this.options.clientName ?? "Keel",
          ...(settings.scope ? { scope: settings.scope } : {}),
        });
    if (key?.isErr()) {
      // A missing key file is a clear error at the first token request, not a crash at start.
      const { message } = key.error;
      provider.addClientAuthentication = () => {
        throw new Error(message);
      };
    }
    provider.tokens = () => this.store.entry()?.tokens;
    provider.saveTokens = (tokens) => this.store.saveTokens(tokens);
    provider.saveDiscoveryState = (state) =>
      void this.store.update((record) => {
        record.discovery = state;
      });
    provider.discoveryState = () => this.store.read().discovery;
    return provider;
  }

  private makeProvider(): OAuthClientProvider {
    const { settings: configured } = this.options;
    if (configured.grant === "client_credentials") return this.machineProvider();
    if (configured.grant === "cross_app_access" && configured.idp)
      return crossAppProvider({
        serverUrl: this.options.url,
        clientId: configured.clientId ?? "",
        ...(configured.clientSecret ? { clientSecret: configured.clientSecret } : {}),
        ...(configured.scope ? { scope: configured.scope } : {}),
        idp: configured.idp,
        store: this.store,
        clientName: this.options.clientName ?? "Keel",
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      });
    const session = this;
    const { settings } = this.options;
    const store = this.store;
    return {
      get redirectUrl() {
        return session.redirectUrl();
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: session.options.clientName ?? "Keel",
          redirect_uris: [session.redirectUrl()],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          software_id: "keel",
          ...(session.options.clientVersion ? { software_version: session.options.clientVersion } : {}),
          ...(settings.scope ? { scope: settings.scope } : {}),
        };
      },
      ...(settings.clientMetadataUrl ? { clientMetadataUrl: settings.clientMetadataUrl } : {}),
      state: () => randomBytes(16).toString("base64url"),
      clientInformation(): OAuthClientInformationMixed | undefined {
        if (settings.clientId)
          return {
            client_id: settings.clientId,
            ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}),
          };
        return store.entry()?.client;
      },
      saveClientInformation(info: OAuthClientInformationMixed) {
        store.saveClient(info);
      },
      tokens(): OAuthTokens | undefined {
        const tokens = store.entry()?.tokens;
        if (!tokens || !session.steppingUp) return tokens;
        const { refresh_token: _refresh, ...rest } = tokens;
        return rest;
      },
      saveTokens(tokens: OAuthTokens) {
        session.steppingUp = false;
        store.saveTokens(tokens);
      },
      redirectToAuthorization: (url: URL) => session.redirect(url),
      saveCodeVerifier(codeVerifier: string) {
        store.update((record) => {
          record.codeVerifier = codeVerifier;
        });
      },
      codeVerifier(): string {
        const verifier = store.read().codeVerifier;
        if (!verifier) throw new Error("no PKCE code verifier was saved for this authorization");
        return verifier;
      },
      invalidateCredentials(scope) {
        store.invalidate(scope);
      },
      saveDiscoveryState(state: OAuthDiscoveryState) {
        store.update((record) => {
          record.discovery = state;
        });
      },
      discoveryState(): OAuthDiscoveryState | undefined {
        return store.read().discovery;
      },
    };
  }
}
