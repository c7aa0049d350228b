// The environment a command the model runs starts with: Keel's own (or the login shell's) minus
// every secret-looking variable — tokens, keys, passwords, provider keys, URLs with credentials,
// the connector's and MCP servers' credential variables — unless the user lists it by name.

/** Name segments (split at `_`) that mark a variable as a secret. */
const SECRET_SEGMENTS = new Set([
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "KEY",
  "KEYS",
  "APIKEY",
  "CREDENTIAL",
  "CREDENTIALS",
  "PAT",
  "COOKIE",
]);

/** Values that are credentials whatever their variable is called. */
const SECRET_VALUE =
  /^(?:gh[pousr]_|github_pat_|glpat-|sk-|xox[abposr]-|AKIA[0-9A-Z]{12}|npm_[A-Za-z0-9]{20})|^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]+:[^/@\s]+@/;

export function isSecretName(name: string): boolean {
  return name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .some((segment) => SECRET_SEGMENTS.has(segment));
}

export function isSecretVariable(name: string, value: string): boolean {
  return isSecretName(name) || SECRET_VALUE.test(value);
}

/** Shorter values are not scrubbed from output: "1" or "test" would redact half of everything. */
export const MIN_SECRET_LENGTH = 8;

export interface CommandEnvironment {
  env: Record<string, string>;
  /** Names left out. */
  dropped: string[];
  /** Values of every secret-looking variable (left out or listed by the user), for scrubbing output. */
  secrets: string[];
}

/**
 * Splits `base` into what commands get and the secret values to scrub. `extraSecretNames`: the
 * variables extensions said hold credentials (a connector's `tokenEnv`, an MCP server's `${VAR}`);
 * `allow`: the names the user lets through all the same.
 */
export function commandEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  options: { allow?: readonly string[]; extraSecretNames?: ReadonlySet<string> } = {},
): CommandEnvironment {
  const allow = new Set(options.allow ?? []);
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const secret = isSecretVariable(name, value) || options.extraSecretNames?.has(name) === true;
    if (secret && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
    if (secret && !allow.has(name)) dropped.push(name);
    else env[name] = value;
  }
  return { env, dropped, secrets: [...secrets] };
}
