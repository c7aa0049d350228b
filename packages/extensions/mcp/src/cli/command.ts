// `keel mcp add | list | get | remove | login | logout`: edits the user's config (default) or a
// project's `.mcp.json` (`--scope project`, Claude Code's format), checks servers, and runs the
// browser login whose tokens sessions then use. An untrusted project's files are never read.
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CliIO } from "@keel/extension-sdk";
import {
  editServers,
  projectMcpJson,
  projectRootOf,
  type Scope,
  serversIn,
  userConfigFile,
} from "../config/files.js";
import { collectServers } from "../config/layers.js";
import { parseServer, type ServerSpec } from "../config/servers.js";
import { McpConnection } from "../connection/index.js";
import { browserOpener } from "../connection/oauth/browser.js";
import { oauthSessionFor } from "../connection/oauth/session.js";
import { describeEntry } from "./describe.js";
import { USAGE } from "./usage.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function dataDir(io: CliIO): string {
  // The same folder the runtime's dataDir() gives this extension in a session.
  return io.dataDir?.() ?? join(io.keelHome, "data", "mcp");
}

/** Servers of the user's file and, when trusted, the project's files, resolved. */
function configured(io: CliIO): { specs: ServerSpec[]; problems: string[] } {
  const problems: string[] = [];
  const user = serversIn(userConfigFile(io.keelHome));
  if (user.isErr()) problems.push(user.error.message);
  const trusted = io.workspace?.trusted === true;
  const root = io.workspace?.projectRoot ?? io.cwd;
  const project = trusted ? serversIn(projectMcpJson(root)) : undefined;
  if (project?.isErr()) problems.push(project.error.message);
  const collected = collectServers(
    { servers: user.isOk() ? user.value : {} },
    project?.isOk() ? { path: projectMcpJson(root).path, servers: project.value } : undefined,
    {
      env: io.env,
      cwd: io.cwd,
      projectRoot: root,
      userOrigin: userConfigFile(io.keelHome).path,
      projectOrigin: ".keel/config.json",
    },
  );
  problems.push(...collected.problems.map((p) => p.message));
  return { specs: collected.servers.map((s) => s.spec), problems };
}

function connectionFor(io: CliIO, spec: ServerSpec, interactive: boolean) {
  const auth = oauthSessionFor(spec, {
    storeDir: join(dataDir(io), "oauth"),
    open: browserOpener(io.env),
    tell: (message) => io.stdout(`${message}\n`),
  });
  if (auth && interactive) auth.mode = "interactive";
  const connection = new McpConnection(
    { ...spec, startupTimeoutMs: Math.min(spec.startupTimeoutMs, interactive ? 600_000 : 10_000) },
    {
      clientInfo: { name: "keel", version: "0.1.0" },
      logFile: join(dataDir(io), "logs", `${spec.name.replace(/[^A-Za-z0-9_-]/g, "_")}.log`),
      handlers: { roots: () => [], elicit: async () => ({ action: "decline" }) },
      ...(auth ? { auth } : {}),
      backoff: { maxAttempts: 0 },
      shutdownGraceMs: 300,
    },
  );
  return { connection, auth };
}

async function check(io: CliIO, spec: ServerSpec): Promise<string> {
  if (!spec.enabled) return "disabled";
  const { connection } = connectionFor(io, spec, false);
  try {
    const ready = await connection.ready();
    if (ready.isErr())
      return ready.error.type === "auth_required"
        ? `needs login: keel mcp login ${spec.name}`
        : `failed: ${ready.error.message}`;
    // Connected is not listed: a server may take the handshake and want a login for tools/list.
    if (!connection.hasListed()) {
      const error = connection.status().lastError;
      return error?.type === "auth_required"
        ? `connected, but it needs a login to list its tools: keel mcp login ${spec.name}`
        : `connected, but listing its tools failed${error ? `: ${error.message}` : ""}`;
    }
    return `connected, ${connection.status().tools} tools`;
  } finally {
    await connection.close();
  }
}

