// Where a connector's token comes from: the environment variable named in config, else the
// 0600 file `keel connector login` writes in the extension's data folder. Tokens stay in this
// module and the clients; nothing here logs, journals or returns them in a message.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";

export const CREDENTIALS_FILE = "credentials.json";

export interface StoredCredential {
  token: string;
  savedAt: string;
  /** Who the token belongs to, when the login checked it. */
  account?: string;
}

export type CredentialSource = { kind: "env"; variable: string } | { kind: "file"; path: string };

export interface ResolvedToken {
  token: string;
  source: CredentialSource;
  account?: string;
}

export interface CredentialsError {
  type: "credentials_unreadable" | "credentials_unwritable";
  message: string;
}

export function credentialsPath(dataDir: string): string {
  return join(dataDir, CREDENTIALS_FILE);
}

type Store = Record<string, StoredCredential>;

function isStored(value: unknown): value is StoredCredential {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as StoredCredential).token === "string" &&
    (value as StoredCredential).token.length > 0
  );
}

/** The stored logins; a missing file is an empty store, a broken one an error naming the file. */
export function readStore(dataDir: string): Result<Store, CredentialsError> {
  const path = credentialsPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return ok({});
    return err({
      type: "credentials_unreadable",
      message: `${path} could not be read (${(e as Error).message}).`,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never quote the content: it holds tokens.
    return err({
      type: "credentials_unreadable",
      message: `${path} is not valid JSON; remove it and log in again with \`keel connector login <id>\`.`,
    });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return err({ type: "credentials_unreadable", message: `${path} does not hold an object of logins.` });
  const store: Store = {};
  for (const [id, value] of Object.entries(parsed)) if (isStored(value)) store[id] = value;
  return ok(store);
}

/** True when the file's mode lets anyone but its owner read it. */
export function tooOpen(dataDir: string): boolean {
  try {
    return (statSync(credentialsPath(dataDir)).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/** Writes the whole store atomically, 0600 whatever the umask, in a 0700 folder. */
function writeStore(dataDir: string, store: Store): Result<void, CredentialsError> {
  const path = credentialsPath(dataDir);
  return writeFileAtomic(path, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 })
    .map(() => undefined)
    .mapErr((e) => ({
      type: "credentials_unwritable" as const,
      message: `${path} could not be written (${e.message}).`,
    }));
}

export function saveCredential(
  dataDir: string,
  connectorId: string,
  credential: StoredCredential,
): Result<void, CredentialsError> {
  return readStore(dataDir).andThen((store) => writeStore(dataDir, { ...store, [connectorId]: credential }));
}

/** Removes a stored login; false when there was none. */
export function removeCredential(dataDir: string, connectorId: string): Result<boolean, CredentialsError> {
  return readStore(dataDir).andThen((store) => {
    if (!(connectorId in store)) return ok(false);
    const { [connectorId]: _removed, ...rest } = store;
    return writeStore(dataDir, rest).map(() => true);
  });
}

/** The environment wins over a stored login, as with other CLIs' `*_TOKEN` variables. */
export function resolveToken(
  connectorId: string,
  tokenEnv: string,
  env: Readonly<Record<string, string | undefined>>,
  store: Store,
  dataDir: string,
): ResolvedToken | undefined {
  const fromEnv = env[tokenEnv]?.trim();
  if (fromEnv) return { token: fromEnv, source: { kind: "env", variable: tokenEnv } };
  const stored = store[connectorId];
  if (stored)
    return {
      token: stored.token,
      source: { kind: "file", path: credentialsPath(dataDir) },
      ...(stored.account ? { account: stored.account } : {}),
    };
  return undefined;
}
