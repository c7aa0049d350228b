// Reading and editing the files servers live in, for `keel mcp …`: the user's config
// (`extensions.mcp.config.servers`) and a project's `.mcp.json` (`mcpServers`). Edits keep every
// other key, are written atomically, and a file that does not parse is refused, never replaced.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { err, ok, type Result } from "neverthrow";

export interface FileProblem {
  type: "invalid_file";
  path: string;
  message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function readJsonObject(path: string): Result<Json | undefined, FileProblem> {
  if (!existsSync(path)) return ok(undefined);
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (!isObject(value))
      return err({ type: "invalid_file", path, message: `${path} does not hold a JSON object` });
    return ok(value);
  } catch (error) {
    return err({
      type: "invalid_file",
      path,
      message: `${path} is not valid JSON (${(error as Error).message}); nothing was changed`,
    });
  }
}

function writeAtomically(path: string, value: Json): Result<void, FileProblem> {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
    const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode });
    renameSync(temp, path);
    return ok(undefined);
  } catch (error) {
    return err({
      type: "invalid_file",
      path,
      message: `could not write ${path}: ${(error as Error).message}`,
    });
  }
}

export type Scope = "user" | "project";

export interface ServerFile {
  path: string;
  scope: Scope;
}

export function userConfigFile(keelHome: string): ServerFile {
  return { path: join(keelHome, "config.json"), scope: "user" };
}

export function projectMcpJson(projectRoot: string): ServerFile {
  return { path: join(projectRoot, ".mcp.json"), scope: "project" };
}

/** The servers of one file, as written (unexpanded). */
export function serversIn(file: ServerFile): Result<Record<string, unknown>, FileProblem> {
  return readJsonObject(file.path).map((json) => {
    if (!json) return {};
    if (file.scope === "project") return isObject(json.mcpServers) ? json.mcpServers : {};
    const extensions = isObject(json.extensions) ? json.extensions : {};
    const mcp = isObject(extensions.mcp) ? extensions.mcp : {};
    const config = isObject(mcp.config) ? mcp.config : {};
    return isObject(config.servers) ? config.servers : {};
  });
}

/** Rewrites the servers of one file with `change`, keeping everything else in it. */
export function editServers(
  file: ServerFile,
  change: (servers: Record<string, unknown>) => Record<string, unknown>,
): Result<void, FileProblem> {
  const read = readJsonObject(file.path);
  if (read.isErr()) return err(read.error);
  const json = read.value ?? {};
  if (file.scope === "project") {
    json.mcpServers = change(isObject(json.mcpServers) ? { ...json.mcpServers } : {});
    return writeAtomically(file.path, json);
  }
  const extensions = isObject(json.extensions) ? json.extensions : {};
  const mcp = isObject(extensions.mcp) ? extensions.mcp : {};
  const config = isObject(mcp.config) ? mcp.config : {};
  config.servers = change(isObject(config.servers) ? { ...config.servers } : {});
  mcp.config = config;
  extensions.mcp = mcp;
  json.extensions = extensions;
  return writeAtomically(file.path, json);
}

/** The project root a session in `cwd` trusts: the nearest folder with .git or .keel, or cwd. */
export function projectRootOf(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git")) || existsSync(join(dir, ".keel"))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}