function parseEntry(
  values: { transport?: string; env?: string[]; header?: string[] },
  rest: string[],
  command: string[],
) {
  const env = Object.fromEntries(
    (values.env ?? []).map((pair) => {
      const eq = pair.indexOf("=");
      return eq > 0 ? [pair.slice(0, eq), pair.slice(eq + 1)] : [pair, ""];
    }),
  );
  const headers = Object.fromEntries(
    (values.header ?? []).map((line) => {
      const colon = line.indexOf(":");
      return colon > 0 ? [line.slice(0, colon).trim(), line.slice(colon + 1).trim()] : [line.trim(), ""];
    }),
  );
  if (command.length > 0)
    return {
      type: "stdio",
      command: command[0],
      args: command.slice(1),
      ...(values.env?.length ? { env } : {}),
    };
  const url = rest[0];
  return {
    type: values.transport ?? "http",
    url,
    ...(values.header?.length ? { headers } : {}),
    ...(values.env?.length ? { env } : {}),
  };
}

async function add(argv: string[], io: CliIO): Promise<number> {
  const split = argv.indexOf("--");
  const own = split >= 0 ? argv.slice(0, split) : argv;
  const command = split >= 0 ? argv.slice(split + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      scope: { type: "string", short: "s" },
      transport: { type: "string", short: "t" },
      env: { type: "string", short: "e", multiple: true },
      header: { type: "string", short: "H", multiple: true },
      force: { type: "boolean", short: "f" },
    },
  });
  const [name, ...rest] = positionals;
  const scope = (values.scope ?? "user") as Scope;
  if (!name || (command.length === 0 && rest.length !== 1) || (command.length > 0 && rest.length > 0))
    return usage(io, "add needs a name and either a URL or `-- <command> [args…]`");
  if (!NAME.test(name)) return usage(io, `"${name}" is not a valid server name (letters, digits, _ . -)`);
  if (scope !== "user" && scope !== "project") return usage(io, `--scope is user or project, not ${scope}`);
  const entry = parseEntry(values, rest, command);
  const checked = parseServer(name, entry, { scope, origin: "keel mcp add", env: io.env, baseDir: io.cwd });
  if (checked.isErr()) return usage(io, checked.error.message);
  const file =
    scope === "user"
      ? userConfigFile(io.keelHome)
      : projectMcpJson(io.workspace?.projectRoot ?? projectRootOf(io.cwd));
  // Replacing an entry replaces it whole (its env and headers too): only when asked.
  const present = serversIn(file);
  if (present.isOk() && name in present.value && values.force !== true) {
    io.stderr(
      `MCP server "${name}" already exists in ${file.path}. Adding it again would replace the whole entry, its env and headers included: remove it first (keel mcp remove ${name}${scope === "project" ? " --scope project" : ""}), or replace it with --force.\n`,
    );
    return 1;
  }
  const replaced = present.isOk() && name in present.value;
  const written = editServers(file, (servers) => ({ ...servers, [name]: entry }));
  if (written.isErr()) {
    io.stderr(`${written.error.message}\n`);
    return 1;
  }
  io.stdout(
    `${replaced ? "Replaced" : "Added"} MCP server "${name}" ${replaced ? "in" : "to"} ${file.path}.\n`,
  );
  for (const warning of checked.value.warnings) io.stdout(`Note: ${warning}\n`);
  if (scope === "project")
    io.stdout(
      "A project's servers start only in a trusted project; .mcp.json changed, so trust it again with /trust.\n",
    );
  return 0;
}

async function remove(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { scope: { type: "string", short: "s" } },
  });
  const name = positionals[0];
  if (!name) return usage(io, "remove needs a server name");
  const scope = (values.scope ?? "user") as Scope;
  const file =
    scope === "project"
      ? projectMcpJson(io.workspace?.projectRoot ?? projectRootOf(io.cwd))
      : userConfigFile(io.keelHome);
  const present = serversIn(file);
  if (present.isErr()) {
    io.stderr(`${present.error.message}\n`);
    return 1;
  }
  if (!(name in present.value)) {
    io.stderr(`No MCP server "${name}" in ${file.path}.\n`);
    return 1;
  }
  const written = editServers(file, (servers) => {
    const { [name]: _gone, ...others } = servers;
    return others;
  });
  if (written.isErr()) {
    io.stderr(`${written.error.message}\n`);
    return 1;
  }
  io.stdout(`Removed MCP server "${name}" from ${file.path}.\n`);
  return 0;
}

