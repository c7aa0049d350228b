// `keel connector list | login <id> | logout <id> | policy`: run by the CLI without a session.
// A login reads the token without echoing it (or from stdin with --with-token), checks it with
// the service when the connector can say who it belongs to, and stores it 0600. Tokens are never
// printed.
import type { CliIO, ExtensionCliCommand } from "@keel/extension-sdk";
import { type ConnectorConfig, DEFAULT_CONFIG } from "./config.js";
import { removeCredential, saveCredential } from "./credentials.js";
import { attemptFor } from "./entries.js";
import { ConnectorHub } from "./hub.js";
import { loadConnectorModules } from "./modules.js";
import type { Connector } from "./sdk/connector.js";
import { describeError } from "./sdk/errors.js";
import { policyReport, statusLines } from "./status.js";

const USAGE = `usage: keel connector <command>

  list                      the connectors and whether each is connected
  login <id> [--with-token] [--no-verify]
                            store a token for a connector (asked for without echo; --with-token
                            reads it from stdin); it is checked with the service unless --no-verify
  logout <id>               remove the stored token (an environment variable still counts)
  policy                    the approval rule for every action and where it comes from
`;

export interface ConnectorCliOptions {
  /** Reads all of stdin (for --with-token); default process.stdin. */
  readStdin?: () => Promise<string>;
  /** How long a login's check with the service may take. Default 15 s. */
  verifyTimeoutMs?: number;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

/** The host validated it; this only fills what an older file may lack. */
function configOf(io: CliIO): ConnectorConfig {
  const raw = io.config;
  if (typeof raw !== "object" || raw === null) return DEFAULT_CONFIG;
  return { ...DEFAULT_CONFIG, ...(raw as Partial<ConnectorConfig>) };
}

async function connectorsFor(
  builtIn: readonly Connector[],
  config: ConnectorConfig,
  io: CliIO,
): Promise<Connector[]> {
  const loaded = await loadConnectorModules(config.modules, new Set(builtIn.map((c) => c.id)));
  for (const problem of loaded.problems) io.stderr(`${problem}\n`);
  return [...builtIn, ...loaded.connectors];
}

async function login(
  connector: Connector,
  hub: ConnectorHub,
  config: ConnectorConfig,
  flags: Set<string>,
  io: CliIO & { dataDir(): string },
  options: ConnectorCliOptions,
): Promise<number> {
  let token: string | undefined;
  if (flags.has("--with-token")) token = (await (options.readStdin ?? readProcessStdin)()).trim();
  else if (io.interactive && io.prompt) {
    io.stdout(`${connector.auth.help}\n`);
    token = (await io.prompt(`${connector.label} ${connector.auth.tokenName}: `, { secret: true }))?.trim();
  } else {
    io.stderr(
      `No one to ask for the token here; pipe it in: keel connector login ${connector.id} --with-token < file\n`,
    );
    return 2;
  }
  if (!token) {
    io.stderr("No token given; nothing was stored.\n");
    return 1;
  }
  let account: string | undefined;
  if (connector.whoami && !flags.has("--no-verify")) {
    const { settings, tokenEnv } = hub.settingsOf(connector, config);
    const client = await connector.client(token, settings);
    const signal = AbortSignal.timeout(options.verifyTimeoutMs ?? 15_000);
    const who = await connector.whoami(client, { signal, attempt: attemptFor(connector, signal) });
    if (who.isErr()) {
      const wording = {
        label: connector.label,
        connectorId: connector.id,
        tokenEnv,
        baseUrl: settings.baseUrl,
      };
      io.stderr(
        `${describeError(who.error, wording).split(token).join("[redacted]")}\nNothing was stored (--no-verify stores it unchecked).\n`,
      );
      return 1;
    }
    account = who.value;
  }
  const saved = saveCredential(io.dataDir(), connector.id, {
    token,
    savedAt: new Date().toISOString(),
    ...(account ? { account } : {}),
  });
  if (saved.isErr()) {
    io.stderr(`${saved.error.message}\n`);
    return 1;
  }
  const { tokenEnv } = hub.settingsOf(connector, config);
  const shadow = io.env[tokenEnv]?.trim()
    ? ` Note: $${tokenEnv} is set and takes precedence over the stored token.`
    : "";
  io.stdout(
    `Logged in to ${connector.label}${account ? ` as ${account}` : ""}; the token is stored in ${io.dataDir()} (readable only by you).${shadow}\n`,
  );
  return 0;
}

export function connectorCli(
  builtIn: readonly Connector[],
  options: ConnectorCliOptions = {},
): ExtensionCliCommand {
  return {
    name: "connector",
    summary: "connect GitHub, Linear … and show the connector approval policy",
    usage: USAGE,
    async run(argv, io) {
      const [command, ...rest] = argv;
      if (command === undefined || command === "--help" || command === "-h" || command === "help") {
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      }
      // Logins live where sessions read them; a host that cannot say where must not guess.
      const dataDir = io.dataDir;
      if (!dataDir) {
        io.stderr(
          "This keel gives extension commands no data folder, so logins cannot be stored; update keel.\n",
        );
        return 1;
      }
      const config = configOf(io);
      const connectors = await connectorsFor(builtIn, config, io);
      const hub = new ConnectorHub(connectors, io.env, () => dataDir());
      const flags = new Set(rest.filter((a) => a.startsWith("--")));
      const [id, ...extra] = rest.filter((a) => !a.startsWith("--"));
      const known = new Set(["--with-token", "--no-verify"]);
      const badFlag = [...flags].find((f) => !known.has(f) || command !== "login");
      if (badFlag) {
        io.stderr(`Unknown option ${badFlag} for keel connector ${command}.\n${USAGE}`);
        return 2;
      }
      const pick = (): Connector | undefined => {
        const connector = id === undefined ? undefined : hub.find(id);
        if (!connector || extra.length > 0)
          io.stderr(
            `${id === undefined ? "Name a connector" : extra.length > 0 ? "One connector at a time" : `No connector "${id}"`}: one of ${connectors.map((c) => c.id).join(", ")}.\n`,
          );
        return extra.length > 0 ? undefined : connector;
      };
      switch (command) {
        case "list":
          io.stdout(`${statusLines(hub, config).join("\n")}\n`);
          return 0;
        case "policy":
          io.stdout(`${policyReport(connectors, config, "user")}\n`);
          return 0;
        case "login": {
          const connector = pick();
          return connector ? login(connector, hub, config, flags, { ...io, dataDir }, options) : 2;
        }
        case "logout": {
          const connector = pick();
          if (!connector) return 2;
          const removed = removeCredential(dataDir(), connector.id);
          if (removed.isErr()) {
            io.stderr(`${removed.error.message}\n`);
            return 1;
          }
          const { tokenEnv } = hub.settingsOf(connector, config);
          const still = io.env[tokenEnv]?.trim()
            ? ` $${tokenEnv} is still set, so ${connector.label} stays connected.`
            : "";
          io.stdout(
            `${removed.value ? `Removed the stored ${connector.label} token.` : `No stored ${connector.label} token.`}${still}\n`,
          );
          return 0;
        }
        default:
          io.stderr(`Unknown command "${command}".\n${USAGE}`);
          return 2;
      }
    },
  };
}
