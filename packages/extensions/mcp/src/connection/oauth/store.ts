// OAuth state of one server on disk: under the Keel home, one 0600 file per server (keyed by its
// name and URL, so a renamed or repointed server never inherits tokens), entries per issuer.
// Every read goes to the file, so two Keel processes see each other's refreshes.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export interface StoredTokens extends OAuthTokens {
  /** When they were saved (ms since the epoch), to tell when the access token expires. */
  savedAt: number;
}

export interface IssuerEntry {
  client?: OAuthClientInformationMixed;
  tokens?: StoredTokens;
  /** SHA-256 of refresh tokens the server replaced: never sent again. */
  spent?: string[];
}

export interface AuthRecord {
  version: 1;
  server: string;
  url: string;
  issuers: Record<string, IssuerEntry>;
  discovery?: OAuthDiscoveryState;
  codeVerifier?: string;
  /** The loopback port the redirect URI was registered with. */
  callbackPort?: number;
  /** Scope a server asked for (step-up) that a login should request. */
  pendingScope?: string;
}

const NO_ISSUER = "";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function authFileName(server: string, url: string): string {
  const safe = server.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40);
  return `${safe}-${createHash("sha256").update(url).digest("hex").slice(0, 12)}.json`;
}

export class AuthStore {
  readonly file: string;

  constructor(
    readonly dir: string,
    readonly server: string,
    readonly url: string,
  ) {
    this.file = join(dir, authFileName(server, url));
  }

  read(): AuthRecord {
    try {
      const record = JSON.parse(readFileSync(this.file, "utf8")) as AuthRecord;
      if (record.version === 1 && record.url === this.url) return record;
    } catch {
      // none yet, or unreadable: start over rather than send garbage to a token endpoint
    }
    return { version: 1, server: this.server, url: this.url, issuers: {} };
  }

  update(change: (record: AuthRecord) => void): AuthRecord {
    const record = this.read();
    change(record);
    const written = writeFileAtomic(this.file, `${JSON.stringify(record, null, 2)}\n`, {
      mode: 0o600,
      dirMode: 0o700,
    });
    // The MCP SDK's auth provider reports a failed save by the exception, as it does its own.
    if (written.isErr()) throw new Error(`${this.file} could not be written: ${written.error.message}`);
    return record;
  }

  remove(): void {
    rmSync(this.file, { force: true });
  }

  /** The issuer discovery points at now (the SDK binds credentials to it). */
  currentIssuer(record = this.read()): string | undefined {
    return record.discovery?.authorizationServerUrl;
  }

  /** The entry of the current issuer or, before discovery ran, the one most recently used. */
  entry(record = this.read()): IssuerEntry | undefined {
    const issuer = this.currentIssuer(record);
    if (issuer !== undefined) return record.issuers[issuer];
    const entries = Object.values(record.issuers);
    return entries.sort((a, b) => (b.tokens?.savedAt ?? 0) - (a.tokens?.savedAt ?? 0))[0];
  }

  saveClient(client: OAuthClientInformationMixed): void {
    this.update((record) => {
      const issuer = client.issuer ?? this.currentIssuer(record) ?? NO_ISSUER;
      record.issuers[issuer] = { ...record.issuers[issuer], client };
    });
  }

  saveTokens(tokens: OAuthTokens): void {
    this.update((record) => {
      const issuer = tokens.issuer ?? this.currentIssuer(record) ?? NO_ISSUER;
      const entry = record.issuers[issuer] ?? {};
      const previous = entry.tokens?.refresh_token;
      // The SDK keeps the old refresh token when the server sent none (no rotation): same token.
      const spent =
        previous && tokens.refresh_token && previous !== tokens.refresh_token
          ? [...new Set([...(entry.spent ?? []), hashToken(previous)])].slice(-20)
          : entry.spent;
      record.issuers[issuer] = {
        ...entry,
        tokens: { ...tokens, savedAt: Date.now() },
        ...(spent ? { spent } : {}),
      };
      delete record.pendingScope;
    });
  }

  /** Records that `refreshToken` was replaced by the server (called before the SDK saves the new pair). */
  markSpent(refreshToken: string): void {
    const hash = hashToken(refreshToken);
    this.update((record) => {
      for (const entry of Object.values(record.issuers)) {
        if (entry.tokens?.refresh_token === refreshToken || entry.spent?.includes(hash)) {
          entry.spent = [...new Set([...(entry.spent ?? []), hash])].slice(-20);
        }
      }
    });
  }

  isSpent(refreshToken: string): boolean {
    const hash = hashToken(refreshToken);
    return Object.values(this.read().issuers).some((entry) => entry.spent?.includes(hash));
  }

  invalidate(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.update((record) => {
      const issuer = this.currentIssuer(record);
      const entry = issuer !== undefined ? record.issuers[issuer] : undefined;
      if ((scope === "all" || scope === "client") && entry) delete entry.client;
      if ((scope === "all" || scope === "tokens") && entry) delete entry.tokens;
      if (scope === "all" || scope === "verifier") delete record.codeVerifier;
      if (scope === "all" || scope === "discovery") delete record.discovery;
    });
  }
}