async function list(io: CliIO): Promise<number> {
  const { specs, problems } = configured(io);
  for (const problem of problems) io.stderr(`${problem}\n`);
  if (specs.length === 0) io.stdout("No MCP servers configured. Add one with `keel mcp add`.\n");
  const states = await Promise.all(specs.map((spec) => check(io, spec)));
  specs.forEach((spec, i) => {
    io.stdout(`${spec.name} (${spec.scope}, ${describeEntry(spec)}) — ${states[i]}\n`);
  });
  if (io.workspace?.trusted !== true)
    io.stdout(
      "Project servers (.mcp.json, .keel/config.json) are listed once the project is trusted (/trust in keel).\n",
    );
  return problems.length > 0 ? 1 : 0;
}

async function get(argv: string[], io: CliIO): Promise<number> {
  const name = argv[0];
  if (!name) return usage(io, "get needs a server name");
  const spec = configured(io).specs.find((s) => s.name === name);
  if (!spec) {
    io.stderr(`No MCP server "${name}" (see keel mcp list).\n`);
    return 1;
  }
  io.stdout(`${spec.name}\n  scope: ${spec.scope} (${spec.origin})\n  ${describeEntry(spec, true)}\n`);
  if (spec.transport !== "stdio" && spec.oauth !== false) {
    const { auth } = connectionFor(io, spec, false);
    const tokens = auth?.store.entry()?.tokens;
    io.stdout(
      `  oauth: ${tokens ? `logged in (saved ${new Date(tokens.savedAt).toISOString()})` : "not logged in"}\n`,
    );
  }
  io.stdout(`  status: ${await check(io, spec)}\n`);
  return 0;
}

async function login(argv: string[], io: CliIO, logout: boolean): Promise<number> {
  const name = argv[0];
  if (!name) return usage(io, `${logout ? "logout" : "login"} needs a server name`);
  const spec = configured(io).specs.find((s) => s.name === name);
  if (!spec) {
    io.stderr(`No MCP server "${name}" (see keel mcp list; a project's servers need a trusted project).\n`);
    return 1;
  }
  if (spec.transport === "stdio" || spec.oauth === false) {
    io.stderr(`MCP server "${name}" does not use OAuth.\n`);
    return 1;
  }
  const { connection, auth } = connectionFor(io, spec, true);
  try {
    if (logout) {
      auth?.forget();
      io.stdout(`Forgot the tokens of "${name}".\n`);
      return 0;
    }
    const ready = await connection.ready();
    if (ready.isErr()) {
      io.stderr(`Login to "${name}" did not complete: ${ready.error.message}\n`);
      return 1;
    }
    const scope = auth?.store.read().pendingScope;
    if (!auth?.store.entry()?.tokens && !scope) {
      io.stdout(
        `"${name}" did not ask for authorization; nothing to do (${connection.status().tools} tools).\n`,
      );
      return 0;
    }
    if (scope && auth) {
      const stepped = await auth.authorize({ scope });
      if (stepped.isErr()) {
        io.stderr(`Authorizing scope "${scope}" did not complete: ${stepped.error.message}\n`);
        return 1;
      }
    }
    io.stdout(`Logged in to "${name}" (${connection.status().tools} tools). Sessions use these tokens.\n`);
    return 0;
  } finally {
    await connection.close();
  }
}

function usage(io: CliIO, message: string): number {
  io.stderr(`${message}\n\n${USAGE}\n`);
  return 2;
}

export async function runMcpCli(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "add":
        return await add(rest, io);
      case "remove":
        return await remove(rest, io);
      case "list":
        return await list(io);
      case "get":
        return await get(rest, io);
      case "login":
        return await login(rest, io, false);
      case "logout":
        return await login(rest, io, true);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        return usage(io, `unknown command "${command}"`);
    }
  } catch (error) {
    // parseArgs throws on unknown flags: a usage error, said plainly.
    return usage(io, error instanceof Error ? error.message : String(error));
  }
}
