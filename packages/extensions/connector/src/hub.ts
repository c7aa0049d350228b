// The connectors of one session: which are enabled, where each one's token comes from, and one
// client per token and base URL. Reads credentials on demand, so a login made by
// `keel connector login` in another terminal is picked up at the next discovery.
import { err, ok, type Result } from "neverthrow";
import type { ConnectorConfig } from "./config.js";
import { type CredentialsError, type ResolvedToken, readStore, resolveToken } from "./credentials.js";
import type { Connector, ConnectorSettings } from "./sdk/connector.js";

export type ConnectorStatus =
  | { state: "disabled" }
  | { state: "not_connected"; tokenEnv: string; problem?: CredentialsError }
  | { state: "connected"; tokenEnv: string; credential: Omit<ResolvedToken, "token"> };

export interface LiveConnector {
  connector: Connector;
  settings: ConnectorSettings;
  tokenEnv: string;
  status: ConnectorStatus;
}

/** A client with the token it was made for (kept out of whatever the call returns). */
export interface LiveClient {
  client: unknown;
  token: string;
}

/**
 * Why there is no client: no token (logged out, or the connector disabled), a base URL the token
 * must not be sent to (plain http off this machine), or a client the connector failed to make.
 */
export interface ClientProblem {
  type: "not_connected" | "unsafe_url" | "client_failed";
  message: string;
}

export class ConnectorHub {
  private readonly clients = new Map<string, { key: string; client: Promise<unknown> }>();

  constructor(
    readonly connectors: readonly Connector[],
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly dataDir: () => string,
  ) {}

  find(id: string): Connector | undefined {
    return this.connectors.find((c) => c.id === id);
  }

  settingsOf(
    connector: Connector,
    config: ConnectorConfig,
  ): { settings: ConnectorSettings; tokenEnv: string; enabled: boolean } {
    const own = config.connectors[connector.id] ?? {};
    return {
      settings: { baseUrl: own.baseUrl ?? connector.defaultBaseUrl },
      tokenEnv: own.tokenEnv ?? connector.auth.env,
      enabled: own.enabled !== false,
    };
  }

  private token(
    connector: Connector,
    tokenEnv: string,
  ): { token?: ResolvedToken; problem?: CredentialsError } {
    const dir = this.dataDir();
    const store = readStore(dir);
    // A broken credentials file must not hide a token in the environment.
    const token = resolveToken(connector.id, tokenEnv, this.env, store.unwrapOr({}), dir);
    return {
      ...(token ? { token } : {}),
      ...(store.isErr() ? { problem: store.error } : {}),
    };
  }

  /** The token the connector would use now (environment or stored login), if any. */
  currentToken(connector: Connector, config: ConnectorConfig): string | undefined {
    const { tokenEnv, enabled } = this.settingsOf(connector, config);
    return enabled ? this.token(connector, tokenEnv).token?.token : undefined;
  }

  live(connector: Connector, config: ConnectorConfig): LiveConnector {
    const { settings, tokenEnv, enabled } = this.settingsOf(connector, config);
    if (!enabled) return { connector, settings, tokenEnv, status: { state: "disabled" } };
    const { token, problem } = this.token(connector, tokenEnv);
    if (!token)
      return {
        connector,
        settings,
        tokenEnv,
        status: { state: "not_connected", tokenEnv, ...(problem ? { problem } : {}) },
      };
    const { token: _secret, ...credential } = token;
    return { connector, settings, tokenEnv, status: { state: "connected", tokenEnv, credential } };
  }

  /** The client for the connector's current token. */
  async client(connector: Connector, config: ConnectorConfig): Promise<Result<LiveClient, ClientProblem>> {
    const { settings, tokenEnv, enabled } = this.settingsOf(connector, config);
    const token = enabled ? this.token(connector, tokenEnv).token : undefined;
    if (!token)
      return err({
        type: "not_connected",
        message: `${connector.label} is not connected (no $${tokenEnv} and no stored login).`,
      });
    const safe = plainTextAllowed(settings.baseUrl);
    if (safe.isErr()) return err(safe.error);
    const key = `${settings.baseUrl}\0${token.token}`;
    let cached = this.clients.get(connector.id);
    if (cached?.key !== key) {
      // One client per token and URL, also for calls that race to make the first one.
      cached = { key, client: Promise.resolve().then(() => connector.client(token.token, settings)) };
      this.clients.set(connector.id, cached);
    }
    try {
      return ok({ client: await cached.client, token: token.token });
    } catch (e) {
      this.clients.delete(connector.id);
      return err({
        type: "client_failed",
        message: `${connector.label}: the client could not be created (${e instanceof Error ? e.message : String(e)}).`,
      });
    }
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A token goes over plain http only to this machine (a local fake, a tunnel's local end). */
export function plainTextAllowed(baseUrl: string): Result<void, ClientProblem> {
  const unsafe = (message: string) => err<void, ClientProblem>({ type: "unsafe_url", message });
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return unsafe(`The base URL "${baseUrl}" is not a URL.`);
  }
  if (url.protocol === "https:") return ok(undefined);
  if (url.protocol === "http:" && (LOOPBACK.has(url.hostname) || url.hostname.startsWith("127.")))
    return ok(undefined);
  return unsafe(
    `The base URL ${baseUrl} would send the token unencrypted; use https (plain http is accepted only for localhost).`,
  );
}
